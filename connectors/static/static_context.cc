#include "connectors/static/static_context.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "evidence/workload_json.h"

namespace attrib::connectors {

StaticContext StaticContext::fromFile(std::string path) {
  StaticContext c;
  c.path_ = std::move(path);
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
  WorkloadContext c;
  if (path_.empty()) {
    c.workload = workload_;
  } else {
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
      report->status = evidence::ConnectorReport::Status::Error;
      report->reason = fmt::format("cannot read {}", path_);
      return {};
    }
    std::stringstream all;
    all << in.rdbuf();
    report->bytes = all.str().size();
    std::string error;
    if (!evidence::parseWorkloadJson(all.str(), &c.workload, &error)) {
      report->status = evidence::ConnectorReport::Status::Error;
      report->reason = fmt::format("{}: {}", path_, error);
      return {};
    }
  }
  if (c.workload.scheduler.empty()) c.workload.scheduler = "static";
  report->observations = 1;
  return {c};
}

}  // namespace attrib::connectors
