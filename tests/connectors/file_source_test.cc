// The local-files source on a real directory tree: templated globs per node, sources from file
// names (rotated and gzip files included), nodes from paths, and reads confined to the roots
// (symlinks and `..` that leave them are refused and reported).
#include "connectors/files/file_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace attrib::connectors::files {
namespace {

namespace fs = std::filesystem;

class FileSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    top_ = fs::temp_directory_path() / ("attrib-files-" + std::to_string(::getpid()));
    fs::remove_all(top_);
    for (const char* f : {"root/logs/4242/gpu-01/syslog.log", "root/logs/4242/gpu-01/syslog.log.1.gz",
                          "root/logs/4242/gpu-01/applog.log", "root/logs/4242/gpu-02/applog.log",
                          "root/logs/4242/gpu-99/applog.log", "root/logs/4242/slurm-4242.out", "root/logs/4243/gpu-01/applog.log",
                          "root/ranks/4242/gpu-02/train_rank_12.log", "root/ranks/4242/gpu-02/rank3.err",
                          "outside/secret.log"}) {
      fs::create_directories((top_ / f).parent_path());
      std::ofstream(top_ / f) << "line\n";
    }
    fs::create_symlink(top_ / "outside/secret.log", top_ / "root/logs/4242/gpu-01/escape.log");
    w_.id = "slurm/4242";
    w_.nodes = {"gpu-01", "gpu-02"};
  }
  void TearDown() override { fs::remove_all(top_); }
  FileSourceOptions options(std::vector<FilePattern> patterns) {
    FileSourceOptions o;
    o.roots = {(top_ / "root").string()};
    o.patterns = std::move(patterns);
    return o;
  }
  fs::path top_;
  evidence::Workload w_;
};

TEST_F(FileSourceTest, GlobsPerNodeWithSourcesFromFileNames) {
  std::vector<evidence::ConnectorReport> reports;
  auto files = findLogFiles(options({{(top_ / "root/logs/${job}/${node}/*.log*").string(), ""}}), w_, &reports);
  std::vector<std::string> got;
  for (const auto& f : files) got.push_back(f.node + " " + f.source + " " + fs::path(f.path).filename().string());
  EXPECT_EQ(got, (std::vector<std::string>{"gpu-01 applog applog.log", "gpu-01 syslog syslog.log",
                                           "gpu-01 syslog syslog.log.1.gz", "gpu-02 applog applog.log"}))
      << "gpu-99 is not the workload's, job 4243 is another job, escape.log leaves the root";
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].status, evidence::ConnectorReport::Status::Partial);
  EXPECT_NE(reports[0].reason.find("1 match(es) outside the configured roots"), std::string::npos) << reports[0].reason;
  EXPECT_NE(reports[0].reason.find("escape.log"), std::string::npos);
  EXPECT_EQ(reports[0].observations, 4u);
}

TEST_F(FileSourceTest, FixedSourceAndNodeFromThePath) {
  std::vector<evidence::ConnectorReport> reports;
  auto files = findLogFiles(options({{(top_ / "root/logs/${job}/slurm-${job}.out").string(), "applog"},
                                     {(top_ / "root/logs/${job}/*/applog.log").string(), "applog"}}),
                            w_, &reports);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].node, "gpu-01");
  EXPECT_EQ(files[1].node, "gpu-02");
  EXPECT_EQ(files[2].node, "") << "gpu-99 is not one of the workload's nodes";
  EXPECT_EQ(files[3].source, "applog");
  EXPECT_EQ(fs::path(files[3].path).filename(), "slurm-4242.out");
  EXPECT_EQ(reports[0].status, evidence::ConnectorReport::Status::Ok);
}

TEST_F(FileSourceTest, RanksFromFileNames) {
  std::vector<evidence::ConnectorReport> reports;
  auto files = findLogFiles(options({{(top_ / "root/ranks/${job}/${node}/*").string(), "applog"}}), w_, &reports);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].rank, 3);
  EXPECT_EQ(files[1].rank, 12);
  EXPECT_EQ(files[1].node, "gpu-02");
  files = findLogFiles(options({{(top_ / "root/logs/${job}/${node}/applog.log").string(), ""}}), w_, &reports);
  ASSERT_FALSE(files.empty());
  EXPECT_FALSE(files[0].rank) << "no rank in the name";
}

TEST_F(FileSourceTest, DotDotAndNoRootsAreRefusedAndNothingMatchingIsEmpty) {
  std::vector<evidence::ConnectorReport> reports;
  auto files = findLogFiles(options({{(top_ / "root/logs/../../outside/*.log").string(), ""}}), w_, &reports);
  EXPECT_TRUE(files.empty());
  EXPECT_EQ(reports[0].status, evidence::ConnectorReport::Status::Partial);
  FileSourceOptions none = options({{(top_ / "root/logs/${job}/${node}/*.log").string(), ""}});
  none.roots.clear();
  reports.clear();
  EXPECT_TRUE(findLogFiles(none, w_, &reports).empty()) << "without roots nothing may be read";
  reports.clear();
  EXPECT_TRUE(findLogFiles(options({{(top_ / "root/nothing/*.log").string(), ""}}), w_, &reports).empty());
  EXPECT_EQ(reports[0].status, evidence::ConnectorReport::Status::Empty);
  // A node name with glob characters matches only itself.
  w_.nodes = {"gpu-0*"};
  reports.clear();
  EXPECT_TRUE(findLogFiles(options({{(top_ / "root/logs/${job}/${node}/*.log").string(), ""}}), w_, &reports).empty());
}

}  // namespace
}  // namespace attrib::connectors::files

