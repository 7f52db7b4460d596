// metrics/*.jsonl of a workload directory: one metric sample per line (docs/workloads.md),
//   {"name": "DCGM_FI_DEV_GPU_TEMP", "labels": {"Hostname": "gpu-0007", "gpu": "3"}, "time": "2026-11-29T10:40:00Z", "value": 93.5}
// The labels node, Hostname, hostname or instance give the node, gpu the GPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "evidence/connector_report.h"
#include "evidence/metric_sample.h"

namespace attrib::evidence {

// Appends the samples of `text` (a file called `location`, reported as `source`) to `out`, and
// returns its report: ok; empty (no samples); partial or error when lines were malformed (the
// first one named), which are skipped.
ConnectorReport parseMetricsJsonl(std::string_view text, const std::string& location, const std::string& source,
                                  std::vector<MetricSample>* out);

}  // namespace attrib::evidence
