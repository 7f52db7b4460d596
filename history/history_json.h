// The JSON forms of node histories and suspicions, shared by `attrib nodes` and the Service's
// /v1/nodes routes (docs/history.md has the shapes). Times are RFC 3339 UTC.
#pragma once

#include <string>
#include <vector>

#include "history/node_history.h"
#include "history/repeat_offender.h"

namespace attrib::history {

// {"node", "failures", "by_family": {family: n}, "events": [{"time", "workload", "family",
//  "outcome", "root_symptom", "symptoms", "confidence", "counts"}]}
std::string historyJson(const NodeHistory& history);
// {"now", "policy": {...}, "nodes": [{"node", "decision", "events", "score", "last",
//  "families", "workloads", "reasons"}]} under "nodes"; `all` false: only the suspects (decision not "below").
std::string suspicionsJson(const std::vector<Suspicion>& suspicions, int64_t now, const PolicyOptions& options, bool all);

}  // namespace attrib::history
