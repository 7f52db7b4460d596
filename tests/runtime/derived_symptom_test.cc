// Derived symptoms (`on ranks`, `on nodes`) and the keyed aggregates (min_by, max_by, median,
// percentile) end to end through the engine: the candidates, their node, time and text, lets as
// captures, the aggregate memo (compiled and interpreted), the rank cap, and filtering first.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>
#include <tuple>

#include "driver/engine_build.h"
#include "runtime/interpreter.h"
#include "runtime/verdict.h"
#include "tests/runtime/engine_util.h"

namespace attrib {
namespace {

using testing::at;
using testing::countOf;
using testing::diagnose;

const char* kT0 = "2026-01-01T10:00:00Z";

evidence::LogLine rankLine(const std::string& node, int64_t rank, const std::string& time, const std::string& text) {
  evidence::LogLine l = testing::line(node, "applog", time, text);
  l.rank = rank;
  return l;
}

evidence::Workload workload(int64_t ranks, int64_t perNode, std::vector<std::string> nodes) {
  evidence::Workload w;
  w.ranks = ranks;
  w.ranksPerNode = perNode;
  w.nodes = std::move(nodes);
  w.start = at("2026-01-01T09:00:00Z");
  w.end = at("2026-01-01T11:00:00Z");
  return w;
}

// The instances of `symptom` the verdict lists (the root and the other causes), by rank then node.
std::vector<runtime::SymptomFinding> findings(const runtime::Verdict& v, const std::string& symptom) {
  std::vector<runtime::SymptomFinding> out;
  if (v.root && v.root->symptom == symptom) out.push_back(*v.root);
  for (const auto& f : v.otherCauses) if (f.symptom == symptom) out.push_back(f);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a.rank.value_or(-1), a.node) < std::make_tuple(b.rank.value_or(-1), b.node);
  });
  return out;
}

std::vector<int64_t> ranksOf(const runtime::Verdict& v, const std::string& symptom) {
  std::vector<int64_t> out;
  for (const auto& f : findings(v, symptom)) out.push_back(f.rank.value_or(-1));
  return out;
}

std::vector<std::string> nodesOf(const runtime::Verdict& v, const std::string& symptom) {
  std::vector<std::string> out;
  for (const auto& f : findings(v, symptom)) out.push_back(f.node);
  std::sort(out.begin(), out.end());
  return out;
}

std::set<std::string> outcomeNames(const runtime::Verdict& v) {
  std::set<std::string> out;
  for (const auto& o : v.outcomes) out.insert(o.name);
  return out;
}

// ---- candidates

const char* kSilent = R"(
symptom beat { on log match /heartbeat/ family unknown blame rank role context }
symptom other { on log match /something else/ family unknown blame rank role context }
symptom silent {
  on ranks
  when not exists(beat on same rank)
  family unknown
  severity error
  blame rank
}
)";

TEST(DerivedSymptoms, ARankWithoutEvidenceIsACandidate) {
  auto engine = testing::engineFor(kSilent);
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines;
  for (int r = 0; r < 7; ++r) lines.push_back(rankLine(fmt::format("n{}", r / 2), r, "2026-01-01T10:00:00Z", "heartbeat"));
  auto v = diagnose(*engine, lines, workload(8, 2, {"n0", "n1", "n2", "n3"}));
  EXPECT_EQ(countOf(v, "silent"), 1u);
  auto f = findings(v, "silent");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rank, 7);
  EXPECT_EQ(f[0].node, "n3");  // workload.nodes[7 / 2]
  EXPECT_EQ(f[0].time, at("2026-01-01T11:00:00Z"));  // no evidence: the workload's end
  EXPECT_TRUE(f[0].timeKnown);
  ASSERT_EQ(f[0].evidence.size(), 1u);
  EXPECT_EQ(f[0].evidence[0].source, "derived");
  EXPECT_EQ(f[0].evidence[0].line, "rank 7 on n3");

  // Without an end the start; without ranks_per_node no node.
  evidence::Workload w = workload(8, 2, {"n0", "n1", "n2", "n3"});
  w.end.reset();
  w.ranksPerNode.reset();
  auto s = findings(diagnose(*engine, lines, w), "silent");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].time, at("2026-01-01T09:00:00Z"));
  EXPECT_EQ(s[0].node, "");
  EXPECT_EQ(s[0].evidence[0].line, "rank 7 on ?");
}

TEST(DerivedSymptoms, ARankNamedOnlyByEvidenceIsACandidate) {
  auto engine = testing::engineFor(kSilent);
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines;
  for (int r = 0; r < 7; ++r) lines.push_back(rankLine(fmt::format("n{}", r / 2), r, "2026-01-01T10:00:00Z", "heartbeat"));
  lines.push_back(rankLine("extra", 9, "2026-01-01T10:30:00Z", "something else"));
  auto v = diagnose(*engine, lines, workload(8, 2, {"n0", "n1", "n2", "n3"}));
  EXPECT_EQ(ranksOf(v, "silent"), (std::vector<int64_t>{7, 9}));
  auto f = findings(v, "silent");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].node, "extra");
  EXPECT_EQ(f[1].time, at("2026-01-01T10:30:00Z"));
  // Without a declared rank count, only the ranks evidence names.
  evidence::Workload none = workload(8, 2, {"n0", "n1", "n2", "n3"});
  none.ranks.reset();
  EXPECT_EQ(ranksOf(diagnose(*engine, lines, none), "silent"), std::vector<int64_t>{9});
}

TEST(DerivedSymptoms, NodesAreTheWorkloadsAndTheOnesSeen) {
  auto engine = testing::engineFor(R"(
symptom beat { on log match /heartbeat/ family unknown blame node role context }
symptom quiet_node {
  on nodes
  when not exists(beat on same node)
  family unknown
  severity error
  blame node
}
symptom any_node {
  on nodes
  when true
  family unknown
  severity warning
  blame node
}
)");
  ASSERT_TRUE(engine);
  auto v = diagnose(*engine,
                    {testing::line("n1", "applog", "2026-01-01T10:00:00Z", "heartbeat"),
                     testing::line("n4", "applog", "2026-01-01T10:05:00Z", "heartbeat")},
                    workload(0, 1, {"n1", "n2", "n3"}));
  EXPECT_EQ(nodesOf(v, "quiet_node"), (std::vector<std::string>{"n2", "n3"}));
  EXPECT_EQ(nodesOf(v, "any_node"), (std::vector<std::string>{"n1", "n2", "n3", "n4"}));
  EXPECT_EQ(countOf(v, "any_node"), 4u);
  for (const auto& f : findings(v, "any_node")) {
    EXPECT_FALSE(f.rank) << f.node;
    EXPECT_EQ(f.time, f.node == "n1"   ? at("2026-01-01T10:00:00Z")
                      : f.node == "n4" ? at("2026-01-01T10:05:00Z")
                                       : at("2026-01-01T11:00:00Z"))
        << f.node;
  }
}

// A rank's node is that of its earliest instance, its time that of its latest.
TEST(DerivedSymptoms, ARanksNodeIsItsFirstAndItsTimeItsLast) {
  auto engine = testing::engineFor(R"(
symptom beat { on log match /heartbeat/ family unknown blame rank role context }
symptom seen {
  on ranks
  when exists(beat on same rank)
  family unknown
  severity error
  blame rank
}
)");
  ASSERT_TRUE(engine);
  // Given out of time order: the engine sorts them.
  auto v = diagnose(*engine,
                    {rankLine("late", 3, "2026-01-01T10:10:00Z", "heartbeat"),
                     rankLine("first", 3, "2026-01-01T10:00:00Z", "heartbeat"),
                     rankLine("middle", 3, "2026-01-01T10:05:00Z", "heartbeat")},
                    workload(4, 1, {"a", "b", "c", "d"}));
  auto f = findings(v, "seen");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rank, 3);
  EXPECT_EQ(f[0].node, "first");  // not workload.nodes[3] ("d")
  EXPECT_EQ(f[0].time, at("2026-01-01T10:10:00Z"));
}

// ---- lets and messages

TEST(DerivedSymptoms, MessageAndDefaultText) {
  auto engine = testing::engineFor(R"(
symptom step { on log match /step (?<n>[0-9]+)/ family unknown blame rank role context }
symptom report {
  on ranks
  let last = int(max_by(step on same rank, int(n)).n)
  let total = count(step)
  let half = 2.5
  let missing = int(min_by(step on same rank where int(n) > 1000, int(n)).n)
  when rank == 3
  message "r{rank}@{node} gpu {gpu}: last {last} of {total}, {half}, {missing}"
  family unknown
  severity error
  blame rank
}
symptom plain {
  on ranks
  let a = 1
  let b = "x"
  let gone = int("not a number")
  when rank == 3
  family unknown
  severity warning
  blame rank
}
outcome captures {
  when count(report as r where r.last == "42" and r.total == "3" and r.half == "2.5") == 1 and not exists(report as q where len(q.missing) >= 0)
  family unknown
}
outcome let_in_rule {
  when count(report as r where int(r.last) > 40 and int(r.last) < 43) == 1 and not exists(plain as p where len(p.gone) >= 0) and exists(plain as p2 where p2.a == "1" and p2.b == "x")
  family unknown
}
)");
  ASSERT_TRUE(engine);
  auto v = diagnose(*engine,
                    {rankLine("n1", 3, "2026-01-01T10:00:00Z", "step 41"), rankLine("n1", 3, "2026-01-01T10:00:10Z", "step 42"),
                     rankLine("n2", 4, "2026-01-01T10:00:20Z", "step 40")},
                    workload(8, 4, {"n1", "n2"}));
  auto r = findings(v, "report");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].evidence[0].line, "r3@n1 gpu ?: last 42 of 3, 2.5, ?");
  auto p = findings(v, "plain");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].evidence[0].line, "rank 3 on n1: a=1, b=x");  // the null let is left out
  EXPECT_EQ(outcomeNames(v), (std::set<std::string>{"captures", "let_in_rule"}));
}

// Lets are string captures of the derived instances: a rule reads `t.completed`.
TEST(DerivedSymptoms, ARuleReadsLetsAsCaptures) {
  auto engine = testing::engineFor(R"(
symptom work { on log match /completed (?<completed>[0-9]+)/ family communication blame rank role context }
symptom behind {
  on ranks
  let completed = int(max_by(work on same rank, int(completed)).completed)
  let best = int(max_by(work, int(completed)).completed)
  when completed < best
  family accelerator-gpu
  severity error
  blame rank
}
rule far_behind {
  when behind as t
  where int(t.completed) < 5 and t.best == "10"
  then mark t as bad
}
)");
  ASSERT_TRUE(engine);
  auto v = diagnose(*engine,
                    {rankLine("n0", 0, kT0, "completed 10"), rankLine("n1", 1, kT0, "completed 4"),
                     rankLine("n2", 2, kT0, "completed 7")},
                    workload(3, 1, {"n0", "n1", "n2"}));
  EXPECT_EQ(ranksOf(v, "behind"), (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(v.badNodes.size(), 1u);
  EXPECT_EQ(v.badNodes[0].node, "n1");
  EXPECT_EQ(v.badNodes[0].symptoms, std::vector<std::string>{"behind"});
}

// ---- keyed aggregates

// `val` is context; the outcomes probe the aggregates' exact values.
const char* kKeyed = R"(
symptom later_sym { on log match /later (?<node_tag>[a-z0-9]+) v=(?<x>[-0-9.a-z]*)/ family unknown role context }
symptom val { on log match /val (?<node_tag>[a-z0-9]+) v=(?<x>[-0-9.a-z]*)/ family unknown role context }
symptom empty { on log match /never logged/ family unknown role context }

outcome min_tie { when min_by(*, float(x)).node_tag == "early" family unknown }
outcome max_tie { when max_by(*, int(x)).node_tag == "early2" family unknown }
outcome min_skips_nan_and_null { when min_by(val, float(x)).x == "1" family unknown }
outcome max_skips_nan_and_null { when max_by(val, float(x)).x == "20" family unknown }
outcome median_even { when median(val, float(x)) == 6.0 family unknown }
outcome p0 { when percentile(val, float(x), 0) == 1.0 family unknown }
outcome p100 { when percentile(val, float(x), 100) == 20.0 family unknown }
outcome p25 { when percentile(val, float(x), 25) == 1.75 family unknown }
outcome p_out_of_range { when percentile(val, float(x), 100.5) >= 0 or percentile(val, float(x), -1) <= 100 family unknown }
outcome empty_is_none { when min_by(empty, time) is none and max_by(empty, rank) is none family unknown }
outcome empty_median_null { when median(empty, float(rank)) >= 0 or median(empty, float(rank)) < 0 family unknown }
)";

TEST(KeyedAggregates, TiesNanNullMedianPercentile) {
  auto engine = testing::engineFor(kKeyed);
  ASSERT_TRUE(engine);
  auto v = diagnose(*engine,
                    {// Earliest of all, but its key is NaN, then one with no number at all: both skipped.
                     testing::line("n1", "applog", "2026-01-01T09:59:00Z", "val nan1 v=nan"),
                     testing::line("n1", "applog", "2026-01-01T09:59:30Z", "val null1 v=abc"),
                     testing::line("n1", "applog", "2026-01-01T10:00:00Z", "val early v=1"),
                     testing::line("n1", "applog", "2026-01-01T10:01:00Z", "val mid v=2"),
                     testing::line("n1", "applog", "2026-01-01T10:02:00Z", "val early2 v=20"),
                     testing::line("n1", "applog", "2026-01-01T10:03:00Z", "val high v=10"),
                     // Same keys as early (1) and early2 (20), later, of the symptom iterated first.
                     testing::line("n1", "applog", "2026-01-01T10:05:00Z", "later late v=1"),
                     testing::line("n1", "applog", "2026-01-01T10:06:00Z", "later late2 v=20")},
                    workload(0, 1, {"n1"}));
  EXPECT_EQ(outcomeNames(v), (std::set<std::string>{"min_tie", "max_tie", "min_skips_nan_and_null",
                                                    "max_skips_nan_and_null", "median_even", "p0", "p100", "p25",
                                                    "empty_is_none"}));
}

// ---- the aggregate memo, compiled and interpreted

const char* kMemo = R"(
symptom w { on log match /progress n=(?<n>[0-9]+)/ family unknown blame rank role context }
// Job-wide aggregates: computed once per derived symptom (the memo). `ahead` reads the
// candidate through `mine` (an on-same-rank aggregate inside its where): never memoised.
symptom behind_memo {
  on ranks
  let mine = int(max_by(w on same rank, int(n)).n)
  let best = int(max_by(w, int(n)).n)
  let ahead = distinct(w as o where int(o.n) > mine, rank)
  when mine < best and ahead < 5 and median(w, float(n)) > 0 and percentile(w, float(n), rank * 0 + 50) > 0
  family unknown
  severity error
  blame rank
}
// The same, every aggregate reading the candidate: nothing is memoised.
symptom behind_plain {
  on ranks
  let me = rank
  let mine = int(max_by(w on same rank, int(n)).n)
  let best = int(max_by(w where me >= 0, int(n)).n)
  let ahead = distinct(w as o where int(o.n) > mine and me >= 0, rank)
  when mine < best and ahead < 5 and median(w where me >= 0, float(n)) > 0
  family unknown
  severity warning
  blame rank
}
)";

TEST(DerivedSymptoms, MemoisedAggregatesAgreeCompiledAndInterpreted) {
  auto engine = testing::engineFor(kMemo);
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines;
  // Rank 0 reached 20, 1: 20, 2: 15, 3: nothing, 4: 20, 5: 5, 6: 19 then 20. Behind: 2 (4 ranks
  // ahead) and 5 (5 ranks ahead, too many).
  std::vector<std::vector<int>> reached = {{10, 20}, {20}, {15}, {}, {20}, {5}, {19, 20}};
  int second = 0;
  for (size_t r = 0; r < reached.size(); ++r) {
    for (int n : reached[r]) {
      lines.push_back(rankLine(fmt::format("n{}", r), static_cast<int64_t>(r),
                               fmt::format("2026-01-01T10:00:{:02}Z", second++), fmt::format("progress n={}", n)));
    }
  }
  const std::vector<int64_t> expected = {2};

  std::string error;
  auto bundle = std::shared_ptr<const runtime::Bundle>(engine, &engine->bundle());
  driver::EngineOptions jit;
  jit.requireJit = true;
  auto jitted = driver::engineFromBundle(bundle, jit, &error);
  ASSERT_TRUE(jitted) << error;

  for (const runtime::Engine* e : {engine.get(), jitted.get()}) {
    auto v = diagnose(*e, lines, workload(7, 1, {"n0", "n1", "n2", "n3", "n4", "n5", "n6"}));
    SCOPED_TRACE(v.stats.evaluator);
    EXPECT_EQ(ranksOf(v, "behind_memo"), expected);
    EXPECT_EQ(ranksOf(v, "behind_plain"), expected);
    EXPECT_EQ(countOf(v, "behind_memo"), 1u);
    EXPECT_EQ(countOf(v, "behind_plain"), 1u);
  }
  EXPECT_EQ(diagnose(*jitted, lines, workload(7, 1, {})).stats.evaluator, "jit");
}

// ---- limits and ordering

TEST(DerivedSymptoms, TenMillionRanksAreCappedAt131072Candidates) {
  auto engine = testing::engineFor(R"(
symptom beat { on log match /heartbeat/ family unknown blame rank role context }
symptom silent { on ranks when not exists(beat on same rank) family unknown severity error blame rank }
symptom loud { on ranks when exists(beat on same rank) family unknown severity warning blame rank }
outcome loud_ranks {
  when count(loud) == 3 and exists(loud as a where a.rank == 3) and exists(loud as b where b.rank == 200000) and exists(loud as c where c.rank == 9999999)
  family unknown
}
)");
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines = {rankLine("n0", 3, kT0, "heartbeat"), rankLine("n1", 200000, kT0, "heartbeat"),
                                         rankLine("n2", 9999999, kT0, "heartbeat")};
  evidence::Workload w = workload(10'000'000, 8, {"n0", "n1", "n2"});
  auto started = std::chrono::steady_clock::now();
  auto v = diagnose(*engine, lines, w);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 60.0);
  EXPECT_EQ(countOf(v, "silent"), 131072u - 1);  // 0 .. 131071 but rank 3
  EXPECT_EQ(countOf(v, "loud"), 3u);
  EXPECT_EQ(outcomeNames(v), std::set<std::string>{"loud_ranks"});
}

TEST(DerivedSymptoms, DerivedSymptomsSeeTheEvidenceFiltersLeft) {
  auto engine = testing::engineFor(std::string(kSilent) + R"(
filter drop_rank_two { drop beat where rank == 2 }
)");
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines;
  for (int r = 0; r < 4; ++r) lines.push_back(rankLine(fmt::format("n{}", r), r, kT0, "heartbeat"));
  auto v = diagnose(*engine, lines, workload(4, 1, {"n0", "n1", "n2", "n3"}));
  EXPECT_EQ(ranksOf(v, "silent"), std::vector<int64_t>{2});
  EXPECT_EQ(countOf(v, "beat"), 3u);
  // Its node and time no longer come from the dropped evidence.
  auto f = findings(v, "silent");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].time, at("2026-01-01T11:00:00Z"));
}

}  // namespace
}  // namespace attrib

// string() of a NaN has no sign: the JIT may fold 0.0 / 0.0 to +nan where the machine computes
// -nan, and the two evaluators must print the same text.
TEST(ValueText, NanHasNoSign) {
  EXPECT_EQ(attrib::runtime::valueText(attrib::ir::Type::Float, 0, std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(attrib::runtime::valueText(attrib::ir::Type::Float, 0, -std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(attrib::runtime::valueText(attrib::ir::Type::Float, 0, std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(attrib::runtime::valueText(attrib::ir::Type::Float, 0, -std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(attrib::runtime::valueText(attrib::ir::Type::Float, 0, -1.5), "-1.5");
}
