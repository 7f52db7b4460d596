// The compact text of routine context instances (runtime/context_text.h): which symptoms keep
// it, what it is (the line the match starts on, at most kCompactTextBytes), that a context
// symptom whose text a rule reads keeps its whole record, and that on a dense workload the
// verdict is the same as with every instance's whole record.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "runtime/context_text.h"
#include "runtime/log_scanner.h"
#include "runtime/regex_table.h"
#include "tests/runtime/engine_util.h"

namespace attrib::runtime {
namespace {

using attrib::testing::line;

// `up` is context and nothing reads its text; `ready` is context and a rule reads its text;
// `down` is a cause.
const char* kRules = R"(symptom up "Link up" {
  on log
  match /mlx5_core (?<pci>[0-9a-f:.]+) [a-z0-9]+: Link up\b/
  family network-fabric
  severity info
  blame node
}

symptom ready "Port ready" {
  on log
  match /mlx5_core (?<pci>[0-9a-f:.]+): Port ready/
  family network-fabric
  severity info
  blame node
  role context
}

symptom down "Link down" {
  on log
  match /mlx5_core (?<pci>[0-9a-f:.]+) [a-z0-9]+: Link down\b/
  family network-fabric
  severity error
  blame node
}

rule flap "A link that came back" {
  when down as d
  where exists(up on same node where time >= d.time)
  then mark d as interesting
}

rule ready_after_down "A port that said it is ready again" {
  when down as d, ready as r
  where same node and contains(r.text, "Link up")
  then explain d by r
}
)";

const Instance* firstOf(const LogScanResult& r, const ir::Program& p, const std::string& symptom) {
  for (const auto& inst : r.instances) {
    if (p.symptoms[static_cast<size_t>(inst.symptom)].name == symptom) return &inst;
  }
  return nullptr;
}

TEST(ContextText, OnlyContextSymptomsWhoseTextNoPredicateReadsAreCompact) {
  auto engine = attrib::testing::engineFor(kRules);
  ASSERT_TRUE(engine);
  const ir::Program& p = engine->bundle().program;
  std::vector<bool> read = symptomsWhoseTextIsRead(p), compact = compactTextSymptoms(p);
  std::map<std::string, std::pair<bool, bool>> by;
  for (size_t s = 0; s < p.symptoms.size(); ++s) by[p.symptoms[s].name] = {read[s], compact[s]};
  EXPECT_EQ(by.at("up"), std::make_pair(false, true)) << "context by default (severity info), text never read";
  EXPECT_EQ(by.at("ready"), std::make_pair(true, false)) << "ready_after_down reads r.text";
  EXPECT_EQ(by.at("down"), std::make_pair(false, false)) << "a cause keeps its record";
}

TEST(ContextText, AnAggregateOrFilterThatReadsTextKeepsTheRecord) {
  auto engine = attrib::testing::engineFor(R"(symptom a "A" {
  on log
  match /alpha/
  family unknown
  severity info
  blame node
}

symptom b "B" {
  on log
  match /beta/
  family unknown
  severity info
  blame node
}

symptom c "C" {
  on log
  match /gamma/
  family unknown
  severity error
  blame node
}

filter f {
  drop b where text =~ /noise/
}

rule r "R" {
  when c as x
  where exists(a as y where contains(y.text, "alpha two"))
  then mark x as bad
}
)");
  ASSERT_TRUE(engine);
  const ir::Program& p = engine->bundle().program;
  std::vector<bool> compact = compactTextSymptoms(p);
  for (size_t s = 0; s < p.symptoms.size(); ++s) {
    EXPECT_FALSE(compact[s]) << p.symptoms[s].name << ": its text is read by an aggregate or a filter";
  }
}

// The routine context symptom of the dense workload is compact; when a rule starts reading its
// text, the message names the rule (the analysis with that rule alone says it reads it).
TEST(ContextText, TheStdlibsLinkUpIsCompact) {
  auto engine = attrib::testing::stdlibEngine();
  ASSERT_TRUE(engine);
  const ir::Program& p = engine->bundle().program;
  int32_t up = -1;
  for (size_t s = 0; s < p.symptoms.size(); ++s) {
    if (p.symptoms[s].name == "net.infiniband.link_up") up = static_cast<int32_t>(s);
  }
  ASSERT_GE(up, 0);
  if (compactTextSymptoms(p)[static_cast<size_t>(up)]) return;
  std::string readers;
  for (const auto& r : p.rules) {
    ir::Program one = p;
    one.rules = {r};
    one.filters.clear();
    one.outcomes.clear();
    if (symptomsWhoseTextIsRead(one)[static_cast<size_t>(up)]) readers += " " + r.name;
  }
  ADD_FAILURE() << "net.infiniband.link_up keeps its whole record; rules that read its text:" << readers;
}

// A dmesg burst: lines with one ring-buffer time are one record (evidence/log_record.h).
std::vector<evidence::LogLine> burst(const std::string& node, const std::string& time, double mono,
                                     const std::vector<std::string>& messages) {
  std::vector<evidence::LogLine> out;
  for (const auto& m : messages) out.push_back(line(node, "dmesg", time, fmt::format("[{:12.6f}] {}", mono, m)));
  return out;
}

TEST(ContextText, ACompactInstanceKeepsTheLineItsMatchStartsOnBounded) {
  auto engine = attrib::testing::engineFor(kRules);
  ASSERT_TRUE(engine);
  const Bundle& bundle = engine->bundle();
  RegexTable regexes;
  std::string error;
  ASSERT_TRUE(regexes.build(bundle.program, &error)) << error;
  LogScanner scanner(bundle, regexes);
  const std::string longTail(400, 'x');
  std::vector<evidence::LogLine> lines = burst(
      "n1", "2026-11-29T10:00:00Z", 100.5,
      {"mlx5_core 0000:5c:00.0: Port module event: module 0, Cable plugged",
       "mlx5_core 0000:5c:00.0 ib0: Link up", "mlx5_core 0000:5c:00.1 ib1: Link up",
       "mlx5_core 0000:5c:00.0: Port ready after Link up"});
  for (auto& l : burst("n2", "2026-11-29T10:00:01Z", 200.25, {"mlx5_core 0000:3b:00.0 ib0: Link up " + longTail})) {
    lines.push_back(l);
  }
  Workload workload;
  LogScanOptions compact;
  LogScanResult on = scanner.scanLines(lines, workload, compact);
  LogScanOptions whole;
  whole.compactContextText = false;
  LogScanResult off = scanner.scanLines(lines, workload, whole);
  ASSERT_EQ(on.instances.size(), off.instances.size());
  ASSERT_EQ(on.instances.size(), 3u) << "up on n1 (one per record), ready on n1, up on n2";

  const ir::Program& p = bundle.program;
  const Instance* up = firstOf(on, p, "up");
  const Instance* upWhole = firstOf(off, p, "up");
  ASSERT_TRUE(up && upWhole);
  EXPECT_EQ(up->text, "[  100.500000] mlx5_core 0000:5c:00.0 ib0: Link up")
      << "the line the match starts on, not the record's head nor the whole record";
  EXPECT_NE(upWhole->text.find("Cable plugged\n"), std::string::npos) << upWhole->text;
  EXPECT_NE(upWhole->text.find("Port ready"), std::string::npos) << "uncompacted: the whole record";
  // Everything else is the record's: its place (the head line), time, node, captures.
  EXPECT_EQ(up->where.line, upWhole->where.line);
  EXPECT_EQ(up->where.offset, upWhole->where.offset);
  EXPECT_EQ(up->time, upWhole->time);
  EXPECT_EQ(up->node, upWhole->node);
  EXPECT_EQ(up->captures, upWhole->captures);
  ASSERT_TRUE(up->capture("pci"));
  EXPECT_EQ(*up->capture("pci"), "0000:5c:00.0");

  // A rule reads ready's text: it keeps the whole record, in both forms.
  const Instance* ready = firstOf(on, p, "ready");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->text, firstOf(off, p, "ready")->text);
  EXPECT_NE(ready->text.find("ib0: Link up\n"), std::string::npos) << ready->text;

  // A long line is cut at kCompactTextBytes, with "...".
  const Instance* longUp = nullptr;
  for (const auto& inst : on.instances) {
    if (inst.node == "n2") longUp = &inst;
  }
  ASSERT_TRUE(longUp);
  EXPECT_EQ(longUp->text.size(), kCompactTextBytes + 3);
  EXPECT_EQ(longUp->text.substr(kCompactTextBytes), "...");
  EXPECT_EQ(longUp->text.substr(0, 40), lines.back().text.substr(0, 40));
}

TEST(ContextText, TheRuleThatReadsAContextTextStillSeesTheRecord) {
  auto engine = attrib::testing::engineFor(kRules);
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines =
      burst("n1", "2026-11-29T10:00:00Z", 100.5, {"mlx5_core 0000:5c:00.0 ib0: Link down"});
  for (auto& l : burst("n1", "2026-11-29T10:00:05Z", 105.5,
                       {"mlx5_core 0000:5c:00.0: Port ready", "mlx5_core 0000:5c:00.0 ib0: Link up"})) {
    lines.push_back(l);
  }
  Verdict v = attrib::testing::diagnose(*engine, lines);
  ASSERT_EQ(v.downstream.size(), 1u) << toJson(v);
  EXPECT_EQ(v.downstream[0].symptom, "down") << "ready's text (its whole record) holds the Link up line";
  EXPECT_EQ(v.downstream[0].rule, "ready_after_down");
}

// A dense workload with the stdlib: 16 nodes, each with bursts of sixteen link-up lines per
// ring-buffer time, one flapping link, an Xid 79 and the NCCL errors after it. The verdict is
// the same with compact context text as with every instance's whole record.
TEST(ContextText, TheVerdictOnADenseWorkloadIsTheSameAsUncompacted) {
  auto engine = attrib::testing::stdlibEngine();
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines;
  for (int n = 0; n < 16; ++n) {
    const std::string node = fmt::format("gpu-{:02d}", n);
    for (int b = 0; b < 20; ++b) {
      std::vector<std::string> messages;
      for (int k = 0; k < 16; ++k) messages.push_back(fmt::format("mlx5_core 0000:{:02x}:00.{}: mlx5_ib{} Link up", 0x10 + k, k % 8, k));
      for (auto& l : burst(node, fmt::format("2026-11-29T10:{:02d}:{:02d}Z", b / 6, (b * 10) % 60), 1000.0 + b * 10, messages)) {
        lines.push_back(std::move(l));
      }
    }
  }
  auto add = [&](const std::string& node, const std::string& source, const std::string& time, const std::string& text) {
    lines.push_back(line(node, source, time, text));
  };
  add("gpu-03", "dmesg", "2026-11-29T10:01:00Z", "[ 1060.000000] mlx5_core 0000:5c:00.0 ib0: Link down");
  add("gpu-03", "dmesg", "2026-11-29T10:01:30Z", "[ 1090.000000] mlx5_core 0000:5c:00.0 ib0: Link up");
  add("gpu-07", "dmesg", "2026-11-29T10:02:00Z",
      "[ 1120.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.");
  for (int r = 0; r < 8; ++r) {
    add(fmt::format("gpu-{:02d}", r), "application", "2026-11-29T10:02:40Z",
        fmt::format("[rank{}]:[E ProcessGroupNCCL.cpp:1515] [PG 0 Rank {}] NCCL watchdog thread terminated with "
                    "exception: [Rank {}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
                    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds "
                    "before timing out.",
                    r, r, r));
  }
  evidence::WorkloadEvidence compactEvidence;
  compactEvidence.lines = lines;
  evidence::WorkloadEvidence wholeEvidence;
  wholeEvidence.lines = lines;
  DiagnoseOptions compact, whole;
  whole.scan.compactContextText = false;
  Verdict a = engine->diagnose(std::move(compactEvidence), compact);
  Verdict b = engine->diagnose(std::move(wholeEvidence), whole);
  ASSERT_TRUE(a.root) << toJson(a);
  EXPECT_EQ(a.root->symptom, "gpu.xid.xid79");
  EXPECT_GE(attrib::testing::countOf(a, "net.infiniband.link_up"), 16u * 20u);
  RenderOptions deterministic;
  deterministic.timings = false;
  EXPECT_EQ(toJson(a, deterministic), toJson(b, deterministic));
}

}  // namespace
}  // namespace attrib::runtime
