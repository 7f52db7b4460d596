#include "tools/attrib/source_collector.h"

#include <fmt/format.h>

namespace attrib::tools {

SourceCollector::SourceCollector(std::vector<std::unique_ptr<connectors::EvidenceSource>> sources, std::vector<std::string> kinds)
    : sources_(std::move(sources)), kinds_(std::move(kinds)) {}

std::string SourceCollector::sourceName(size_t index) const {
  return fmt::format("sources[{}].{}", index, index < kinds_.size() ? kinds_[index] : "source");
}

void SourceCollector::collect(size_t index, const evidence::Workload& workload, service::CollectedEvidence* out) {
  connectors::WorkloadContext context;
  context.workload = workload;
  connectors::SourceEvidence found;
  sources_.at(index)->collect(context, &found);
  out->files = std::move(found.files);
  out->lines = std::move(found.lines);
  out->metrics = std::move(found.metrics);
  out->reports = std::move(found.reports);
}

}  // namespace attrib::tools
