// Derived symptoms (`on ranks`, `on nodes`), their lets and messages, and the keyed symptom
// aggregates (min_by, max_by, median, percentile): each bad input gives exactly these
// diagnostics, and the good ones check clean and format stably.
#include <gtest/gtest.h>

#include "compiler/formatter.h"
#include "tests/compiler/test_util.h"

namespace attrib {
namespace {

using testing::check;
using testing::checkClean;

struct Case {
  const char* name;
  std::string text;
  std::vector<std::string> expected;  // every header and note line, in order
};

const std::string kLog = "symptom a { on log match /value=(?<x>[0-9]+)/ family unknown blame rank }\n";

std::vector<Case> cases() {
  return {
      {"unknown stream word",
       "symptom d {\n  on rankz\n  when true\n  family unknown\n}\n",
       {"t.attr:2:6: error: unknown evidence stream 'rankz'; a symptom reads 'log', 'metric NAME' or 'scheduler', "
        "or is derived per rank or node with 'on ranks' or 'on nodes'; did you mean 'ranks'? [A204]"}},
      {"match in a per-rank symptom",
       "symptom d {\n  on ranks\n  match /abcdef/\n  when true\n  family unknown\n}\n",
       {"t.attr:3:9: error: 'match' reads log lines, but this symptom reads the per-rank stream; use 'when' [A205]",
        "t.attr:2:6: note: the stream is chosen here"}},
      {"match in a per-node symptom",
       "symptom d {\n  on nodes\n  match /abcdef/\n  when true\n  family unknown\n}\n",
       {"t.attr:3:9: error: 'match' reads log lines, but this symptom reads the per-node stream; use 'when' [A205]",
        "t.attr:2:6: note: the stream is chosen here"}},
      {"on ranks without when",
       "symptom d {\n  on ranks\n  family unknown\n}\n",
       {"t.attr:1:9: error: per-rank symptom 'd' needs a 'when' condition [A203]"}},
      {"let in a log symptom",
       "symptom s {\n  on log\n  match /abcdef/\n  let x = 1\n  family unknown\n}\n",
       {"t.attr:4:3: error: 'let' names a value computed per rank or node; it belongs to 'on ranks' and 'on nodes' "
        "symptoms [A205]",
        "t.attr:2:6: note: this symptom's stream is chosen here"}},
      {"let named like a built-in field",
       "symptom d {\n  on ranks\n  let rank = 1\n  when rank > 0\n  family unknown\n}\n",
       {"t.attr:3:7: error: 'rank' is a built-in field of every instance; give the let another name [A204]"}},
      {"let defined twice",
       "symptom d {\n  on ranks\n  let x = 1\n  let x = 2\n  when x > 1\n  family unknown\n}\n",
       {"t.attr:4:7: error: 'x' is already defined by an earlier let of this symptom [A101]",
        "t.attr:3:7: note: the first 'let x' is here"}},
      {"message on a log symptom",
       "symptom d {\n  on log\n  match /watchdog/\n  message \"rank {rank}\"\n  family unknown\n}\n",
       {"t.attr:4:3: error: 'message' is the text of a derived instance; a log, metric or scheduler instance's text "
        "is its evidence, so 'message' belongs to 'on ranks' and 'on nodes' symptoms [A205]",
        "t.attr:2:6: note: this symptom's stream is chosen here"}},
      {"let holding an instance",
       kLog + "symptom d {\n  on ranks\n  let x = first(a)\n  when true\n  family unknown\n}\n",
       {"t.attr:4:11: error: a let holds a number, string, bool, time, duration or state, not a symptom instance "
        "[A301]"}},
      // A let in error is still defined: `when x` is no second error, nor an unknown name.
      {"let in error read by when",
       kLog + "symptom d {\n  on ranks\n  let x = first(a)\n  when x is none\n  family unknown\n}\n",
       {"t.attr:4:11: error: a let holds a number, string, bool, time, duration or state, not a symptom instance "
        "[A301]"}},
      // A let reads the lets before it only: a later one (or itself) is no capture of the candidate.
      {"let reading a later let",
       "symptom d {\n  on ranks\n  let a = b\n  let b = \"x\"\n  when a == \"x\"\n  family unknown\n}\n",
       {"t.attr:3:11: error: 'b' is a let of this symptom that is not defined yet here; a let reads only the lets "
        "before it [A102]"}},
      {"let reading itself inside an aggregate",
       kLog + "symptom d {\n  on ranks\n  let c = count(a as v where c == \"1\")\n  when c > 0\n  family unknown\n}\n",
       {"t.attr:4:30: error: 'c' is a let of this symptom that is not defined yet here; a let reads only the lets "
        "before it [A102]"}},
      {"message with an unknown placeholder",
       "symptom d {\n  on ranks\n  let completed = 1\n  when true\n  message \"rank {rank}: {complted}\"\n"
       "  family unknown\n}\n",
       {"t.attr:5:11: error: the message names '{complted}', which is no let of this symptom; did you mean "
        "'completed'? [A204]",
        "note: placeholders: rank, node, gpu, completed"}},
      {"message with an unclosed brace",
       "symptom d {\n  on ranks\n  when true\n  message \"rank {rank\"\n  family unknown\n}\n",
       {"t.attr:4:11: error: a '{' in the message is never closed [A204]"}},
      {"derived when naming a derived symptom",
       kLog + "symptom d1 {\n  on ranks\n  when not exists(a on same rank)\n  family unknown\n}\n"
              "symptom d2 {\n  on ranks\n  when exists(d1 on same rank)\n  family unknown\n}\n",
       {"t.attr:9:15: error: 'd1' is itself derived per rank or node; derived symptoms are evaluated together and "
        "cannot read one another (relate them in a rule or outcome) [A305]"}},
      {"derived when naming a derived symptom as a set",
       kLog + "symptom d1 {\n  on ranks\n  when not exists(a on same rank)\n  family unknown\n}\n"
              "symptom d2 {\n  on nodes\n  when d1\n  family unknown\n}\n",
       {"t.attr:9:8: error: 'd1' is itself derived per rank or node; derived symptoms are evaluated together and "
        "cannot read one another (relate them in a rule or outcome) [A305]"}},
      {"derived let naming itself",
       "symptom d {\n  on ranks\n  let n = count(d)\n  when n == 0\n  family unknown\n}\n",
       {"t.attr:3:17: error: 'd' is itself derived per rank or node; derived symptoms are evaluated together and "
        "cannot read one another (relate them in a rule or outcome) [A305]"}},
      {"min_by keyed by a string",
       kLog + "outcome o {\n  when min_by(a, text) is not none\n  family unknown\n}\n",
       {"t.attr:3:18: error: min_by() orders instances by a number, time or duration, not a string; convert a "
        "capture with int() or float() [A301]"}},
      {"max_by keyed by a bool",
       kLog + "outcome o {\n  when max_by(a, x == \"1\") is not none\n  family unknown\n}\n",
       {"t.attr:3:18: error: max_by() orders instances by a number, time or duration, not a bool; convert a "
        "capture with int() or float() [A301]"}},
      {"percentile without p",
       kLog + "outcome o {\n  when percentile(a, int(x)) > 1\n  family unknown\n}\n",
       {"t.attr:3:8: error: percentile() takes 3 arguments, not 2 [A304]"}},
      {"median with p",
       kLog + "outcome o {\n  when median(a, int(x), 50) > 1\n  family unknown\n}\n",
       {"t.attr:3:8: error: median() takes 2 arguments, not 3 [A304]"}},
      {"percentile with a string p",
       kLog + "outcome o {\n  when percentile(a, int(x), \"50\") > 1\n  family unknown\n}\n",
       {"t.attr:3:30: error: percentile() needs a number from 0 to 100, not a string [A301]"}},
      {"median in a log symptom's when",
       kLog + "symptom b {\n  on log\n  match /other=(?<y>[0-9]+)/\n  when median(a on same rank, float(x)) > 1\n"
              "  family unknown\n}\n",
       {"t.attr:5:8: error: median() relates symptom instances, which do not exist yet while a symptom is being "
        "extracted; use it in a rule, filter or outcome [A305]"}},
      {"on same rank in a filter",
       kLog + "filter f {\n  keep a where count(a on same rank) > 1\n}\n",
       {"t.attr:3:32: error: 'on same' compares with the root cause (outcomes) or the rule's first binding; there "
        "is neither here [A305]"}},
      // A stray `=` is reported once, and parsing goes on to report the next outcome's error.
      {"stray = outside let",
       "outcome o {\n  when workload.ranks = 8\n  family unknown\n}\n"
       "outcome p {\n  when workload.ranks == 8 and bogus\n  family unknown\n}\n",
       {"t.attr:2:23: error: unexpected character '='; write '==' to compare [A005]",
        "fix-it:\"t.attr\":{2:23-2:24}:\"==\" (safe)", "t.attr:6:32: error: unknown name 'bogus' [A102]"}},
  };
}

TEST(DerivedSymptomDiagnostics, EachBadInputGivesExactlyItsDiagnostics) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    auto checked = check(c.text);
    EXPECT_EQ(checked.lines(), c.expected);
    EXPECT_GE(checked.errors(), 1u);
  }
}

// The stray `=` is a lexer error only where it is no `let`: `let x = 1` parses.
TEST(DerivedSymptomDiagnostics, EqualsSignIsFineInALet) {
  checkClean("symptom d {\n  on ranks\n  let x = 1\n  when x == 1\n  family unknown\n}\n");
}

TEST(DerivedSymptomDiagnostics, AWildcardLeavesDerivedSymptomsOut) {
  auto c = checkClean(kLog +
                      "symptom d1 {\n  on ranks\n  when not exists(a on same rank)\n  family unknown\n}\n"
                      "symptom d2 {\n  on ranks\n  when count(* on same rank) == 0 and first(*) is not none\n"
                      "  family unknown\n}\n");
  EXPECT_EQ(c.errors(), 0u);
}

TEST(DerivedSymptomDiagnostics, KeyedAggregatesAreFineInOutcomesRulesAndDerivedSymptoms) {
  checkClean(kLog +
             "outcome o {\n  when median(a on same rank, float(x)) > 1.5 * median(a, float(x)) and "
             "percentile(a, int(x), 99) >= 0 and max_by(a, time).rank != min_by(a, int(x)).rank\n"
             "  family unknown\n}\n"
             "rule r {\n  when a as p, a as q\n  where same rank and min_by(a on same rank, int(x)) is not none and "
             "percentile(a, workload.end - time, 50.5) > 0\n  then explain q by p\n}\n");
}

const char* kGood = R"(symptom work {
  on log
  match /work done: (?<completed>[0-9]+)/
  family communication
  blame rank
}

symptom lag "A rank lags" {
  on ranks
  let mine = int(min_by(work on same rank, int(completed)).completed)
  let best = int(max_by(work, int(completed)).completed)
  let gap = best - mine
  let peers = distinct(work where int(completed) == best, rank)
  when gap > 0 and exists(work on same rank) and peers >= 1 and median(work on same rank, float(completed)) < best
  message "rank {rank} on {node} ({gpu}): {mine} of {best}, gap {gap}, {peers} peers"
  family accelerator-gpu
  blame rank
}

symptom quiet {
  on nodes
  let seen = count(* on same node)
  when seen == 0 and node in workload.nodes
  family unknown
}

rule r {
  when lag as l
  where int(l.gap) > 2 and l.mine != l.best
  then mark l as bad
}
)";

TEST(DerivedSymptomDiagnostics, ValidDerivedSymptomsCheckClean) {
  auto c = checkClean(kGood);
  EXPECT_EQ(c.errors(), 0u);
  EXPECT_EQ(c.warnings(), 0u);
}

// Lets are captures of the symptom's instances, as strings: comparing one with a number in a
// rule is a type error.
TEST(DerivedSymptomDiagnostics, LetsReadFromARuleAreStrings) {
  auto c = check(std::string(kGood) + "rule s {\n  when lag as m\n  where m.gap > 2\n  then mark m as bad\n}\n");
  EXPECT_EQ(c.lines(), std::vector<std::string>{
                           "t.attr:34:9: error: cannot order a string and an int with '>' [A301]"});
}

std::optional<std::string> format(const std::string& text) {
  SourceManager sources;
  DiagnosticSink sink;
  FileId id = sources.add("t.attr", text);
  auto out = formatFile(parseFile(sources, id, sink));
  EXPECT_EQ(sink.errorCount(), 0u);
  return out;
}

TEST(DerivedSymptomDiagnostics, FmtIsIdempotentOnDerivedSymptoms) {
  const char* messy = R"(symptom work { on log match /work done: (?<completed>[0-9]+)/ family communication blame rank }
symptom lag "lagging" { on ranks let mine = int(min_by(work on same rank,int(completed)).completed)
  let best=int(max_by(work, int(completed)).completed) when best-mine>0 and exists(work on same rank) message "rank {rank}: {mine} of {best}" family accelerator-gpu blame rank }
symptom quiet { on nodes when not exists(* on same node) family unknown }
)";
  auto once = format(messy);
  ASSERT_TRUE(once);
  EXPECT_EQ(*once, R"(symptom work {
  on log
  match /work done: (?<completed>[0-9]+)/
  family communication
  blame rank
}

symptom lag "lagging" {
  on ranks
  let mine = int(min_by(work on same rank, int(completed)).completed)
  let best = int(max_by(work, int(completed)).completed)
  when best - mine > 0 and exists(work on same rank)
  message "rank {rank}: {mine} of {best}"
  family accelerator-gpu
  blame rank
}

symptom quiet {
  on nodes
  when not exists(* on same node)
  family unknown
}
)");
  auto twice = format(*once);
  ASSERT_TRUE(twice);
  EXPECT_EQ(*twice, *once);
  // The canonical text is a valid program.
  checkClean(*once);
  auto good = format(kGood);
  ASSERT_TRUE(good);
  EXPECT_EQ(*good, kGood);
}

}  // namespace
}  // namespace attrib
