// The Service's EvidenceCollector (service/evidence_collector.h) over the blueprint sources of
// `attrib serve --sources BLUEPRINT.yaml` (connectors/: files, Loki, Prometheus, pod logs). It
// lives in tools/ because service/ may not depend on connectors/ (DEVELOPERS.md, Layers).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "connectors/source.h"
#include "service/evidence_collector.h"

namespace attrib::tools {

class SourceCollector : public service::EvidenceCollector {
 public:
  // `kinds[i]` names `sources[i]` (files, loki, ...), as the blueprint does.
  SourceCollector(std::vector<std::unique_ptr<connectors::EvidenceSource>> sources, std::vector<std::string> kinds);
  size_t sources() const override { return sources_.size(); }
  // "sources[1].loki": the blueprint's own name for it.
  std::string sourceName(size_t index) const override;
  // The source's collect() for a context of `workload` alone (no scheduler facts).
  void collect(size_t index, const evidence::Workload& workload, service::CollectedEvidence* out) override;

 private:
  std::vector<std::unique_ptr<connectors::EvidenceSource>> sources_;
  std::vector<std::string> kinds_;
};

}  // namespace attrib::tools
