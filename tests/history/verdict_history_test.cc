// A verdict's bad nodes with their earlier failures and the bounded confidence adjustment
// (history/verdict_history.h), and the JSON it gives: absent without a history, read back whole.
#include "history/verdict_history.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runtime/verdict_json.h"

namespace attrib::history {
namespace {

constexpr int64_t kDay = 86'400'000'000'000LL;
constexpr int64_t kT = 1'800'000'000'000'000'000LL;

runtime::Verdict verdict(const std::string& family, double confidence) {
  runtime::Verdict v;
  v.workload.id = "slurm/9";
  v.workload.state = ir::State::Failed;
  v.workload.nodes = {"gpu-1", "gpu-2"};
  v.outcomes.push_back({"pkg.o", family, "t", {"drain_node"}, confidence});
  runtime::SymptomFinding root;
  root.symptom = "pkg.s";
  root.node = "gpu-1";
  root.time = kT;
  root.timeKnown = true;
  v.root = root;
  v.badNodes.push_back({"gpu-1", {"pkg.s"}});
  v.confidence = confidence;
  v.rulesetName = "r";
  v.rulesetVersion = "1";
  v.rulesetDigest = "sha256:r";
  return v;
}

NodeEvent event(const std::string& node, const std::string& workload, const std::string& family, int64_t time) {
  NodeEvent e;
  e.node = node;
  e.workloadId = workload;
  e.family = family;
  e.time = time;
  return e;
}

TEST(VerdictHistory, EarlierNodeFaultsRaiseANodeFaultVerdictByAtMostATenth) {
  auto v = verdict("accelerator-gpu", 0.85);
  addHistory(v, groupByNode({event("gpu-1", "w1", "accelerator-gpu", kT - 2 * kDay)}), kT);
  ASSERT_TRUE(v.badNodes[0].history);
  EXPECT_EQ(v.badNodes[0].history->failures, 1u);
  EXPECT_EQ(v.badNodes[0].history->nodeFaults, 1u);
  EXPECT_EQ(*v.badNodes[0].history->last, kT - 2 * kDay);
  EXPECT_DOUBLE_EQ(v.confidence, 0.90);
  EXPECT_EQ(v.confidenceNotes.back(), "raised by 0.05: gpu-1 had 1 earlier node fault(s) in the 14d before this failure");
  // Five earlier faults: still +0.10, and never above 0.99.
  std::vector<NodeEvent> five;
  for (int i = 1; i <= 5; ++i) five.push_back(event("gpu-1", "w" + std::to_string(i), "host-hardware", kT - i * kDay));
  auto many = verdict("accelerator-gpu", 0.80);
  addHistory(many, groupByNode(five), kT);
  EXPECT_DOUBLE_EQ(many.confidence, 0.90);
  auto high = verdict("accelerator-gpu", 0.95);
  addHistory(high, groupByNode(five), kT);
  EXPECT_DOUBLE_EQ(high.confidence, 0.99);
}

TEST(VerdictHistory, RepeatedNodeFaultsLowerAnApplicationVerdict) {
  auto v = verdict("user-code", 0.8);
  addHistory(v, groupByNode({event("gpu-1", "w1", "accelerator-gpu", kT - kDay), event("gpu-1", "w2", "kernel-fatal", kT - 2 * kDay)}), kT);
  EXPECT_DOUBLE_EQ(v.confidence, 0.70);
  EXPECT_NE(v.confidenceNotes.back().find("lowered by 0.10: gpu-1 had 2 earlier node fault(s)"), std::string::npos);
  // One earlier fault is not enough to doubt the application.
  auto once = verdict("user-code", 0.8);
  addHistory(once, groupByNode({event("gpu-1", "w1", "accelerator-gpu", kT - kDay)}), kT);
  EXPECT_DOUBLE_EQ(once.confidence, 0.8);
  EXPECT_TRUE(once.confidenceNotes.empty());
}

TEST(VerdictHistory, OnlyEarlierFailuresOfOtherWorkloadsInTheWindowCount) {
  auto v = verdict("accelerator-gpu", 0.85);
  addHistory(v,
             groupByNode({event("gpu-1", "slurm/9", "accelerator-gpu", kT - kDay),       // this workload, stored before
                          event("gpu-1", "w-late", "accelerator-gpu", kT + kDay),         // after this failure
                          event("gpu-1", "w-old", "accelerator-gpu", kT - 14 * kDay - 1), // outside the window
                          event("gpu-2", "w-other", "accelerator-gpu", kT - kDay),        // another node
                          event("gpu-1", "w-app", "user-code", kT - kDay)}),              // not a node fault
             kT);
  const auto& h = *v.badNodes[0].history;
  EXPECT_EQ(h.failures, 1u);
  EXPECT_EQ(h.nodeFaults, 0u);
  EXPECT_EQ(h.families, std::vector<std::string>{"user-code"});
  EXPECT_EQ(h.workloads, std::vector<std::string>{"w-app"});
  EXPECT_DOUBLE_EQ(v.confidence, 0.85) << "an application failure before is no node fault";
}

TEST(VerdictHistory, AnUnknownVerdictKeepsItsZero) {
  auto v = verdict("unknown", 0);
  v.outcomes.clear();
  addHistory(v, groupByNode({event("gpu-1", "w1", "accelerator-gpu", kT - kDay), event("gpu-1", "w2", "accelerator-gpu", kT - kDay)}), kT);
  EXPECT_EQ(v.confidence, 0);
  EXPECT_EQ(v.badNodes[0].history->nodeFaults, 2u);
}

TEST(VerdictHistory, TheJsonHasTheFieldOnlyWithAHistoryAndReadsBack) {
  auto plain = verdict("accelerator-gpu", 0.85);
  std::string without = runtime::toJson(plain, {false});
  EXPECT_EQ(without.find("\"history\""), std::string::npos);
  auto with = plain;
  addHistory(with, groupByNode({event("gpu-1", "w1", "accelerator-gpu", kT - kDay)}), kT);
  std::string json = runtime::toJson(with, {false});
  auto history = nlohmann::ordered_json::parse(json)["bad_nodes"][0]["history"];
  EXPECT_EQ(history.dump(), R"({"failures":1,"node_faults":1,"families":["accelerator-gpu"],"last":"2027-01-14T08:00:00Z","workloads":["w1"]})");
  std::string error;
  auto back = runtime::parseVerdictJson(json, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(runtime::toJson(*back, {false}), json);
  // An empty history (no earlier failure) is there too, with zeros.
  auto none = plain;
  addHistory(none, {}, kT);
  EXPECT_EQ(nlohmann::ordered_json::parse(runtime::toJson(none, {false}))["bad_nodes"][0]["history"].dump(),
            R"({"failures":0,"node_faults":0,"families":[],"last":null,"workloads":[]})");
}

}  // namespace
}  // namespace attrib::history
