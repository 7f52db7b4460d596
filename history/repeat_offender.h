// The repeat-offender policy: which nodes to avoid, from their history (docs/history.md).
// Pure code: no I/O, no clock; the same history and `now` give the same answer.
//
// Modelled on NVIDIA Resiliency Extension's policy: a node is avoided only after two or more
// same-node events in 14 days, at most one newly avoided node per cycle, and nothing when more
// than 16 nodes are suspected at once (a systemic event: recorded, not acted on).
//
// What counts: an event whose family is a hardware or infrastructure fault of the node
// (countsAgainstNode), whose time is in [now - window, now] (a later one counts as now). Each
// counting event weighs 0.5^(age / halfLife); a node is a suspect when it has at least
// minEvents counting events and their weights sum to at least minScore. With the defaults
// (half-life 14 days, minScore 1.0) any two events in the window sum to at least 1.0, so the
// decision is NVRx's; the score orders suspects (older events count less) and a shorter
// half-life or a higher minScore makes the policy stricter.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "history/node_history.h"

namespace attrib::history {

struct PolicyOptions {
  int64_t windowNs = 14LL * 86400 * 1'000'000'000;    // lookback
  int64_t halfLifeNs = 14LL * 86400 * 1'000'000'000;  // an event this old weighs 0.5
  uint64_t minEvents = 2;      // counting events in the window
  double minScore = 1.0;       // their decayed weights, summed
  size_t maxNewPerCycle = 1;   // nodes newly avoided per evaluation
  size_t maxSuspects = 16;     // more suspects than this: systemic, nothing is avoided
};

// The first option that cannot work ("the half-life must be positive"), or "".
std::string checkPolicy(const PolicyOptions& options);

// Whether a verdict of this family blames the node itself (hardware or infrastructure;
// ir::nodeFaultFamily): accelerator-gpu, accelerator-memory, accelerator-fabric, network-fabric,
// host-hardware, kernel-fatal, node-failure. Application, framework, scheduler, storage and unknown families
// do not (docs/history.md says why).
bool countsAgainstNode(std::string_view family);

enum class Decision {
  below,     // counting events, but not enough (or not recent enough) to suspect
  avoid,     // a suspect, chosen this cycle
  deferred,  // a suspect, but another was chosen this cycle (maxNewPerCycle)
  systemic,  // a suspect among more than maxSuspects: recorded for audit, not acted on
};
std::string_view decisionName(Decision d);

struct Suspicion {
  std::string node;
  Decision decision = Decision::below;
  uint64_t events = 0;  // counting events in the window
  double score = 0;     // their decayed weights, summed
  int64_t lastTime = 0; // the latest counting event
  std::vector<std::string> families;  // of the counting events, sorted, unique
  std::vector<std::string> workloads; // of the counting events, oldest first
  std::vector<std::string> reasons;   // in words, for people and audit logs
  bool suspect() const { return decision != Decision::below; }
};

// One suspicion per node with at least one counting event in the window, suspects first in
// the order they are chosen (higher score, then more events, then the later last event, then
// the node's name), then the others in the same order.
std::vector<Suspicion> evaluate(const std::vector<NodeHistory>& history, int64_t now, const PolicyOptions& options = {});

// The weight of an event `ageNs` old: 0.5^(age / halfLife); an event from the future weighs 1.
double decayedWeight(int64_t ageNs, int64_t halfLifeNs);

}  // namespace attrib::history
