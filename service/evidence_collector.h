// Where the Service finds evidence of its own for a workload, instead of waiting for clients to
// post it: the sources `attrib serve --sources BLUEPRINT.yaml` configures (files, Loki,
// Prometheus, pod logs; tools/attrib wires them from connectors/, which this library may not
// include). The NVIDIA Recovery adapter (recovery_adapter.h) asks each source separately, so that
// a pass can answer with the sources that have delivered while the others still work.
#pragma once

#include <string>
#include <vector>

#include "evidence/workload_evidence.h"

namespace attrib::service {

// What one source delivered: log files (read from where they are when scanned), lines, samples,
// and a connector report per thing it tried to read.
struct CollectedEvidence {
  std::vector<evidence::LogFile> files;
  std::vector<evidence::LogLine> lines;
  std::vector<evidence::MetricSample> metrics;
  std::vector<evidence::ConnectorReport> reports;
};

class EvidenceCollector {
 public:
  virtual ~EvidenceCollector() = default;
  // How many sources there are, and how verdicts name each ("loki", "files"...).
  virtual size_t sources() const = 0;
  virtual std::string sourceName(size_t index) const = 0;
  // Collects source `index` for `workload` (id, nodes, start and end: the scope to narrow to).
  // Blocks for as long as the source takes (its own timeouts bound it); may run on several
  // threads at once, for different sources or workloads. Never throws: failures are reports.
  virtual void collect(size_t index, const evidence::Workload& workload, CollectedEvidence* out) = 0;
};

}  // namespace attrib::service
