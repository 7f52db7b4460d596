#include "connectors/static/static_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "evidence/workload_json.h"

namespace attrib::connectors {
namespace {

// The whole of `path`, or nullopt when it cannot be opened.
std::optional<std::string> readWhole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream all;
  all << in.rdbuf();
  return std::move(all).str();
}

// One workload's JSON as a context (the scheduler "static" unless it names one); false with
// *error set when it is not a workload.
bool parseContext(const std::string& text, WorkloadContext* c, std::string* error) {
  if (!evidence::parseWorkloadJson(text, &c->workload, error)) return false;
  if (c->workload.scheduler.empty()) c->workload.scheduler = "static";
  return true;
}

}  // namespace

StaticContext StaticContext::fromFile(std::string path) {
  StaticContext c;
  c.path_ = std::move(path);
  return c;
}

StaticContext StaticContext::fromMany(std::string path) {
  StaticContext c;
  c.path_ = std::move(path);
  c.many_ = true;
  return c;
}

StaticContext StaticContext::fromWorkload(evidence::Workload workload) {
  StaticContext c;
  c.workload_ = std::move(workload);
  return c;
}

std::vector<WorkloadContext> StaticContext::discover(evidence::ConnectorReport* report) {
  *report = {};
  report->connector = "static";
  report->source = path_.empty() ? "flags" : path_;
  if (many_) return discoverMany(report);
  WorkloadContext c;
  if (path_.empty()) {
    c.workload = workload_;
  } else {
    auto text = readWhole(path_);
    if (!text) {
      report->status = evidence::ConnectorReport::Status::Error;
      report->reason = fmt::format("cannot read {}", path_);
      return {};
    }
    report->bytes = text->size();
    std::string error;
    if (!parseContext(*text, &c, &error)) {
      report->status = evidence::ConnectorReport::Status::Error;
      report->reason = fmt::format("{}: {}", path_, error);
      return {};
    }
  }
  if (c.workload.scheduler.empty()) c.workload.scheduler = "static";
  report->observations = 1;
  return {c};
}

std::vector<WorkloadContext> StaticContext::discoverMany(evidence::ConnectorReport* report) {
  namespace fs = std::filesystem;
  std::vector<WorkloadContext> out;
  std::set<std::string> seen;
  size_t refused = 0;
  std::string first;
  auto take = [&](const std::string& text, const std::string& where) {
    WorkloadContext c;
    std::string error;
    if (!parseContext(text, &c, &error)) {
      if (refused++ == 0) first = fmt::format("{}: {}", where, error);
      return;
    }
    if (!seen.insert(c.workload.id).second) {
      if (refused++ == 0) first = fmt::format("{}: the id '{}' is already used by another workload", where, c.workload.id);
      return;
    }
    out.push_back(std::move(c));
  };
  std::error_code ec;
  if (fs::is_directory(path_, ec)) {
    std::vector<fs::path> files;
    for (fs::directory_iterator it(path_, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".json" && it->is_regular_file(ec)) files.push_back(it->path());
    }
    if (ec) {
      report->status = evidence::ConnectorReport::Status::Error;
      report->reason = fmt::format("cannot list {}: {}", path_, ec.message());
      return {};
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      auto text = readWhole(file);
      if (!text) {
        if (refused++ == 0) first = fmt::format("cannot read {}", file.string());
        continue;
      }
      report->bytes += text->size();
      take(*text, file.string());
    }
  } else {
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
      report->status = evidence::ConnectorReport::Status::Error;
      report->reason = fmt::format("cannot read {}", path_);
      return {};
    }
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
      report->bytes += line.size() + 1;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      take(line, fmt::format("{}:{}", path_, number));
    }
  }
  report->observations = out.size();
  if (refused > 0) {
    report->status = evidence::ConnectorReport::Status::Partial;
    report->reason = fmt::format("{} workload(s) left out; the first: {}", refused, first);
  } else if (out.empty()) {
    report->status = evidence::ConnectorReport::Status::Empty;
    report->reason = fmt::format("no workloads in {}", path_);
  }
  return out;
}

}  // namespace attrib::connectors
