// A log pattern's required literal (ir::Pattern::required, compiler/scan_form.h) lets a record
// that lacks it go unconfirmed without running PCRE2; it must never reject a record the pattern
// matches, nor change what a verdict finds.
#include <gtest/gtest.h>

#include "runtime/regex_table.h"
#include "tests/runtime/engine_util.h"

namespace attrib::runtime {
namespace {

// A log pattern compiled as the scanner compiles it (`^`/`$` at each line).
std::unique_ptr<Regex> logPattern(const char* regex, const char* required = "", const char* flags = "") {
  ir::Pattern p;
  p.regex = regex;
  p.required = required;
  p.flags = flags;
  std::string error;
  auto re = Regex::compile(p, &error, /*lines=*/true);
  EXPECT_TRUE(re) << error;
  return re;
}

TEST(RegexRequired, ARecordWithoutTheLiteralIsNotAMatchAndOneWithItIsDecidedByPcre2) {
  ir::Pattern p;
  p.regex = R"(mlx5_core (?<pci>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])( (?<iface>[^ :]+))?: .*\b[Ll]ink up\b)";
  p.captures = {"pci", "iface"};
  p.required = "ink up";
  std::string error;
  auto re = Regex::compile(p, &error, /*lines=*/true);
  ASSERT_TRUE(re) << error;
  runtime::Captures captures;
  EXPECT_TRUE(re->match("mlx5_core 0000:5d:00.0 ib4: Link up", &captures));
  ASSERT_EQ(captures.size(), 2u);
  EXPECT_EQ(captures[0].value(), "0000:5d:00.0");
  EXPECT_TRUE(re->match("mlx5_core 0000:5d:00.0 ib4: LINK UP and link up")) << "the literal in another case";
  EXPECT_FALSE(re->match("mlx5_core 0000:5d:00.0 ib4: Link down"));
  EXPECT_FALSE(re->match("mlx5_core 0000:5d:00.0 ib4: mlx5_fw_tracer_init: link u")) << "cut one byte short";
  EXPECT_FALSE(re->match("INK UP")) << "the literal alone is not the pattern: PCRE2 still decides";
}

// The literal is looked for by its first byte in either case: starts of either case before the
// real one, the literal at the very end of the text, and a first byte with no case.
TEST(RegexRequired, TheLiteralIsFoundInAnyCaseAtAnyPlace) {
  auto up = logPattern(R"((?i)ink up$)", "ink up");
  EXPECT_TRUE(up->match("Ink it, INK, ink u, iNK UP"));
  EXPECT_TRUE(up->match("ink up"));
  EXPECT_FALSE(up->match("Ink it, INK, ink u, iNK U"));
  EXPECT_FALSE(up->match("ink u"));
  EXPECT_FALSE(up->match(""));
  auto colon = logPattern(R"(: error \d+)", ": error ");
  EXPECT_TRUE(colon->match("a: b: c: error 12"));
  EXPECT_FALSE(colon->match("a: b: c: errors 12"));
  EXPECT_TRUE(colon->match("x\n: error 3")) << "on a record's second line";
}

TEST(RegexRequired, TheCompilerGivesTheStdlibsNarrowedPatternsTheirLiteral) {
  auto engine = attrib::testing::engineFor(R"(symptom link_up "Link up" {
  on log
  match /mlx5_core (?<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])( (?<iface>[^ :]+))?: .*\b[Ll]ink up\b/
  family network-fabric
  severity info
  blame none
}
)");
  ASSERT_TRUE(engine);
  const ir::Symptom& s = engine->bundle().program.symptoms.front();
  ASSERT_EQ(s.patterns.size(), 1u);
  EXPECT_EQ(s.patterns[0].required, "ink up");
  // Found where it stands, passed over where it does not: the same instances as without it.
  using attrib::testing::line;
  runtime::Verdict v = attrib::testing::diagnose(*engine, {
      line("n1", "dmesg", "2026-11-29T10:00:01Z", "[  5.100000] mlx5_core 0000:5d:00.0 ib4: Link up"),
      line("n1", "dmesg", "2026-11-29T10:00:02Z", "[  6.200000] mlx5_core 0000:5d:00.0 ib4: Link down"),
      line("n2", "dmesg", "2026-11-29T10:00:03Z", "[  7.300000] mlx5_core 0000:5e:00.0 ib5: link up"),
  });
  EXPECT_EQ(attrib::testing::countOf(v, "link_up"), 2u);
}

// docs/language.md, Records: a pattern spans a record's lines only with `\n` (or `\R`, dot-all);
// any other is matched line by line, so a `[^ ]+` or a `\s` never runs into the next line.
TEST(RecordMatch, APatternWithoutNewlineMatchesWithinOneLine) {
  auto word = logPattern(R"(loss (?<value>[^ ]+) step)");
  EXPECT_TRUE(word->singleLine());
  EXPECT_FALSE(word->matchRecord("loss 1.5\nnan step 3")) << "[^ ]+ does not take the newline";
  runtime::Captures captures;
  size_t start = 0;
  EXPECT_TRUE(word->matchRecord("epoch 1\nloss 1.5 step 3", &captures, nullptr, &start));
  ASSERT_EQ(captures.size(), 1u);
  EXPECT_EQ(captures[0].value(), "1.5");
  EXPECT_EQ(start, 8u) << "the offset in the record, not in the line";
  auto blank = logPattern(R"(error:\s+code)");
  EXPECT_FALSE(blank->matchRecord("error:\ncode 3"));
  EXPECT_TRUE(blank->matchRecord("x\nerror:   code 3"));
  // Patterns that say they span lines match the record as one text.
  auto spanning = logPattern(R"(Traceback[^\n]*\n(?:.*\n)*?KeyError)");
  EXPECT_FALSE(spanning->singleLine());
  EXPECT_TRUE(spanning->matchRecord("Traceback (most recent call last):\n  File x\nKeyError: 'a'"));
  auto dotall = logPattern(R"(begin.*end)", "", "s");
  EXPECT_FALSE(dotall->singleLine());
  EXPECT_TRUE(dotall->matchRecord("begin\nend"));
  EXPECT_FALSE(logPattern(R"((?s)a.b)")->singleLine());
  EXPECT_FALSE(logPattern(R"(a\Rb)")->singleLine());
  // `^` is each line's start either way.
  auto anchored = logPattern(R"(^KeyError: '(?<key>[^']+)')");
  EXPECT_TRUE(anchored->matchRecord("Traceback (most recent call last):\nKeyError: 'labels'"));
}

}  // namespace
}  // namespace attrib::runtime
