// The HTML writer escapes every byte (logs are hostile input), the report of every example and
// scenario names its root cause, lanes and references, and the wording of the families and
// actions (docs/verdict.md) covers the language's whole vocabulary.
#include "report/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "compiler/vocabulary.h"
#include "ir/sha256.h"
#include "report/assets.h"
#include "report/html.h"
#include "report/meanings.h"
#include "runtime/verdict_json.h"
#include "tests/runtime/engine_util.h"
#include "tests/runtime/workload_dirs.h"

namespace attrib::report {
namespace {

namespace fs = std::filesystem;
using runtime::EvidenceLine;
using runtime::Verdict;

const std::string kHostile = "<script>document.body.dataset.pwned=1</script></svg><img src=x onerror=alert(1)> \"q\" 'a' & \xff\xfe end";

TEST(Html, EscapeTurnsMarkupQuotesAndBadBytesIntoText) {
  EXPECT_EQ(html::escape("<script>x</script>"), "&lt;script&gt;x&lt;/script&gt;");
  EXPECT_EQ(html::escape("</svg>"), "&lt;/svg&gt;");
  EXPECT_EQ(html::escape("\"a\" 'b' & c"), "&quot;a&quot; &#39;b&#39; &amp; c");
  // Not UTF-8: a lone continuation byte, a truncated sequence, an overlong '/', a surrogate.
  EXPECT_EQ(html::escape("a\xff" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(html::escape("\xe2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(html::escape("\xc0\xaf"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(html::escape("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  // Valid UTF-8 stays as it is; controls become visible, never markup.
  EXPECT_EQ(html::escape("é ✓ 😀"), "é ✓ 😀");
  EXPECT_EQ(html::escape(std::string("a\0b", 3)), "a&#x2400;b");
  EXPECT_EQ(html::escape("\x1b[31m"), "&#x241B;[31m");
  EXPECT_EQ(html::escape("\x7f"), "&#x2421;");
  EXPECT_EQ(html::escape("\xc2\x85"), "\xEF\xBF\xBD");
  EXPECT_EQ(html::escape("tab\tnew\nline"), "tab\tnew\nline");
  // Nothing that could open a tag or end an attribute survives, whatever the bytes.
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  std::string escaped = html::escape(all + all);
  EXPECT_EQ(escaped.find_first_of("<>\"'"), std::string::npos);
}

TEST(Html, OnlyHttpUrlsBecomeLinks) {
  EXPECT_EQ(html::linkableUrl("https://docs.nvidia.com/deploy/xid-errors/"), "https://docs.nvidia.com/deploy/xid-errors/");
  EXPECT_EQ(html::linkableUrl("HTTP://example.org/a?b=c"), "HTTP://example.org/a?b=c");
  for (const char* bad : {"javascript:alert(1)", " javascript:alert(1)", "data:text/html,<b>", "vbscript:x", "runbook 12",
                          "//evil.example", "https://", "https://a b", "https://a\nb", "file:///etc/passwd"}) {
    EXPECT_FALSE(html::linkableUrl(bad)) << bad;
  }
}

TEST(Html, ScriptJsonCannotEndItsBlockAndNumbersAreShort) {
  EXPECT_EQ(html::scriptSafeJson(R"({"a":"</script><!--&"})"), R"({"a":"\u003c/script\u003e\u003c!--\u0026"})");
  EXPECT_EQ(html::num(1.005), "1");
  EXPECT_EQ(html::num(-0.001), "0");
  EXPECT_EQ(html::num(12.5), "12.5");
  EXPECT_EQ(html::num(1e300 * 1e300), "0");
}

TEST(Html, WriterNestsAndEscapesAttributes) {
  html::Writer w;
  w.open("div", {{"title", "\"><script>"}}).element("b", "<i>").open("span");
  EXPECT_EQ(w.depth(), 2u);
  EXPECT_EQ(w.take(), "<div title=\"&quot;&gt;&lt;script&gt;\"><b>&lt;i&gt;</b><span></span></div>");
  EXPECT_EQ(html::inlineMarkdown("a `b<c>` d ` e"), "a <code>b&lt;c&gt;</code> d ` e");
}

TEST(Meanings, EveryFamilyAndActionOfTheLanguageIsExplained) {
  const Meanings& m = meanings();
  for (const auto& family : failureFamilies()) {
    const FamilyMeaning* f = m.family(family);
    ASSERT_TRUE(f) << family << " has no row in docs/verdict.md's Failure families table";
    EXPECT_FALSE(f->meaning.empty()) << family;
  }
  EXPECT_EQ(m.families.size(), failureFamilies().size());
  for (const auto& action : knownActions()) {
    const ActionMeaning* a = m.action(action);
    ASSERT_TRUE(a) << action << " has no row in docs/verdict.md's Actions table";
    EXPECT_FALSE(a->meaning.empty()) << action;
  }
  EXPECT_EQ(m.actions.size(), knownActions().size());
  EXPECT_NE(m.action("drain_node")->slurm.find("scontrol update nodename=NODES state=drain reason="), std::string::npos);
}

TEST(Meanings, AMalformedDocumentIsAnError) {
  Meanings m;
  std::string error;
  EXPECT_FALSE(parseMeanings("# nothing here\n", &m, &error));
  EXPECT_EQ(error, "no '## Failure families' section");
  EXPECT_FALSE(parseMeanings("## Failure families\n\n| a | b | c |\n| --- | --- | --- |\n| x | y |\n", &m, &error));
  EXPECT_NE(error.find("a row has 2 cells, not 3"), std::string::npos) << error;
}

Verdict hostileVerdict() {
  Verdict v;
  v.workload.id = "slurm/77";
  v.workload.scheduler = "slurm";
  v.workload.state = ir::State::Failed;
  v.workload.start = 1'795'900'000'000'000'000;
  v.workload.end = 1'795'903'600'000'000'000;
  v.workload.nodes = {"n1", "n<2>"};
  runtime::SymptomFinding root;
  root.symptom = "gpu.xid.xid79";
  root.title = "GPU has fallen off the bus";
  root.family = "accelerator-gpu";
  root.node = "n<2>";
  root.time = 1'795'903'000'000'000'000;
  root.timeKnown = true;
  root.evidence.push_back({"syslog", "files", "n<2>", root.time, kHostile, "logs/n<2>/syslog.log", 10, 3});
  v.root = root;
  v.outcomes.push_back({"gpu.xid.gpu_lost", "accelerator-gpu", "A GPU fell off the bus", {}, 0.95});
  v.badNodes.push_back({"n<2>", {"gpu.xid.xid79"}});
  v.actions = {"drain_node"};
  v.actionNodes = {"n<2>"};
  v.confidence = 0.95;
  v.symptomCounts = {{"gpu.xid.xid79", 1}};
  v.symptoms = {{"gpu.xid.xid79", {"GPU has fallen off the bus", "accelerator-gpu", "desc <b>bold</b>",
                                   {"https://docs.nvidia.com/deploy/xid-errors/", "javascript:alert(1)"}}}};
  return v;
}

TEST(Report, AHostileLogLineIsTextAndNothingElse) {
  std::string page = renderReport(hostileVerdict());
  EXPECT_EQ(page.find("<script>document"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("</svg><img"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;document.body.dataset.pwned=1&lt;/script&gt;&lt;/svg&gt;&lt;img src=x onerror=alert(1)&gt; "
                      "&quot;q&quot; &#39;a&#39; &amp; \xEF\xBF\xBD\xEF\xBF\xBD end"),
            std::string::npos);
  // One script element: the report's own.
  size_t scripts = 0;
  for (size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1)) ++scripts;
  EXPECT_EQ(scripts, 1u);
  EXPECT_NE(page.find("<a class=\"ref\" href=\"https://docs.nvidia.com/deploy/xid-errors/\""), std::string::npos);
  EXPECT_EQ(page.find("href=\"javascript:"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"ref-text\">javascript:alert(1)</span>"), std::string::npos);
  EXPECT_NE(page.find("desc &lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
  // The drain command names the node, escaped like everything else.
  EXPECT_NE(page.find("scontrol update nodename=n&lt;2&gt; state=drain reason=&quot;attrib: gpu.xid.xid79 in slurm/77&quot;"),
            std::string::npos)
      << page.substr(page.find("id=\"actions\""), 800);
}

TEST(Report, ThePolicyAdmitsExactlyThePagesOwnStyleAndScript) {
  std::string page = renderReport(hostileVerdict());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(page, m, std::regex("<style>([\\s\\S]*?)</style>")));
  std::string style = m[1];
  ASSERT_TRUE(std::regex_search(page, m, std::regex("<script>([\\s\\S]*?)</script>")));
  std::string script = m[1];
  EXPECT_EQ(script, std::string(kTimelineScript));
  std::string policy = contentSecurityPolicy(style, {script});
  EXPECT_NE(page.find("content=\"" + html::escape(policy) + "\""), std::string::npos);
  EXPECT_EQ(policy.rfind("default-src 'none'; style-src 'sha256-", 0), 0u) << policy;
  EXPECT_NE(policy.find("script-src 'sha256-"), std::string::npos);
  EXPECT_EQ(policy.find("unsafe-inline"), std::string::npos);
}

TEST(Report, CandidatesOfAnUnknownVerdictAreShownAndNeverForAKnownOne) {
  Verdict unknown;
  unknown.workload.id = "w";
  unknown.workload.state = ir::State::Failed;
  runtime::Candidate c;
  c.evidence = {"applog", "files", "n1", std::nullopt, "Segmentation fault <core dumped>", "logs/n1/applog.log", 5, 2};
  c.weight = 3;
  c.count = 4;
  c.writers = 2;
  unknown.candidates.push_back(c);
  std::string page = renderReport(unknown);
  EXPECT_NE(page.find("Unknown: no failure pattern matched"), std::string::npos);
  EXPECT_NE(page.find("id=\"candidates\""), std::string::npos);
  EXPECT_NE(page.find("Segmentation fault &lt;core dumped&gt;"), std::string::npos);
  EXPECT_NE(page.find("logs/n1/applog.log:2"), std::string::npos);
  EXPECT_NE(page.find("4 lines of this form, from 2 writer(s)"), std::string::npos);
  EXPECT_NE(page.find("Nothing in the verdict has a time"), std::string::npos);
  Verdict known = hostileVerdict();
  known.candidates = unknown.candidates;
  EXPECT_EQ(renderReport(known).find("id=\"candidates\""), std::string::npos);
}

// Over every example and scenario: the report names the root cause with its place, a lane per
// interesting node (the root's first), the root's references as links, and is deterministic.
TEST(Report, EveryScenarioReportNamesItsRootLanesAndReferences) {
  auto engine = attrib::testing::stdlibEngine();
  ASSERT_TRUE(engine);
  auto dirs = attrib::testing::workloadDirs();
  ASSERT_GE(dirs.size(), 60u);
  size_t withRoot = 0;
  for (const auto& dir : dirs) {
    Verdict v = engine->diagnose(attrib::testing::evidenceOf(dir));
    std::string page = renderReport(v);
    ASSERT_LT(page.size(), 2u << 20) << dir;
    EXPECT_EQ(page, renderReport(v)) << dir;
    // The same page from the verdict read back from its JSON (what `attrib report` does).
    std::string error;
    auto parsed = runtime::parseVerdictJson(runtime::toJson(v), &error);
    ASSERT_TRUE(parsed) << error;
    EXPECT_EQ(renderReport(*parsed), page) << dir;
    if (!v.root) continue;
    ++withRoot;
    EXPECT_NE(page.find("<code>" + html::escape(v.root->symptom) + "</code>"), std::string::npos) << dir;
    const EvidenceLine& e = v.root->evidence.at(0);
    EXPECT_NE(page.find(html::escape(e.line)), std::string::npos) << dir;
    if (!v.root->node.empty()) {
      EXPECT_NE(page.find("\" data-node=\"" + html::escape(v.root->node) + "\""), std::string::npos) << dir;
    }
    for (const auto& [name, info] : v.symptoms) {
      if (name != v.root->symptom) continue;
      for (const auto& ref : info.refs) {
        if (html::linkableUrl(ref)) {
          EXPECT_NE(page.find("href=\"" + html::escape(ref) + "\""), std::string::npos) << dir;
        }
      }
    }
  }
  EXPECT_GT(withRoot, 50u);
}

}  // namespace
}  // namespace attrib::report
