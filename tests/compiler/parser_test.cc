// The parser accepts every construct of the language and builds the AST it describes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compiler/ast_dump.h"
#include "tests/compiler/test_util.h"

namespace attrib {
namespace {

using testing::check;
using testing::checkClean;

template <typename T>
const T& decl(const ast::Module& m, size_t i) {
  return std::get<T>(m.declarations.at(i));
}

// A condition of an outcome, parsed and checked, as an S-expression.
std::string outcomeCondition(const std::string& prelude, const std::string& condition) {
  auto c = checkClean(prelude + "\noutcome o {\n  when " + condition + "\n  family unknown\n}\n");
  const auto& m = c.module();
  return ast::dump(*decl<ast::OutcomeDecl>(m, m.declarations.size() - 1).when);
}

const char* kTwoSymptoms = R"(
symptom xid79 "GPU fell off the bus" { on log match /Xid.*: 79\b/ family accelerator-gpu blame node }
symptom xid48 { on log match /Xid.*: 48\b/ family accelerator-memory blame gpu }
)";

TEST(Parser, PackageAndImports) {
  auto c = check({{"a.attr", "package std.nccl\nsymptom t { on log match /timeout/ family communication }\n"},
                  {"b.attr", "package gpu.xid\nimport std.nccl\nimport std.nccl.extra as n2\n"
                             "outcome o { when root is nccl.t or root is n2.u or root is std.nccl.t family unknown }\n"},
                  {"c.attr", "package std.nccl.extra\nsymptom u { on log match /other/ family communication }\n"}});
  EXPECT_EQ(c.errors(), 0u) << ::testing::PrintToString(c.lines());
  const auto& b = c.module(1);
  ASSERT_TRUE(b.package);
  EXPECT_EQ(b.package->str(), "gpu.xid");
  ASSERT_EQ(b.imports.size(), 2u);
  EXPECT_EQ(b.imports[0].package.str(), "std.nccl");
  EXPECT_EQ(b.imports[1].package.str(), "std.nccl.extra");
  EXPECT_FALSE(b.imports[0].alias);
  EXPECT_EQ(b.imports[1].alias->text, "n2");
  const auto& o = decl<ast::OutcomeDecl>(b, 0);
  EXPECT_EQ(ast::dump(*o.when), "(or (or (is root nccl.t) (is root n2.u)) (is root std.nccl.t))");
  EXPECT_EQ(o.when->operands[0]->operands[0]->symptoms, std::vector<std::string>{"std.nccl.t"});
  EXPECT_EQ(o.when->operands[0]->operands[1]->symptoms, std::vector<std::string>{"std.nccl.extra.u"});
  EXPECT_EQ(o.when->operands[1]->symptoms, std::vector<std::string>{"std.nccl.t"});
}

TEST(Parser, LogSymptomWithAllProperties) {
  auto c = checkClean(R"(
symptom xid79 "GPU has fallen off the bus" {
  on log(source in [syslog, dmesg])
  match /NVRM: Xid \(PCI:(?<pci>[0-9a-fA-F:.]+)\): 79\b/
  match /GPU has fallen off the bus/i
  when pci != "0000:00:00.0"
  family accelerator-gpu
  severity critical
  blame node
  role cause
  action drain_node, restart
  ref "https://docs.nvidia.com/deploy/xid-errors/", "https://example.org/second"
  ref "https://example.org/third"
  description "The GPU is no longer reachable over PCIe."
  tags [gpu, xid]
  status stable
  author "attrib"
  id "8d7f1e8e-0000-4000-8000-000000000079"
}
)");
  const auto& s = decl<ast::SymptomDecl>(c.module(), 0);
  EXPECT_EQ(s.name.text, "xid79");
  EXPECT_EQ(*s.title, "GPU has fallen off the bus");
  ASSERT_EQ(s.streams.size(), 1u);
  EXPECT_EQ(s.streams[0].kind, ast::StreamSpec::Kind::Log);
  ASSERT_EQ(s.streams[0].sources.size(), 2u);
  EXPECT_EQ(s.streams[0].sources[1].text, "dmesg");
  ASSERT_EQ(s.matches.size(), 2u);
  EXPECT_EQ(s.matches[0].captures, std::vector<std::string>{"pci"});
  EXPECT_EQ(s.matches[1].flags, "i");
  EXPECT_EQ(s.matches[1].pattern, "GPU has fallen off the bus");
  EXPECT_EQ(ast::dump(*s.when), "(!= pci \"0000:00:00.0\")");
  EXPECT_EQ(s.when->operands[0]->ref, ast::NameRef::Field);
  EXPECT_EQ(s.properties.size(), 12u);
  EXPECT_EQ(s.properties[5].values.size(), 2u);  // action drain_node, restart
  EXPECT_EQ(s.properties[0].values[0].text, "accelerator-gpu");
}

TEST(Parser, LogStreamWithSingleSource) {
  auto c = checkClean("symptom s { on log(source == applog) match /abcdef/ family unknown }\n");
  const auto& s = decl<ast::SymptomDecl>(c.module(), 0);
  ASSERT_EQ(s.streams[0].sources.size(), 1u);
  EXPECT_EQ(s.streams[0].sources[0].text, "applog");
}

TEST(Parser, MetricSymptomWithWindowAndSustain) {
  auto c = checkClean(R"(
symptom gpu_hot {
  on metric DCGM_FI_DEV_GPU_TEMP
  when avg(value) over 5m > 90 and max(value) over 1h30m >= 95.5
  for 10m
  family accelerator-gpu
  blame gpu
}
symptom quoted { on metric "job:gpu_util:rate5m" when rate(value) over 30s < 0.1 family unknown }
)");
  const auto& s = decl<ast::SymptomDecl>(c.module(), 0);
  EXPECT_EQ(s.streams[0].kind, ast::StreamSpec::Kind::Metric);
  EXPECT_EQ(s.streams[0].metric, "DCGM_FI_DEV_GPU_TEMP");
  EXPECT_EQ(*s.sustained, 600'000'000'000);
  EXPECT_EQ(ast::dump(*s.when),
            "(and (> (call avg value over 300000000000ns) 90) (>= (call max value over 5400000000000ns) 95.5))");
  EXPECT_EQ(s.when->type.kind(), TypeKind::Bool);
  EXPECT_EQ(decl<ast::SymptomDecl>(c.module(), 1).streams[0].metric, "job:gpu_util:rate5m");
}

TEST(Parser, SchedulerSymptom) {
  auto c = checkClean("symptom t { on scheduler when state == TIMEOUT and exit_code != 0 family scheduler-timeout blame workload }\n");
  const auto& s = decl<ast::SymptomDecl>(c.module(), 0);
  EXPECT_EQ(s.streams[0].kind, ast::StreamSpec::Kind::Scheduler);
  EXPECT_EQ(ast::dump(*s.when), "(and (== state TIMEOUT) (!= exit_code 0))");
  EXPECT_EQ(s.when->operands[0]->operands[1]->ref, ast::NameRef::StateConst);
}

TEST(Parser, FilterStatements) {
  auto c = checkClean(std::string(kTwoSymptoms) + R"(
filter noise "drop what cannot matter" {
  drop * where time < workload.start - 10m
  drop xid48, xid79 where node == "n0"
  keep first xid79 per node
  keep last 3 xid48 per node, gpu
  keep xid48 where rank in [0 .. 7]
  description "example"
}
)");
  const auto& f = decl<ast::FilterDecl>(c.module(), 2);
  ASSERT_EQ(f.statements.size(), 5u);
  EXPECT_EQ(f.statements[0].kind, ast::FilterStmt::Kind::Drop);
  EXPECT_EQ(f.statements[0].targets[0].kind, ast::Selector::Kind::All);
  EXPECT_EQ(f.statements[0].symptoms.size(), 2u);
  EXPECT_EQ(ast::dump(*f.statements[0].where), "(< time (- workload.start 600000000000ns))");
  EXPECT_EQ(f.statements[1].targets.size(), 2u);
  EXPECT_EQ(f.statements[2].kind, ast::FilterStmt::Kind::KeepPer);
  EXPECT_TRUE(f.statements[2].keepFirst);
  EXPECT_EQ(f.statements[3].keepCount, 3);
  EXPECT_FALSE(f.statements[3].keepFirst);
  ASSERT_EQ(f.statements[3].keys.size(), 2u);
  EXPECT_EQ(f.statements[3].keys[1].text, "gpu");
  EXPECT_EQ(f.statements[4].kind, ast::FilterStmt::Kind::KeepWhere);
  EXPECT_EQ(ast::dump(*f.statements[4].where), "(in rank (range 0 7))");
}

TEST(Parser, RuleWithBindingsWildcardsAndActions) {
  auto c = check({{"a.attr", "package std.nccl\nsymptom t { on log match /timeout/ family communication role consequence }\n"},
                  {"b.attr", std::string("package gpu\nimport std.nccl\n") + kTwoSymptoms + R"(
rule xid_explains "Xid explains NCCL" {
  phase early
  when xid79 as root, std.nccl.* as t, xid48 as other
  where t.time in [root.time, root.time + 20m] and same node and other.gpu == "0"
  then explain t by root, mark root as bad, mark other as interesting, drop other
}
)"}});
  EXPECT_EQ(c.errors(), 0u) << ::testing::PrintToString(c.lines());
  const auto& r = decl<ast::RuleDecl>(c.module(1), 2);
  ASSERT_EQ(r.bindings.size(), 3u);
  EXPECT_EQ(r.bindings[1].selector.kind, ast::Selector::Kind::Prefix);
  EXPECT_EQ(r.bindings[1].symptoms, std::vector<std::string>{"std.nccl.t"});
  EXPECT_EQ(r.bindings[0].symptoms, std::vector<std::string>{"gpu.xid79"});
  ASSERT_EQ(r.actions.size(), 4u);
  EXPECT_EQ(r.actions[0].kind, ast::RuleAction::Kind::Explain);
  EXPECT_EQ(r.actions[1].kind, ast::RuleAction::Kind::Mark);
  EXPECT_EQ(r.actions[1].object.text, "bad");
  EXPECT_EQ(r.actions[3].kind, ast::RuleAction::Kind::Drop);
  EXPECT_EQ(ast::dump(*r.where),
            "(and (and (in t.time (list root.time (+ root.time 1200000000000ns))) (same node)) (== other.gpu \"0\"))");
  EXPECT_EQ(r.where->operands[0]->operands[0]->operands[0]->ref, ast::NameRef::Alias);
}

TEST(Parser, OutcomeWithAggregates) {
  EXPECT_EQ(outcomeCondition(kTwoSymptoms, "root is xid79 or (xid48 and count(xid48 on same node) >= 1)"),
            "(or (is root xid79) (and xid48 (>= (call count [xid48 same node]) 1)))");
  EXPECT_EQ(outcomeCondition(kTwoSymptoms, "distinct(*, node) > 2 and first(xid48).time < last(xid79 as x where x.rank > 3).time"),
            "(and (> (call distinct * node) 2) (< (. time (call first xid48)) (. time (call last [xid79 as x where (> x.rank 3)]))))");
  EXPECT_EQ(outcomeCondition(kTwoSymptoms, "exists(xid48 where gpu == \"3\") and root is not none and root is not xid48"),
            "(and (and (call exists [xid48 where (== gpu \"3\")]) (is-not root none)) (is-not root xid48))");
}

TEST(Parser, OutcomeProperties) {
  auto c = checkClean(std::string(kTwoSymptoms) + R"(
outcome gpu_lost "GPU lost" {
  when root is xid79
  family accelerator-gpu
  action drain_node, restart
  confidence 0.95
  ref "https://docs.nvidia.com/deploy/xid-errors/"
}
)");
  const auto& o = decl<ast::OutcomeDecl>(c.module(), 2);
  EXPECT_EQ(*o.title, "GPU lost");
  EXPECT_EQ(o.properties[1].values.size(), 2u);
  EXPECT_DOUBLE_EQ(o.properties[2].values[0].floatValue, 0.95);
}

TEST(Parser, ExpressionPrecedence) {
  EXPECT_EQ(outcomeCondition("", "1 + 2 * 3 - -4 % 2 == 5 or not true and false"),
            "(or (== (- (+ 1 (* 2 3)) (% (neg 4) 2)) 5) (and (not true) false))");
  EXPECT_EQ(outcomeCondition("", "workload.end - workload.start > 2h and workload.duration / 2 < 1h"),
            "(and (> (- workload.end workload.start) 7200000000000ns) (< (/ workload.duration 2) 3600000000000ns))");
  EXPECT_EQ(outcomeCondition("", "workload.name =~ /pretrain-(70|405)b/i and workload.user !~ /^svc-/"),
            "(and (=~ workload.name /pretrain-(70|405)b/i) (!~ workload.user /^svc-/))");
  EXPECT_EQ(outcomeCondition("", "workload.state in [FAILED, NODE_FAIL] and workload.exit_code not in [0, 143]"),
            "(and (in workload.state (list FAILED NODE_FAIL)) (not-in workload.exit_code (list 0 143)))");
  EXPECT_EQ(outcomeCondition("", "workload.start > 2026-01-01T10:00:00Z and contains(lower(workload.name), \"x\")"),
            "(and (> workload.start @1767261600000000000) (call contains (call lower workload.name) \"x\"))");
  EXPECT_EQ(outcomeCondition("", "(root.time - workload.start) / 1s > 3.5e2 and int(\"42\") + abs(-1) == 43"),
            "(and (> (/ (- root.time workload.start) 1000000000ns) 350) (== (+ (call int \"42\") (call abs (neg 1))) 43))");
}

TEST(Parser, RegexAfterOperandIsDivision) {
  // After an operand '/' divides; where an operand may start it begins a regex.
  EXPECT_EQ(outcomeCondition("", "workload.ranks / 8 / 2 > 1 and workload.name =~ /a\\/b/i"),
            "(and (> (/ (/ workload.ranks 8) 2) 1) (=~ workload.name /a\\/b/i))");
}

TEST(Parser, RegexWithSlashInClassAndEscapes) {
  auto c = checkClean(R"(symptom s { on log match /path [/a-z]+\/x\d+ done/ family unknown })" "\n");
  EXPECT_EQ(decl<ast::SymptomDecl>(c.module(), 0).matches[0].pattern, R"(path [/a-z]+\/x\d+ done)");
}

TEST(Parser, TestBlock) {
  auto c = checkClean(std::string(kTwoSymptoms) + R"(
outcome gpu_lost { when root is xid79 family accelerator-gpu }
test "xid79 on one node" {
  workload {
    id "slurm/4242"
    scheduler slurm
    state FAILED
    exit_code 1
    nodes [n1, gpu-0042, node.example.org]
    start 2026-01-01T10:00:00Z
    end 2026-01-01T11:00:00Z
    ranks_per_node 8
  }
  log n1 syslog at 10:42:00 "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234"
  log gpu-0042 applog rank 9 gpu 3 at 2026-01-01T10:52:01.250Z "[rank9]: watchdog timeout"
  log n1 dmesg at +5m "later"
  metric DCGM_FI_DEV_GPU_TEMP node n1 gpu 0 at 10:40:00 93.5
  metric "up" node n1 at 10:40:00 -1
  expect outcome gpu_lost
  expect root xid79 on n1
  expect bad_nodes [n1]
  expect interesting_nodes []
  expect downstream xid48 count 0
  expect symptom xid79 count 1
  expect family accelerator-gpu
  expect state FAILED
  expect confidence >= 0.9
  expect action drain_node
}
)");
  const auto& t = decl<ast::TestDecl>(c.module(), 3);
  EXPECT_EQ(t.name, "xid79 on one node");
  EXPECT_EQ(t.workload.size(), 8u);
  EXPECT_EQ(t.workload[4].values[0].items[1].text, "gpu-0042");
  EXPECT_EQ(t.workload[4].values[0].items[2].text, "node.example.org");
  ASSERT_EQ(t.logs.size(), 3u);
  EXPECT_EQ(t.logs[0].at.kind, ast::TestTime::Kind::TimeOfDay);
  EXPECT_EQ(t.logs[0].at.nanos, (10 * 3600 + 42 * 60) * 1'000'000'000LL);
  EXPECT_EQ(t.logs[1].node.text, "gpu-0042");
  EXPECT_EQ(t.logs[1].attributes[0].value.intValue, 9);
  EXPECT_EQ(t.logs[1].at.kind, ast::TestTime::Kind::Absolute);
  EXPECT_EQ(t.logs[1].at.nanos, 1767264721250000000);  // 10:52:01.25 on 2026-01-01
  EXPECT_EQ(t.logs[2].at.kind, ast::TestTime::Kind::Offset);
  ASSERT_EQ(t.metrics.size(), 2u);
  EXPECT_DOUBLE_EQ(t.metrics[0].value, 93.5);
  EXPECT_DOUBLE_EQ(t.metrics[1].value, -1);
  EXPECT_EQ(t.metrics[1].metric, "up");
  ASSERT_EQ(t.expectations.size(), 10u);
  EXPECT_EQ(t.expectations[1].args[1].kind, ast::Expectation::Arg::Kind::On);
  EXPECT_EQ(t.expectations[8].args[0].compareOp, ">=");
}

TEST(Parser, TestFromFixture) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "attrib_parser_fixture";
  fs::create_directories(dir);
  { std::ofstream(dir / "x.jsonl") << "{}\n"; }
  auto c = testing::check({{(dir / "t.attr").string(), "test \"long\" from \"x.jsonl\" { expect outcome unknown }\n"}});
  EXPECT_EQ(c.errors(), 0u) << ::testing::PrintToString(c.lines());
  EXPECT_EQ(*decl<ast::TestDecl>(c.module(), 0).fixture, "x.jsonl");
}

// A fixture that is not there, or is a directory, is an error at the test's `from`.
TEST(Parser, TestFromMissingFixture) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "attrib_parser_missing_fixture";
  fs::create_directories(dir / "d.jsonl");
  auto c = testing::check({{(dir / "t.attr").string(),
                            "test \"a\" from \"nowhere.jsonl\" { expect outcome unknown }\n"
                            "test \"b\" from \"d.jsonl\" { expect outcome unknown }\n"}});
  ASSERT_EQ(c.errors(), 2u) << ::testing::PrintToString(c.lines());
  std::string all = ::testing::PrintToString(c.lines());
  EXPECT_NE(all.find("t.attr:1:15: error: fixture file 'nowhere.jsonl' not found"), std::string::npos) << all;
  EXPECT_NE(all.find("t.attr:2:15: error: fixture file 'd.jsonl' not found"), std::string::npos) << all;
}

// The embedded stdlib's fixtures are not on disk: a test reads the one attached under its rule
// file's directory, and a name nothing answers to is still an error.
TEST(Parser, TestFromAttachedFixture) {
  const std::string text =
      "test \"long\" from \"fixtures/x.jsonl\" { expect outcome unknown }\n"
      "test \"other\" from \"fixtures/../fixtures/y.jsonl\" { expect outcome unknown }\n";
  DiagnosticSink sink;
  Compilation c(sink);
  c.attachFile("<stdlib>/gpu/fixtures/x.jsonl", "{}\n");
  c.attachFile("<stdlib>/gpu/fixtures/y.jsonl", "{}\n");
  c.addSource("<stdlib>/gpu/t.attr", text);
  c.check();
  EXPECT_EQ(sink.errorCount(), 0u);
  EXPECT_EQ(*c.sources().readAuxiliary("<stdlib>/gpu/./fixtures/x.jsonl"), "{}\n");
  EXPECT_FALSE(c.sources().readAuxiliary("<stdlib>/gpu/fixtures/z.jsonl"));

  DiagnosticSink bareSink;
  Compilation bare(bareSink);
  bare.addSource("<stdlib>/gpu/t.attr", text);
  bare.check();
  EXPECT_EQ(bareSink.errorCount(), 2u);
}

TEST(Parser, CommentsAnywhere) {
  checkClean(R"(// line comment
/* block
   comment */ symptom /* inside */ s { // trailing
  on log /* between */ match /abc/ // after a regex
  family /* mid */ unknown
}
)");
}

TEST(Parser, SoftKeywordsAsNames) {
  // node, rank, gpu, log, test ... are keywords only where the grammar needs them.
  auto c = checkClean(R"(
symptom test { on log match /(?<node>n[0-9]+) rank (?<first>[0-9]+)/ family unknown }
outcome log { when root.node == "n1" and root.rank >= 0 and root.gpu != "" family unknown }
)");
  EXPECT_EQ(decl<ast::SymptomDecl>(c.module(), 0).name.text, "test");
  EXPECT_EQ(decl<ast::OutcomeDecl>(c.module(), 1).name.text, "log");
}

TEST(Parser, LiteralsKeepSpellingAndValue) {
  auto c = checkClean("outcome o { when workload.duration > 1h30m15s250ms and workload.ranks < 1024 family unknown }\n");
  const auto& when = *decl<ast::OutcomeDecl>(c.module(), 0).when;
  const auto& duration = *when.operands[0]->operands[1];
  EXPECT_EQ(duration.kind, ast::ExprKind::Duration);
  EXPECT_EQ(duration.text, "1h30m15s250ms");
  EXPECT_EQ(duration.intValue, ((3600 + 30 * 60 + 15) * 1000 + 250) * 1'000'000LL);
}

TEST(Parser, RecoversAndReportsEveryDeclarationError) {
  // Three independent syntax errors in three declarations are all reported in one run, and the
  // valid declaration between them is still checked.
  auto c = check(R"(
symptom a { on log match }
symptom ok { on log match /abcdef/ family unknown severity huge }
outcome b { when 1 + family unknown }
rule c { when x as }
)");
  auto lines = c.lines();
  EXPECT_EQ(c.errors(), 4u) << ::testing::PrintToString(lines);
  EXPECT_NE(std::find_if(lines.begin(), lines.end(), [](auto& l) { return l.find("'huge'") != std::string::npos; }),
            lines.end());
}

}  // namespace
}  // namespace attrib
