#include "history/node_history.h"

#include <algorithm>
#include <tuple>

namespace attrib::history {

std::vector<NodeHistory> groupByNode(std::vector<NodeEvent> events) {
  std::sort(events.begin(), events.end(), [](const NodeEvent& a, const NodeEvent& b) {
    return std::tie(a.node, a.workloadId, a.time, a.rulesetDigest) < std::tie(b.node, b.workloadId, b.time, b.rulesetDigest);
  });
  std::vector<NodeHistory> out;
  for (size_t i = 0; i < events.size(); ++i) {
    // One failure per (node, workload): the last of its run in this order.
    if (i + 1 < events.size() && events[i + 1].node == events[i].node && events[i + 1].workloadId == events[i].workloadId) continue;
    if (out.empty() || out.back().node != events[i].node) out.push_back({events[i].node, {}, {}});
    out.back().events.push_back(std::move(events[i]));
  }
  for (auto& h : out) {
    std::sort(h.events.begin(), h.events.end(), [](const NodeEvent& a, const NodeEvent& b) {
      return std::tie(a.time, a.workloadId) < std::tie(b.time, b.workloadId);
    });
    for (const auto& e : h.events) ++h.byFamily[e.family];
  }
  return out;
}

}  // namespace attrib::history
