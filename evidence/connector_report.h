// What one source delivered for a workload: the verdict lists these so a reader can tell "no
// error was seen" from "the logs were not there".
#pragma once

#include <cstdint>
#include <string>

namespace attrib::evidence {

struct ConnectorReport {
  enum class Status { Ok, Empty, Partial, Error };
  std::string connector;  // "files", "metrics", ...
  std::string source;     // "gpu-0001/syslog", ...
  Status status = Status::Ok;
  uint64_t observations = 0;  // lines or samples read
  uint64_t bytes = 0;
  std::string reason;         // why not ok
  int64_t elapsedMs = 0;
};

// "ok", "empty", "partial", "error".
const char* statusName(ConnectorReport::Status status);

}  // namespace attrib::evidence
