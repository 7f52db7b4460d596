#include "sinks/verdict_rows.h"

#include <chrono>
#include <nlohmann/json.hpp>

namespace attrib::sinks {
namespace {

// Ill-formed UTF-8 becomes U+FFFD, as in the verdict JSON (a strict dump would throw).
std::string jsonArray(const std::vector<std::string>& v) {
  return nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Whether `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF).
bool wellFormed(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (b >= 0xC2 && b <= 0xDF) n = 1;
    else if (b == 0xE0) n = 2, lo = 0xA0;
    else if (b == 0xED) n = 2, hi = 0x9F;
    else if (b >= 0xE1 && b <= 0xEF) n = 2;
    else if (b == 0xF0) n = 3, lo = 0x90;
    else if (b == 0xF4) n = 3, hi = 0x8F;
    else if (b >= 0xF1 && b <= 0xF3) n = 3;
    else return false;
    if (i + n >= s.size()) return false;  // cut short
    for (size_t k = 1; k <= n; ++k) {
      auto c = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
}

// Every text value of `table` as valid UTF-8.
void makeValid(TableRows& table) {
  for (auto& row : table.rows) {
    for (auto& field : row) {
      if (auto* text = std::get_if<std::string>(&field); text && !wellFormed(*text)) *text = validUtf8(*text);
    }
  }
}
// Empty text is "not known": NULL.
Field optionalText(const std::string& s) { return s.empty() ? Field{} : Field{s}; }
Field optionalInt(const std::optional<int64_t>& v) { return v ? Field{*v} : Field{}; }

}  // namespace

std::string validUtf8(std::string_view text) {
  if (wellFormed(text)) return std::string(text);
  // The verdict JSON writer's own replacement, so a column and the verdict_json agree.
  std::string quoted = nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

VerdictRows verdictRows(const runtime::Verdict& v, int64_t createdNs, const std::string& attribVersion) {
  VerdictRows out;
  const std::string& id = v.workload.id;
  const std::string& digest = v.rulesetDigest;
  out.workload = {"workloads",
                  {"workload_id", "ruleset_digest", "scheduler", "name", "user_name", "partition_name", "state", "exit_code",
                   "signal", "start_ns", "end_ns", "nodes_json", "reason"},
                  {{id, digest, optionalText(v.workload.scheduler), optionalText(v.workload.name), optionalText(v.workload.user),
                    optionalText(v.workload.partition), std::string(ir::stateName(v.workload.state)), optionalInt(v.workload.exitCode),
                    optionalInt(v.workload.signal), optionalInt(v.workload.start), optionalInt(v.workload.end),
                    jsonArray(v.workload.nodes), optionalText(v.workload.reason)}}};

  const runtime::OutcomeFinding* primary = v.outcomes.empty() ? nullptr : &v.outcomes[0];
  Field rootSymptom, rootNode, rootTime;
  if (v.root) {
    rootSymptom = v.root->symptom;
    rootNode = optionalText(v.root->node);
    if (v.root->timeKnown) rootTime = v.root->time;
  }
  runtime::RenderOptions render;
  out.verdict = {"verdicts",
                 {"workload_id", "ruleset_digest", "ruleset_name", "ruleset_version", "outcome", "family", "title",
                  "root_symptom", "root_node", "root_time_ns", "confidence", "actions_json", "attrib_version", "created_ns",
                  "verdict_json"},
                 {{id, digest, v.rulesetName, v.rulesetVersion, primary ? Field{primary->name} : Field{},
                   runtime::verdictFamily(v), primary ? Field{primary->title} : Field{}, rootSymptom,
                   rootNode, rootTime, v.confidence, jsonArray(v.actions), attribVersion, createdNs, runtime::toJson(v, render)}}};

  TableRows bad{"bad_nodes", {"node", "symptoms_json"}, {}};
  for (const auto& n : v.badNodes) bad.rows.push_back({n.node, jsonArray(n.symptoms)});
  TableRows symptoms{"symptoms", {"symptom", "count"}, {}};
  for (const auto& [name, count] : v.symptomCounts) symptoms.rows.push_back({name, static_cast<int64_t>(count)});
  TableRows evidence{"evidence",
                     {"role", "symptom", "node", "time_ns", "source", "connector", "location", "line_number", "content"},
                     {}};
  auto add = [&](const runtime::SymptomFinding& f, const char* role) {
    for (const auto& line : f.evidence) {
      evidence.rows.push_back({std::string(role), f.symptom, optionalText(line.node), optionalInt(line.time), optionalText(line.source),
                               optionalText(line.connector), optionalText(line.location),
                               static_cast<int64_t>(line.lineNumber), line.line});
    }
  };
  if (v.root) add(*v.root, "root");
  for (const auto& c : v.otherCauses) add(c, "other_cause");
  TableRows reports{"connector_reports",
                    {"connector", "source", "status", "observations", "bytes", "reason", "elapsed_ms"},
                    {}};
  for (const auto& r : v.reports) {
    reports.rows.push_back({r.connector, r.source, std::string(evidence::statusName(r.status)), static_cast<int64_t>(r.observations),
                            static_cast<int64_t>(r.bytes), optionalText(r.reason), static_cast<int64_t>(r.elapsedMs)});
  }
  out.children = {std::move(bad), std::move(symptoms), std::move(evidence), std::move(reports)};
  makeValid(out.workload);
  makeValid(out.verdict);
  for (auto& child : out.children) makeValid(child);
  return out;
}

}  // namespace attrib::sinks
