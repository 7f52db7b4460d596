// TORQUE's job mail header (src/server/svr_mail.c: "Exec host:  %h", the exec_host attribute's
// "host/slot" joined by '+').
#include "evidence/job_mail.h"

#include <gtest/gtest.h>

namespace attrib::evidence {
namespace {

TEST(JobMail, TorqueExecHostOfAJobOnOneHost) {
  EXPECT_EQ(torqueMailExecHost("Exec host:  gpu-2-17/5"), "gpu-2-17");
  EXPECT_EQ(torqueMailExecHost("Exec host:  n1.cluster/0+n1.cluster/1\r"), "n1.cluster");
}

TEST(JobMail, NoOneHostNoHost) {
  EXPECT_EQ(torqueMailExecHost("Exec host:  n1/0+n2/0"), "");     // several hosts
  EXPECT_EQ(torqueMailExecHost("Exec host:  gpu-2-17"), "");      // no slot: not the attribute's form
  EXPECT_EQ(torqueMailExecHost("Exec host:  12/0"), "");          // no letter
  EXPECT_EQ(torqueMailExecHost("Exec host:  n1/0 (main)"), "");   // anything after it
  EXPECT_EQ(torqueMailExecHost("  Exec host:  n1/0"), "");        // not the header's line
  EXPECT_EQ(torqueMailExecHost("Job Name:   STDIN"), "");
}

}  // namespace
}  // namespace attrib::evidence
