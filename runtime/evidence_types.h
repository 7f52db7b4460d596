// The evidence types (evidence/) that the runtime reads everywhere, by their short names in
// attrib::runtime. The runtime consumes evidence; it does not define it.
#pragma once

#include "evidence/workload_evidence.h"

namespace attrib::runtime {

using evidence::ConnectorReport;
using evidence::LogFile;
using evidence::LogLine;
using evidence::MetricSample;
using evidence::Provenance;
using evidence::Workload;
using evidence::WorkloadEvidence;
using evidence::statusName;

}  // namespace attrib::runtime
