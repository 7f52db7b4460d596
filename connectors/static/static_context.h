// The static execution context: one workload described by a workload.json file (the format of
// docs/workloads.md) or given directly (command-line flags), for jobs that ran outside any
// scheduler attrib can ask.
#pragma once

#include <string>

#include "connectors/context.h"

namespace attrib::connectors {

class StaticContext : public ExecutionContext {
 public:
  // From a workload.json file, read when discover() runs.
  static StaticContext fromFile(std::string path);
  // From a context built by the caller (flags).
  static StaticContext fromWorkload(evidence::Workload workload);

  std::vector<WorkloadContext> discover(evidence::ConnectorReport* report) override;

 private:
  std::string path_;
  evidence::Workload workload_;
};

}  // namespace attrib::connectors
