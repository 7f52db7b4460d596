// What one source delivered for a workload: the verdict lists these so a reader can tell "no
// error was seen" from "the logs were not there".
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ir/log_channels.h"

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
  // Log lines read per channel (ir/log_channels.h): claimed lines under their channel, the
  // others under the hint of their file. All zero for sources that are not logs.
  std::array<uint64_t, ir::kChannelCount> channelLines{};
};

// "ok", "empty", "partial", "error".
const char* statusName(ConnectorReport::Status status);

}  // namespace attrib::evidence
