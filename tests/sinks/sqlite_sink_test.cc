// The SQLite sink on a real database in a temp directory: schema and WAL, idempotent upserts,
// readers during writes, a writer killed mid-batch, a full database, and files that are not
// databases (or are from a newer attrib).
#include "sinks/sqlite_sink.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sinks/stream_sink.h"
#include "tests/sinks/verdicts.h"

namespace attrib::sinks {
namespace {

namespace fs = std::filesystem;

runtime::Verdict verdict(int i, const std::string& digest = "sha256:rules-a") { return testVerdict(i, digest); }

class SqliteSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attrib-sqlite-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "verdicts.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  int64_t scalar(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << ": " << sql;
    int64_t v = -1;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
  }

  // Verdicts whose child rows do not match what their own JSON says: must be none, ever.
  int64_t inconsistentVerdicts() {
    return scalar(R"sql(
SELECT count(*) FROM verdicts v
WHERE (SELECT count(*) FROM symptoms s WHERE s.verdict_id = v.verdict_id)
        != (SELECT count(*) FROM json_each(v.verdict_json, '$.symptom_counts'))
   OR (SELECT count(*) FROM bad_nodes b WHERE b.verdict_id = v.verdict_id)
        != json_array_length(v.verdict_json, '$.bad_nodes')
   OR (SELECT count(*) FROM connector_reports r WHERE r.verdict_id = v.verdict_id)
        != json_array_length(v.verdict_json, '$.connector_reports'))sql");
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(SqliteSinkTest, CreatesAVersionedWalDatabaseAndStoresEveryPart) {
  std::string error;
  auto sink = SqliteSink::open(path_, &error);
  ASSERT_TRUE(sink) << error;
  ASSERT_TRUE(sink->write(verdict(3), &error)) << error;
  EXPECT_EQ(scalar("SELECT max(version) FROM schema_version"), SqliteSink::kSchemaVersion);
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads WHERE state = 'FAILED' AND json_array_length(nodes_json) = 2"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM symptoms"), 4);
  EXPECT_EQ(scalar("SELECT count(*) FROM evidence WHERE role = 'root' AND line_number = 3"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM connector_reports WHERE status = 'ok'"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM verdict_summary WHERE family = 'accelerator-gpu'"), 1);
  EXPECT_TRUE(sink->contains("slurm/1003", "sha256:rules-a"));
  EXPECT_FALSE(sink->contains("slurm/1003", "sha256:rules-b"));
  EXPECT_EQ(inconsistentVerdicts(), 0);
  sqlite3* db;
  sqlite3_open(path_.c_str(), &db);
  sqlite3_stmt* st;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST_F(SqliteSinkTest, RewritingAVerdictReplacesItAndNeverDuplicates) {
  std::string error;
  {
    auto sink = SqliteSink::open(path_, &error);
    ASSERT_TRUE(sink) << error;
    for (int round = 0; round < 3; ++round) ASSERT_TRUE(sink->write(verdict(4), &error)) << error;
  }
  auto again = SqliteSink::open(path_, &error);  // a second run, a second open
  ASSERT_TRUE(again) << error;
  ASSERT_TRUE(again->write(verdict(4), &error)) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM symptoms"), 5);
  EXPECT_EQ(scalar("SELECT count(*) FROM evidence"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM schema_version"), 1) << "migrations ran once";
  // Another rule set's verdict on the same workload is kept beside it.
  ASSERT_TRUE(again->write(verdict(4, "sha256:rules-b"), &error)) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 2);
  EXPECT_EQ(inconsistentVerdicts(), 0);
}

TEST_F(SqliteSinkTest, ReadersDuringWritesSeeOnlyWholeVerdicts) {
  std::string error;
  auto sink = SqliteSink::open(path_, &error);
  ASSERT_TRUE(sink) << error;
  std::atomic<bool> done{false};
  std::atomic<int> reads{0}, bad{0};
  std::thread reader([&] {
    while (!done) {
      if (inconsistentVerdicts() != 0) ++bad;
      ++reads;
    }
  });
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(sink->write(verdict(i), &error)) << error;
  done = true;
  reader.join();
  EXPECT_GT(reads.load(), 5);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 300);
}

TEST_F(SqliteSinkTest, AWriterKilledMidBatchLeavesEveryCommittedVerdictIntact) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string error;
    auto sink = SqliteSink::open(path_, &error);
    if (!sink) ::_exit(2);
    for (int i = 0;; ++i) {
      if (!sink->write(verdict(i), &error)) ::_exit(3);
    }
  }
  // Let it commit a good number, then kill it without warning.
  for (int waited = 0; waited < 200; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (fs::exists(path_) && scalar("SELECT count(*) FROM sqlite_master WHERE name = 'verdicts'") == 1 &&
        scalar("SELECT count(*) FROM verdicts") >= 50) {
      break;
    }
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped on its own with " << WEXITSTATUS(status);
  int64_t stored = scalar("SELECT count(*) FROM verdicts");
  EXPECT_GE(stored, 50);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), stored);
  EXPECT_EQ(inconsistentVerdicts(), 0);
  sqlite3* db;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  sqlite3_close(db);
  // And the next run carries on where it stopped.
  std::string error;
  auto sink = SqliteSink::open(path_, &error);
  ASSERT_TRUE(sink) << error;
  ASSERT_TRUE(sink->write(verdict(100000), &error)) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), stored + 1);
}

TEST_F(SqliteSinkTest, AFullDatabaseIsAClearErrorAndStoresNoPartOfTheVerdict) {
  std::string error;
  SqliteOptions small;
  small.maxBytes = 160 * 1024;
  auto sink = SqliteSink::open(path_, &error, small);
  ASSERT_TRUE(sink) << error;
  int written = 0;
  for (; written < 5000; ++written) {
    if (!sink->write(verdict(written), &error)) break;
  }
  ASSERT_LT(written, 5000) << "the size limit never bit";
  EXPECT_GT(written, 10);
  EXPECT_NE(error.find("could not store the verdict of slurm/"), std::string::npos) << error;
  EXPECT_NE(error.find("full"), std::string::npos) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), written);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), written) << "the failed verdict's workload row was rolled back";
  EXPECT_EQ(inconsistentVerdicts(), 0);
}

TEST_F(SqliteSinkTest, UnusableFilesAreClearErrors) {
  std::string error;
  EXPECT_FALSE(SqliteSink::open((dir_ / "no" / "such" / "dir.db").string(), &error));
  EXPECT_NE(error.find("cannot open the SQLite database"), std::string::npos) << error;
  std::ofstream(dir_ / "text.db") << "this is not a database, it is a text file with enough bytes in it to matter.....";
  EXPECT_FALSE(SqliteSink::open((dir_ / "text.db").string(), &error));
  EXPECT_NE(error.find("not a database"), std::string::npos) << error;
  {
    auto sink = SqliteSink::open(path_, &error);
    ASSERT_TRUE(sink) << error;
  }
  sqlite3* db;
  sqlite3_open(path_.c_str(), &db);
  sqlite3_exec(db, "INSERT INTO schema_version VALUES (99)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_FALSE(SqliteSink::open(path_, &error));
  EXPECT_NE(error.find("schema version 99 is newer than this attrib's 1"), std::string::npos) << error;
  if (::geteuid() != 0) {
    fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_FALSE(SqliteSink::open((dir_ / "new.db").string(), &error));
    fs::permissions(dir_, fs::perms::owner_all);
  }
}

TEST(StreamSink, WritesJsonJsonLinesAndText) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  std::string error;
  StreamSink lines(out, StreamFormat::JsonLines);
  ASSERT_TRUE(lines.write(verdict(1), &error)) << error;
  ASSERT_TRUE(lines.write(verdict(2), &error)) << error;
  StreamSink text(out, StreamFormat::Text);
  ASSERT_TRUE(text.write(verdict(3), &error)) << error;
  std::fclose(out);
  std::string all(buffer, size);
  std::free(buffer);
  size_t first = all.find('\n');
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(all.substr(0, 1), "{");
  EXPECT_NE(all.substr(0, first).find("\"slurm/1001\""), std::string::npos);
  size_t second = all.find('\n', first + 1);
  EXPECT_NE(all.substr(first + 1, second - first).find("\"slurm/1002\""), std::string::npos);
  EXPECT_NE(all.find("workload   slurm/1003"), std::string::npos) << all;
  StreamFormat f;
  EXPECT_TRUE(streamFormatFromName("jsonl", &f));
  EXPECT_FALSE(streamFormatFromName("yaml", &f));
}

TEST(StreamSink, AClosedStreamIsAnError) {
  std::FILE* out = std::fopen("/dev/full", "w");
  ASSERT_TRUE(out);
  StreamSink sink(out, StreamFormat::Json);
  std::string error;
  EXPECT_FALSE(sink.write(verdict(1), &error));
  EXPECT_NE(error.find("cannot write the verdict"), std::string::npos) << error;
  std::fclose(out);
}

}  // namespace
}  // namespace attrib::sinks
