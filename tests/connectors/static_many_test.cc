// The static context over many workloads (`static: {workloads: PATH}`): a directory of *.json
// files in name order, or a JSON-lines file; a workload that cannot be read or repeats an id
// is left out and named, the others are found; a missing path is an error.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "connectors/static/static_context.h"

namespace attrib::connectors {
namespace {

namespace fs = std::filesystem;

std::string workload(const std::string& id) {
  return R"({"id": ")" + id + R"(", "state": "FAILED", "exit_code": 1, "nodes": ["n1"]})";
}

class StaticMany : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/attrib-static-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(StaticMany, ADirectoryGivesEveryReadableWorkloadInNameOrderAndNamesTheRest) {
  fs::create_directories(dir_ / "w" / "sub");
  std::ofstream(dir_ / "w" / "b.json") << workload("job-b");
  std::ofstream(dir_ / "w" / "a.json") << workload("job-a");
  std::ofstream(dir_ / "w" / "c.json") << "{\"id\": \"job-c\", \"state\": ";  // cut short
  std::ofstream(dir_ / "w" / "d.json") << workload("job-a");  // the same id again
  std::ofstream(dir_ / "w" / "notes.txt") << "not a workload";
  std::ofstream(dir_ / "w" / "sub" / "e.json") << workload("job-e");  // not read
  StaticContext context = StaticContext::fromMany((dir_ / "w").string());
  evidence::ConnectorReport report;
  auto found = context.discover(&report);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].workload.id, "job-a");
  EXPECT_EQ(found[1].workload.id, "job-b");
  EXPECT_EQ(found[0].workload.scheduler, "static");
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Partial);
  EXPECT_EQ(report.observations, 2u);
  EXPECT_NE(report.reason.find("2 workload(s) left out; the first: " + (dir_ / "w" / "c.json").string()), std::string::npos)
      << report.reason;
  // Read again at every poll: a new file is a new workload.
  std::ofstream(dir_ / "w" / "e.json") << workload("job-e");
  EXPECT_EQ(context.discover(&report).size(), 3u);
}

TEST_F(StaticMany, AJsonLinesFileGivesOneWorkloadALine) {
  std::ofstream(dir_ / "jobs.jsonl") << workload("one") << "\n\n" << workload("two") << "\nnot json\n" << workload("three") << "\n";
  evidence::ConnectorReport report;
  auto found = StaticContext::fromMany((dir_ / "jobs.jsonl").string()).discover(&report);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[2].workload.id, "three");
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Partial);
  EXPECT_NE(report.reason.find("1 workload(s) left out; the first: " + (dir_ / "jobs.jsonl").string() + ":4:"), std::string::npos)
      << report.reason;
}

TEST_F(StaticMany, AMissingPathIsAnErrorAndAnEmptyDirectoryIsEmpty) {
  evidence::ConnectorReport report;
  EXPECT_TRUE(StaticContext::fromMany((dir_ / "nowhere").string()).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_EQ(report.reason, "cannot read " + (dir_ / "nowhere").string());
  EXPECT_TRUE(StaticContext::fromMany(dir_.string()).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Empty);
}

}  // namespace
}  // namespace attrib::connectors
