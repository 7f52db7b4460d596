// Shell prompts as bash 5.x prints the distributions' default PS1 (Debian 12, Ubuntu 22.04:
// "\u@\h:\w\$ "; RHEL 9, Rocky 9: "[\u@\h \W]\$ "), with a virtualenv's or conda's "(name) ".
#include "evidence/shell_prompt.h"

#include <gtest/gtest.h>

namespace attrib::evidence {
namespace {

TEST(ShellPrompt, DistributionDefaultsNameTheHost) {
  EXPECT_EQ(shellPromptHost("root@node1:~# dmesg -T | grep NVRM"), "node1");
  EXPECT_EQ(shellPromptHost("(venv) root@node1:~/kubespray# nvidia-smi"), "node1");
  EXPECT_EQ(shellPromptHost("(abnn) mingzeya@c002:~/project/case1    $ "), "c002");
  EXPECT_EQ(shellPromptHost("user@gpu-7.cluster:/scratch/run$ sbatch job.sh"), "gpu-7.cluster");
  EXPECT_EQ(shellPromptHost("[root@gpu01 ~]# journalctl -k"), "gpu01");
  EXPECT_EQ(shellPromptHost("(base) [alice@login-2 work]$"), "login-2");
  EXPECT_EQ(shellPromptHost("root@node1:~#"), "node1");
}

TEST(ShellPrompt, LinesThatOnlyLookLikeOneAreNot) {
  EXPECT_EQ(shellPromptHost("user@example.com: permission denied"), "");
  EXPECT_EQ(shellPromptHost("Contact admin@cluster for help"), "");
  EXPECT_EQ(shellPromptHost("root@node1:~#dmesg"), "");  // no blank after the sign
  EXPECT_EQ(shellPromptHost("[root@gpu01 my dir]# ls"), "");
  EXPECT_EQ(shellPromptHost("[root@gpu01 ~] ls"), "");
  EXPECT_EQ(shellPromptHost("@node1:~# ls"), "");
  EXPECT_EQ(shellPromptHost("root@:~# ls"), "");
  EXPECT_EQ(shellPromptHost("(unclosed root@node1:~# ls"), "");
  EXPECT_EQ(shellPromptHost(""), "");
  EXPECT_EQ(shellPromptHost("root@node1"), "");
  EXPECT_EQ(shellPromptHost("[root@node1"), "");
}

}  // namespace
}  // namespace attrib::evidence
