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

#include "runtime/log_scanner.h"
#include "runtime/timeline.h"

namespace attrib::connectors {

struct WorkloadDir {
  runtime::Workload workload;
  std::vector<runtime::LogFile> logs;             // sorted by path
  std::vector<runtime::MetricSample> metrics;
  std::vector<runtime::ConnectorReport> reports;  // problems found while listing and reading metrics
};

// Reads `path`; on failure returns false with a one-line `error`.
bool readWorkloadDir(const std::string& path, WorkloadDir* out, std::string* error);

// Parses workload.json text (exposed for tests and the service).
bool parseWorkloadJson(const std::string& text, runtime::Workload* out, std::string* error);

// The workload.json text of `workload`, which parseWorkloadJson reads back to the same values
// (what `attrib run` sends a remote Service as a session's context).
std::string workloadToJson(const runtime::Workload& workload);

}  // namespace attrib::connectors
