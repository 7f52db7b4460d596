// A workload directory: the static execution context plus local files, as `attrib diagnose`
// reads it (docs/workloads.md):
//
//   workload.json              {"id", "scheduler", "name", "user", "partition", "state",
//                               "exit_code", "signal", "start", "end", "nodes",
//                               "ranks_per_node", "ranks", "reason"}; all optional
//   logs/<node>/<source>.log   one file per node and source (applog, syslog, dmesg, ...);
//   logs/<node>/<source>.log.gz, rotated <source>.log.1 and <source>.log.2.gz also count
//   metrics/*.jsonl            {"name", "labels": {...}, "time", "value"} per line
//
// Problems with the evidence never stop a diagnosis: an unreadable file or a malformed metric
// line becomes a connector report; only a workload.json that exists but cannot be read at all
// (bad JSON, wrong types) is an error, because the verdict would describe the wrong workload.
#pragma once

#include <string>
#include <vector>

#include "evidence/log_input.h"
#include "evidence/workload_evidence.h"

namespace attrib::connectors {

struct WorkloadDir {
  evidence::Workload workload;
  std::vector<evidence::LogFile> logs;             // sorted by path
  std::vector<evidence::MetricSample> metrics;
  std::vector<evidence::ConnectorReport> reports;  // problems found while listing and reading metrics
};

// Reads `path`; on failure returns false with a one-line `error`.
bool readWorkloadDir(const std::string& path, WorkloadDir* out, std::string* error);

}  // namespace attrib::connectors
