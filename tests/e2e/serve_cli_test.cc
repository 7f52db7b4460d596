// `attrib serve` refuses settings that cannot work, naming the flag, before it loads anything.
#include <gtest/gtest.h>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

TEST(ServeCommand, ZeroOrNegativeLimitsAndTimeoutsAreUsageErrorsNamingTheFlag) {
  TempDir scratch;
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--max-in-flight", "0"}, "--max-in-flight must be at least 1"},
           {{"--max-in-flight", "-4"}, "--max-in-flight must be at least 1"},
           {{"--max-body", "0"}, "--max-body must be at least 1 byte"},
           {{"--max-body", "-1"}, "--max-body must be at least 1 byte"},
           {{"--session-ttl", "0"}, "--session-ttl must be at least 1 second"},
           {{"--session-ttl", "-1"}, "--session-ttl must be at least 1 second"},
           {{"--header-timeout", "0"}, "--header-timeout must be more than 0 seconds"},
           {{"--body-timeout", "-2"}, "--body-timeout must be more than 0 seconds"},
           {{"--idle-timeout", "0"}, "--idle-timeout must be more than 0 seconds"},
           {{"--threads", "0"}, "--threads must be at least 1"},
           {{"--max-connections", "0"}, "--max-connections must be at least 1"},
           {{"--max-sessions", "0"}, "--max-sessions must be at least 1"},
           {{"--max-session-bytes", "-5"}, "--max-session-bytes must be at least 1 byte"},
       }) {
    std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0", "--no-jit"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    CliResult r = runAttrib(args, scratch.path());
    EXPECT_EQ(r.exit, 2) << c.message;
    EXPECT_EQ(r.err, "attrib: error: " + c.message + "\n");
  }
}

}  // namespace
}  // namespace attrib::e2e
