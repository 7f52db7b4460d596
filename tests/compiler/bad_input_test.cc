// Hostile and broken input: a clear error and never a crash, hang or stack overflow.
#include <gtest/gtest.h>

#include <random>

#include "tests/compiler/test_util.h"

namespace attrib {
namespace {

bool hasKind(const testing::Checked& c, DiagKind kind) {
  for (const auto& d : c.sink->diagnostics()) if (d.kind == kind) return true;
  return false;
}

TEST(BadInput, BinaryGarbage) {
  std::mt19937 rng(42);
  std::string bytes(64 * 1024, '\0');
  for (char& b : bytes) b = static_cast<char>(rng());
  auto c = testing::check(bytes);
  ASSERT_EQ(c.errors(), 1u);
  EXPECT_TRUE(hasKind(c, DiagKind::BinaryFile));
}

TEST(BadInput, HighBytesWithoutNulAreReportedNotCrashed) {
  std::mt19937 rng(7);
  std::string bytes(64 * 1024, ' ');
  for (char& b : bytes) b = static_cast<char>(1 + rng() % 255);
  auto c = testing::check(bytes);
  EXPECT_GT(c.errors(), 0u);
  EXPECT_LE(c.errors(), DiagnosticSink::kDefaultMaxErrorsPerFile + 1);
}

TEST(BadInput, InvalidUtf8InsideAStringIsReportedOnce) {
  auto c = testing::check("symptom s \"bad \xc3\x28 title\" { on log match /abcdef/ family unknown }\n");
  ASSERT_EQ(c.errors(), 1u);
  EXPECT_EQ(c.lines()[0], "t.attr:1:16: error: invalid UTF-8 byte sequence; rule files must be UTF-8 [A006]");
}

TEST(BadInput, OverlongAndSurrogateEncodingsAreInvalid) {
  auto overlong = testing::check("// \xc0\xaf\n");
  EXPECT_TRUE(hasKind(overlong, DiagKind::InvalidUtf8));
  auto surrogate = testing::check("// \xed\xa0\x80\n");
  EXPECT_TRUE(hasKind(surrogate, DiagKind::InvalidUtf8));
  auto fine = testing::check("// caf\xc3\xa9 \xf0\x9f\x9a\x80\n");
  EXPECT_EQ(fine.errors(), 0u);
}

TEST(BadInput, TenMegabyteSingleLine) {
  std::string line = "outcome o { when workload.name == \"" + std::string(10 << 20, 'x') + "\" family unknown }";
  auto c = testing::check(line);
  EXPECT_EQ(c.errors(), 0u) << ::testing::PrintToString(c.lines());
  std::string junk(10 << 20, 'a');
  for (size_t i = 1; i < junk.size(); i += 2) junk[i] = ' ';
  auto j = testing::check(junk);
  EXPECT_GT(j.errors(), 0u);
  EXPECT_LE(j.errors(), DiagnosticSink::kDefaultMaxErrorsPerFile + 1);
}

TEST(BadInput, DeeplyNestedBracketsAreRejectedBeforeParsing) {
  for (const char* open : {"(", "[", "not ", "- "}) {
    std::string deep = "outcome o { when ";
    for (int i = 0; i < 100000; ++i) deep += open;
    auto c = testing::check(deep + "true }");
    EXPECT_TRUE(hasKind(c, DiagKind::NestingTooDeep)) << open;
    EXPECT_EQ(c.errors(), 1u) << open;
  }
}

TEST(BadInput, LongOperatorChainsAreBounded) {
  std::string chain = "outcome o { when 1";
  for (int i = 0; i < 200000; ++i) chain += " + 1";
  auto c = testing::check(chain + " > 0 family unknown }");
  EXPECT_TRUE(hasKind(c, DiagKind::NestingTooDeep));
  std::string ok = "outcome o { when 1";
  for (int i = 0; i < 200; ++i) ok += " + 1";
  auto fine = testing::check(ok + " > 0 family unknown }");
  EXPECT_EQ(fine.errors(), 0u) << ::testing::PrintToString(fine.lines());
}

TEST(BadInput, UnterminatedEverything) {
  EXPECT_TRUE(hasKind(testing::check("symptom s \"no end"), DiagKind::UnterminatedString));
  EXPECT_TRUE(hasKind(testing::check("symptom s { on log match /no end"), DiagKind::UnterminatedRegex));
  EXPECT_TRUE(hasKind(testing::check("/* no end"), DiagKind::UnterminatedComment));
  EXPECT_TRUE(hasKind(testing::check("symptom s { on log match /[unclosed class/ }"), DiagKind::UnterminatedRegex));
  auto eof = testing::check("symptom s {");
  EXPECT_TRUE(hasKind(eof, DiagKind::SyntaxError));
  EXPECT_EQ(eof.lines()[0], "t.attr:1:12: error: unexpected end of file; expected one of 'on', 'match', 'when', 'let', '}', a name [A001]");
}

TEST(BadInput, EmptyAndWhitespaceFilesAreValid) {
  EXPECT_EQ(testing::check("").errors(), 0u);
  EXPECT_EQ(testing::check("\n\n   \t\n// only a comment\n").errors(), 0u);
}

TEST(BadInput, RandomTokenSoupNeverCrashes) {
  const std::vector<std::string> pieces = {
      "symptom", "rule", "outcome", "filter", "test", "when", "where", "then", "{", "}", "(", ")", "[", "]",
      "x", "root", "is", "and", "or", "not", "in", "1", "2.5", "5m", "\"s\"", "/re/", "/", "*", ".", ",",
      "..", "==", "=~", "count", "over", "as", "on", "same", "node", "expect", "log", "at", "10:00:00", "-", "+",
      "explain", "by", "mark", "drop", "keep", "first", "per", "package", "import", "@", "\"", "/*"};
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    std::string text;
    int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) text += pieces[rng() % pieces.size()] + (rng() % 5 == 0 ? "\n" : " ");
    auto c = testing::check(text);
    (void)c.lines();  // rendering every diagnostic must work too
  }
}

}  // namespace
}  // namespace attrib
