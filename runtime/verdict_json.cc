#include "runtime/verdict_json.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "ir/civil_time.h"

namespace attrib::runtime {
namespace {

using nlohmann::ordered_json;

struct ParseError {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ParseError{fmt::format("verdict: '{}' {}", path, what)};
}

// The object at `path` with exactly `keys` (`optional` may be missing).
const ordered_json& object(const ordered_json& j, const std::string& path, std::initializer_list<const char*> keys,
                           std::initializer_list<const char*> optional = {}) {
  if (!j.is_object()) fail(path, "must be an object");
  std::set<std::string> known;
  for (const char* k : keys) {
    known.insert(k);
    if (!j.contains(k)) fail(path.empty() ? k : path + "." + k, "is missing");
  }
  for (const char* k : optional) known.insert(k);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!known.count(it.key())) fail(path.empty() ? it.key() : path + "." + it.key(), "is not a field of attrib.verdict/v1");
  }
  return j;
}

std::string field(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

std::string str(const ordered_json& j, const std::string& path, const char* key) {
  const ordered_json& v = j.at(key);
  if (!v.is_string()) fail(field(path, key), "must be a string");
  return v.get<std::string>();
}

// A string that toJson writes as null when empty.
std::string optStr(const ordered_json& j, const std::string& path, const char* key) {
  const ordered_json& v = j.at(key);
  if (v.is_null()) return "";
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) fail(field(path, key), "must be a non-empty string or null");
  return v.get<std::string>();
}

uint64_t unsignedOf(const ordered_json& v, const std::string& path) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) fail(path, "must be a non-negative integer");
  return v.get<uint64_t>();
}

int64_t integerOf(const ordered_json& v, const std::string& path) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))) fail(path, "must be an integer");
  return v.get<int64_t>();
}

std::optional<int64_t> optInteger(const ordered_json& j, const std::string& path, const char* key) {
  const ordered_json& v = j.at(key);
  if (v.is_null()) return std::nullopt;
  return integerOf(v, field(path, key));
}

bool boolean(const ordered_json& j, const std::string& path, const char* key) {
  const ordered_json& v = j.at(key);
  if (!v.is_boolean()) fail(field(path, key), "must be true or false");
  return v.get<bool>();
}

// RFC 3339 exactly as formatTimestamp writes it: 2026-11-29T10:42:00.25Z.
std::optional<int64_t> parseTime(const std::string& s) {
  size_t i = 0;
  bool negativeYear = !s.empty() && s[0] == '-';
  i += negativeYear;
  size_t yearStart = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i - yearStart < 4 || i - yearStart > 6) return std::nullopt;
  int64_t year = std::stoll(s.substr(yearStart, i - yearStart));
  if (negativeYear) year = -year;
  // -MM-DDTHH:MM:SS after the year.
  const char* layout = "-nn-nnTnn:nn:nn";
  if (s.size() < i + 15) return std::nullopt;
  int64_t parts[5] = {};
  for (size_t k = 0, part = 0; k < 15; ++k) {
    char c = s[i + k];
    if (layout[k] == 'n') {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      parts[part / 2] = parts[part / 2] * 10 + (c - '0');
      ++part;
    } else if (c != layout[k]) {
      return std::nullopt;
    }
  }
  i += 15;
  int64_t month = parts[0], day = parts[1], hour = parts[2], minute = parts[3], second = parts[4];
  int64_t fraction = 0;
  if (i < s.size() && s[i] == '.') {
    size_t start = ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start || i - start > 9) return std::nullopt;
    fraction = std::stoll(s.substr(start, i - start));
    for (size_t k = i - start; k < 9; ++k) fraction *= 10;
  }
  if (i + 1 != s.size() || s[i] != 'Z') return std::nullopt;
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return std::nullopt;
  int64_t t = ((daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 24 + hour) * 60 + minute) * 60 + second;
  if (std::abs(t) > INT64_MAX / 1'000'000'000 - 1) return std::nullopt;
  int64_t ns = t * 1'000'000'000 + fraction;
  // Only the canonical spelling (no trailing zeros in the fraction): it renders back the same.
  if (formatTimestamp(ns) != s) return std::nullopt;
  return ns;
}

int64_t time(const ordered_json& j, const std::string& path, const char* key) {
  const ordered_json& v = j.at(key);
  std::optional<int64_t> t = v.is_string() ? parseTime(v.get<std::string>()) : std::nullopt;
  if (!t) fail(field(path, key), "must be an RFC 3339 UTC time such as 2026-11-29T10:42:00Z");
  return *t;
}

std::optional<int64_t> optTime(const ordered_json& j, const std::string& path, const char* key) {
  if (j.at(key).is_null()) return std::nullopt;
  return time(j, path, key);
}

const ordered_json& array(const ordered_json& j, const std::string& path, const char* key) {
  const ordered_json& v = j.at(key);
  if (!v.is_array()) fail(field(path, key), "must be a list");
  return v;
}

std::vector<std::string> strings(const ordered_json& j, const std::string& path, const char* key) {
  std::vector<std::string> out;
  const ordered_json& list = array(j, path, key);
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) fail(fmt::format("{}[{}]", field(path, key), i), "must be a string");
    out.push_back(list[i].get<std::string>());
  }
  return out;
}

EvidenceLine evidence(const ordered_json& j, const std::string& path) {
  object(j, path, {"source", "connector", "node", "time", "line", "where"});
  EvidenceLine e;
  e.source = str(j, path, "source");
  e.connector = str(j, path, "connector");
  e.node = optStr(j, path, "node");
  e.time = optTime(j, path, "time");
  e.line = str(j, path, "line");
  std::string where = path + ".where";
  const ordered_json& w = object(j.at("where"), where, {"location", "offset", "line"});
  e.location = str(w, where, "location");
  e.offset = unsignedOf(w.at("offset"), where + ".offset");
  e.lineNumber = unsignedOf(w.at("line"), where + ".line");
  return e;
}

SymptomFinding finding(const ordered_json& j, const std::string& path) {
  object(j, path, {"symptom", "title", "family", "node", "rank", "gpu", "time", "time_estimated", "evidence"});
  SymptomFinding f;
  f.symptom = str(j, path, "symptom");
  f.title = str(j, path, "title");
  f.family = str(j, path, "family");
  f.node = optStr(j, path, "node");
  f.rank = optInteger(j, path, "rank");
  f.gpu = optStr(j, path, "gpu");
  std::optional<int64_t> t = optTime(j, path, "time");
  f.timeUnknown = !t;
  f.time = t.value_or(0);
  f.timeKnown = t && !boolean(j, path, "time_estimated");
  const ordered_json& list = array(j, path, "evidence");
  for (size_t i = 0; i < list.size(); ++i) f.evidence.push_back(evidence(list[i], fmt::format("{}.evidence[{}]", path, i)));
  return f;
}

std::vector<NodeFinding> nodes(const ordered_json& j, const char* key) {
  std::vector<NodeFinding> out;
  const ordered_json& list = array(j, "", key);
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = fmt::format("{}[{}]", key, i);
    object(list[i], path, {"node", "symptoms"}, {"history"});
    NodeFinding n{str(list[i], path, "node"), strings(list[i], path, "symptoms"), std::nullopt};
    if (list[i].contains("history")) {
      std::string hp = path + ".history";
      const ordered_json& h = object(list[i]["history"], hp, {"failures", "node_faults", "families", "last", "workloads"});
      NodeFinding::History history;
      history.failures = unsignedOf(h["failures"], hp + ".failures");
      history.nodeFaults = unsignedOf(h["node_faults"], hp + ".node_faults");
      history.families = strings(h, hp, "families");
      history.last = optTime(h, hp, "last");
      history.workloads = strings(h, hp, "workloads");
      n.history = std::move(history);
    }
    out.push_back(std::move(n));
  }
  return out;
}

Verdict verdictOf(const ordered_json& j) {
  if (!j.is_object()) fail("", "must be a JSON object");
  if (!j.contains("schema") || !j["schema"].is_string()) fail("schema", "must be \"attrib.verdict/v1\"");
  if (j["schema"] != "attrib.verdict/v1") {
    throw ParseError{fmt::format("verdict: schema '{}' is not attrib.verdict/v1", j["schema"].get<std::string>())};
  }
  object(j, "", {"schema", "workload", "terminal_state", "outcome", "root_cause", "bad_nodes", "interesting_nodes",
                 "other_causes", "downstream", "recommendation", "confidence", "confidence_notes", "connector_reports",
                 "symptom_counts", "ruleset", "stats"},
         {"symptoms", "candidates", "family_hint"});
  Verdict v;
  const ordered_json& w = object(j["workload"], "workload", {"id", "scheduler", "name", "state", "exit_code", "start", "end", "nodes", "ranks"});
  v.workload.id = str(w, "workload", "id");
  v.workload.scheduler = optStr(w, "workload", "scheduler");
  v.workload.name = optStr(w, "workload", "name");
  std::string state = str(w, "workload", "state");
  if (!ir::stateFromName(state, &v.workload.state) || ir::stateName(v.workload.state) != state) {
    fail("workload.state", fmt::format("is not a state ('{}')", state));
  }
  v.workload.exitCode = optInteger(w, "workload", "exit_code");
  v.workload.start = optTime(w, "workload", "start");
  v.workload.end = optTime(w, "workload", "end");
  v.workload.nodes = strings(w, "workload", "nodes");
  v.workload.ranks = optInteger(w, "workload", "ranks");
  if (j["terminal_state"] != state) fail("terminal_state", "must equal 'workload.state'");

  const ordered_json& outcomes = array(j, "", "outcome");
  if (outcomes.empty()) fail("outcome", "must not be empty (an unknown outcome is [{\"name\": \"unknown\", ...}])");
  for (size_t i = 0; i < outcomes.size(); ++i) {
    std::string path = fmt::format("outcome[{}]", i);
    object(outcomes[i], path, {"name", "family", "title"});
    OutcomeFinding o;
    o.name = str(outcomes[i], path, "name");
    o.family = str(outcomes[i], path, "family");
    o.title = str(outcomes[i], path, "title");
    v.outcomes.push_back(std::move(o));
  }
  if (j.contains("family_hint") && !j["family_hint"].is_null()) {
    const ordered_json& h = object(j["family_hint"], "family_hint", {"family", "word", "weight", "candidate"});
    FamilyHint hint;
    hint.family = str(h, "family_hint", "family");
    hint.word = str(h, "family_hint", "word");
    hint.weight = static_cast<int>(integerOf(h["weight"], "family_hint.weight"));
    hint.candidate = unsignedOf(h["candidate"], "family_hint.candidate");
    v.familyHint = std::move(hint);
  }
  // toJson writes no outcome as this one entry, with the family hint's family when there is one.
  if (v.outcomes.size() == 1 && v.outcomes[0].name == "unknown" &&
      v.outcomes[0].family == (v.familyHint ? v.familyHint->family : "unknown") &&
      v.outcomes[0].title == "No failure pattern matched") {
    v.outcomes.clear();
  }
  if (v.familyHint && !v.outcomes.empty()) fail("family_hint", "must be null when an outcome matched");
  if (!j["root_cause"].is_null()) v.root = finding(j["root_cause"], "root_cause");
  v.badNodes = nodes(j, "bad_nodes");
  v.interestingNodes = nodes(j, "interesting_nodes");
  const ordered_json& others = array(j, "", "other_causes");
  for (size_t i = 0; i < others.size(); ++i) v.otherCauses.push_back(finding(others[i], fmt::format("other_causes[{}]", i)));
  if (j.contains("candidates")) {
    const ordered_json& list = array(j, "", "candidates");
    for (size_t i = 0; i < list.size(); ++i) {
      std::string path = fmt::format("candidates[{}]", i);
      object(list[i], path, {"evidence", "rank", "weight", "count", "writers"});
      Candidate c;
      c.evidence = evidence(list[i]["evidence"], path + ".evidence");
      c.rank = optInteger(list[i], path, "rank");
      c.weight = static_cast<int>(integerOf(list[i]["weight"], path + ".weight"));
      c.count = unsignedOf(list[i]["count"], path + ".count");
      c.writers = unsignedOf(list[i]["writers"], path + ".writers");
      v.candidates.push_back(std::move(c));
    }
  }
  const ordered_json& downstream = array(j, "", "downstream");
  for (size_t i = 0; i < downstream.size(); ++i) {
    std::string path = fmt::format("downstream[{}]", i);
    const ordered_json& d = object(downstream[i], path, {"symptom", "count", "nodes", "ranks", "first", "explained_by", "rule"},
                                   {"last", "earliest_nodes", "evidence"});
    DownstreamGroup g;
    g.symptom = str(d, path, "symptom");
    g.count = unsignedOf(d["count"], path + ".count");
    g.nodes = unsignedOf(d["nodes"], path + ".nodes");
    g.ranks = unsignedOf(d["ranks"], path + ".ranks");
    g.first = optTime(d, path, "first");
    g.explainedBy = str(d, path, "explained_by");
    g.rule = str(d, path, "rule");
    // Verdicts stored before these fields existed lack them: the group then ends where it began.
    g.last = d.contains("last") ? optTime(d, path, "last") : g.first;
    if (g.first && g.last && *g.last < *g.first) fail(path + ".last", "must not be before 'first'");
    if (d.contains("earliest_nodes")) {
      const ordered_json& list = array(d, path, "earliest_nodes");
      for (size_t k = 0; k < list.size(); ++k) {
        std::string at = fmt::format("{}.earliest_nodes[{}]", path, k);
        object(list[k], at, {"node", "first", "count"});
        g.earliestNodes.push_back({str(list[k], at, "node"), optTime(list[k], at, "first"), unsignedOf(list[k]["count"], at + ".count")});
      }
    }
    if (d.contains("evidence")) {
      const ordered_json& list = array(d, path, "evidence");
      for (size_t k = 0; k < list.size(); ++k) g.evidence.push_back(evidence(list[k], fmt::format("{}.evidence[{}]", path, k)));
    }
    v.downstream.push_back(std::move(g));
  }
  const ordered_json& recommendation = object(j["recommendation"], "recommendation", {"actions", "nodes"});
  v.actions = strings(recommendation, "recommendation", "actions");
  v.actionNodes = strings(recommendation, "recommendation", "nodes");
  if (!j["confidence"].is_number() || !std::isfinite(j["confidence"].get<double>())) fail("confidence", "must be a number");
  v.confidence = j["confidence"].get<double>();
  if (v.confidence < 0 || v.confidence > 1) fail("confidence", "must be between 0 and 1");
  v.confidenceNotes = strings(j, "", "confidence_notes");
  const ordered_json& reports = array(j, "", "connector_reports");
  for (size_t i = 0; i < reports.size(); ++i) {
    std::string path = fmt::format("connector_reports[{}]", i);
    const ordered_json& r =
        object(reports[i], path, {"connector", "source", "status", "observations", "bytes", "reason", "elapsed_ms"}, {"channels"});
    ConnectorReport report;
    report.connector = str(r, path, "connector");
    report.source = str(r, path, "source");
    std::string status = str(r, path, "status");
    if (status == "ok") report.status = ConnectorReport::Status::Ok;
    else if (status == "empty") report.status = ConnectorReport::Status::Empty;
    else if (status == "partial") report.status = ConnectorReport::Status::Partial;
    else if (status == "error") report.status = ConnectorReport::Status::Error;
    else fail(path + ".status", "must be ok, empty, partial or error");
    report.observations = unsignedOf(r["observations"], path + ".observations");
    report.bytes = unsignedOf(r["bytes"], path + ".bytes");
    report.reason = optStr(r, path, "reason");
    report.elapsedMs = integerOf(r["elapsed_ms"], path + ".elapsed_ms");
    // Verdicts stored before channels existed lack them.
    const ordered_json& channels = r.contains("channels") ? r["channels"] : ordered_json::object();
    if (!channels.is_object()) fail(path + ".channels", "must be an object");
    for (auto it = channels.begin(); it != channels.end(); ++it) {
      ir::Channel c;
      if (!ir::channelFromName(it.key(), &c)) fail(path + ".channels." + it.key(), "is not a log channel");
      report.channelLines[static_cast<size_t>(c)] = unsignedOf(it.value(), path + ".channels." + it.key());
    }
    v.reports.push_back(std::move(report));
  }
  const ordered_json& counts = j["symptom_counts"];
  if (!counts.is_object()) fail("symptom_counts", "must be an object");
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    v.symptomCounts.emplace_back(it.key(), unsignedOf(it.value(), "symptom_counts." + it.key()));
  }
  if (j.contains("symptoms")) {
    const ordered_json& symptoms = j["symptoms"];
    if (!symptoms.is_object()) fail("symptoms", "must be an object");
    for (auto it = symptoms.begin(); it != symptoms.end(); ++it) {
      std::string path = "symptoms." + it.key();
      const ordered_json& s = object(it.value(), path, {"title", "family", "description", "refs"});
      v.symptoms.push_back({it.key(), {str(s, path, "title"), str(s, path, "family"), optStr(s, path, "description"),
                                       strings(s, path, "refs")}});
    }
  }
  const ordered_json& ruleset = object(j["ruleset"], "ruleset", {"name", "version", "digest"});
  v.rulesetName = str(ruleset, "ruleset", "name");
  v.rulesetVersion = str(ruleset, "ruleset", "version");
  v.rulesetDigest = str(ruleset, "ruleset", "digest");
  const ordered_json& stats =
      object(j["stats"], "stats", {"lines_scanned", "bytes_scanned", "metric_samples", "symptoms", "evaluator", "elapsed_ms"}, {"evaluator_note"});
  v.stats.linesScanned = unsignedOf(stats["lines_scanned"], "stats.lines_scanned");
  v.stats.bytesScanned = unsignedOf(stats["bytes_scanned"], "stats.bytes_scanned");
  v.stats.metricSamples = unsignedOf(stats["metric_samples"], "stats.metric_samples");
  v.stats.symptoms = unsignedOf(stats["symptoms"], "stats.symptoms");
  v.stats.evaluator = str(stats, "stats", "evaluator");
  if (stats.contains("evaluator_note")) {
    v.stats.evaluatorNote = optStr(stats, "stats", "evaluator_note");
    if (v.stats.evaluatorNote.empty()) fail("stats.evaluator_note", "must be a non-empty string when present");
  }
  const ordered_json& elapsed = object(stats["elapsed_ms"], "stats.elapsed_ms", {"collect", "scan", "refine"});
  v.stats.collectMs = integerOf(elapsed["collect"], "stats.elapsed_ms.collect");
  v.stats.scanMs = integerOf(elapsed["scan"], "stats.elapsed_ms.scan");
  v.stats.refineMs = integerOf(elapsed["refine"], "stats.elapsed_ms.refine");
  return v;
}

}  // namespace

std::optional<Verdict> parseVerdictJson(const std::string& text, std::string* error) {
  ordered_json j;
  try {
    j = ordered_json::parse(text);
  } catch (const ordered_json::parse_error& e) {
    *error = fmt::format("verdict: not JSON (at byte {})", e.byte);
    return std::nullopt;
  }
  try {
    return verdictOf(j);
  } catch (const ParseError& e) {
    *error = e.message;
  } catch (const ordered_json::exception& e) {
    *error = fmt::format("verdict: {}", e.what());
  }
  return std::nullopt;
}

}  // namespace attrib::runtime
