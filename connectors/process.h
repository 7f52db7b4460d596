// Running a command-line tool (sacct, ...) as connectors do: argv without a shell, an explicit
// environment addition, stdout and stderr captured with a size cap, and a deadline after which
// the child is killed. Every wait is bounded.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace attrib::connectors {

struct ProcessResult {
  bool started = false;   // false: the program could not be run (see error)
  bool timedOut = false;  // killed at the deadline
  bool truncated = false; // output beyond the cap was dropped
  int exitCode = -1;      // when it exited
  int signal = 0;         // when it was killed by a signal
  std::string out, err;
  std::string error;      // why it did not start, in one line
};

struct ProcessOptions {
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) ours
  std::chrono::milliseconds timeout{30'000};
  size_t maxOutput = 256u << 20;  // bytes of stdout (and of stderr) kept
};

ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace attrib::connectors
