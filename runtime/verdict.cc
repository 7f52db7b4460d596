#include "runtime/verdict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include <nlohmann/json.hpp>

#include "ir/civil_time.h"
#include "runtime/instance.h"

namespace attrib::runtime {

EvidenceLine evidenceLineOf(const Instance& inst) {
  EvidenceLine e;
  e.source = inst.source;
  e.connector = inst.where.connector();
  e.node = inst.node;
  if (inst.timeKnown) e.time = inst.time;
  e.line = inst.text;
  e.location = inst.where.location();
  e.offset = inst.where.offset;
  e.lineNumber = inst.where.line;
  return e;
}

namespace {

using nlohmann::ordered_json;

// Lines per channel, the channels with none left out.
ordered_json channelsJson(const ConnectorReport& r) {
  ordered_json j = ordered_json::object();
  for (int c = 0; c < ir::kChannelCount; ++c) {
    if (r.channelLines[static_cast<size_t>(c)] > 0) j[ir::channelName(static_cast<ir::Channel>(c))] = r.channelLines[static_cast<size_t>(c)];
  }
  return j;
}

ordered_json optTime(const std::optional<int64_t>& t) { return t ? ordered_json(formatTimestamp(*t)) : ordered_json(); }
ordered_json optString(const std::string& s) { return s.empty() ? ordered_json() : ordered_json(s); }

ordered_json evidenceJson(const EvidenceLine& e) {
  ordered_json j;
  j["source"] = e.source;
  j["connector"] = e.connector;
  j["node"] = optString(e.node);
  j["time"] = optTime(e.time);
  j["line"] = e.line;
  j["where"] = {{"location", e.location}, {"offset", e.offset}, {"line", e.lineNumber}};
  return j;
}

ordered_json findingJson(const SymptomFinding& f) {
  ordered_json j;
  j["symptom"] = f.symptom;
  j["title"] = f.title;
  j["family"] = f.family;
  j["node"] = optString(f.node);
  j["rank"] = f.rank ? ordered_json(*f.rank) : ordered_json();
  j["gpu"] = optString(f.gpu);
  j["time"] = f.timeUnknown ? ordered_json() : ordered_json(formatTimestamp(f.time));
  j["time_estimated"] = !f.timeKnown && !f.timeUnknown;
  ordered_json evidence = ordered_json::array();
  for (const auto& e : f.evidence) evidence.push_back(evidenceJson(e));
  j["evidence"] = std::move(evidence);
  return j;
}

ordered_json nodesJson(const std::vector<NodeFinding>& nodes) {
  ordered_json out = ordered_json::array();
  for (const auto& n : nodes) {
    ordered_json j = {{"node", n.node}, {"symptoms", n.symptoms}};
    // Only with a history (attrib diagnose --history-db): without one, the bytes are as before.
    if (n.history) {
      j["history"] = {{"failures", n.history->failures}, {"node_faults", n.history->nodeFaults}, {"families", n.history->families},
                      {"last", optTime(n.history->last)}, {"workloads", n.history->workloads}};
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

std::string verdictFamily(const Verdict& v) {
  if (!v.outcomes.empty()) return v.outcomes[0].family;
  if (v.familyHint) return v.familyHint->family;
  return "unknown";
}

std::string toJson(const Verdict& v, const RenderOptions& options) {
  ordered_json j;
  j["schema"] = "attrib.verdict/v1";
  const Workload& w = v.workload;
  ordered_json workload;
  workload["id"] = w.id;
  workload["scheduler"] = optString(w.scheduler);
  workload["name"] = optString(w.name);
  workload["state"] = ir::stateName(w.state);
  workload["exit_code"] = w.exitCode ? ordered_json(*w.exitCode) : ordered_json();
  workload["start"] = optTime(w.start);
  workload["end"] = optTime(w.end);
  workload["nodes"] = w.nodes;
  std::optional<int64_t> ranks = w.ranks;
  if (!ranks && w.ranksPerNode && !w.nodes.empty()) ranks = *w.ranksPerNode * static_cast<int64_t>(w.nodes.size());
  workload["ranks"] = ranks ? ordered_json(*ranks) : ordered_json();
  j["workload"] = std::move(workload);
  j["terminal_state"] = ir::stateName(w.state);

  ordered_json outcomes = ordered_json::array();
  for (const auto& o : v.outcomes) outcomes.push_back({{"name", o.name}, {"family", o.family}, {"title", o.title}});
  if (v.outcomes.empty()) {
    // The family is the hint's when there is one (a hint, no outcome: `family_hint` says so).
    outcomes.push_back({{"name", "unknown"}, {"family", verdictFamily(v)}, {"title", "No failure pattern matched"}});
  }
  j["outcome"] = std::move(outcomes);
  j["root_cause"] = v.root ? findingJson(*v.root) : ordered_json();
  j["bad_nodes"] = nodesJson(v.badNodes);
  j["interesting_nodes"] = nodesJson(v.interestingNodes);
  ordered_json others = ordered_json::array();
  for (const auto& f : v.otherCauses) others.push_back(findingJson(f));
  j["other_causes"] = std::move(others);
  ordered_json downstream = ordered_json::array();
  for (const auto& d : v.downstream) {
    ordered_json earliest = ordered_json::array();
    for (const auto& n : d.earliestNodes) {
      earliest.push_back({{"node", n.node}, {"first", optTime(n.first)}, {"count", n.count}});
    }
    ordered_json evidence = ordered_json::array();
    for (const auto& e : d.evidence) evidence.push_back(evidenceJson(e));
    downstream.push_back({{"symptom", d.symptom}, {"count", d.count}, {"nodes", d.nodes}, {"ranks", d.ranks},
                          {"first", optTime(d.first)}, {"last", optTime(d.last)},
                          {"explained_by", d.explainedBy}, {"rule", d.rule}, {"earliest_nodes", std::move(earliest)},
                          {"evidence", std::move(evidence)}});
  }
  j["downstream"] = std::move(downstream);
  j["recommendation"] = {{"actions", v.actions}, {"nodes", v.actionNodes}};
  j["confidence"] = std::round(v.confidence * 1000) / 1000;
  j["confidence_notes"] = v.confidenceNotes;
  ordered_json candidates = ordered_json::array();
  for (const auto& c : v.candidates) {
    candidates.push_back({{"evidence", evidenceJson(c.evidence)},
                          {"rank", c.rank ? ordered_json(*c.rank) : ordered_json()},
                          {"weight", c.weight},
                          {"count", c.count},
                          {"writers", c.writers}});
  }
  j["candidates"] = std::move(candidates);
  if (v.familyHint) {
    const FamilyHint& h = *v.familyHint;
    j["family_hint"] = {{"family", h.family}, {"word", h.word}, {"weight", h.weight}, {"candidate", h.candidate}};
  } else {
    j["family_hint"] = nullptr;
  }
  ordered_json reports = ordered_json::array();
  for (const auto& r : v.reports) {
    reports.push_back({{"connector", r.connector},
                       {"source", r.source},
                       {"status", statusName(r.status)},
                       {"observations", r.observations},
                       {"bytes", r.bytes},
                       {"reason", optString(r.reason)},
                       {"elapsed_ms", options.timings ? r.elapsedMs : 0},
                       {"channels", channelsJson(r)}});
  }
  j["connector_reports"] = std::move(reports);
  ordered_json counts = ordered_json::object();
  for (const auto& [name, n] : v.symptomCounts) counts[name] = n;
  j["symptom_counts"] = std::move(counts);
  ordered_json symptoms = ordered_json::object();
  for (const auto& [name, info] : v.symptoms) {
    symptoms[name] = {{"title", info.title}, {"family", info.family}, {"description", optString(info.description)},
                      {"refs", info.refs}};
  }
  j["symptoms"] = std::move(symptoms);
  j["ruleset"] = {{"name", v.rulesetName}, {"version", v.rulesetVersion}, {"digest", v.rulesetDigest}};
  j["stats"] = {{"lines_scanned", v.stats.linesScanned},
                {"bytes_scanned", v.stats.bytesScanned},
                {"metric_samples", v.stats.metricSamples},
                {"symptoms", v.stats.symptoms},
                {"evaluator", v.stats.evaluator},
                {"elapsed_ms",
                 {{"collect", options.timings ? v.stats.collectMs : 0},
                  {"scan", options.timings ? v.stats.scanMs : 0},
                  {"refine", options.timings ? v.stats.refineMs : 0}}}};
  if (!v.stats.evaluatorNote.empty()) j["stats"]["evaluator_note"] = v.stats.evaluatorNote;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string toText(const Verdict& v) {
  std::string out;
  const Workload& w = v.workload;
  out += fmt::format("workload   {}  ({}{})\n", w.id.empty() ? "-" : w.id, ir::stateName(w.state),
                     w.exitCode ? fmt::format(", exit code {}", *w.exitCode) : "");
  if (v.outcomes.empty() && v.familyHint) {
    const FamilyHint& h = *v.familyHint;
    out += fmt::format("outcome    unknown: no failure pattern matched; the telling lines point at {} ('{}', line {} "
                       "below)\n",
                       h.family, h.word, h.candidate + 1);
  } else if (v.outcomes.empty()) {
    out += "outcome    unknown: no failure pattern matched\n";
  } else {
    for (size_t i = 0; i < v.outcomes.size(); ++i) {
      const auto& o = v.outcomes[i];
      out += fmt::format("{}{} [{}]{}\n", i == 0 ? "outcome    " : "           ", o.name, o.family,
                         o.title.empty() ? "" : ": " + o.title);
    }
  }
  if (v.root) {
    const auto& r = *v.root;
    out += fmt::format("root cause {}{}{}{} {}\n", r.symptom, r.node.empty() ? "" : " on " + r.node,
                       r.gpu.empty() ? "" : " gpu " + r.gpu, r.rank ? fmt::format(" rank {}", *r.rank) : "",
                       r.timeUnknown ? "(time unknown)"
                                     : fmt::format("at {}{}", formatTimestamp(r.time), r.timeKnown ? "" : " (estimated)"));
    for (const auto& e : r.evidence) {
      if (e.lineNumber) out += fmt::format("           {}:{}: {}\n", e.location, e.lineNumber, e.line);
      else out += fmt::format("           {}: {}\n", e.location, e.line);
    }
  } else {
    out += "root cause none found\n";
  }
  // Where to look when no rule explains the failure: not causes.
  for (size_t i = 0; i < v.candidates.size(); ++i) {
    const auto& c = v.candidates[i];
    const auto& e = c.evidence;
    std::string place = e.lineNumber ? fmt::format("{}:{}", e.location, e.lineNumber) : e.location;
    out += fmt::format("{}{}: {}{}\n", i == 0 ? "look at    " : "           ", place, e.line,
                       c.count > 1 ? fmt::format("  (x{}, {} writer(s))", c.count, c.writers) : "");
  }
  if (!v.badNodes.empty()) {
    out += "bad nodes  ";
    for (size_t i = 0; i < v.badNodes.size(); ++i) out += (i ? ", " : "") + v.badNodes[i].node;
    out += "\n";
  }
  // The largest groups; the JSON verdict has them all.
  constexpr size_t kShown = 6;
  for (size_t i = 0; i < v.downstream.size() && i < kShown; ++i) {
    const auto& d = v.downstream[i];
    out += fmt::format("downstream {} x{} on {} node(s), explained by {}\n", d.symptom, d.count, d.nodes, d.explainedBy);
  }
  if (v.downstream.size() > kShown) {
    uint64_t rest = 0;
    for (size_t i = kShown; i < v.downstream.size(); ++i) rest += v.downstream[i].count;
    out += fmt::format("           and {} more group(s), {} instance(s): see the JSON verdict\n", v.downstream.size() - kShown, rest);
  }
  if (!v.actions.empty()) {
    out += "action     ";
    for (size_t i = 0; i < v.actions.size(); ++i) out += (i ? ", " : "") + v.actions[i];
    if (!v.actionNodes.empty()) {
      out += " (";
      for (size_t i = 0; i < v.actionNodes.size(); ++i) out += (i ? ", " : "") + v.actionNodes[i];
      out += ")";
    }
    out += "\n";
  }
  out += fmt::format("confidence {:.2f}\n", v.confidence);
  for (const auto& note : v.confidenceNotes) out += fmt::format("           {}\n", note);
  size_t missing = 0;
  for (const auto& r : v.reports) missing += r.status == ConnectorReport::Status::Error || r.status == ConnectorReport::Status::Partial;
  out += fmt::format("evidence   {} lines from {} source(s){}\n", v.stats.linesScanned, v.reports.size(),
                     missing ? fmt::format(", {} with problems (see connector_reports)", missing) : "");
  std::array<uint64_t, ir::kChannelCount> channels{};
  for (const auto& r : v.reports) {
    for (size_t c = 0; c < channels.size(); ++c) channels[c] += r.channelLines[c];
  }
  std::vector<std::string> perChannel;
  for (size_t c = 0; c < channels.size(); ++c) {
    if (channels[c]) perChannel.push_back(fmt::format("{} {}", ir::channelName(static_cast<ir::Channel>(c)), channels[c]));
  }
  if (!perChannel.empty()) out += fmt::format("           by channel: {}\n", fmt::join(perChannel, ", "));
  return out;
}

}  // namespace attrib::runtime
