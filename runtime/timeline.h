// The evidence of one workload, as connectors deliver it: the execution context (what the
// scheduler knows), log lines, metric samples, and a report per source of what was and was not
// available. Times are nanoseconds since the Unix epoch, UTC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace attrib::runtime {

// The normalised execution context of a workload (scheduler state and placement).
struct Workload {
  std::string id;
  std::string scheduler;  // slurm, kueue, static, ...
  std::string name, user, partition;
  ir::State state = ir::State::Unknown;
  std::optional<int64_t> exitCode;
  std::optional<int64_t> signal;
  std::optional<int64_t> start, end;
  std::vector<std::string> nodes;
  std::optional<int64_t> ranksPerNode;
  std::optional<int64_t> ranks;
  std::string reason;
};

// Where a piece of evidence came from, precisely enough to find it again.
struct Provenance {
  std::string connector;  // "files", "loki", ...
  std::string location;   // a file path, or a stream selector
  uint64_t offset = 0;    // byte offset in the (decompressed) file, or index in the stream
  uint64_t line = 0;      // 1-based line number, 0 when not line-based
};

struct MetricSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by name
  std::string node, gpu;
  int64_t time = 0;
  double value = 0;
  Provenance where;
};

// What one source delivered for a workload: the verdict lists these so a reader can tell
// "no error was seen" from "the logs were not there".
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

const char* statusName(ConnectorReport::Status status);

}  // namespace attrib::runtime
