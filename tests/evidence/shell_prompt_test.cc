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
  EXPECT_EQ(shellPromptHost("> core@paigcr-a-gpu-1013:~ $ dmesg  -T | grep oom -C 100"), "paigcr-a-gpu-1013");
  EXPECT_EQ(shellPromptHost("> > (base) [alice@login-2 work]$ ls"), "login-2");
}

TEST(ShellPrompt, LinesThatOnlyLookLikeOneAreNot) {
  EXPECT_EQ(shellPromptHost("user@example.com: permission denied"), "");
  EXPECT_EQ(shellPromptHost("Contact admin@cluster for help"), "");
  EXPECT_EQ(shellPromptHost("root@node1:~#dmesg"), "");  // no blank after the sign
  EXPECT_EQ(shellPromptHost(">root@node1:~# dmesg"), "");  // a quote mark needs its blank
  EXPECT_EQ(shellPromptHost("> see admin@cluster: for help"), "");
  EXPECT_EQ(shellPromptHost("[root@gpu01 my dir]# ls"), "");
  EXPECT_EQ(shellPromptHost("[root@gpu01 ~] ls"), "");
  EXPECT_EQ(shellPromptHost("@node1:~# ls"), "");
  EXPECT_EQ(shellPromptHost("root@:~# ls"), "");
  EXPECT_EQ(shellPromptHost("(unclosed root@node1:~# ls"), "");
  EXPECT_EQ(shellPromptHost(""), "");
  EXPECT_EQ(shellPromptHost("root@node1"), "");
  EXPECT_EQ(shellPromptHost("[root@node1"), "");
}

// rsyslog's omusrmsg and sysklogd's wallmsg: "\r\n\7Message from syslogd@%s at %.24s ...\r\n".
TEST(SyslogWall, TheDaemonsWallMessageNamesTheHost) {
  EXPECT_EQ(syslogWallHost("Message from syslogd@gpu-7 at Dec 10 05:25:44 ..."), "gpu-7");
  EXPECT_EQ(syslogWallHost("\aMessage from syslogd@node1.cluster at Thu Dec 10 05:25:44 2026 ..."), "node1.cluster");
  EXPECT_EQ(syslogWallHost("\r\aMessage from syslogd@gpu-7 at Dec 10 05:25:44 ..."), "gpu-7");
}

TEST(SyslogWall, LinesThatOnlyLookLikeOneAreNot) {
  EXPECT_EQ(syslogWallHost(" kernel:[55716.328117] watchdog: BUG: soft lockup - CPU#0 stuck for 27s!"), "");
  EXPECT_EQ(syslogWallHost("Message from syslogd@ at Dec 10 05:25:44 ..."), "");
  EXPECT_EQ(syslogWallHost("Message from syslogd@gpu-7"), "");
  EXPECT_EQ(syslogWallHost("Broadcast message from systemd-journald@gpu-7 (Thu 2026-12-10 05:25:44 UTC):"), "");
  EXPECT_EQ(syslogWallHost("  Message from syslogd@gpu-7 at Dec 10 05:25:44 ..."), "") << "only at the line's start";
  EXPECT_EQ(syslogWallHost(""), "");
}

}  // namespace
}  // namespace attrib::evidence
