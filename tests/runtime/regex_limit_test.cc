// PCRE2 giving up (its match limit, on catastrophic backtracking) is said in the verdict, with
// the symptom, instead of counting the line as no match in silence.
#include <gtest/gtest.h>

#include "runtime/regex_table.h"
#include "tests/runtime/engine_util.h"

namespace attrib::runtime {
namespace {

// Hyperscan finds "ac" at the end of the line; PCRE2, starting at the line's first byte, tries
// every way to split 30 a's between the two + before it can move on: 2^30 paths.
const std::string kHostile = std::string(30, 'a') + "b ac";

TEST(RegexLimit, ARegexThatGivesUpSaysSo) {
  ir::Pattern p;
  p.regex = "(a+)+c";
  std::string error;
  auto re = Regex::compile(p, &error);
  ASSERT_TRUE(re) << error;
  bool limited = false;
  EXPECT_FALSE(re->match(kHostile, nullptr, &limited));
  EXPECT_TRUE(limited);
  limited = false;
  EXPECT_TRUE(re->match("xx aac", nullptr, &limited));
  EXPECT_FALSE(limited);
  EXPECT_FALSE(re->match("no match here", nullptr, &limited));
  EXPECT_FALSE(limited) << "a plain non-match is not a limit";
}

TEST(RegexLimit, TheVerdictNamesTheSymptomWhoseLinesWereNotDecided) {
  auto engine = attrib::testing::engineFor(R"(symptom backtrack "Backtracking" {
  on log
  match /(a+)+c/
  family unknown
  severity error
  blame node
}
)");
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines;
  for (int i = 0; i < 5; ++i) lines.push_back(attrib::testing::line("n1", "applog", "2026-11-29T10:00:00Z", kHostile));
  lines.push_back(attrib::testing::line("n1", "applog", "2026-11-29T10:00:01Z", "plain aac"));
  Verdict v = attrib::testing::diagnose(*engine, lines);
  EXPECT_EQ(attrib::testing::countOf(v, "backtrack"), 1u) << "the line PCRE2 decided still counts";
  bool said = false;
  for (const auto& r : v.reports) {
    if (r.reason.find("PCRE2 hit its match limit on 5 line(s) for symptom backtrack's pattern") != std::string::npos) {
      said = true;
      EXPECT_EQ(r.status, ConnectorReport::Status::Partial) << r.reason;
    }
  }
  EXPECT_TRUE(said) << "no report says that PCRE2 gave up";
}

}  // namespace
}  // namespace attrib::runtime
