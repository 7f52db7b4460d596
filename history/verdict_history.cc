#include "history/verdict_history.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "ir/civil_time.h"

namespace attrib::history {

int64_t verdictTime(const runtime::Verdict& v, int64_t fallback) {
  if (v.root && !v.root->timeUnknown) return v.root->time;
  if (v.workload.end) return *v.workload.end;
  return fallback;
}

void addHistory(runtime::Verdict& v, const std::vector<NodeHistory>& histories, int64_t time, const PolicyOptions& o) {
  int64_t from = time - o.windowNs;
  uint64_t mostFaults = 0;
  std::string mostNode;
  for (auto& bad : v.badNodes) {
    runtime::NodeFinding::History h;
    std::set<std::string> families;
    for (const auto& nh : histories) {
      if (nh.node != bad.node) continue;
      for (const auto& e : nh.events) {
        if (e.workloadId == v.workload.id || e.time < from || e.time >= time) continue;
        ++h.failures;
        if (countsAgainstNode(e.family)) ++h.nodeFaults;
        families.insert(e.family);
        if (!h.last || e.time > *h.last) h.last = e.time;
        if (h.workloads.size() < 10) h.workloads.push_back(e.workloadId);
      }
    }
    h.families.assign(families.begin(), families.end());
    if (h.nodeFaults > mostFaults) {
      mostFaults = h.nodeFaults;
      mostNode = bad.node;
    }
    bad.history = std::move(h);
  }
  if (v.confidence <= 0 || mostFaults == 0) return;
  std::string family = v.outcomes.empty() ? "unknown" : v.outcomes[0].family;
  double before = v.confidence;
  std::string window = fmt::format("{}d", o.windowNs / 86'400'000'000'000LL);
  if (countsAgainstNode(family)) {
    double up = std::min(kMaxAdjustment, kAdjustmentPerFault * static_cast<double>(mostFaults));
    v.confidence = std::max(before, std::min(0.99, before + up));
    if (v.confidence > before) {
      v.confidenceNotes.push_back(fmt::format("raised by {:.2f}: {} had {} earlier node fault(s) in the {} before this failure",
                                              v.confidence - before, mostNode, mostFaults, window));
    }
  } else if (mostFaults >= 2) {
    double down = std::min(kMaxAdjustment, kAdjustmentPerFault * static_cast<double>(mostFaults));
    v.confidence = std::max(0.0, before - down);
    v.confidenceNotes.push_back(fmt::format("lowered by {:.2f}: {} had {} earlier node fault(s) in the {}; the node may be the cause, not {}",
                                            before - v.confidence, mostNode, mostFaults, window, family));
  }
  // Confidences are shown to two decimals elsewhere; keep the sum exact to them.
  v.confidence = std::round(v.confidence * 1e6) / 1e6;
}

}  // namespace attrib::history
