// Where an instance is: every instance of one file or delivered stream shares one source (its
// connector and location), and a record that several symptoms take gives each a whole instance
// (the probe's instance is copied for all but the last, which takes it whole).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "runtime/log_scanner.h"
#include "runtime/regex_table.h"
#include "tests/runtime/engine_util.h"

namespace attrib::runtime {
namespace {

namespace fs = std::filesystem;
using attrib::testing::line;

// Two symptoms of one line form: one expression, one probe, two instances per record.
constexpr const char* kRules = R"(symptom first "First" {
  on log
  match /step (?<step>[0-9]+) failed on (?<dev>[a-z0-9]+)/
  family unknown
  severity error
  blame node
}

symptom second "Second" {
  on log
  match /step (?<step>[0-9]+) failed on (?<dev>[a-z0-9]+)/
  family unknown
  severity warning
  blame node
}
)";

class InstancePlace : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = attrib::testing::engineFor(kRules);
    ASSERT_TRUE(engine_);
    std::string error;
    ASSERT_TRUE(regexes_.build(engine_->bundle().program, &error)) << error;
    dir_ = fs::temp_directory_path() / fmt::format("attrib_instance_place_{}", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::shared_ptr<const Engine> engine_;
  RegexTable regexes_;
  fs::path dir_;
};

TEST_F(InstancePlace, EveryInstanceOfAFileSharesItsSourceAndEachSymptomGetsAWholeInstance) {
  const fs::path path = dir_ / "train.log";
  {
    std::ofstream out(path);
    for (int i = 0; i < 200; ++i) out << fmt::format("2026-12-03T10:00:{:02}Z step {} failed on gpu{}\n", i % 60, i, i % 8);
  }
  LogScanner scanner(engine_->bundle(), regexes_);
  LogScanResult result = scanner.scan({attrib::testing::logFile(path.string(), "n1", "applog")}, Workload{}, {});
  ASSERT_EQ(result.instances.size(), 400u) << "two symptoms on each of 200 lines";
  std::set<const Place::Source*> sources;
  std::map<uint64_t, std::vector<const Instance*>> byLine;
  for (const Instance& inst : result.instances) {
    sources.insert(inst.where.source.get());
    byLine[inst.where.line].push_back(&inst);
  }
  ASSERT_EQ(sources.size(), 1u) << "one source for the whole file";
  const Instance& any = result.instances.front();
  EXPECT_EQ(any.where.connector(), "files");
  EXPECT_EQ(any.where.location(), path.string());
  ASSERT_EQ(byLine.size(), 200u);
  for (const auto& [lineNumber, both] : byLine) {
    ASSERT_EQ(both.size(), 2u) << "line " << lineNumber;
    const Instance& a = *both[0];
    const Instance& b = *both[1];
    EXPECT_NE(a.symptom, b.symptom);
    const std::string step = std::to_string(lineNumber - 1);
    for (const Instance* inst : {&a, &b}) {
      EXPECT_NE(inst->text.find("step " + step + " failed"), std::string::npos) << "line " << lineNumber << ": " << inst->text;
      ASSERT_TRUE(inst->capture("step")) << "line " << lineNumber;
      EXPECT_EQ(*inst->capture("step"), step);
      EXPECT_EQ(inst->node, "n1");
      EXPECT_EQ(inst->where.offset, a.where.offset);
    }
  }
}

TEST_F(InstancePlace, DeliveredLinesShareTheirStreamsSource) {
  std::vector<evidence::LogLine> lines;
  for (int i = 0; i < 6; ++i) {
    evidence::LogLine l = line("n1", "applog", "2026-12-03T10:00:00Z", fmt::format("step {} failed on gpu0", i));
    l.where.connector = "loki";
    l.where.location = i < 3 ? "{job=\"a\"}" : "{job=\"b\"}";
    l.where.offset = static_cast<uint64_t>(i);
    lines.push_back(std::move(l));
  }
  LogScanner scanner(engine_->bundle(), regexes_);
  LogScanResult result = scanner.scanLines(lines, Workload{}, {});
  ASSERT_EQ(result.instances.size(), 12u);
  std::map<std::string, std::set<const Place::Source*>> byStream;
  for (const Instance& inst : result.instances) {
    EXPECT_EQ(inst.where.connector(), "loki");
    byStream[inst.where.location()].insert(inst.where.source.get());
    EXPECT_EQ(inst.text, fmt::format("step {} failed on gpu0", inst.where.offset));
  }
  ASSERT_EQ(byStream.size(), 2u);
  EXPECT_EQ(byStream["{job=\"a\"}"].size(), 1u);
  EXPECT_EQ(byStream["{job=\"b\"}"].size(), 1u);
}

TEST(Place, WithoutASourceItNamesNothing) {
  Place p;
  EXPECT_EQ(p.connector(), "");
  EXPECT_EQ(p.location(), "");
  Place q = Place::make("slurm", "sacct job 42", 7, 3);
  EXPECT_EQ(q.connector(), "slurm");
  EXPECT_EQ(q.location(), "sacct job 42");
  EXPECT_EQ(q.offset, 7u);
  EXPECT_EQ(q.line, 3u);
}

}  // namespace
}  // namespace attrib::runtime
