// A verdict's bad nodes with their earlier failures, and the confidence adjusted by them
// (docs/history.md, "In the verdict"; docs/verdict.md). Pure code: the caller reads the
// histories (a HistoryReader) and gives them with the verdict's time.
#pragma once

#include <cstdint>
#include <vector>

#include "history/node_history.h"
#include "history/repeat_offender.h"
#include "runtime/verdict.h"

namespace attrib::history {

// When the verdict failed: its root cause's time, else the workload's end, else `fallback`.
int64_t verdictTime(const runtime::Verdict& v, int64_t fallback);

// Sets each bad node's `history` from `histories` (its failures in [time - window, time), the
// verdict's own workload left out), and moves the confidence by at most kMaxAdjustment:
// - a node-fault verdict (countsAgainstNode) whose bad node had earlier node faults: +0.05 per
//   earlier node fault of the most-failed bad node, at most +0.10, never above 0.99;
// - a verdict of another family whose bad node had 2 or more earlier node faults: -0.05 per
//   fault, at most -0.10 (the node, not the job, may be the cause);
// - nothing for an unknown verdict (confidence 0) or a node without earlier node faults.
// Each change is explained by a confidence note.
void addHistory(runtime::Verdict& v, const std::vector<NodeHistory>& histories, int64_t time, const PolicyOptions& options = {});

inline constexpr double kAdjustmentPerFault = 0.05;
inline constexpr double kMaxAdjustment = 0.10;

}  // namespace attrib::history
