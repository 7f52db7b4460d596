// Shell prompts in a pasted terminal session: the host a command ran on.
//
// People paste what their terminal shows, prompts included ("root@node1:~# dmesg -T | grep
// NVRM"). A prompt names the host the command ran on; for a command that reads the local kernel
// or system (dmesg, journalctl, nvidia-smi), that host is where the lines it prints happened. An
// application's output may be shown from anywhere (cat, tail of a shared file), so a prompt is
// no evidence of where it was printed.
#pragma once

#include <string_view>

namespace attrib::evidence {

// The host of a shell prompt at the start of `line`, or empty. The forms are the distributions'
// default PS1 (bash 5.x):
//   Debian, Ubuntu      "\u@\h:\w\$ "   root@node1:~# dmesg -T
//   RHEL, Rocky, Fedora "[\u@\h \W]\$ " [root@gpu01 ~]# nvidia-smi
// each after any "(name) " a virtualenv or conda environment puts first ("(venv) root@node1:~# ")
// and after the "> " (up to three) of a paste quoted in Markdown ("> core@gpu-1013:~ $ dmesg -T");
// the prompt ends at '$' or '#' and a blank or the end of the line. User and host are
// [A-Za-z0-9_.-]+; the path holds no blank in the Debian form (a blank ends it otherwise).
std::string_view shellPromptHost(std::string_view line);

// The host of a syslog daemon's wall message at the start of `line`, or empty. For a message at
// the emergency level (the kernel's "watchdog: BUG: soft lockup", a panic) rsyslog's omusrmsg and
// sysklogd's wallmsg write to every terminal "\r\n\7Message from syslogd@%s at %.24s ...\r\n",
// the host that logged it and the time, then the message (" kernel:[55716.328117] watchdog: ...")
// on the next line; a pasted terminal session shows both. Like a prompt, it names the host of the
// kernel and system lines around it. The host is [A-Za-z0-9_.-]+ and " at " must follow it.
std::string_view syslogWallHost(std::string_view line);

}  // namespace attrib::evidence
