// Batch systems' job mail: the host a job ran on.
//
// A user who pastes the mail a batch system sent about a job pastes lines that name no host of
// their own ("job preempted (node failure)", "job 3132467 exceeded MEM usage hard limit"): the
// mail's header names where the job ran, and those lines are about that host.
#pragma once

#include <string_view>

namespace attrib::evidence {

// The host of TORQUE's job mail header line "Exec host:  %h" at the start of `line`, or empty.
// pbs_server writes the header "PBS Job Id: %i\nJob Name:   %j\nExec host:  %h\n"
// (src/server/svr_mail.c, TORQUE 2.x-6.x); %h is the job's exec_host attribute, "host/slot"
// joined by '+' ("gpu-2-17/5", "n1/0+n1/1+n2/0"). Only a job on one host gives one: a host is
// [A-Za-z0-9_.-]+ with a letter, and every "host/slot" must name the same host.
std::string_view torqueMailExecHost(std::string_view line);

}  // namespace attrib::evidence
