#include "sinks/verdict_rows.h"

#include <chrono>
#include <nlohmann/json.hpp>

namespace attrib::sinks {
namespace {

std::string jsonArray(const std::vector<std::string>& v) { return nlohmann::json(v).dump(); }
// Empty text is "not known": NULL.
Field optionalText(const std::string& s) { return s.empty() ? Field{} : Field{s}; }
Field optionalInt(const std::optional<int64_t>& v) { return v ? Field{*v} : Field{}; }

}  // namespace

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
                   primary ? primary->family : std::string("unknown"), primary ? Field{primary->title} : Field{}, rootSymptom,
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
  return out;
}

}  // namespace attrib::sinks
