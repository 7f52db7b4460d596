// Everything one diagnosis reads, as collected: the workload's context, its logs (files and
// single lines), metric samples, and a report per source of what was and was not available.
#pragma once

#include <vector>

#include "evidence/connector_report.h"
#include "evidence/log_input.h"
#include "evidence/metric_sample.h"
#include "evidence/workload.h"

namespace attrib::evidence {

struct WorkloadEvidence {
  Workload workload;
  std::vector<LogFile> logs;
  std::vector<LogLine> lines;  // log lines delivered in memory
  std::vector<MetricSample> metrics;
  std::vector<ConnectorReport> reports;  // problems found while collecting
};

}  // namespace attrib::evidence
