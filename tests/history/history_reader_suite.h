// One typed suite for every history::HistoryReader over a store the real sink filled: the same
// events, order, limits and refusals, and the repeat-offender policy's edge cases read back
// through the store. Instantiated for SQLite (tests/history/sqlite_history_test.cc) and
// PostgreSQL (tests/pg/postgres_history_test.cc, label postgres).
//
// A Backend is a class with:
//   static constexpr const char* kName;
//   std::string setUp(const std::string& test, bool* skip);  // "" when ready; *skip: not installed
//   void tearDown();
//   bool store(const std::vector<runtime::Verdict>&, std::string* error);  // through the real sink
//   std::unique_ptr<history::HistoryReader> open(std::string* error);
//   void setSchemaVersion(int64_t version);     // adds a schema_version row, as a newer attrib would
//   void makeForeign();                          // the store becomes one another program made: no schema
//   std::unique_ptr<history::HistoryReader> openForeign(std::string* error);
//   bool foreignUntouched();                     // it still has no attrib table
//   std::string fingerprint();                   // changes when anything is written
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "history/node_history.h"
#include "history/repeat_offender.h"
#include "runtime/verdict.h"

namespace attrib::testing {

inline constexpr int64_t kHistorySecond = 1'000'000'000LL;
inline constexpr int64_t kHistoryDay = 86'400 * kHistorySecond;
inline constexpr int64_t kHistoryT0 = 1'800'000'000'000'000'000LL;

// A failed workload `id` whose root cause, at `rootTime`, blames `node`.
inline runtime::Verdict historyVerdict(const std::string& id, const std::string& node, const std::string& family, int64_t rootTime,
                                       const std::string& digest = "sha256:a") {
  runtime::Verdict v;
  v.workload.id = id;
  v.workload.state = ir::State::Failed;
  v.workload.end = rootTime + 60'000'000'000LL;
  v.workload.nodes = {node, "other-node"};
  v.outcomes.push_back({"pkg.outcome_" + family, family, "t", {"drain_node"}, 0.9});
  runtime::SymptomFinding root;
  root.symptom = "pkg.sym";
  root.node = node;
  root.time = rootTime;
  root.timeKnown = true;
  v.root = root;
  v.badNodes.push_back({node, {"pkg.sym"}});
  v.confidence = 0.9;
  v.rulesetName = "stdlib";
  v.rulesetVersion = "1";
  v.rulesetDigest = digest;
  return v;
}

// The verdicts tests/scenarios/*/truth.json say attrib must give, one a day from kHistoryT0 in
// the scenarios' name order: their outcome, family, root symptom and bad nodes (every one
// blamed by the root symptom).
inline std::vector<runtime::Verdict> scenarioVerdicts() {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(fs::path(ATTRIB_SOURCE_DIR) / "tests" / "scenarios")) {
    if (fs::exists(e.path() / "truth.json")) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<runtime::Verdict> out;
  for (size_t i = 0; i < dirs.size(); ++i) {
    std::ifstream in(dirs[i] / "truth.json");
    auto truth = nlohmann::json::parse(in);
    runtime::Verdict v;
    v.workload.id = "scenario/" + dirs[i].filename().string();
    v.workload.state = ir::State::Failed;
    int64_t t = kHistoryT0 + static_cast<int64_t>(i) * kHistoryDay;
    v.workload.end = t + 60 * kHistorySecond;
    std::string outcome = truth["outcome"];
    std::string family = truth["family"];
    if (outcome != "unknown") v.outcomes.push_back({outcome, family, "t", {}, 0.8});
    if (truth["root"].is_string()) {
      runtime::SymptomFinding root;
      root.symptom = truth["root"];
      // Every other scenario has no time for its root cause: the workload's end is the event's.
      root.timeKnown = i % 2 == 0;
      root.time = t;
      v.root = root;
    }
    for (const auto& n : truth["bad_nodes"]) {
      v.workload.nodes.push_back(n);
      v.badNodes.push_back({n, {v.root ? v.root->symptom : "pkg.none"}});
    }
    v.confidence = outcome == "unknown" ? 0 : 0.8;
    v.rulesetName = "stdlib";
    v.rulesetVersion = "1";
    v.rulesetDigest = "sha256:stdlib";
    out.push_back(std::move(v));
  }
  return out;
}

template <typename Backend>
class HistoryReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bool skip = false;
    std::string why = backend_.setUp(::testing::UnitTest::GetInstance()->current_test_info()->name(), &skip);
    if (skip) GTEST_SKIP() << why;
    ASSERT_EQ(why, "");
  }
  void TearDown() override { backend_.tearDown(); }
  void store(const std::vector<runtime::Verdict>& verdicts) {
    std::string error;
    ASSERT_TRUE(backend_.store(verdicts, &error)) << error;
  }
  std::unique_ptr<history::HistoryReader> open() {
    std::string error;
    auto r = backend_.open(&error);
    EXPECT_TRUE(r) << error;
    return r;
  }
  std::vector<history::NodeEvent> events(history::HistoryReader& r, const history::HistoryQuery& q = {}) {
    std::vector<history::NodeEvent> out;
    std::string error;
    EXPECT_TRUE(r.events(q, &out, &error)) << error;
    return out;
  }
  // The policy at `now` over the store's events of the window, as `attrib nodes --suspect` does.
  std::vector<history::Suspicion> suspects(int64_t now, const history::PolicyOptions& policy = {}) {
    auto r = open();
    if (!r) return {};
    history::HistoryQuery q;
    q.since = now - policy.windowNs;
    return history::evaluate(history::groupByNode(events(*r, q)), now, policy);
  }
  Backend backend_;
};

TYPED_TEST_SUITE_P(HistoryReaderTest);

TYPED_TEST_P(HistoryReaderTest, ReadsEveryBadNodeOfEveryVerdictInOrder) {
  this->store({historyVerdict("w2", "gpu-1", "accelerator-gpu", kHistoryT0 + 2), historyVerdict("w1", "gpu-1", "user-code", kHistoryT0 + 1),
               historyVerdict("w3", "gpu-2", "network-fabric", kHistoryT0 + 3)});
  auto r = this->open();
  ASSERT_TRUE(r);
  auto events = this->events(*r);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].workloadId, "w1");
  EXPECT_EQ(events[0].family, "user-code");
  EXPECT_EQ(events[0].time, kHistoryT0 + 1);
  EXPECT_EQ(events[0].symptoms, std::vector<std::string>{"pkg.sym"});
  EXPECT_EQ(events[0].rootSymptom, "pkg.sym");
  EXPECT_DOUBLE_EQ(events[0].confidence, 0.9);
  EXPECT_EQ(events[0].rulesetDigest, "sha256:a");
  EXPECT_EQ(events[1].workloadId, "w2");
  EXPECT_EQ(events[1].outcome, "pkg.outcome_accelerator-gpu");
  EXPECT_EQ(events[2].node, "gpu-2");

  history::HistoryQuery one;
  one.node = "gpu-2";
  events = this->events(*r, one);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].workloadId, "w3");

  history::HistoryQuery recent;  // [since, until] includes both ends
  recent.since = kHistoryT0 + 2;
  EXPECT_EQ(this->events(*r, recent).size(), 2u);
  recent.until = kHistoryT0 + 2;
  ASSERT_EQ(this->events(*r, recent).size(), 1u);
  EXPECT_EQ(this->events(*r, recent)[0].workloadId, "w2");
}

TYPED_TEST_P(HistoryReaderTest, WithoutARootTimeTheWorkloadsEndIsTheTime) {
  auto v = historyVerdict("w1", "gpu-1", "node-failure", kHistoryT0);
  v.root.reset();
  auto noEnd = historyVerdict("w2", "gpu-1", "node-failure", kHistoryT0);
  noEnd.root.reset();
  noEnd.workload.end.reset();
  auto clock = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  int64_t before = clock();
  this->store({v, noEnd});
  int64_t after = clock();
  auto r = this->open();
  ASSERT_TRUE(r);
  auto events = this->events(*r);
  ASSERT_EQ(events.size(), 2u);
  // Neither a root time nor an end: when it was stored.
  const auto& stored = events[0].workloadId == "w2" ? events[0] : events[1];
  const auto& ended = events[0].workloadId == "w2" ? events[1] : events[0];
  EXPECT_EQ(ended.time, *v.workload.end);
  EXPECT_EQ(ended.rootSymptom, "");
  EXPECT_GE(stored.time, before);
  EXPECT_LE(stored.time, after);
}

TYPED_TEST_P(HistoryReaderTest, AnUnknownVerdictHasTheUnknownFamilyAndNoOutcome) {
  auto v = historyVerdict("w1", "gpu-1", "x", kHistoryT0);
  v.outcomes.clear();
  v.confidence = 0;
  this->store({v});
  auto r = this->open();
  ASSERT_TRUE(r);
  auto events = this->events(*r);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].family, "unknown");
  EXPECT_EQ(events[0].outcome, "");
  EXPECT_EQ(events[0].confidence, 0);
}

TYPED_TEST_P(HistoryReaderTest, MoreEventsThanTheLimitIsAnErrorNotATruncation) {
  this->store({historyVerdict("w1", "gpu-1", "accelerator-gpu", kHistoryT0), historyVerdict("w2", "gpu-1", "accelerator-gpu", kHistoryT0 + 1)});
  auto r = this->open();
  ASSERT_TRUE(r);
  history::HistoryQuery q;
  q.limit = 1;
  std::vector<history::NodeEvent> events;
  std::string error;
  EXPECT_FALSE(r->events(q, &events, &error));
  EXPECT_NE(error.find("holds more than 1 events in that range"), std::string::npos) << error;
  EXPECT_TRUE(events.empty());
  q.limit = 2;
  EXPECT_EQ(this->events(*r, q).size(), 2u);
}

TYPED_TEST_P(HistoryReaderTest, AnOddNodeNameIsAValueNotSql) {
  std::string odd = "gpu-1'; DROP TABLE verdicts; -- \xc3\xbc %00 $1 \\";
  this->store({historyVerdict("w1", odd, "accelerator-gpu", kHistoryT0), historyVerdict("w2", "gpu-1", "accelerator-gpu", kHistoryT0)});
  auto r = this->open();
  ASSERT_TRUE(r);
  history::HistoryQuery q;
  q.node = odd;
  auto events = this->events(*r, q);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].node, odd);
  EXPECT_EQ(this->events(*r).size(), 2u) << "nothing was dropped";
}

// Stored names are valid UTF-8 (each ill-formed sequence is U+FFFD, as in the verdict JSON):
// the same bytes asked for find them, and so does the name as stored.
TYPED_TEST_P(HistoryReaderTest, ANodeNameThatIsNotUtf8IsFoundByTheSameBytes) {
  const std::string bytes = "gpu-\xff\xfe";
  this->store({historyVerdict("w1", bytes, "accelerator-gpu", kHistoryT0)});
  auto r = this->open();
  ASSERT_TRUE(r);
  history::HistoryQuery q;
  q.node = bytes;
  auto events = this->events(*r, q);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].node, "gpu-\xef\xbf\xbd\xef\xbf\xbd");
  q.node = events[0].node;
  EXPECT_EQ(this->events(*r, q).size(), 1u);
}

TYPED_TEST_P(HistoryReaderTest, OneWorkloadDiagnosedByTwoRuleSetsIsOneFailure) {
  this->store({historyVerdict("w1", "gpu-1", "accelerator-gpu", kHistoryT0, "sha256:a"),
               historyVerdict("w1", "gpu-1", "host-hardware", kHistoryT0, "sha256:b")});
  auto r = this->open();
  ASSERT_TRUE(r);
  auto events = this->events(*r);
  ASSERT_EQ(events.size(), 2u) << "the reader returns both verdicts' events";
  auto histories = history::groupByNode(events);
  ASSERT_EQ(histories.size(), 1u);
  ASSERT_EQ(histories[0].events.size(), 1u);
  EXPECT_EQ(histories[0].events[0].rulesetDigest, "sha256:b");
  // Writing a verdict again replaces it: still one event per rule set.
  this->store({historyVerdict("w1", "gpu-1", "kernel-fatal", kHistoryT0 + 5, "sha256:a")});
  events = this->events(*r);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].family, "kernel-fatal");
}

TYPED_TEST_P(HistoryReaderTest, TheScenariosVerdictsReadBackAsTheirBadNodes) {
  auto verdicts = scenarioVerdicts();
  ASSERT_GT(verdicts.size(), 50u);
  this->store(verdicts);
  std::vector<history::NodeEvent> expected;
  for (const auto& v : verdicts) {
    for (const auto& b : v.badNodes) {
      history::NodeEvent e;
      e.node = b.node;
      e.workloadId = v.workload.id;
      e.family = v.outcomes.empty() ? "unknown" : v.outcomes[0].family;
      e.outcome = v.outcomes.empty() ? "" : v.outcomes[0].name;
      e.rootSymptom = v.root ? v.root->symptom : "";
      e.symptoms = b.symptoms;
      e.confidence = v.confidence;
      e.time = v.root && v.root->timeKnown ? v.root->time : *v.workload.end;
      e.rulesetDigest = v.rulesetDigest;
      expected.push_back(e);
    }
  }
  std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
    return std::tie(a.node, a.time, a.workloadId) < std::tie(b.node, b.time, b.workloadId);
  });
  ASSERT_GT(expected.size(), 30u);
  auto r = this->open();
  ASSERT_TRUE(r);
  auto got = this->events(*r);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(expected[i].workloadId + " " + expected[i].node);
    EXPECT_EQ(got[i].node, expected[i].node);
    EXPECT_EQ(got[i].workloadId, expected[i].workloadId);
    EXPECT_EQ(got[i].family, expected[i].family);
    EXPECT_EQ(got[i].outcome, expected[i].outcome);
    EXPECT_EQ(got[i].rootSymptom, expected[i].rootSymptom);
    EXPECT_EQ(got[i].symptoms, expected[i].symptoms);
    EXPECT_DOUBLE_EQ(got[i].confidence, expected[i].confidence);
    EXPECT_EQ(got[i].time, expected[i].time);
    EXPECT_EQ(got[i].rulesetDigest, expected[i].rulesetDigest);
  }
  // One node's history is the same events of that node alone.
  history::HistoryQuery one;
  one.node = expected[0].node;
  auto mine = this->events(*r, one);
  EXPECT_EQ(mine.size(), static_cast<size_t>(std::count_if(expected.begin(), expected.end(),
                                                            [&](const auto& e) { return e.node == expected[0].node; })));
  for (const auto& e : mine) EXPECT_EQ(e.node, expected[0].node);
}

TYPED_TEST_P(HistoryReaderTest, TwoNodeFaultsInFourteenDaysMakeASuspectOneSecondMoreDoesNot) {
  const int64_t now = kHistoryT0 + 30 * kHistoryDay;
  this->store({historyVerdict("w1", "gpu-1", "accelerator-gpu", now - 14 * kHistoryDay),
               historyVerdict("w2", "gpu-1", "accelerator-gpu", now - kHistoryDay),
               historyVerdict("w3", "gpu-2", "accelerator-gpu", now - 14 * kHistoryDay - kHistorySecond),
               historyVerdict("w4", "gpu-2", "accelerator-gpu", now - kHistoryDay),
               historyVerdict("w5", "gpu-3", "user-code", now - 2 * kHistoryDay),
               historyVerdict("w6", "gpu-3", "user-code", now - kHistoryDay)});
  auto s = this->suspects(now);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].node, "gpu-1");
  EXPECT_EQ(s[0].decision, history::Decision::avoid);
  EXPECT_EQ(s[0].events, 2u);
  EXPECT_NEAR(s[0].score, 0.5 + std::exp2(-1.0 / 14), 1e-12);
  EXPECT_EQ(s[1].node, "gpu-2");
  EXPECT_EQ(s[1].decision, history::Decision::below);
  EXPECT_EQ(s[1].events, 1u);
}

TYPED_TEST_P(HistoryReaderTest, DecayCrossesTheThresholdAsTheStoredFaultsAge) {
  this->store({historyVerdict("w1", "gpu-1", "host-hardware", kHistoryT0), historyVerdict("w2", "gpu-1", "kernel-fatal", kHistoryT0)});
  history::PolicyOptions o;
  o.halfLifeNs = 7 * kHistoryDay;
  auto six = this->suspects(kHistoryT0 + 6 * kHistoryDay, o);
  ASSERT_EQ(six.size(), 1u);
  EXPECT_EQ(six[0].decision, history::Decision::avoid);
  EXPECT_NEAR(six[0].score, 2 * std::exp2(-6.0 / 7), 1e-12);
  auto eight = this->suspects(kHistoryT0 + 8 * kHistoryDay, o);
  ASSERT_EQ(eight.size(), 1u);
  EXPECT_EQ(eight[0].decision, history::Decision::below);
  EXPECT_EQ(eight[0].events, 2u);
}

TYPED_TEST_P(HistoryReaderTest, MoreThanSixteenSuspectsIsSystemicAndNothingIsAvoided) {
  std::vector<runtime::Verdict> verdicts;
  for (int i = 0; i < 17; ++i) {
    std::string node = "n" + std::to_string(i);
    verdicts.push_back(historyVerdict("a" + node, node, "accelerator-gpu", kHistoryT0 - kHistoryDay));
    verdicts.push_back(historyVerdict("b" + node, node, "network-fabric", kHistoryT0 - 2 * kHistoryDay));
  }
  this->store(verdicts);
  auto s = this->suspects(kHistoryT0);
  ASSERT_EQ(s.size(), 17u);
  for (const auto& x : s) EXPECT_EQ(x.decision, history::Decision::systemic) << x.node;
  // n16's GPU fault, diagnosed again, is the job's: sixteen suspects, one avoided, fifteen deferred.
  this->store({historyVerdict("an16", "n16", "user-code", kHistoryT0 - kHistoryDay)});
  auto sixteen = this->suspects(kHistoryT0);
  EXPECT_EQ(std::count_if(sixteen.begin(), sixteen.end(), [](const auto& x) { return x.decision == history::Decision::avoid; }), 1);
  EXPECT_EQ(std::count_if(sixteen.begin(), sixteen.end(), [](const auto& x) { return x.decision == history::Decision::deferred; }), 15);
}

TYPED_TEST_P(HistoryReaderTest, ADatabaseWithNoVerdictsHasAnEmptyHistory) {
  this->store({});
  auto r = this->open();
  ASSERT_TRUE(r);
  EXPECT_TRUE(this->events(*r).empty());
}

TYPED_TEST_P(HistoryReaderTest, ANewerSchemaIsRefusedWithOneLine) {
  this->store({historyVerdict("w1", "gpu-1", "accelerator-gpu", kHistoryT0)});
  this->backend_.setSchemaVersion(9);
  std::string error;
  EXPECT_FALSE(this->backend_.open(&error));
  EXPECT_NE(error.find("has schema version 9, newer than this attrib's 1; use a newer attrib"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TYPED_TEST_P(HistoryReaderTest, AStoreWithoutTheSinksSchemaIsRefusedAndLeftAsItWas) {
  this->backend_.makeForeign();
  std::string error;
  EXPECT_FALSE(this->backend_.openForeign(&error));
  EXPECT_NE(error.find("is not an attrib verdict database"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_TRUE(this->backend_.foreignUntouched()) << "opening never creates a table";
}

TYPED_TEST_P(HistoryReaderTest, ReadingNeverWritesTheDatabase) {
  this->store({historyVerdict("w1", "gpu-1", "accelerator-gpu", kHistoryT0)});
  std::string before = this->backend_.fingerprint();
  {
    auto r = this->open();
    ASSERT_TRUE(r);
    history::HistoryQuery q;
    q.node = "gpu-1";
    EXPECT_EQ(this->events(*r, q).size(), 1u);
    EXPECT_EQ(this->events(*r).size(), 1u);
  }
  EXPECT_EQ(this->backend_.fingerprint(), before);
}

REGISTER_TYPED_TEST_SUITE_P(HistoryReaderTest, ReadsEveryBadNodeOfEveryVerdictInOrder, WithoutARootTimeTheWorkloadsEndIsTheTime,
                            AnUnknownVerdictHasTheUnknownFamilyAndNoOutcome, MoreEventsThanTheLimitIsAnErrorNotATruncation,
                            AnOddNodeNameIsAValueNotSql, ANodeNameThatIsNotUtf8IsFoundByTheSameBytes,
                            OneWorkloadDiagnosedByTwoRuleSetsIsOneFailure,
                            TheScenariosVerdictsReadBackAsTheirBadNodes, TwoNodeFaultsInFourteenDaysMakeASuspectOneSecondMoreDoesNot,
                            DecayCrossesTheThresholdAsTheStoredFaultsAge, MoreThanSixteenSuspectsIsSystemicAndNothingIsAvoided,
                            ADatabaseWithNoVerdictsHasAnEmptyHistory, ANewerSchemaIsRefusedWithOneLine,
                            AStoreWithoutTheSinksSchemaIsRefusedAndLeftAsItWas, ReadingNeverWritesTheDatabase);

}  // namespace attrib::testing
