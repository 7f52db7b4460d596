// The static execution context: workloads described by workload.json files (the format of
// docs/workloads.md) or given directly (command-line flags), for jobs that ran outside any
// scheduler attrib can ask: one file, or many (a directory of *.json files, or a JSON-lines
// file with one workload object a line) that `attrib run --watch` reads again at every poll,
// so jobs appear by adding files.
#pragma once

#include <string>

#include "connectors/context.h"

namespace attrib::connectors {

class StaticContext : public ExecutionContext {
 public:
  // From a workload.json file, read when discover() runs.
  static StaticContext fromFile(std::string path);
  // From a directory (every *.json file in it, by name; subdirectories are not read) or a file
  // of JSON lines (blank lines skipped), read when discover() runs. A workload that cannot be
  // read, or repeats an id seen before, is left out and the report is `partial`, naming the
  // first such file or line and how many there were; the others are found.
  static StaticContext fromMany(std::string path);
  // From a context built by the caller (flags).
  static StaticContext fromWorkload(evidence::Workload workload);

  std::vector<WorkloadContext> discover(evidence::ConnectorReport* report) override;

 private:
  std::vector<WorkloadContext> discoverMany(evidence::ConnectorReport* report);
  std::string path_;
  bool many_ = false;
  evidence::Workload workload_;
};

}  // namespace attrib::connectors
