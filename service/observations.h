// Observations the Service accepts (POST /v1/sessions/{id}/observations?format=F), turned into
// the runtime's evidence. Formats:
//   attrib            JSON lines: {"node","source","time","rank","gpu","text"} for a log line,
//                     {"metric","labels","node","gpu","time","value"} for a sample
//   raw_loki_streams  {"streams": [{"stream": {labels}, "values": [["<ns>", "line"], ...]}]}
//   loki_query_range  a Loki query_range answer (data.result streams)
//   prometheus_matrix a Prometheus query_range answer (data.result matrix)
// Times: RFC 3339 strings or integer nanoseconds. A malformed body is an error that names the
// offending field ("line 3: 'time' must be RFC 3339 or integer nanoseconds"); nothing of it is kept.
#pragma once

#include <string>
#include <vector>

#include "runtime/log_scanner.h"
#include "runtime/timeline.h"

namespace attrib::service {

struct Observations {
  std::vector<runtime::LogLine> lines;
  std::vector<runtime::MetricSample> metrics;
};

bool parseObservations(const std::string& format, const std::string& body, Observations* out, std::string* error);

}  // namespace attrib::service
