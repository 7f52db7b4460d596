#include "history/history_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "ir/civil_time.h"

namespace attrib::history {
namespace {
using nlohmann::ordered_json;
constexpr double kDayNs = 86400.0 * 1e9;
// Scores to 4 decimals: the same bytes on every machine.
double rounded(double x) { return std::round(x * 1e4) / 1e4; }
}  // namespace

std::string historyJson(const NodeHistory& h) {
  ordered_json j;
  j["node"] = h.node;
  j["failures"] = h.events.size();
  j["by_family"] = ordered_json::object();
  for (const auto& [family, n] : h.byFamily) j["by_family"][family] = n;
  ordered_json events = ordered_json::array();
  for (const auto& e : h.events) {
    events.push_back({{"time", formatTimestamp(e.time)},
                      {"workload", e.workloadId},
                      {"family", e.family},
                      {"outcome", e.outcome.empty() ? ordered_json() : ordered_json(e.outcome)},
                      {"root_symptom", e.rootSymptom.empty() ? ordered_json() : ordered_json(e.rootSymptom)},
                      {"symptoms", e.symptoms},
                      {"confidence", rounded(e.confidence)},
                      {"counts", countsAgainstNode(e.family)}});
  }
  j["events"] = std::move(events);
  // Node names and workload ids are bytes from logs: invalid UTF-8 is replaced, never thrown.
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

std::string suspicionsJson(const std::vector<Suspicion>& suspicions, int64_t now, const PolicyOptions& o, bool all) {
  ordered_json j;
  j["now"] = formatTimestamp(now);
  j["policy"] = {{"window_days", rounded(static_cast<double>(o.windowNs) / kDayNs)},
                 {"half_life_days", rounded(static_cast<double>(o.halfLifeNs) / kDayNs)},
                 {"min_events", o.minEvents},
                 {"min_score", rounded(o.minScore)},
                 {"max_new_per_cycle", o.maxNewPerCycle},
                 {"max_suspects", o.maxSuspects}};
  ordered_json list = ordered_json::array();
  for (const auto& s : suspicions) {
    if (!all && !s.suspect()) continue;
    list.push_back({{"node", s.node},
                    {"decision", std::string(decisionName(s.decision))},
                    {"events", s.events},
                    {"score", rounded(s.score)},
                    {"last", formatTimestamp(s.lastTime)},
                    {"families", s.families},
                    {"workloads", s.workloads},
                    {"reasons", s.reasons}});
  }
  j["nodes"] = std::move(list);
  // Node names and workload ids are bytes from logs: invalid UTF-8 is replaced, never thrown.
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace attrib::history
