// attribc fmt: canonical layout, comments kept, idempotent over every rule file in the repo.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compiler/formatter.h"
#include "tests/compiler/test_util.h"

namespace attrib {
namespace {

std::optional<std::string> format(const std::string& text) {
  SourceManager sources;
  DiagnosticSink sink;
  FileId id = sources.add("t.attr", text);
  return formatFile(parseFile(sources, id, sink));
}

std::vector<std::string> comments(const std::string& text) {
  SourceManager sources;
  DiagnosticSink sink;
  ParseResult p = parseFile(sources, sources.add("t.attr", text), sink);
  std::vector<std::string> out;
  for (const auto& t : p.layout) {
    if (t.kind == LayoutToken::Kind::LineComment || t.kind == LayoutToken::Kind::BlockComment) out.push_back(t.text);
  }
  return out;
}

TEST(Formatter, CanonicalLayout) {
  const char* messy = R"(package   gpu.xid
import std.nccl as n
symptom xid79 "GPU fell off" { on log( source in [ syslog,dmesg ] ) match /Xid 79/i family accelerator-gpu severity critical
  blame node action drain_node,restart }


outcome o{when root is xid79 and(count(xid79 on same node)>=1 or workload.ranks/8>-1)family accelerator-gpu}
test "t" { workload { state FAILED nodes [n1,gpu-0042] start 2026-01-01T10:00:00Z } log n1 syslog at 10:00:00 "x" expect root xid79 on n1 }
symptom empty {}
)";
  EXPECT_EQ(*format(messy), R"(package gpu.xid
import std.nccl as n

symptom xid79 "GPU fell off" {
  on log(source in [syslog, dmesg])
  match /Xid 79/i
  family accelerator-gpu
  severity critical
  blame node
  action drain_node, restart
}

outcome o {
  when root is xid79 and (count(xid79 on same node) >= 1 or workload.ranks / 8 > -1)
  family accelerator-gpu
}

test "t" {
  workload {
    state FAILED
    nodes [n1, gpu-0042]
    start 2026-01-01T10:00:00Z
  }
  log n1 syslog at 10:00:00 "x"
  expect root xid79 on n1
}

symptom empty {}
)");
}

TEST(Formatter, KeepsEveryCommentInPlace) {
  const char* text = R"(// header comment
package a // after package

/* block before */ symptom s { // after brace
  // own line inside
  on log /* inline */ match /abcdef/ // trailing
  family unknown
  // before closing brace
}
// at the end
)";
  auto out = format(text);
  ASSERT_TRUE(out);
  EXPECT_EQ(comments(*out), comments(text));
  EXPECT_EQ(*out, R"(// header comment
package a  // after package

/* block before */
symptom s {  // after brace
  // own line inside
  on log /* inline */
  match /abcdef/  // trailing
  family unknown
  // before closing brace
}
// at the end
)");
  EXPECT_EQ(*format(*out), *out);
}

TEST(Formatter, KeepsOneBlankLineWhereTheSourceHadSome) {
  EXPECT_EQ(*format("symptom s {\n  on log\n\n\n\n  match /abcdef/\n  family unknown\n}\n"),
            "symptom s {\n  on log\n\n  match /abcdef/\n  family unknown\n}\n");
}

TEST(Formatter, RefusesFilesWithSyntaxErrors) {
  EXPECT_FALSE(format("symptom s { on log match }\n"));
  EXPECT_FALSE(format("symptom s { on log match /abc }\n"));
}

TEST(Formatter, EmptyFileStaysEmpty) { EXPECT_EQ(*format(""), ""); }

TEST(Formatter, IdempotentOnEveryRepositoryRuleFile) {
  auto files = testing::repositoryRuleFiles();
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    auto once = format(text.str());
    ASSERT_TRUE(once) << path << " does not parse";
    auto twice = format(*once);
    ASSERT_TRUE(twice) << path;
    EXPECT_EQ(*once, *twice) << path << ": fmt(fmt(x)) != fmt(x)";
    EXPECT_EQ(comments(*once), comments(text.str())) << path << ": comments changed";
  }
}

}  // namespace
}  // namespace attrib
