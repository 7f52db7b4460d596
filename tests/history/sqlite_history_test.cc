// The SQLite history reader (sinks/sqlite_history.h) over databases the real SQLite sink wrote,
// and over files that are not such databases.
#include "sinks/sqlite_history.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sinks/sqlite_sink.h"

namespace attrib::sinks {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kT0 = 1'800'000'000'000'000'000LL;

runtime::Verdict verdict(const std::string& id, const std::string& node, const std::string& family, int64_t rootTime,
                         const std::string& digest = "sha256:a") {
  runtime::Verdict v;
  v.workload.id = id;
  v.workload.state = ir::State::Failed;
  v.workload.end = rootTime + 60'000'000'000LL;
  v.workload.nodes = {node, "other-node"};
  v.outcomes.push_back({"pkg.outcome_" + family, family, "t", {"drain_node"}, 0.9});
  runtime::SymptomFinding root;
  root.symptom = "pkg.sym";
  root.node = node;
  root.time = rootTime;
  root.timeKnown = true;
  v.root = root;
  v.badNodes.push_back({node, {"pkg.sym"}});
  v.confidence = 0.9;
  v.rulesetName = "stdlib";
  v.rulesetVersion = "1";
  v.rulesetDigest = digest;
  return v;
}

class SqliteHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attrib-history-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "verdicts.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  void store(const std::vector<runtime::Verdict>& verdicts) {
    std::string error;
    auto sink = SqliteSink::open(db_, &error);
    ASSERT_TRUE(sink) << error;
    for (const auto& v : verdicts) ASSERT_TRUE(sink->write(v, &error)) << error;
  }
  fs::path dir_;
  std::string db_;
};

TEST_F(SqliteHistoryTest, ReadsEveryBadNodeOfEveryVerdictInOrder) {
  store({verdict("w2", "gpu-1", "accelerator-gpu", kT0 + 2), verdict("w1", "gpu-1", "user-code", kT0 + 1),
         verdict("w3", "gpu-2", "network-fabric", kT0 + 3)});
  std::string error;
  auto r = SqliteHistoryReader::open(db_, &error);
  ASSERT_TRUE(r) << error;
  std::vector<history::NodeEvent> events;
  ASSERT_TRUE(r->events({}, &events, &error)) << error;
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].workloadId, "w1");
  EXPECT_EQ(events[0].family, "user-code");
  EXPECT_EQ(events[0].time, kT0 + 1);
  EXPECT_EQ(events[0].symptoms, std::vector<std::string>{"pkg.sym"});
  EXPECT_EQ(events[1].workloadId, "w2");
  EXPECT_EQ(events[1].outcome, "pkg.outcome_accelerator-gpu");
  EXPECT_EQ(events[2].node, "gpu-2");

  history::HistoryQuery one;
  one.node = "gpu-2";
  events.clear();
  ASSERT_TRUE(r->events(one, &events, &error));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].workloadId, "w3");

  history::HistoryQuery recent;
  recent.since = kT0 + 2;
  events.clear();
  ASSERT_TRUE(r->events(recent, &events, &error));
  EXPECT_EQ(events.size(), 2u);
}

TEST_F(SqliteHistoryTest, WithoutARootTimeTheWorkloadsEndIsTheTime) {
  auto v = verdict("w1", "gpu-1", "node-failure", kT0);
  v.root.reset();
  store({v});
  std::string error;
  auto r = SqliteHistoryReader::open(db_, &error);
  std::vector<history::NodeEvent> events;
  ASSERT_TRUE(r->events({}, &events, &error));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].time, *v.workload.end);
  EXPECT_EQ(events[0].rootSymptom, "");
}

TEST_F(SqliteHistoryTest, MoreEventsThanTheLimitIsAnErrorNotATruncation) {
  store({verdict("w1", "gpu-1", "accelerator-gpu", kT0), verdict("w2", "gpu-1", "accelerator-gpu", kT0 + 1)});
  std::string error;
  auto r = SqliteHistoryReader::open(db_, &error);
  history::HistoryQuery q;
  q.limit = 1;
  std::vector<history::NodeEvent> events;
  EXPECT_FALSE(r->events(q, &events, &error));
  EXPECT_NE(error.find("holds more than 1 events in that range"), std::string::npos) << error;
  EXPECT_TRUE(events.empty());
}

TEST_F(SqliteHistoryTest, AnOddNodeNameIsAValueNotSql) {
  std::string odd = "gpu-1'; DROP TABLE verdicts; -- \xc3\xbc %00";
  store({verdict("w1", odd, "accelerator-gpu", kT0)});
  std::string error;
  auto r = SqliteHistoryReader::open(db_, &error);
  history::HistoryQuery q;
  q.node = odd;
  std::vector<history::NodeEvent> events;
  ASSERT_TRUE(r->events(q, &events, &error)) << error;
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].node, odd);
}

TEST_F(SqliteHistoryTest, WhatIsNotAVerdictDatabaseIsRefusedWithOneLine) {
  std::string error;
  fs::path missing = dir_ / "missing.db";
  EXPECT_FALSE(SqliteHistoryReader::open(missing.string(), &error));
  EXPECT_NE(error.find("cannot open the verdict database"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(missing)) << "opening never creates";

  fs::path corrupt = dir_ / "corrupt.db";
  std::ofstream(corrupt) << "this is not a database, just some bytes that are long enough to look like a header......";
  EXPECT_FALSE(SqliteHistoryReader::open(corrupt.string(), &error));
  EXPECT_NE(error.find("is not an attrib verdict database"), std::string::npos) << error;

  fs::path other = dir_ / "other.db";
  {
    sqlite3* h = nullptr;
    sqlite3_open(other.c_str(), &h);
    sqlite3_exec(h, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
  EXPECT_FALSE(SqliteHistoryReader::open(other.string(), &error));
  EXPECT_NE(error.find("is not an attrib verdict database"), std::string::npos) << error;

  store({});
  {
    sqlite3* h = nullptr;
    sqlite3_open(db_.c_str(), &h);
    sqlite3_exec(h, "INSERT INTO schema_version(version) VALUES (9)", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
  EXPECT_FALSE(SqliteHistoryReader::open(db_, &error));
  EXPECT_NE(error.find("has schema version 9, newer than this attrib's 1; use a newer attrib"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST_F(SqliteHistoryTest, ADatabaseWithNoVerdictsHasAnEmptyHistory) {
  store({});
  std::string error;
  auto r = SqliteHistoryReader::open(db_, &error);
  ASSERT_TRUE(r) << error;
  std::vector<history::NodeEvent> events;
  ASSERT_TRUE(r->events({}, &events, &error));
  EXPECT_TRUE(events.empty());
}

TEST_F(SqliteHistoryTest, ReadingNeverWritesTheDatabase) {
  store({verdict("w1", "gpu-1", "accelerator-gpu", kT0)});
  auto before = fs::last_write_time(db_);
  auto size = fs::file_size(db_);
  std::string error;
  {
    auto r = SqliteHistoryReader::open(db_, &error);
    std::vector<history::NodeEvent> events;
    ASSERT_TRUE(r->events({}, &events, &error));
  }
  EXPECT_EQ(fs::last_write_time(db_), before);
  EXPECT_EQ(fs::file_size(db_), size);
}

}  // namespace
}  // namespace attrib::sinks
