// Execution contexts: where workloads come from (a scheduler, or a file). Each yields, for every
// finished workload it finds, the normalised context the rules read as `workload.*` and what
// the scheduler said about it, as scheduler-source evidence lines.
#pragma once

#include <string>
#include <vector>

#include "runtime/log_scanner.h"
#include "runtime/timeline.h"

namespace attrib::connectors {

struct WorkloadContext {
  runtime::Workload workload;
  std::vector<runtime::LogLine> facts;  // source "scheduler"
};

class ExecutionContext {
 public:
  virtual ~ExecutionContext() = default;
  // The finished workloads in the context's window. Never throws: what went wrong (the
  // scheduler unreachable, malformed output) is in `report`, and whatever could be read is kept.
  virtual std::vector<WorkloadContext> discover(runtime::ConnectorReport* report) = 0;
};

}  // namespace attrib::connectors
