// The repeat-offender policy (history/repeat_offender.h) on hand-built histories: the window's
// edges, decay, which families count, the systemic guard and the one-per-cycle choice.
#include "history/repeat_offender.h"

#include <gtest/gtest.h>

#include <cmath>

#include "history/history_json.h"

namespace attrib::history {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kDay = 86400 * kSecond;
constexpr int64_t kNow = 1'800'000'000 * kSecond;

NodeEvent event(const std::string& node, int64_t ageNs, const std::string& family = "accelerator-gpu",
                const std::string& workload = "") {
  static int n = 0;
  NodeEvent e;
  e.node = node;
  e.workloadId = workload.empty() ? "slurm/" + std::to_string(++n) : workload;
  e.family = family;
  e.time = kNow - ageNs;
  return e;
}

TEST(RepeatOffender, ExactlyTwoEventsInFourteenDaysMakeASuspect) {
  auto s = evaluate(groupByNode({event("gpu-1", 14 * kDay), event("gpu-1", 1 * kDay)}), kNow);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].decision, Decision::avoid);
  EXPECT_EQ(s[0].events, 2u);
  // 0.5 (exactly one half-life old) + 0.5^(1/14)
  EXPECT_NEAR(s[0].score, 0.5 + std::exp2(-1.0 / 14), 1e-12);
  EXPECT_EQ(s[0].lastTime, kNow - kDay);
}

TEST(RepeatOffender, AnEventFourteenDaysAndOneSecondOldIsOutsideTheWindow) {
  auto s = evaluate(groupByNode({event("gpu-1", 14 * kDay + kSecond), event("gpu-1", 1 * kDay)}), kNow);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].decision, Decision::below);
  EXPECT_EQ(s[0].events, 1u);
  EXPECT_NE(s[0].reasons.back().find("1 event(s) of the 2 needed"), std::string::npos) << s[0].reasons.back();
}

TEST(RepeatOffender, OneEventIsNeverEnough) {
  auto s = evaluate(groupByNode({event("gpu-1", 0)}), kNow);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_FALSE(s[0].suspect());
  EXPECT_DOUBLE_EQ(s[0].score, 1.0);
}

TEST(RepeatOffender, DecayCrossesTheThresholdAsEventsAge) {
  PolicyOptions o;
  o.halfLifeNs = 7 * kDay;  // stricter than the default
  std::vector<NodeEvent> events = {event("gpu-1", 6 * kDay), event("gpu-1", 6 * kDay)};
  // 2 * 0.5^(6/7) = 1.103: a suspect.
  EXPECT_EQ(evaluate(groupByNode(events), kNow, o)[0].decision, Decision::avoid);
  // Two days later, 2 * 0.5^(8/7) = 0.906 < 1.0: no longer, though both are in the window.
  auto later = evaluate(groupByNode(events), kNow + 2 * kDay, o);
  EXPECT_EQ(later[0].decision, Decision::below);
  EXPECT_EQ(later[0].events, 2u);
  EXPECT_NE(later[0].reasons.back().find("score 0.91 < 1.00"), std::string::npos) << later[0].reasons.back();
  // Exactly at the crossing: 2 * 0.5^(age/7d) == 1 when age == 7d.
  std::vector<NodeEvent> atHalfLife = {event("gpu-1", 7 * kDay), event("gpu-1", 7 * kDay)};
  EXPECT_EQ(evaluate(groupByNode(atHalfLife), kNow, o)[0].decision, Decision::avoid);
  std::vector<NodeEvent> past = {event("gpu-1", 7 * kDay + kSecond), event("gpu-1", 7 * kDay + kSecond)};
  EXPECT_EQ(evaluate(groupByNode(past), kNow, o)[0].decision, Decision::below);
}

TEST(RepeatOffender, WithTheDefaultsAnyTwoEventsInTheWindowSuffice) {
  // The defaults are NVRx's rule: the oldest pair in the window still sums to 1.0.
  auto s = evaluate(groupByNode({event("gpu-1", 14 * kDay), event("gpu-1", 14 * kDay)}), kNow);
  EXPECT_EQ(s[0].decision, Decision::avoid);
  EXPECT_DOUBLE_EQ(s[0].score, 1.0);
}

TEST(RepeatOffender, MoreThanSixteenSuspectsIsSystemicAndNothingIsAvoided) {
  std::vector<NodeEvent> events;
  for (int i = 0; i < 17; ++i) {
    events.push_back(event("n" + std::to_string(i), kDay));
    events.push_back(event("n" + std::to_string(i), 2 * kDay));
  }
  auto s = evaluate(groupByNode(events), kNow);
  ASSERT_EQ(s.size(), 17u);
  for (const auto& x : s) {
    EXPECT_EQ(x.decision, Decision::systemic) << x.node;
    EXPECT_NE(x.reasons.back().find("17 nodes are suspected at once (more than 16)"), std::string::npos);
  }
  // Sixteen is still one avoided node and fifteen deferred.
  events.resize(32);
  auto sixteen = evaluate(groupByNode(events), kNow);
  ASSERT_EQ(sixteen.size(), 16u);
  EXPECT_EQ(std::count_if(sixteen.begin(), sixteen.end(), [](const Suspicion& x) { return x.decision == Decision::avoid; }), 1);
  EXPECT_EQ(std::count_if(sixteen.begin(), sixteen.end(), [](const Suspicion& x) { return x.decision == Decision::deferred; }), 15);
}

TEST(RepeatOffender, OneNodePerCycleChosenByScoreThenEventsThenRecencyThenName) {
  // gpu-b: three events, the highest score.
  std::vector<NodeEvent> events = {event("gpu-a", kDay), event("gpu-a", 2 * kDay), event("gpu-b", kDay),
                                   event("gpu-b", 2 * kDay), event("gpu-b", 3 * kDay)};
  auto s = evaluate(groupByNode(events), kNow);
  EXPECT_EQ(s[0].node, "gpu-b");
  EXPECT_EQ(s[0].decision, Decision::avoid);
  EXPECT_EQ(s[1].decision, Decision::deferred);
  EXPECT_NE(s[1].reasons.back().find("at most 1 node(s) newly avoided per cycle"), std::string::npos);
  // Equal in everything: the name decides, whatever the input order.
  std::vector<NodeEvent> tied = {event("gpu-z", kDay), event("gpu-z", 2 * kDay), event("gpu-m", kDay), event("gpu-m", 2 * kDay)};
  EXPECT_EQ(evaluate(groupByNode(tied), kNow)[0].node, "gpu-m");
  std::reverse(tied.begin(), tied.end());
  EXPECT_EQ(evaluate(groupByNode(tied), kNow)[0].node, "gpu-m");
  // maxNewPerCycle 2 avoids both.
  PolicyOptions two;
  two.maxNewPerCycle = 2;
  auto both = evaluate(groupByNode(tied), kNow, two);
  EXPECT_EQ(both[0].decision, Decision::avoid);
  EXPECT_EQ(both[1].decision, Decision::avoid);
}

TEST(RepeatOffender, EventsOnOtherNodesDoNotAddUp) {
  auto s = evaluate(groupByNode({event("gpu-1", kDay), event("gpu-2", kDay), event("gpu-3", kDay)}), kNow);
  ASSERT_EQ(s.size(), 3u);
  for (const auto& x : s) EXPECT_FALSE(x.suspect()) << x.node;
}

TEST(RepeatOffender, ApplicationAndBenignFamiliesDoNotCount) {
  std::vector<NodeEvent> events;
  for (const char* f : {"user-code", "device-oom", "host-oom", "communication", "software-framework", "numerics", "storage",
                        "scheduler-timeout", "scheduler-preemption", "scheduler-cancel", "orchestration", "unknown"}) {
    events.push_back(event("gpu-1", kDay, f));
  }
  events.push_back(event("gpu-1", kDay, "network-fabric"));
  auto s = evaluate(groupByNode(events), kNow);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].events, 1u);
  EXPECT_FALSE(s[0].suspect());
  EXPECT_EQ(s[0].families, std::vector<std::string>{"network-fabric"});
  // A node with only application failures is not listed at all.
  EXPECT_TRUE(evaluate(groupByNode({event("gpu-9", kDay, "user-code"), event("gpu-9", kDay, "user-code")}), kNow).empty());
  for (const char* f : {"accelerator-gpu", "accelerator-memory", "accelerator-fabric", "network-fabric", "host-hardware",
                        "kernel-fatal", "node-failure"}) {
    EXPECT_TRUE(countsAgainstNode(f)) << f;
  }
}

TEST(RepeatOffender, OneWorkloadDiagnosedByTwoRuleSetsIsOneFailure) {
  NodeEvent a = event("gpu-1", kDay, "accelerator-gpu", "slurm/7");
  NodeEvent b = a;
  b.rulesetDigest = "sha256:other";
  auto h = groupByNode({a, b});
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].events.size(), 1u);
  EXPECT_FALSE(evaluate(h, kNow)[0].suspect());
}

TEST(RepeatOffender, EventsAfterNowCountAsNow) {
  auto s = evaluate(groupByNode({event("gpu-1", -kDay), event("gpu-1", 0)}), kNow);
  EXPECT_DOUBLE_EQ(s[0].score, 2.0);
  EXPECT_EQ(s[0].decision, Decision::avoid);
}

TEST(RepeatOffender, OptionsThatCannotWorkAreNamed) {
  PolicyOptions o;
  EXPECT_EQ(checkPolicy(o), "");
  o.halfLifeNs = 0;
  EXPECT_EQ(checkPolicy(o), "the half-life must be positive");
  o = {};
  o.windowNs = -1;
  EXPECT_EQ(checkPolicy(o), "the window must be positive");
  o = {};
  o.minScore = std::nan("");
  EXPECT_NE(checkPolicy(o), "");
}

TEST(RepeatOffender, HistoryAndSuspicionsAsJson) {
  auto h = groupByNode({event("gpu-1", kDay, "user-code", "w1"), event("gpu-1", 2 * kDay, "accelerator-gpu", "w2")});
  std::string j = historyJson(h[0]);
  EXPECT_NE(j.find(R"("node":"gpu-1","failures":2,"by_family":{"accelerator-gpu":1,"user-code":1})"), std::string::npos) << j;
  EXPECT_NE(j.find(R"("workload":"w2","family":"accelerator-gpu")"), std::string::npos) << j;
  EXPECT_NE(j.find(R"("counts":false)"), std::string::npos) << j;
  auto s = evaluate(h, kNow);
  EXPECT_NE(suspicionsJson(s, kNow, {}, true).find(R"("decision":"below")"), std::string::npos);
  EXPECT_NE(suspicionsJson(s, kNow, {}, false).find(R"("nodes":[])"), std::string::npos);
}

}  // namespace
}  // namespace attrib::history
