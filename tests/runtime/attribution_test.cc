// The attribution phases and the predicate semantics, end to end through the engine: rules are
// compiled from source, evidence is given as in-memory lines and samples.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "runtime/verdict.h"
#include "tests/runtime/engine_util.h"

namespace attrib {
namespace {

using testing::at;
using testing::countOf;
using testing::diagnose;
using testing::line;
using testing::logFile;

const char* kCascade = R"(
package t
symptom xid79 "GPU fell off the bus" {
  on log(source in [syslog])
  match /NVRM: Xid \(PCI:(?<pci>[0-9a-f:.]+)\): 79\b/
  family accelerator-gpu severity critical blame node action drain_node
}
symptom ib_down "IB link down" { on log match /mlx5_core .* link down/ family network-fabric severity error blame node }
symptom timeout {
  on log
  match /Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?<seq>[0-9]+)/
  family communication role consequence
}
rule explain_timeouts {
  when xid79 as r, timeout as t
  where t.time in [r.time, r.time + 30m]
  then explain t by r
}
outcome lost { when root is xid79 family accelerator-gpu action drain_node, restart confidence 0.95 }
outcome fabric { when root is ib_down family network-fabric action check_fabric confidence 0.8 }
)";

const char* kXid = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.";

std::string timeout(int rank, int seq = 77) {
  return fmt::format("[rank{}]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum={}, OpType=ALLREDUCE)",
                     rank, seq);
}

TEST(Attribution, CascadeIsExplainedByTheGpuFault) {
  auto engine = testing::engineFor(kCascade);
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines = {line("n2", "syslog", "2026-01-01T10:42:00Z", kXid)};
  for (int r = 0; r < 24; ++r) {
    if (r / 8 == 1) continue;  // n2's ranks died with the GPU
    lines.push_back(line(fmt::format("n{}", r / 8 + 1), "applog", "2026-01-01T10:52:01Z", timeout(r)));
  }
  auto v = diagnose(*engine, lines);
  ASSERT_EQ(v.outcomes.size(), 1u);
  EXPECT_EQ(v.outcomes[0].name, "t.lost");
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "t.xid79");
  EXPECT_EQ(v.root->node, "n2");
  EXPECT_EQ(v.root->time, at("2026-01-01T10:42:00Z"));
  EXPECT_EQ(v.root->evidence[0].line, kXid);
  ASSERT_EQ(v.badNodes.size(), 1u);
  EXPECT_EQ(v.badNodes[0].node, "n2");
  ASSERT_EQ(v.downstream.size(), 1u);
  EXPECT_EQ(v.downstream[0].symptom, "t.timeout");
  EXPECT_EQ(v.downstream[0].count, 16u);
  EXPECT_EQ(v.downstream[0].nodes, 2u);
  EXPECT_EQ(v.downstream[0].ranks, 16u);
  EXPECT_EQ(v.downstream[0].explainedBy, "t.xid79@n2");
  EXPECT_EQ(v.downstream[0].rule, "t.explain_timeouts");
  EXPECT_EQ(v.actions, (std::vector<std::string>{"drain_node", "restart"}));
  EXPECT_EQ(v.actionNodes, std::vector<std::string>{"n2"});
  EXPECT_DOUBLE_EQ(v.confidence, 0.95);
  EXPECT_EQ(v.rulesetName, "test");
}

// A file of one rank (its name says so) gives its lines that rank unless a line names its own.
TEST(Attribution, AFilesRankAppliesToItsLinesWithoutARankPrefix) {
  auto engine = testing::engineFor(R"(
package t
symptom timeout { on log match /Watchdog caught collective operation timeout/ family communication }
outcome ranks_known {
  when count(timeout as a where a.rank == 7) == 1 and count(timeout as b where b.rank == 9) == 1
  family communication action investigate confidence 0.5
}
)");
  ASSERT_TRUE(engine);
  std::filesystem::path file = std::filesystem::temp_directory_path() / fmt::format("attrib-rank7-{}.log", ::getpid());
  std::ofstream(file) << "2026-01-01T00:00:00Z Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE)\n"
                      << "2026-01-01T00:00:01Z [rank9]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=6)\n";
  evidence::WorkloadEvidence evidence;
  evidence.logs.push_back(logFile(file.string(), "n1", "applog", "n1/rank7.log", 7));
  runtime::Verdict v = engine->diagnose(std::move(evidence));
  std::filesystem::remove(file);
  EXPECT_EQ(countOf(v, "t.timeout"), 2u);
  ASSERT_EQ(v.outcomes.size(), 1u) << runtime::toJson(v);
  EXPECT_EQ(v.outcomes[0].name, "t.ranks_known");
}

TEST(Attribution, ConsequencesAloneAreNeverTheRoot) {
  auto engine = testing::engineFor(kCascade);
  auto v = diagnose(*engine, {line("n1", "applog", "2026-01-01T10:52:01Z", timeout(3))});
  EXPECT_FALSE(v.root);
  EXPECT_TRUE(v.outcomes.empty());
  EXPECT_EQ(v.confidence, 0);
  EXPECT_EQ(countOf(v, "t.timeout"), 1u);
  EXPECT_NE(runtime::toJson(v).find("\"name\": \"unknown\""), std::string::npos);
}

TEST(Attribution, OutOfWindowConsequencesStayUnexplained) {
  auto engine = testing::engineFor(kCascade);
  auto v = diagnose(*engine, {line("n2", "syslog", "2026-01-01T10:42:00Z", kXid),
                              line("n1", "applog", "2026-01-01T10:30:00Z", timeout(0)),    // before the fault
                              line("n1", "applog", "2026-01-01T11:30:00Z", timeout(1)),    // 48 minutes after
                              line("n1", "applog", "2026-01-01T10:50:00Z", timeout(2))});  // inside
  ASSERT_EQ(v.downstream.size(), 1u);
  EXPECT_EQ(v.downstream[0].count, 1u);
}

TEST(Attribution, TheEarliestExplainerWins) {
  auto engine = testing::engineFor(kCascade);
  auto v = diagnose(*engine, {line("n3", "syslog", "2026-01-01T10:45:00Z", kXid),
                              line("n2", "syslog", "2026-01-01T10:42:00Z", kXid),
                              line("n1", "applog", "2026-01-01T10:50:00Z", timeout(0))});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->node, "n2");
  ASSERT_EQ(v.downstream.size(), 1u);
  EXPECT_EQ(v.downstream[0].explainedBy, "t.xid79@n2");
  // The later, independent fault is reported too, and its node is bad as well.
  ASSERT_EQ(v.otherCauses.size(), 1u);
  EXPECT_EQ(v.otherCauses[0].node, "n3");
  ASSERT_EQ(v.badNodes.size(), 2u);
}

TEST(Attribution, SeverityThenTimeThenBlameChooseTheRoot) {
  auto engine = testing::engineFor(kCascade);
  // The IB link error is earlier but less severe than the Xid.
  auto v = diagnose(*engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", "mlx5_core 0000:5e:00.0: mlx5 port 1 link down"),
                              line("n2", "syslog", "2026-01-01T10:42:00Z", kXid)});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "t.xid79");
  // Alone, the IB error is the root, with its own outcome.
  auto ib = diagnose(*engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", "mlx5_core 0000:5e:00.0: mlx5 port 1 link down")});
  ASSERT_TRUE(ib.root);
  EXPECT_EQ(ib.outcomes[0].name, "t.fabric");

  auto tie = testing::engineFor(R"(
symptom on_node { on log match /fault on node/ family host-hardware severity critical blame node }
symptom on_gpu { on log match /fault on gpu/ family accelerator-gpu severity critical blame gpu }
)");
  auto t = diagnose(*tie, {line("n1", "syslog", "2026-01-01T10:00:00Z", "fault on node"),
                           line("n1", "syslog", "2026-01-01T10:00:00Z", "fault on gpu")});
  ASSERT_TRUE(t.root);
  EXPECT_EQ(t.root->symptom, "on_gpu");
}

TEST(Attribution, FiltersDropKeepFirstAndKeepWhere) {
  auto engine = testing::engineFor(R"(
symptom e { on log match /error code (?<code>[0-9]+)/ family unknown blame node }
filter noise {
  drop e where code == "0"
  keep first 2 e per node
}
filter late { keep e where time < 2026-01-01T12:00:00Z }
)");
  auto v = diagnose(*engine, {line("n1", "applog", "2026-01-01T10:00:00Z", "error code 0"),
                              line("n1", "applog", "2026-01-01T10:01:00Z", "error code 1"),
                              line("n1", "applog", "2026-01-01T10:02:00Z", "error code 2"),
                              line("n1", "applog", "2026-01-01T10:03:00Z", "error code 3"),
                              line("n2", "applog", "2026-01-01T10:03:00Z", "error code 4"),
                              line("n2", "applog", "2026-01-01T13:00:00Z", "error code 5")});
  EXPECT_EQ(countOf(v, "e"), 3u);  // n1: codes 1 and 2; n2: code 4 (5 is too late)
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->evidence[0].line, "error code 1");
}

// A filter statement reads the live instances of its own symptoms only: what an earlier
// statement dropped is gone for the next one (`keep last` must not keep a dropped line), and
// other symptoms' instances between them are never its targets.
TEST(Attribution, FilterStatementsSeeWhatTheStatementsBeforeLeft) {
  auto engine = testing::engineFor(R"(
symptom e { on log match /error code (?<code>[0-9]+)/ family unknown blame node }
symptom other { on log match /other line/ family unknown blame node }
filter noise {
  drop e where code == "0"
  keep last 1 e per node
}
)");
  auto v = diagnose(*engine, {line("n1", "applog", "2026-01-01T10:00:00Z", "error code 1"),
                              line("n1", "applog", "2026-01-01T10:00:30Z", "other line"),
                              line("n1", "applog", "2026-01-01T10:01:00Z", "error code 2"),
                              line("n1", "applog", "2026-01-01T10:01:30Z", "other line"),
                              line("n1", "applog", "2026-01-01T10:02:00Z", "error code 0"),
                              line("n2", "applog", "2026-01-01T10:03:00Z", "error code 0")});
  EXPECT_EQ(countOf(v, "e"), 1u);  // n1: code 2 (the later code 0 was dropped first); n2: none
  EXPECT_EQ(countOf(v, "other"), 2u);
  bool kept2 = false;
  for (const auto& f : v.otherCauses) kept2 |= !f.evidence.empty() && f.evidence[0].line == "error code 2";
  if (v.root && !v.root->evidence.empty()) kept2 |= v.root->evidence[0].line == "error code 2";
  EXPECT_TRUE(kept2);
}

TEST(Attribution, MarksAndDrops) {
  auto engine = testing::engineFor(R"(
symptom warn { on log match /thermal warning/ family accelerator-gpu severity warning blame node }
symptom fault { on log match /hardware fault/ family host-hardware severity critical blame workload }
symptom noise { on log match /spurious message/ family unknown blame node }
rule mark { when fault as f, warn as w where same node then mark w as bad }
rule hush { when noise as n, fault as f then drop n }
rule look { when warn as w, fault as f where w.node != f.node then mark w as interesting }
)");
  auto v = diagnose(*engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", "thermal warning"),
                              line("n1", "syslog", "2026-01-01T10:05:00Z", "hardware fault"),
                              line("n3", "syslog", "2026-01-01T10:01:00Z", "thermal warning"),
                              line("n2", "syslog", "2026-01-01T10:06:00Z", "spurious message")});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "fault");
  EXPECT_EQ(countOf(v, "noise"), 0u);  // dropped
  std::vector<std::string> bad, interesting;
  for (auto& n : v.badNodes) bad.push_back(n.node);
  for (auto& n : v.interestingNodes) interesting.push_back(n.node);
  // n1's warning is marked bad and also an unexplained node-blaming cause.
  EXPECT_EQ(bad, (std::vector<std::string>{"n1", "n3"}));
  EXPECT_TRUE(interesting.empty());
}

// Interest is for evidence that bears on the failure: an unexplained warning makes its node
// interesting, whatever its role; an info line (a link that came up, a health report) never does,
// even when it is on every node, unless a rule marks it.
TEST(Attribution, InfoLinesNeverMakeANodeInteresting) {
  auto engine = testing::engineFor(R"(
symptom fault { on log match /hardware fault/ family host-hardware severity critical blame workload }
symptom up { on log match /link up/ family network-fabric severity info blame node role context }
symptom remap { on log match /remap pending/ family accelerator-gpu severity warning blame gpu role context }
symptom health { on log match /health ok/ family unknown severity info blame node }
symptom flagged { on log match /flagged by operator/ family unknown severity info blame node role context }
rule look { when flagged as x, fault as f then mark x as interesting }
)");
  std::vector<evidence::LogLine> lines = {line("n0", "syslog", "2026-01-01T10:05:00Z", "hardware fault")};
  for (int n = 1; n <= 8; ++n) {
    lines.push_back(line("n" + std::to_string(n), "syslog", "2026-01-01T10:00:00Z", "link up"));
    lines.push_back(line("n" + std::to_string(n), "syslog", "2026-01-01T10:00:01Z", "health ok"));
  }
  lines.push_back(line("n4", "syslog", "2026-01-01T10:01:00Z", "remap pending"));
  lines.push_back(line("n6", "syslog", "2026-01-01T10:02:00Z", "flagged by operator"));
  auto v = diagnose(*engine, lines);
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "fault");
  EXPECT_EQ(countOf(v, "up"), 8u);  // still counted and shown as symptoms
  std::vector<std::string> interesting;
  for (auto& n : v.interestingNodes) interesting.push_back(n.node);
  EXPECT_EQ(interesting, (std::vector<std::string>{"n4", "n6"}));
  ASSERT_EQ(v.interestingNodes.size(), 2u);
  EXPECT_EQ(v.interestingNodes[0].symptoms, (std::vector<std::string>{"remap"}));
  EXPECT_EQ(v.interestingNodes[1].symptoms, (std::vector<std::string>{"flagged"}));
}

TEST(Attribution, ExplanationsNeverFormACycle) {
  auto engine = testing::engineFor(R"(
symptom a { on log match /event alpha/ family unknown }
symptom b { on log match /event bravo/ family unknown }
rule ab { when a as x, b as y then explain y by x }
rule ba { when b as y, a as x then explain x by y }
)");
  auto v = diagnose(*engine, {line("n1", "applog", "2026-01-01T10:00:00Z", "event alpha"),
                              line("n1", "applog", "2026-01-01T10:00:01Z", "event bravo")});
  ASSERT_TRUE(v.root);  // one of them remains unexplained
  EXPECT_EQ(v.root->symptom, "a");
  EXPECT_EQ(v.downstream.size(), 1u);
}

TEST(Attribution, SchedulerStateAndCompoundOutcomes) {
  auto engine = testing::engineFor(std::string(kCascade) + R"(
symptom time_limit { on scheduler when state == TIMEOUT family scheduler-timeout blame workload }
outcome timed_out { when time_limit family scheduler-timeout action increase_time_limit confidence 0.9 }
)");
  evidence::Workload w;
  w.state = ir::State::Timeout;
  w.end = at("2026-01-01T12:00:00Z");
  auto v = diagnose(*engine, {line("n2", "syslog", "2026-01-01T10:42:00Z", kXid)}, w);
  ASSERT_EQ(v.outcomes.size(), 2u);
  EXPECT_EQ(v.outcomes[0].name, "t.lost");  // declaration order: the first is primary
  EXPECT_EQ(v.outcomes[1].name, "t.timed_out");
  EXPECT_EQ(v.root->symptom, "t.xid79");  // the earlier critical fault is the root
  EXPECT_EQ(v.actions, (std::vector<std::string>{"drain_node", "restart", "increase_time_limit"}));
}

// The description the verdict gives a symptom ("-" when the verdict does not name it).
std::string describedAs(const runtime::Verdict& v, const std::string& symptom) {
  for (const auto& [name, info] : v.symptoms)
    if (name == symptom) return info.description;
  return "-";
}

// A symptom's severity, blame and role are fields of its instances: one rule can tell the causes
// of a package from its context symptoms without listing them.
TEST(Attribution, SeverityBlameAndRoleAreFieldsOfEveryInstance) {
  // The fault's action, set by the second half of the test.
  const std::string rules = R"(
package hw
symptom fault "hardware fault" {
  on log
  match /fault code (?<code>[0-9]+)/
  description "What a fault means and what to do."
  family accelerator-gpu severity critical blame gpu @ACTION@
}
symptom app "application fault" { on log match /app fault/ family user-code severity warning blame workload }
symptom note "a note" { on log match /note/ family accelerator-gpu severity info blame gpu }
symptom timeout { on log match /collective timeout/ family communication role consequence }
rule causes_explain_timeouts {
  when hw.* as r, timeout as t
  where r.role == "cause" and r.blame in ["gpu", "node"] and r.severity != "info" and t.time > r.time
  then explain t by r
}
outcome any_fault { when root.family == "accelerator-gpu" family accelerator-gpu confidence 0.5 }
outcome app_fault { when root is app family user-code action fix_code confidence 0.5 }
)";
  auto withFaultAction = [&](const std::string& action) {
    std::string text = rules;
    return testing::engineFor(text.replace(text.find("@ACTION@"), 8, action));
  };
  auto engine = withFaultAction("");
  ASSERT_TRUE(engine);
  auto explained = [&](const std::string& first) {
    auto v = diagnose(*engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", first),
                                line("n2", "applog", "2026-01-01T10:05:00Z", "collective timeout")});
    return std::pair(v, v.downstream.size() == 1 ? v.downstream[0].explainedBy : std::string("-"));
  };
  auto [fault, byFault] = explained("fault code 7");
  EXPECT_EQ(byFault, "hw.fault@n1");
  ASSERT_TRUE(fault.root);
  EXPECT_EQ(describedAs(fault, "hw.fault"), "What a fault means and what to do.");
  // any_fault has no action of its own: the recommendation is the root symptom's (none here).
  ASSERT_EQ(fault.outcomes.size(), 1u);
  EXPECT_EQ(fault.outcomes[0].name, "hw.any_fault");
  EXPECT_TRUE(fault.actions.empty());
  EXPECT_EQ(explained("app fault").second, "-");  // blamed on the workload
  EXPECT_EQ(explained("note").second, "-");       // info, and context by default
  auto app = explained("app fault").first;
  ASSERT_TRUE(app.root);
  EXPECT_EQ(describedAs(app, "hw.app"), "");
  EXPECT_EQ(app.actions, std::vector<std::string>{"fix_code"});

  // With an action on the root symptom, a generic outcome recommends it; the JSON verdict's
  // symptoms show the description, and null for a symptom without one.
  auto withAction = withFaultAction("action reset_gpu, investigate");
  ASSERT_TRUE(withAction);
  auto v = diagnose(*withAction, {line("n1", "syslog", "2026-01-01T10:00:00Z", "fault code 7")});
  EXPECT_EQ(v.actions, (std::vector<std::string>{"reset_gpu", "investigate"}));
  EXPECT_NE(runtime::toJson(v).find("\"description\": \"What a fault means and what to do.\""), std::string::npos);
  EXPECT_NE(runtime::toJson(app).find("\"description\": null"), std::string::npos);
}

// distinct(S, CAPTURE) counts the capture's distinct values (it once counted distinct times), and
// distinct(S on same KEY, FIELD) keeps the key and the counted field apart (both were one field).
TEST(Attribution, DistinctCountsACapturesValuesAndKeepsItsKeyApart) {
  auto engine = testing::engineFor(R"(
symptom fault "fault" { on log match /fault pid=(?<pid>[0-9]+)/ family unknown severity error blame node }
outcome two_processes { when distinct(fault, pid) == 2 family unknown action investigate confidence 0.5 }
)");
  ASSERT_TRUE(engine);
  auto v = diagnose(*engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", "fault pid=7"),
                              line("n1", "syslog", "2026-01-01T10:00:01Z", "fault pid=7"),
                              line("n1", "syslog", "2026-01-01T10:00:02Z", "fault pid=9")});
  ASSERT_EQ(v.outcomes.size(), 1u);
  auto same = diagnose(*engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", "fault pid=7"),
                                 line("n1", "syslog", "2026-01-01T10:00:01Z", "fault pid=7")});
  EXPECT_TRUE(same.outcomes.empty());

  auto keyed = testing::engineFor(R"(
symptom fault "fault" { on log match /fault gpu=(?<gpu>[a-z]+)/ family unknown severity error blame node }
outcome two_gpus_here { when distinct(fault on same node, gpu) == 2 family unknown action investigate confidence 0.5 }
)");
  ASSERT_TRUE(keyed);
  auto k = diagnose(*keyed, {line("n1", "syslog", "2026-01-01T10:00:00Z", "fault gpu=a"),
                             line("n1", "syslog", "2026-01-01T10:00:01Z", "fault gpu=b"),
                             line("n2", "syslog", "2026-01-01T10:00:02Z", "fault gpu=c")});
  ASSERT_EQ(k.outcomes.size(), 1u);  // the root's node n1 has two GPUs at fault (the job three)
}

// Symptoms may share a pattern: the bundle holds it once (one Hyperscan expression, one PCRE2
// program) and each symptom's `when` tells its lines apart. A symptom with several patterns gives
// one instance per line: the first pattern whose match its `when` keeps.
TEST(Attribution, SymptomsSharingAPatternAreToldApartByTheirWhen) {
  const char* rules = R"(
symptom code7 "code 7" { on log match /event code=(?<code>[0-9]+)/ when int(code) == 7 family unknown severity error blame node }
symptom code9 "code 9" { on log match /event code=(?<code>[0-9]+)/ when int(code) == 9 family unknown severity warning blame node }
symptom other "any other code" {
  on log
  match /event code=(?<code>[0-9]+)/
  match /old event (?<code>[0-9]+)/
  when int(code) not in [7, 9]
  family unknown severity info blame none
}
)";
  std::string bytes;
  auto engine = testing::engineFor(rules, &bytes);
  ASSERT_TRUE(engine);
  std::string error;
  auto bundle = runtime::loadBundle(bytes, &error);
  ASSERT_TRUE(bundle) << error;
  ASSERT_EQ(bundle->logExpressions.size(), 2u);  // /event code=.../ once, /old event .../
  EXPECT_EQ(bundle->logExpressions[0].size(), 3u);
  auto v = diagnose(*engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", "event code=7"),
                              line("n1", "syslog", "2026-01-01T10:00:01Z", "event code=9"),
                              line("n1", "syslog", "2026-01-01T10:00:02Z", "event code=12"),
                              line("n1", "syslog", "2026-01-01T10:00:03Z", "old event 7 then event code=13"),
                              line("n1", "syslog", "2026-01-01T10:00:04Z", "old event 12 then event code=7")});
  EXPECT_EQ(countOf(v, "code7"), 2u);
  EXPECT_EQ(countOf(v, "code9"), 1u);
  // "old event 7 then event code=13": the first pattern (code=13) is kept, once. "old event 12
  // then event code=7": the first pattern's code=7 fails the `when`, the second's code 12 holds.
  EXPECT_EQ(countOf(v, "other"), 3u);
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "code7");
}

evidence::MetricSample sample(const std::string& time, double value, const std::string& node = "n1") {
  evidence::MetricSample s;
  s.name = "gpu_temp";
  s.node = node;
  s.gpu = "0";
  s.time = at(time);
  s.value = value;
  return s;
}

TEST(Attribution, SustainedMetricConditions) {
  auto engine = testing::engineFor(R"(
symptom hot { on metric gpu_temp when value > 90 for 2m family accelerator-gpu severity warning blame gpu }
)");
  std::vector<evidence::MetricSample> m = {
      sample("2026-01-01T10:00:00Z", 95), sample("2026-01-01T10:01:00Z", 96),  // 1 minute: not yet
      sample("2026-01-01T10:01:30Z", 80),                                      // the episode ends
      sample("2026-01-01T10:02:00Z", 95), sample("2026-01-01T10:03:00Z", 95),
      sample("2026-01-01T10:04:00Z", 97), sample("2026-01-01T10:05:00Z", 99)};  // held 2m at 10:04
  auto v = diagnose(*engine, {}, {}, m);
  EXPECT_EQ(countOf(v, "hot"), 1u);
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->time, at("2026-01-01T10:04:00Z"));
  EXPECT_EQ(v.root->gpu, "0");
}

TEST(Attribution, WindowAggregatesAndCounterResets) {
  auto engine = testing::engineFor(R"(
symptom avg_hot { on metric gpu_temp when avg(value) over 3m > 90 family unknown blame gpu }
symptom rising { on metric gpu_temp when rate(value) over 90s > 0.4 family unknown blame gpu }
symptom jump { on metric gpu_temp when delta(value) over 10m <= -60 family unknown blame gpu }
symptom peak { on metric gpu_temp when max(value) over 90s >= 100 and min(value) over 90s < 50 family unknown blame gpu }
)");
  // A counter that stands still, then resets to 30: the reset counts as an increase of 30 over
  // the 60 s since the last sample (0.5/s), not as a drop of 70.
  auto v = diagnose(*engine, {}, {},
                    {sample("2026-01-01T10:00:00Z", 100), sample("2026-01-01T10:01:00Z", 100),
                     sample("2026-01-01T10:02:00Z", 30)});
  ASSERT_EQ(countOf(v, "rising"), 1u);
  ASSERT_EQ(countOf(v, "jump"), 1u);  // delta is the plain difference: 30 - 100
  EXPECT_EQ(countOf(v, "avg_hot"), 1u);  // avg of 100 at 10:00 alone; later windows are cooler
  EXPECT_EQ(countOf(v, "peak"), 1u);  // at 10:02 the window (10:00:30, 10:02] holds 100 and 30
  for (const auto& c : v.otherCauses) {
    if (c.symptom == "rising" || c.symptom == "jump" || c.symptom == "peak") {
      EXPECT_EQ(c.time, at("2026-01-01T10:02:00Z")) << c.symptom;
    }
  }
}

TEST(Attribution, MissingValuesMakePredicatesFalse) {
  auto engine = testing::engineFor(R"(
symptom s {
  on log
  match /job (?<name>[a-z]+)( seq=(?<seq>[0-9]+))?/
  family unknown
}
filter f {
  drop s where int(seq) > 5
  drop s where not (int(seq) <= 5)
  drop s where 9223372036854775807 + int(seq) > 0
  drop s where int(seq) / 0 == 0
}
)");
  auto v = diagnose(*engine, {line("n1", "applog", "2026-01-01T10:00:00Z", "job alpha"),           // no seq
                              line("n1", "applog", "2026-01-01T10:00:01Z", "job bravo seq=3"),     // kept
                              line("n1", "applog", "2026-01-01T10:00:02Z", "job charlie seq=9")}); // dropped
  // No seq: every comparison with the missing value is false, `not` of it too, and the
  // overflowing sum and the division by zero are missing values, not errors.
  EXPECT_EQ(countOf(v, "s"), 2u);
}

TEST(Attribution, DeterministicWhateverTheOrderOfEvidence) {
  auto engine = testing::engineFor(kCascade);
  std::vector<evidence::LogLine> lines = {line("n2", "syslog", "2026-01-01T10:42:00Z", kXid)};
  for (int r = 0; r < 64; ++r) {
    lines.push_back(line(fmt::format("n{}", r % 8), "applog", fmt::format("2026-01-01T10:5{}:00Z", r % 10), timeout(r)));
  }
  runtime::RenderOptions stable;
  stable.timings = false;
  std::string expected = runtime::toJson(diagnose(*engine, lines), stable);
  std::mt19937 rng(3);
  for (int i = 0; i < 5; ++i) {
    std::shuffle(lines.begin() + 1, lines.end(), rng);
    auto v = diagnose(*engine, lines);
    EXPECT_EQ(v.downstream.size(), 1u);
    EXPECT_EQ(v.downstream[0].count, 64u);
  }
  EXPECT_EQ(runtime::toJson(diagnose(*engine, lines), stable).size(), expected.size());
}

}  // namespace
}  // namespace attrib

namespace attrib {
namespace {

TEST(Attribution, KernelLinesGetWallClockTimeFromTheNodesSyslog) {
  namespace fs = std::filesystem;
  auto engine = testing::engineFor(R"(
symptom xid79 {
  on log(source in [syslog, dmesg])
  match /NVRM: Xid \(PCI:(?<gpu>[0-9a-f:.]+)\): 79\b/
  family accelerator-gpu severity critical blame node
}
)");
  fs::path dir = fs::temp_directory_path() / fmt::format("attrib_boot_{}", ::getpid());
  fs::create_directories(dir);
  // syslog carries both clocks for one kernel line; dmesg only the monotonic one.
  std::ofstream(dir / "syslog.log") << "Nov 29 10:41:00 n2 kernel: [10463.000000] eth0: link becomes ready\n"
                                    << "Nov 29 10:42:00 n2 kernel: [10523.000001] " << kXid << "\n";
  std::ofstream(dir / "dmesg.log") << "[10523.000001] " << kXid << "\n";
  evidence::WorkloadEvidence evidence;
  evidence.workload.start = at("2026-11-29T08:00:00Z");
  evidence.logs = {logFile((dir / "dmesg.log").string(), "n2", "dmesg"),
                   logFile((dir / "syslog.log").string(), "n2", "syslog")};
  auto v = engine->diagnose(std::move(evidence));
  fs::remove_all(dir);
  ASSERT_TRUE(v.root);
  // syslog has whole seconds; the dmesg copy, 1 us later by the kernel clock, is the same event.
  EXPECT_EQ(v.root->time, at("2026-11-29T10:42:00Z"));
  EXPECT_TRUE(v.root->timeKnown);
  // The two copies of the event are one root with two pieces of evidence, not two causes.
  EXPECT_EQ(v.root->evidence.size(), 2u);
  EXPECT_TRUE(v.otherCauses.empty());
  EXPECT_TRUE(v.confidenceNotes.empty());
}

}  // namespace
}  // namespace attrib
