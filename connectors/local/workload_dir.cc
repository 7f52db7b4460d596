#include "connectors/local/workload_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ir/civil_time.h"
#include "evidence/workload_json.h"

namespace attrib::connectors {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using evidence::ConnectorReport;

bool readFile(const fs::path& p, std::string* out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  *out = std::move(s).str();
  return !in.bad();
}

// logs/<node>/<source>.log[.N][.gz] -> source name, or "" when the name is not a log.
std::string sourceOf(const std::string& filename) {
  std::string name = filename;
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0) name.resize(name.size() - 3);
  size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot + 1 < name.size() &&
      std::all_of(name.begin() + static_cast<long>(dot) + 1, name.end(), ::isdigit)) {
    name.resize(dot);  // rotated: syslog.log.1
  }
  if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".log") != 0) return "";
  return name.substr(0, name.size() - 4);
}

void readMetrics(const fs::path& file, WorkloadDir* out) {
  ConnectorReport report;
  report.connector = "files";
  report.source = "metrics/" + file.filename().string();
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    report.status = ConnectorReport::Status::Error;
    report.reason = "cannot open the file";
    out->reports.push_back(report);
    return;
  }
  std::string line;
  uint64_t lineNumber = 0, bad = 0;
  std::string firstProblem;
  while (std::getline(in, line)) {
    ++lineNumber;
    report.bytes += line.size() + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    evidence::MetricSample m;
    std::string problem;
    if (j.is_discarded() || !j.is_object()) problem = "not a JSON object";
    else if (!j.contains("name") || !j["name"].is_string()) problem = "no \"name\"";
    else if (!j.contains("value") || !j["value"].is_number()) problem = "no numeric \"value\"";
    else if (!j.contains("time") || !evidence::parseTimeValue(j["time"], &m.time)) problem = "no valid \"time\"";
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
      m.where = {"files", file.string(), lineNumber, lineNumber};
      out->metrics.push_back(std::move(m));
      ++report.observations;
    } else {
      if (bad++ == 0) firstProblem = fmt::format("line {}: {}", lineNumber, problem);
    }
  }
  if (bad) {
    report.status = report.observations ? ConnectorReport::Status::Partial : ConnectorReport::Status::Error;
    report.reason = fmt::format("{} malformed line(s) skipped; first at {}", bad, firstProblem);
  } else if (report.observations == 0) {
    report.status = ConnectorReport::Status::Empty;
    report.reason = "no samples";
  }
  out->reports.push_back(report);
}

}  // namespace

bool readWorkloadDir(const std::string& path, WorkloadDir* out, std::string* error) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    *error = fmt::format("'{}' is not a directory", path);
    return false;
  }
  fs::path root(path);
  fs::path workloadJson = root / "workload.json";
  if (fs::exists(workloadJson, ec)) {
    std::string text;
    if (!readFile(workloadJson, &text)) {
      *error = fmt::format("cannot read '{}'", workloadJson.string());
      return false;
    }
    if (!evidence::parseWorkloadJson(text, &out->workload, error)) return false;
  } else {
    out->reports.push_back({"static", "workload.json", ConnectorReport::Status::Empty, 0, 0,
                            "no workload.json: scheduler state unknown", 0});
  }
  if (out->workload.id.empty()) out->workload.id = root.filename().string();

  fs::path logs = root / "logs";
  if (fs::is_directory(logs, ec)) {
    // Reading stays inside the workload directory: a symbolic link that leads out of it is
    // reported, not followed.
    fs::path inside = fs::weakly_canonical(root, ec);
    std::vector<ConnectorReport> refused;
    for (auto it = fs::recursive_directory_iterator(logs, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::string source = sourceOf(it->path().filename().string());
      if (source.empty()) continue;
      fs::path rel = fs::relative(it->path(), logs, ec);
      std::string name = rel.generic_string();
      std::error_code fileEc;
      auto problem = [&](const std::string& why) {
        refused.push_back({"files", name, ConnectorReport::Status::Error, 0, 0, why, 0});
      };
      if (it->is_symlink(fileEc)) {
        fs::path target = fs::weakly_canonical(it->path(), fileEc);
        auto [a, b] = std::mismatch(inside.begin(), inside.end(), target.begin(), target.end());
        if (a != inside.end()) {
          problem("a symbolic link leading outside the workload directory; not read");
          continue;
        }
        if (!fs::exists(it->path(), fileEc)) {
          problem("a dangling symbolic link");
          continue;
        }
      }
      if (!it->is_regular_file(fileEc)) {
        if (!it->is_directory(fileEc)) problem("not a regular file");
        else if (rel.has_parent_path()) problem("a directory where a log file was expected");
        continue;
      }
      std::string node = rel.has_parent_path() ? rel.begin()->string() : "";
      out->logs.push_back({it->path().string(), node, source, name, std::nullopt, nullptr, "", std::nullopt});
    }
    std::sort(out->logs.begin(), out->logs.end(), [](auto& a, auto& b) { return a.path < b.path; });
    std::sort(refused.begin(), refused.end(), [](auto& a, auto& b) { return a.source < b.source; });
    out->reports.insert(out->reports.end(), refused.begin(), refused.end());
  }
  if (out->logs.empty()) {
    out->reports.push_back({"files", "logs", ConnectorReport::Status::Empty, 0, 0, "no log files under logs/", 0});
  }
  // Nodes seen in logs complete the workload's node list when it had none.
  if (out->workload.nodes.empty()) {
    for (const auto& f : out->logs) {
      if (!f.node.empty() && std::find(out->workload.nodes.begin(), out->workload.nodes.end(), f.node) == out->workload.nodes.end()) {
        out->workload.nodes.push_back(f.node);
      }
    }
  }
  fs::path metrics = root / "metrics";
  if (fs::is_directory(metrics, ec)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(metrics, ec)) {
      if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) readMetrics(f, out);
  }
  return true;
}

}  // namespace attrib::connectors
