// parseVerdictJson: toJson(parse(toJson(v))) == toJson(v) byte for byte over the verdict of every
// accuracy scenario and example workload (stdlib rules), and malformed verdicts (truncated, wrong
// types, wrong schema, unknown fields) are one-line errors naming the field.
#include "runtime/verdict_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "runtime/engine.h"
#include "tests/runtime/engine_util.h"
#include "tests/runtime/workload_dirs.h"

namespace attrib::runtime {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using attrib::testing::evidenceOf;
using attrib::testing::stdlibEngine;
using attrib::testing::workloadDirs;

std::string verdictJson(const fs::path& dir) { return toJson(stdlibEngine()->diagnose(evidenceOf(dir))); }

TEST(VerdictJson, EveryScenarioVerdictRoundTripsByteForByte) {
  ASSERT_TRUE(stdlibEngine());
  auto dirs = workloadDirs();
  ASSERT_GE(dirs.size(), 60u) << "the accuracy scenarios and the examples";
  size_t withRoot = 0, unknown = 0, withNote = 0;
  for (const auto& dir : dirs) {
    std::string text = verdictJson(dir);
    std::string error;
    std::optional<Verdict> parsed = parseVerdictJson(text, &error);
    ASSERT_TRUE(parsed) << dir << ": " << error;
    EXPECT_EQ(toJson(*parsed), text) << dir;
    withRoot += parsed->root.has_value();
    unknown += parsed->outcomes.empty();
    withNote += !parsed->confidenceNotes.empty();
  }
  // The sample covers verdicts with and without a root cause.
  EXPECT_GT(withRoot, 0u);
  EXPECT_GT(unknown, 0u);
}

TEST(VerdictJson, HandBuiltVerdictsWithEveryOptionalValueRoundTrip) {
  Verdict v;
  v.workload.id = "kueue/ml/job-7";
  v.workload.state = ir::State::NodeFail;
  v.workload.exitCode = -9;
  v.workload.start = -1'500'000'001;  // before the epoch, with a fraction
  v.workload.end = 1'795'949'520'123'456'789;
  v.workload.nodes = {"a", "b"};
  v.workload.ranksPerNode = 4;  // rendered as ranks: 8
  SymptomFinding f;
  f.symptom = "x.y";
  f.node = "a";
  f.rank = 3;
  f.gpu = "0";
  f.time = 1'795'949'520'000'000'001;
  f.timeKnown = false;
  f.evidence.push_back({"syslog", "files", "", std::nullopt, "line \xff bytes", "/l.gz", 10, 2});
  v.root = f;
  v.otherCauses = {f, f};
  v.downstream.push_back({"d", 5, 2, 1, 7, "x.y@a", "r"});
  v.confidence = 0.123456;
  v.confidenceNotes = {"a note"};
  v.reports.push_back({"loki", "q", ConnectorReport::Status::Partial, 1, 2, "why", -1});
  v.symptomCounts = {{"z.last", 1}, {"a.first", 2}};  // not sorted: the order is kept
  v.stats.evaluatorNote = "no JIT here";
  std::string text = toJson(v);
  std::string error;
  auto parsed = parseVerdictJson(text, &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(toJson(*parsed), text);
  EXPECT_EQ(parsed->workload.ranks, 8);
}

// A valid verdict with one field replaced (a JSON pointer) or removed.
std::string edited(const std::string& pointer, const std::optional<ordered_json>& value) {
  static const std::string base = verdictJson(fs::path(ATTRIB_SOURCE_DIR) / "examples" / "host-oom");
  ordered_json j = ordered_json::parse(base);
  ordered_json::json_pointer p(pointer);
  if (value) j[p] = *value;
  else j[p.parent_pointer()].erase(p.back());
  return j.dump();
}

TEST(VerdictJson, MalformedVerdictsAreOneLineErrorsNamingTheField) {
  struct Case {
    std::string text, message;
  };
  std::string whole = verdictJson(fs::path(ATTRIB_SOURCE_DIR) / "examples" / "host-oom");
  std::vector<Case> cases = {
      {"", "verdict: not JSON (at byte 1)"},
      {whole.substr(0, whole.size() / 2), "verdict: not JSON (at byte"},
      {"[]", "verdict: '' must be a JSON object"},
      {"{}", "verdict: 'schema' must be \"attrib.verdict/v1\""},
      {edited("/schema", "attrib.verdict/v2"), "verdict: schema 'attrib.verdict/v2' is not attrib.verdict/v1"},
      {edited("/confidence", "high"), "verdict: 'confidence' must be a number"},
      {edited("/confidence", 1.5), "verdict: 'confidence' must be between 0 and 1"},
      {edited("/workload/id", 5), "verdict: 'workload.id' must be a string"},
      {edited("/workload/state", "EXPLODED"), "verdict: 'workload.state' is not a state ('EXPLODED')"},
      {edited("/workload/start", "yesterday"), "verdict: 'workload.start' must be an RFC 3339 UTC time"},
      {edited("/workload/start", "2026-11-29T13:40:03.500Z"), "verdict: 'workload.start' must be an RFC 3339 UTC time"},
      {edited("/workload/nodes/0", 1), "verdict: 'workload.nodes[0]' must be a string"},
      {edited("/terminal_state", "FAILED"), "verdict: 'terminal_state' must equal 'workload.state'"},
      {edited("/root_cause/evidence/0/where/offset", -1), "verdict: 'root_cause.evidence[0].where.offset' must be a non-negative integer"},
      {edited("/root_cause/time_estimated", "no"), "verdict: 'root_cause.time_estimated' must be true or false"},
      {edited("/root_cause/node", ""), "verdict: 'root_cause.node' must be a non-empty string or null"},
      {edited("/downstream/0/count", "31"), "verdict: 'downstream[0].count' must be a non-negative integer"},
      {edited("/connector_reports/0/status", "fine"), "verdict: 'connector_reports[0].status' must be ok, empty, partial or error"},
      {edited("/symptom_counts", ordered_json::array()), "verdict: 'symptom_counts' must be an object"},
      {edited("/outcome", ordered_json::array()), "verdict: 'outcome' must not be empty"},
      {edited("/bad_nodes", ordered_json::object()), "verdict: 'bad_nodes' must be a list"},
      {edited("/stats/evaluator_note", ""), "verdict: 'stats.evaluator_note' must be a non-empty string or null"},
      {edited("/ruleset", std::nullopt), "verdict: 'ruleset' is missing"},
      {edited("/stats/elapsed_ms/scan", std::nullopt), "verdict: 'stats.elapsed_ms.scan' is missing"},
      {edited("/extra", 1), "verdict: 'extra' is not a field of attrib.verdict/v1"},
      {edited("/root_cause/evidence/0/where/column", 3), "verdict: 'root_cause.evidence[0].where.column' is not a field"},
  };
  for (const auto& c : cases) {
    std::string error;
    EXPECT_FALSE(parseVerdictJson(c.text, &error)) << c.message;
    EXPECT_EQ(error.rfind(c.message, 0), 0u) << "want: " << c.message << "\ngot:  " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace attrib::runtime
