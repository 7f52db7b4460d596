#include "connectors/query_support.h"

#include <fmt/format.h>

#include <string_view>

namespace attrib::connectors {

void noteCap(size_t read, size_t max, const char* unit, evidence::ConnectorReport* report) {
  if (read < max) return;
  report->status = evidence::ConnectorReport::Status::Partial;
  report->reason = fmt::format("more than {} {}; the rest were not read", max, unit);
}

std::optional<TimeWindow> paddedWindow(const evidence::Workload& workload, int64_t before, int64_t after,
                                       evidence::ConnectorReport* report) {
  if (!workload.start && !workload.end) {
    report->status = evidence::ConnectorReport::Status::Error;
    report->reason = "the workload has no start or end time, so no window to query";
    return std::nullopt;
  }
  return TimeWindow{workload.start.value_or(*workload.end) - before, workload.end.value_or(*workload.start) + after};
}

std::string regexAlternation(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) {
    if (!out.empty()) out += '|';
    for (char c : v) {
      if (std::string_view("\\.^$|?*+()[]{}").find(c) != std::string_view::npos) out += "\\\\";
      if (c == '"') out += "\\";
      out += c;
    }
  }
  return out;
}

}  // namespace attrib::connectors
