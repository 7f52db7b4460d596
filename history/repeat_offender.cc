#include "history/repeat_offender.h"

#include "ir/ir.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

namespace attrib::history {
namespace {

constexpr double kDayNs = 86400.0 * 1e9;

std::string days(int64_t ns) {
  double d = static_cast<double>(ns) / kDayNs;
  return d == std::floor(d) ? fmt::format("{}d", static_cast<int64_t>(d)) : fmt::format("{:.2f}d", d);
}

}  // namespace

std::string checkPolicy(const PolicyOptions& o) {
  if (o.windowNs <= 0) return "the window must be positive";
  if (o.halfLifeNs <= 0) return "the half-life must be positive";
  if (o.minEvents < 1) return "the minimum of events must be at least 1";
  if (!(o.minScore >= 0) || !std::isfinite(o.minScore)) return "the minimum score must be a finite number >= 0";
  return "";
}

bool countsAgainstNode(std::string_view family) { return ir::nodeFaultFamily(family); }

std::string_view decisionName(Decision d) {
  switch (d) {
    case Decision::below: return "below";
    case Decision::avoid: return "avoid";
    case Decision::deferred: return "deferred";
    case Decision::systemic: return "systemic";
  }
  return "below";
}

double decayedWeight(int64_t ageNs, int64_t halfLifeNs) {
  if (ageNs <= 0) return 1.0;
  return std::exp2(-static_cast<double>(ageNs) / static_cast<double>(halfLifeNs));
}

std::vector<Suspicion> evaluate(const std::vector<NodeHistory>& history, int64_t now, const PolicyOptions& o) {
  std::vector<Suspicion> out;
  // now - window without overflow (a window longer than the epoch takes everything).
  int64_t from = now < std::numeric_limits<int64_t>::min() + o.windowNs ? std::numeric_limits<int64_t>::min() : now - o.windowNs;
  for (const auto& h : history) {
    Suspicion s;
    s.node = h.node;
    std::set<std::string> families;
    for (const auto& e : h.events) {
      if (e.node != h.node || !countsAgainstNode(e.family) || e.time < from) continue;
      ++s.events;
      s.score += decayedWeight(now - e.time, o.halfLifeNs);
      if (s.events == 1 || e.time > s.lastTime) s.lastTime = e.time;
      families.insert(e.family);
      s.workloads.push_back(e.workloadId);
    }
    if (s.events == 0) continue;
    s.families.assign(families.begin(), families.end());
    bool enough = s.events >= o.minEvents && s.score >= o.minScore;
    s.decision = enough ? Decision::deferred : Decision::below;
    s.reasons.push_back(fmt::format("{} node fault(s) in the last {} ({}), decayed score {:.2f} (half-life {})", s.events,
                                    days(o.windowNs), fmt::join(s.families, ", "), s.score, days(o.halfLifeNs)));
    if (!enough) {
      s.reasons.push_back(s.events < o.minEvents
                              ? fmt::format("below the threshold: {} event(s) of the {} needed", s.events, o.minEvents)
                              : fmt::format("below the threshold: score {:.2f} < {:.2f}", s.score, o.minScore));
    }
    out.push_back(std::move(s));
  }
  // Suspects first, in the order they would be chosen; deterministic to the last tie (node names
  // are unique).
  std::sort(out.begin(), out.end(), [](const Suspicion& a, const Suspicion& b) {
    return std::make_tuple(!a.suspect(), -a.score, -static_cast<int64_t>(a.events), -a.lastTime, a.node) <
           std::make_tuple(!b.suspect(), -b.score, -static_cast<int64_t>(b.events), -b.lastTime, b.node);
  });
  size_t suspects = static_cast<size_t>(std::count_if(out.begin(), out.end(), [](const Suspicion& s) { return s.suspect(); }));
  size_t chosen = 0;
  for (auto& s : out) {
    if (!s.suspect()) continue;
    if (suspects > o.maxSuspects) {
      s.decision = Decision::systemic;
      s.reasons.push_back(fmt::format("systemic: {} nodes are suspected at once (more than {}); none is avoided", suspects, o.maxSuspects));
    } else if (chosen < o.maxNewPerCycle) {
      s.decision = Decision::avoid;
      ++chosen;
      s.reasons.push_back("avoid: a repeat offender");
    } else {
      s.reasons.push_back(fmt::format("deferred: at most {} node(s) newly avoided per cycle", o.maxNewPerCycle));
    }
  }
  return out;
}

}  // namespace attrib::history
