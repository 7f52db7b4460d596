// The SQLite sink on a real database in a temp directory: the suite every database sink passes
// (tests/sinks/sink_suite.h: idempotent upserts, a newer schema, bytes that are not UTF-8), then
// what is SQLite's own: schema and WAL, readers during writes, a writer killed mid-batch, a full
// database, and files that are not databases.
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
#include "tests/sinks/sink_suite.h"
#include "tests/sinks/verdicts.h"

namespace attrib::sinks {
namespace {

namespace fs = std::filesystem;

runtime::Verdict verdict(int i, const std::string& digest = "sha256:rules-a") { return testVerdict(i, digest); }

// A verdict database in a fresh temp directory, and queries on it.
class SqliteSinkFiles {
 public:
  void make() {
    dir_ = fs::temp_directory_path() / ("attrib-sqlite-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "verdicts.db").string();
  }
  void remove() { fs::remove_all(dir_); }

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

class SqliteSinkTest : public ::testing::Test, protected SqliteSinkFiles {
 protected:
  void SetUp() override { make(); }
  void TearDown() override { remove(); }
};

// The suite's backend: the same files.
class SqliteSinkBackend : public SqliteSinkFiles {
 public:
  static constexpr const char* kName = "SQLite";
  std::string setUp(const std::string& /*test*/, bool* /*skip*/) {
    make();
    return "";
  }
  void tearDown() { remove(); }
  std::unique_ptr<SqliteSink> open(std::string* error) { return SqliteSink::open(path_, error); }
  std::string text(const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << ": " << sql;
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
      out.assign(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), static_cast<size_t>(sqlite3_column_bytes(st, 0)));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  }
  void exec(const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open(path_.c_str(), &db);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << ": " << sql;
    sqlite3_close(db);
  }
  std::string secret() { return ""; }
};

}  // namespace
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, SinkSuite, ::testing::Types<SqliteSinkBackend>);
namespace {

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

// A workload id that is not UTF-8 is a key like any other: stored as the verdict JSON writes it,
// replaced when written again, found by contains() with the same bytes. (The PostgreSQL sink
// refuses it: tests/pg/postgres_sink_test.cc.)
TEST_F(SqliteSinkTest, AWorkloadIdThatIsNotUtf8IsStoredAsTheVerdictJsonWritesIt) {
  std::string error;
  auto sink = SqliteSink::open(path_, &error);
  ASSERT_TRUE(sink) << error;
  runtime::Verdict v = verdict(5);
  v.workload.id = "slurm/\xff" "1005";
  for (int round = 0; round < 2; ++round) {
    bool written = false;
    EXPECT_NO_THROW(written = sink->write(v, &error));
    ASSERT_TRUE(written) << error;
  }
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts WHERE workload_id = 'slurm/' || char(65533) || '1005'"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), 1);
  EXPECT_TRUE(sink->contains(v.workload.id, v.rulesetDigest));
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
