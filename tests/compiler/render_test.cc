// The three renderings of diagnostics: clang-style text, JSON lines, SARIF 2.1.0.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compiler/diagnostic_render.h"
#include "tests/compiler/test_util.h"

namespace attrib {
namespace {

const char* kBad =
    "symptom xid79 { on log match /Xid 79/ family unknown }\n"
    "outcome o {\n"
    "\twhen root is xid97 and workload.name == \"caf\xc3\xa9\" and workload.name =~ /x(/\n"
    "  family unknown\n"
    "}\n"
    "symptom xid79 { on log match /Xid 79/ family unknown }\n";

TEST(RenderText, CaretAndTildesUnderTheSpan) {
  auto c = testing::check({{"rules/a.attr", kBad}});
  ASSERT_GE(c.sink->diagnostics().size(), 1u);
  std::string text = renderText(c.sink->diagnostics()[0], c.compilation->sources());
  EXPECT_EQ(text,
            "rules/a.attr:3:15: error: unknown symptom 'xid97'; did you mean 'xid79'? [A102]\n"
            "  \twhen root is xid97 and workload.name == \"caf\xc3\xa9\" and workload.name =~ /x(/\n"
            "  \t             ^~~~~\n");
}

TEST(RenderText, NotesPointAtTheirOwnPlace) {
  auto c = testing::check({{"rules/a.attr", kBad}});
  const auto& d = c.sink->diagnostics().back();
  ASSERT_EQ(d.kind, DiagKind::DuplicateDeclaration);
  EXPECT_EQ(renderText(d, c.compilation->sources()),
            "rules/a.attr:6:9: error: redefinition of 'xid79' [A101]\n"
            "  symptom xid79 { on log match /Xid 79/ family unknown }\n"
            "          ^~~~~\n"
            "rules/a.attr:1:9: note: 'xid79' was first defined here\n"
            "  symptom xid79 { on log match /Xid 79/ family unknown }\n"
            "          ^~~~~\n");
}

TEST(RenderText, ColorOnlyWhenAsked) {
  auto c = testing::check({{"a.attr", kBad}});
  TextRenderOptions color;
  color.color = true;
  EXPECT_NE(renderText(c.sink->diagnostics()[0], c.compilation->sources(), color).find("\033["), std::string::npos);
  EXPECT_EQ(renderText(c.sink->diagnostics()[0], c.compilation->sources()).find("\033["), std::string::npos);
}

TEST(RenderText, LongLinesAreCutAroundTheCaret) {
  std::string text = "outcome o { when " + std::string(5000, ' ') + "nope family unknown }\n";
  auto c = testing::check(text);
  std::string out = renderText(c.sink->diagnostics()[0], c.compilation->sources());
  EXPECT_LT(out.size(), 700u);
  EXPECT_NE(out.find("...    "), std::string::npos);
  EXPECT_NE(out.find("^~~~"), std::string::npos);
}

TEST(RenderJson, OneObjectPerDiagnosticWithAllFields) {
  auto c = testing::check({{"a.attr", kBad}});
  std::string out = renderJsonLines(c.sink->diagnostics(), c.compilation->sources());
  std::vector<nlohmann::json> objects;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    objects.push_back(nlohmann::json::parse(out.substr(start, end - start)));
    start = end + 1;
  }
  ASSERT_EQ(objects.size(), c.sink->diagnostics().size());
  const auto& first = objects[0];
  EXPECT_EQ(first["file"], "a.attr");
  EXPECT_EQ(first["line"], 3);
  EXPECT_EQ(first["column"], 15);
  EXPECT_EQ(first["end_line"], 3);
  EXPECT_EQ(first["end_column"], 20);
  EXPECT_EQ(first["severity"], "error");
  EXPECT_EQ(first["code"], "A102");
  EXPECT_EQ(first["slug"], "unknown-name");
  EXPECT_EQ(first["message"], "unknown symptom 'xid97'; did you mean 'xid79'?");
  EXPECT_TRUE(first["notes"].is_array());
  const auto& dup = objects.back();
  ASSERT_EQ(dup["notes"].size(), 1u);
  EXPECT_EQ(dup["notes"][0]["line"], 1);
  EXPECT_EQ(dup["notes"][0]["message"], "'xid79' was first defined here");
}

TEST(RenderSarif, ValidSarifWithRequiredFields) {
  auto c = testing::check({{"rules/my file.attr", kBad}});
  auto log = nlohmann::json::parse(renderSarif(c.sink->diagnostics(), c.compilation->sources(), "1.2.3"));
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_EQ(log["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  ASSERT_EQ(log["runs"].size(), 1u);
  const auto& run = log["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "attribc");
  EXPECT_EQ(run["tool"]["driver"]["version"], "1.2.3");
  EXPECT_EQ(run["columnKind"], "unicodeCodePoints");
  const auto& rules = run["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), allDiagKinds().size());
  for (const auto& rule : rules) {
    EXPECT_TRUE(rule["id"].is_string());
    EXPECT_TRUE(rule["shortDescription"]["text"].is_string());
  }
  const auto& results = run["results"];
  ASSERT_EQ(results.size(), c.sink->diagnostics().size());
  for (const auto& r : results) {
    EXPECT_TRUE(r["ruleId"].is_string());
    size_t index = r["ruleIndex"];
    EXPECT_EQ(rules[index]["id"], r["ruleId"]);
    EXPECT_TRUE(r["message"]["text"].is_string());
    EXPECT_TRUE(r["level"] == "error" || r["level"] == "warning");
    const auto& loc = r["locations"][0]["physicalLocation"];
    EXPECT_EQ(loc["artifactLocation"]["uri"], "rules/my%20file.attr");
    EXPECT_GE(loc["region"]["startLine"].get<int>(), 1);
    EXPECT_GE(loc["region"]["startColumn"].get<int>(), 1);
    EXPECT_GE(loc["region"]["endColumn"].get<int>(), loc["region"]["startColumn"].get<int>());
  }
  // The regex error sits after a two-byte character: SARIF counts it as one code point.
  auto regexResult = std::find_if(results.begin(), results.end(), [](auto& r) { return r["ruleId"] == "A402"; });
  ASSERT_NE(regexResult, results.end());
  size_t index = static_cast<size_t>(std::distance(results.begin(), regexResult));
  const auto& d = c.sink->diagnostics()[index];
  size_t byteColumn = c.compilation->sources().file(d.file).lineColumn(d.range.begin).column;
  EXPECT_EQ((*regexResult)["locations"][0]["physicalLocation"]["region"]["startColumn"], byteColumn - 1);
  // Related locations carry the notes.
  const auto& dup = results.back();
  EXPECT_EQ(dup["relatedLocations"][0]["message"]["text"], "'xid79' was first defined here");
  EXPECT_EQ(dup["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 1);
}

TEST(RenderSarif, EmptyRunIsStillValid) {
  SourceManager sources;
  auto log = nlohmann::json::parse(renderSarif({}, sources, "0.1.0"));
  EXPECT_TRUE(log["runs"][0]["results"].empty());
}

}  // namespace
}  // namespace attrib
