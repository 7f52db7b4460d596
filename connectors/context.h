// Execution contexts: where workloads come from (a scheduler, or a file). Each yields, for every
// finished workload it finds, the normalised context the rules read as `workload.*` and what
// the scheduler said about it, as scheduler-source evidence lines.
#pragma once

#include <string>
#include <vector>

#include "evidence/log_input.h"
#include "evidence/workload_evidence.h"

namespace attrib::connectors {

struct WorkloadContext {
  evidence::Workload workload;
  std::vector<evidence::LogLine> facts;  // source "scheduler"
};

class ExecutionContext {
 public:
  virtual ~ExecutionContext() = default;
  // The finished workloads in the context's window. Never throws: what went wrong (the
  // scheduler unreachable, malformed output) is in `report`, and whatever could be read is kept.
  virtual std::vector<WorkloadContext> discover(evidence::ConnectorReport* report) = 0;
};

}  // namespace attrib::connectors
