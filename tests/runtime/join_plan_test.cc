// Join plans (runtime/join_plan.h): what a plan reads from a where-clause, that a dense workload
// no longer reaches the evaluation cap, and that plans never change a verdict — every scenario
// and every corpus case diagnosed with and without them gives the same verdict.
#include "runtime/join_plan.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "evidence/intake.h"
#include "tests/runtime/engine_util.h"

namespace attrib {
namespace {

using testing::countOf;
using testing::diagnose;
using testing::line;

const ir::Rule& ruleNamed(const runtime::Engine& engine, const std::string& name) {
  for (const auto& r : engine.bundle().program.rules) {
    if (r.name == name) return r;
  }
  ADD_FAILURE() << "no rule " << name;
  return engine.bundle().program.rules.at(0);
}

TEST(JoinPlan, NarrowsBindingsByIsAndFindsTimeWindows) {
  auto engine = testing::engineFor(R"(
package t
symptom down { on log match /link down/ family network-fabric severity error blame node }
symptom up { on log match /link up/ family network-fabric severity info blame node role context }
symptom retry { on log match /retry exceeded/ family network-fabric severity error blame node role consequence }
rule r1 {
  when t.* as root, t.* as x
  where root is down and x is not up and x.time in [root.time - 1m, root.time + 30m] and same node
  then explain x by root
}
rule r2 { when t.* as a, t.* as b where a.time in [b.time, b.time + 5s] then explain a by b }
rule r3 { when t.* as a, t.* as b where (a is down or b is up) then explain a by b }
rule r4 { when t.* as a, t.* as b, t.* as c where c.gpu == a.gpu and b.rank == c.rank then explain a by b }
)");
  ASSERT_TRUE(engine);
  const ir::Program& program = engine->bundle().program;

  runtime::JoinPlan p1 = runtime::planJoin(program, ruleNamed(*engine, "t.r1"));
  ASSERT_EQ(p1.bindings.size(), 2u);
  EXPECT_EQ(p1.bindings[0].symptoms.size(), 1u);  // down only
  EXPECT_TRUE(p1.bindings[0].narrowed);
  EXPECT_EQ(p1.bindings[1].symptoms.size(), 2u);  // down, retry
  EXPECT_FALSE(p1.bindings[0].window);
  ASSERT_TRUE(p1.bindings[1].window);
  EXPECT_EQ(p1.bindings[1].window->anchor, 0);
  EXPECT_EQ(p1.bindings[1].window->lo, -60'000'000'000);
  EXPECT_EQ(p1.bindings[1].window->hi, 1'800'000'000'000);
  EXPECT_EQ(runtime::describePlan(program, ruleNamed(*engine, "t.r1"), p1),
            (std::vector<std::string>{"binding 1: 1 of 3 symptoms (narrowed by `is`)",
                                      "binding 2: 2 of 3 symptoms (narrowed by `is`); node of binding 1 (hash); time in "
                                      "[binding 1 time - 1m, binding 1 time + 30m] (binary search)",
                                      "cost: n1 x (log n2 + w2) assignments visited (every combination: n1 x n2); "
                                      "n = a binding's candidates, w = those its index yields"}));
  ASSERT_TRUE(p1.bindings[1].key);
  EXPECT_EQ(p1.bindings[1].key->anchor, 0);
  EXPECT_EQ(p1.bindings[1].key->field, ir::Field::Node);
  EXPECT_FALSE(p1.bindings[0].key);

  // A window anchored on a later binding cannot be used by the walk (it binds in order).
  runtime::JoinPlan p2 = runtime::planJoin(program, ruleNamed(*engine, "t.r2"));
  EXPECT_FALSE(p2.bindings[0].window);
  EXPECT_FALSE(p2.bindings[1].window);
  EXPECT_EQ(runtime::describePlan(program, ruleNamed(*engine, "t.r2"), p2).back(),
            "cost: n1 x n2 assignments visited (no index serves this rule); n = a binding's candidates");
  // A disjunction over two bindings narrows neither.
  runtime::JoinPlan p3 = runtime::planJoin(program, ruleNamed(*engine, "t.r3"));
  EXPECT_EQ(p3.bindings[0].symptoms.size(), 3u);
  EXPECT_EQ(p3.bindings[1].symptoms.size(), 3u);
  EXPECT_FALSE(p3.bindings[1].key);
  // Equalities on key fields, written either way round: the later binding is matched.
  runtime::JoinPlan p4 = runtime::planJoin(program, ruleNamed(*engine, "t.r4"));
  EXPECT_FALSE(p4.bindings[0].key);
  EXPECT_FALSE(p4.bindings[1].key);
  ASSERT_TRUE(p4.bindings[2].key);
  EXPECT_EQ(p4.bindings[2].key->anchor, 0);  // the first equality names it
  EXPECT_EQ(p4.bindings[2].key->field, ir::Field::Gpu);

  // The engine planned every rule once when it was built: the plans it runs are these.
  for (size_t r = 0; r < program.rules.size(); ++r) {
    const ir::Rule& rule = program.rules[r];
    EXPECT_EQ(runtime::describePlan(program, rule, engine->attributor().plan(r)),
              runtime::describePlan(program, rule, runtime::planJoin(program, rule)))
        << rule.name;
  }
}

// 40,000 routine link-up lines beside one link failure: the pair walk stops at the cap (and says
// so), the plan visits a handful of pairs and explains the same transport errors.
TEST(JoinPlan, DenseContextLinesDoNotReachTheCap) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines;
  for (int i = 0; i < 40'000; ++i) {
    lines.push_back(line("n" + std::to_string(i % 16), "syslog", "2026-01-01T09:00:00Z",
                         "kernel: mlx5_core 0000:af:00.1 ib0: Link up"));
  }
  lines.push_back(line("n3", "syslog", "2026-01-01T10:00:00Z", "kernel: mlx5_core 0000:af:00.1 ib0: Link down"));
  lines.push_back(line("n3", "applog", "2026-01-01T10:00:05Z",
                       "n3:4242:4300 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
                       "10.0.0.4<56123> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.0.0.3 "
                       "remoteGidsfe80::1"));
  runtime::DiagnoseOptions planned, walked;
  planned.limits.maxRuleEvaluations = walked.limits.maxRuleEvaluations = 2'000'000;
  walked.limits.planJoins = false;
  auto run = [&](const runtime::DiagnoseOptions& options) {
    evidence::WorkloadEvidence ev;
    ev.lines = lines;
    return engine->diagnose(std::move(ev), options);
  };
  runtime::Verdict fast = run(planned), slow = run(walked);
  auto capped = [](const runtime::Verdict& v) {
    for (const auto& note : v.confidenceNotes) {
      if (note.find("stopped after") != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(capped(slow)) << "the pair walk meets the cap on these lines";
  EXPECT_FALSE(capped(fast));
  // A search cut short lowers the confidence, once.
  ASSERT_FALSE(slow.outcomes.empty());
  ASSERT_FALSE(fast.outcomes.empty());
  EXPECT_DOUBLE_EQ(slow.confidence, slow.outcomes[0].confidence * 0.8);
  EXPECT_DOUBLE_EQ(fast.confidence, fast.outcomes[0].confidence);
  ASSERT_TRUE(fast.root);
  EXPECT_EQ(fast.root->symptom, "net.infiniband.link_down");
  EXPECT_EQ(countOf(fast, "net.infiniband.link_up"), 40'000u);
}

nlohmann::json withoutTimings(const runtime::Verdict& v) {
  nlohmann::json j = nlohmann::json::parse(runtime::toJson(v));
  j["stats"].erase("elapsed_ms");
  for (auto& r : j["connector_reports"]) r.erase("elapsed_ms");
  return j;
}

runtime::Verdict diagnosePath(const runtime::Engine& engine, const std::string& path, bool plans) {
  evidence::Intake intake;
  intake.addPath(path);
  evidence::WorkloadEvidence ev;
  std::string error;
  EXPECT_TRUE(intake.finish(&ev, &error)) << path << ": " << error;
  runtime::DiagnoseOptions options;
  options.limits.planJoins = plans;
  return engine.diagnose(std::move(ev), options);
}

TEST(JoinPlan, VerdictsOfEveryScenarioAndCorpusCaseAreThoseOfThePairWalk) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const char* dir : {"/tests/scenarios", "/tests/corpus/cases", "/examples"}) {
    for (const auto& e : fs::directory_iterator(std::string(ATTRIB_SOURCE_DIR) + dir)) {
      if (!e.is_directory()) continue;
      fs::path logs = e.path() / "logs";
      if (fs::exists(e.path() / "case.json")) paths.push_back(logs.string());  // a corpus case's logs
      else if (fs::exists(e.path() / "workload.json")) paths.push_back(e.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  ASSERT_GT(paths.size(), 300u);
  for (const auto& path : paths) {
    SCOPED_TRACE(path);
    nlohmann::json planned = withoutTimings(diagnosePath(*engine, path, true));
    nlohmann::json walked = withoutTimings(diagnosePath(*engine, path, false));
    EXPECT_TRUE(planned == walked) << "planned -> walked: " << nlohmann::json::diff(planned, walked).dump();
  }
}

}  // namespace
}  // namespace attrib
