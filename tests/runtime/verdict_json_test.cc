// parseVerdictJson: toJson(parse(toJson(v))) == toJson(v) byte for byte over the verdict of every
// accuracy scenario and example workload (stdlib rules), and malformed verdicts (truncated, wrong
// types, wrong schema, unknown fields) are one-line errors naming the field.
#include "runtime/verdict_json.h"

#include <gtest/gtest.h>

#include <algorithm>
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
  v.downstream.push_back({"d", 5, 2, 1, 7, "x.y@a", "r", 9, {{"a", 7, 4}, {"b", 8, 1}}, {f.evidence[0]}});
  v.downstream.push_back({"e", 1, 0, 0, 3, "x.y", "r", 3, {}, {}});
  v.symptomCounts = {{"x.y", 3}, {"d", 5}};
  v.symptoms = {{"x.y", {"Title <b>", "accelerator-gpu", "what it means", {"https://example.org/x", "doc 7"}}},
                {"d", {"", "communication", "", {}}}};
  v.confidence = 0.123456;
  v.confidenceNotes = {"a note"};
  v.reports.push_back({"loki", "q", ConnectorReport::Status::Partial, 1, 2, "why", -1});
  v.symptomCounts.push_back({"a.first", 2});  // not sorted: the order is kept
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

// What a symptom means and where its downstream groups began reach the verdict, and a verdict
// stored before those fields existed still reads (they come back empty).
TEST(VerdictJson, SymptomMeaningsAndDownstreamSpreadAreCarriedAndMayBeAbsent) {
  ASSERT_TRUE(stdlibEngine());
  fs::path cascade = fs::path(ATTRIB_SOURCE_DIR) / "examples" / "xid79-nccl-cascade";
  Verdict v = stdlibEngine()->diagnose(evidenceOf(cascade));
  ASSERT_TRUE(v.root);
  ASSERT_EQ(v.symptoms.size(), v.symptomCounts.size());
  for (size_t i = 0; i < v.symptoms.size(); ++i) EXPECT_EQ(v.symptoms[i].first, v.symptomCounts[i].first);
  auto info = std::find_if(v.symptoms.begin(), v.symptoms.end(), [&](auto& s) { return s.first == v.root->symptom; });
  ASSERT_NE(info, v.symptoms.end());
  EXPECT_EQ(info->second.title, v.root->title);
  EXPECT_EQ(info->second.family, v.root->family);
  ASSERT_FALSE(info->second.refs.empty()) << "the Xid rules cite NVIDIA's catalogue";
  // A catalogue row's source: NVIDIA's page, with the release and the transcription it came by.
  EXPECT_NE(info->second.refs[0].find("https://docs.nvidia.com/"), std::string::npos) << info->second.refs[0];
  ASSERT_FALSE(v.downstream.empty());
  for (const auto& d : v.downstream) {
    EXPECT_LE(d.first, d.last) << d.symptom;
    ASSERT_EQ(d.evidence.size(), 1u) << d.symptom;
    EXPECT_FALSE(d.evidence[0].line.empty());
    ASSERT_FALSE(d.earliestNodes.empty()) << d.symptom;
    EXPECT_LE(d.earliestNodes.size(), std::min<uint64_t>(d.nodes, DownstreamGroup::kEarliestNodes));
    EXPECT_EQ(d.earliestNodes[0].first, d.first) << "the first node is where the group began";
    uint64_t counted = 0;
    for (size_t i = 0; i < d.earliestNodes.size(); ++i) {
      counted += d.earliestNodes[i].count;
      if (i) {
        EXPECT_LE(d.earliestNodes[i - 1].first, d.earliestNodes[i].first);
      }
    }
    EXPECT_LE(counted, d.count);
    if (d.nodes <= DownstreamGroup::kEarliestNodes) {
      EXPECT_EQ(counted, d.count) << d.symptom;
    }
  }

  ordered_json old = ordered_json::parse(toJson(v));
  old.erase("symptoms");
  for (auto& d : old["downstream"]) {
    d.erase("last");
    d.erase("earliest_nodes");
    d.erase("evidence");
  }
  std::string error;
  auto parsed = parseVerdictJson(old.dump(), &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_TRUE(parsed->symptoms.empty());
  EXPECT_EQ(parsed->downstream[0].last, parsed->downstream[0].first);
  EXPECT_TRUE(parsed->downstream[0].earliestNodes.empty());
  EXPECT_TRUE(parsed->downstream[0].evidence.empty());
}

// A rule's description and refs travel through the bundle (IR codec) into the verdict.
TEST(VerdictJson, ARulesDescriptionAndRefsReachTheVerdict) {
  auto engine = attrib::testing::engineFor(R"(
symptom boom "It broke" {
  on log
  match /boom/
  family user-code
  description "The job's code raised an error of its own."
  ref "https://example.org/boom", "runbook 12"
}
)");
  ASSERT_TRUE(engine);
  Verdict v = attrib::testing::diagnose(*engine, {attrib::testing::line("n1", "applog", "2026-01-01T00:00:00Z", "boom")});
  ASSERT_EQ(v.symptoms.size(), 1u);
  EXPECT_EQ(v.symptoms[0].first, "boom");
  EXPECT_EQ(v.symptoms[0].second.title, "It broke");
  EXPECT_EQ(v.symptoms[0].second.description, "The job's code raised an error of its own.");
  EXPECT_EQ(v.symptoms[0].second.refs, (std::vector<std::string>{"https://example.org/boom", "runbook 12"}));
  std::string error;
  auto parsed = parseVerdictJson(toJson(v), &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->symptoms[0].second.description, "The job's code raised an error of its own.");
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
      {edited("/symptoms", ordered_json::array()), "verdict: 'symptoms' must be an object"},
      {edited("/symptoms/host.oom.kernel_oom_kill/refs", "x"), "verdict: 'symptoms.host.oom.kernel_oom_kill.refs' must be a list"},
      {edited("/symptoms/host.oom.kernel_oom_kill/url", "x"), "verdict: 'symptoms.host.oom.kernel_oom_kill.url' is not a field"},
      {edited("/symptoms/host.oom.kernel_oom_kill/description", ""),
       "verdict: 'symptoms.host.oom.kernel_oom_kill.description' must be a non-empty string or null"},
      {edited("/downstream/0/last", "2000-01-01T00:00:00Z"), "verdict: 'downstream[0].last' must not be before 'first'"},
      {edited("/downstream/0/earliest_nodes/0/count", -2),
       "verdict: 'downstream[0].earliest_nodes[0].count' must be a non-negative integer"},
      {edited("/downstream/0/evidence/0/line", 3), "verdict: 'downstream[0].evidence[0].line' must be a string"},
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
