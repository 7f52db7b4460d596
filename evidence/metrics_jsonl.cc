#include "evidence/metrics_jsonl.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "evidence/workload_json.h"

namespace attrib::evidence {

ConnectorReport parseMetricsJsonl(std::string_view text, const std::string& location, const std::string& source,
                                  std::vector<MetricSample>* out) {
  using nlohmann::json;
  ConnectorReport report;
  report.connector = "files";
  report.source = source;
  uint64_t lineNumber = 0, bad = 0;
  std::string firstProblem;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++lineNumber;
    report.bytes += line.size() + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json j = json::parse(line, nullptr, false);
    MetricSample m;
    std::string problem;
    if (j.is_discarded() || !j.is_object()) problem = "not a JSON object";
    else if (!j.contains("name") || !j["name"].is_string()) problem = "no \"name\"";
    else if (!j.contains("value") || !j["value"].is_number()) problem = "no numeric \"value\"";
    else if (!j.contains("time") || !parseTimeValue(j["time"], &m.time)) problem = "no valid \"time\"";
    if (problem.empty()) {
      m.name = j["name"].get<std::string>();
      m.value = j["value"].get<double>();
      if (j.contains("labels") && j["labels"].is_object()) {
        for (auto& [k, v] : j["labels"].items()) {
          std::string value = v.is_string() ? v.get<std::string>() : v.dump();
          if (k == "node" || k == "Hostname" || k == "hostname" || k == "instance") m.node = value;
          else if (k == "gpu") m.gpu = value;
          m.labels.emplace_back(k, value);
        }
        std::sort(m.labels.begin(), m.labels.end());
      }
      m.where = {"files", location, lineNumber, lineNumber};
      out->push_back(std::move(m));
      ++report.observations;
    } else if (bad++ == 0) {
      firstProblem = fmt::format("line {}: {}", lineNumber, problem);
    }
  }
  if (bad) {
    report.status = report.observations ? ConnectorReport::Status::Partial : ConnectorReport::Status::Error;
    report.reason = fmt::format("{} malformed line(s) skipped; first at {}", bad, firstProblem);
  } else if (report.observations == 0) {
    report.status = ConnectorReport::Status::Empty;
    report.reason = "no samples";
  }
  return report;
}

}  // namespace attrib::evidence
