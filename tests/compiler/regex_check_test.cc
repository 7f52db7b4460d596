#include "compiler/regex_check.h"

#include <gtest/gtest.h>

namespace attrib {
namespace {

TEST(RegexCheck, CapturesInPatternOrder) {
  auto info = checkRegex(R"(Xid \(PCI:(?<pci>[0-9a-f:.]+)\): (?<code>\d+), pid=(?P<pid>\d+))", "", true);
  EXPECT_TRUE(info.problems.empty());
  EXPECT_EQ(info.captures, (std::vector<std::string>{"pci", "code", "pid"}));
}

TEST(RegexCheck, HyperscanMessagesWithOffsets) {
  auto info = checkRegex("abc(def", "", true);
  ASSERT_EQ(info.problems.size(), 1u);  // PCRE2 refuses it too, but one message per mistake
  EXPECT_EQ(info.problems[0].engine, RegexProblem::Engine::Hyperscan);
  EXPECT_EQ(info.problems[0].offset, 3u);
  auto backref = checkRegex(R"((abc)\1)", "", true);
  ASSERT_FALSE(backref.problems.empty());
  EXPECT_EQ(backref.problems[0].message, "Back-references are unsupported");
  auto empty = checkRegex("x*", "", true);
  ASSERT_FALSE(empty.problems.empty());
  EXPECT_NE(empty.problems[0].message.find("empty buffer"), std::string::npos);
}

TEST(RegexCheck, ExpressionRegexesNeedOnlyPcre2) {
  // Lookahead is fine for `=~` (evaluated by PCRE2) but not for scanning (Hyperscan).
  EXPECT_TRUE(checkRegex("abc(?=def)", "", false).problems.empty());
  EXPECT_FALSE(checkRegex("abc(?=def)", "", true).problems.empty());
}

TEST(RegexCheck, Flags) {
  EXPECT_TRUE(checkRegex("abc", "isu", true).problems.empty());
  auto bad = checkRegex("abc", "ix", true);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_EQ(bad.problems[0].engine, RegexProblem::Engine::Flags);
  auto invalidUtf8 = checkRegex("caf\xff", "u", true);
  EXPECT_FALSE(invalidUtf8.problems.empty());
}

TEST(RegexCheck, LongestRequiredLiteral) {
  EXPECT_EQ(checkRegex("Xid 79", "", true).longestLiteral, 6u);
  EXPECT_EQ(checkRegex(R"(ab\d+cdef)", "", true).longestLiteral, 4u);
  EXPECT_EQ(checkRegex(R"(abcd?)", "", true).longestLiteral, 3u);
  EXPECT_EQ(checkRegex(R"(\(PCI:)", "", true).longestLiteral, 5u);
  EXPECT_EQ(checkRegex("foo|barbaz", "", true).longestLiteral, 3u);  // the weakest branch
  EXPECT_EQ(checkRegex("a|barbaz", "", true).longestLiteral, 1u);
  EXPECT_EQ(checkRegex("(foo|bar)xy", "", true).longestLiteral, 3u);
  EXPECT_EQ(checkRegex("(?:foo)?xy", "", true).longestLiteral, 2u);  // an optional group requires nothing
  EXPECT_EQ(checkRegex("^(?<exc>[A-Za-z_.]*(Error|Exception)): ", "", true).longestLiteral, 5u);
  EXPECT_EQ(checkRegex("[0-9]+", "", true).longestLiteral, 0u);
  EXPECT_EQ(checkRegex("ab{0,3}cd", "", true).longestLiteral, 2u);
  EXPECT_EQ(checkRegex("ab+c", "", true).longestLiteral, 2u);  // "abc" is not required: abbc
  EXPECT_EQ(checkRegex("ab{1}c", "", true).longestLiteral, 3u);
  EXPECT_EQ(checkRegex(R"(\x41\x42\x{43})", "", true).longestLiteral, 3u);
}

}  // namespace
}  // namespace attrib
