// The PostgreSQL sink against a real PostgreSQL 15 (tests/pg/postgres_server.h): the suite every
// database sink passes (tests/sinks/sink_suite.h: idempotent upserts, a newer schema, bytes that
// are not UTF-8), then schema and every part stored, readers during writes, two writers at
// once, a writer SIGKILLed mid-batch, a size limit, an unreachable server, and a password that
// never shows.
#include "sinks/postgres_sink.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "pg/connection.h"
#include "tests/connectors/loopback.h"
#include "tests/pg/postgres_fixture.h"
#include "tests/sinks/sink_suite.h"
#include "tests/sinks/verdicts.h"

namespace attrib::sinks {
namespace {

// Queries on the sink's database at `url_`.
class PostgresSinkQueries {
 public:
  pg::Result run(const std::string& sql) {
    pg::Error e;
    auto c = pg::Connection::open(url_, &e);
    EXPECT_TRUE(c) << e.message;
    if (!c) return {};
    pg::Result r = c->exec(sql);
    EXPECT_TRUE(r.ok()) << r.error().message << ": " << sql;
    return r;
  }
  int64_t scalar(const std::string& sql) {
    pg::Result r = run(sql);
    return r.ok() && r.rows() ? r.integer(0, 0) : -1;
  }
  std::string text(const std::string& sql) {
    pg::Result r = run(sql);
    return r.ok() && r.rows() ? r.text(0, 0) : "";
  }
  void exec(const std::string& sql) { run(sql); }

  // Verdicts whose child rows do not match what their own JSON says: must be none, ever.
  int64_t inconsistentVerdicts() {
    return scalar(R"sql(
SELECT count(*) FROM verdicts v
WHERE (SELECT count(*) FROM symptoms s WHERE s.verdict_id = v.verdict_id)
        != (SELECT count(*) FROM json_each(v.verdict_json -> 'symptom_counts'))
   OR (SELECT count(*) FROM bad_nodes b WHERE b.verdict_id = v.verdict_id)
        != json_array_length(v.verdict_json -> 'bad_nodes')
   OR (SELECT count(*) FROM connector_reports r WHERE r.verdict_id = v.verdict_id)
        != json_array_length(v.verdict_json -> 'connector_reports'))sql");
  }

  std::string url_;
};

class PostgresSinkTest : public testing::PostgresTest, protected PostgresSinkQueries {
 protected:
  PostgresSinkTest() : PostgresTest("sink") {}
  void SetUp() override {
    PostgresTest::SetUp();
    url_ = url();
  }
  using PostgresTest::url;
};

// The suite's backend: a fresh database on the shared server.
class PostgresSinkBackend : public PostgresSinkQueries {
 public:
  static constexpr const char* kName = "PostgreSQL";
  std::string setUp(const std::string& /*test*/, bool* skip) {
    std::string why = testing::freshPostgresDatabase("sinksuite", &server_, &db_, skip);
    if (why.empty()) url_ = server_->url(db_);
    return why;
  }
  void tearDown() {}
  std::unique_ptr<PostgresSink> open(std::string* error) { return PostgresSink::open(url_, error); }
  std::string secret() { return server_->password(); }

 private:
  testing::PostgresServer* server_ = nullptr;
  std::string db_;
};

}  // namespace
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, SinkSuite, ::testing::Types<PostgresSinkBackend>);
namespace {

TEST_F(PostgresSinkTest, CreatesAVersionedSchemaAndStoresEveryPart) {
  std::string error;
  auto sink = PostgresSink::open(url(), &error);
  ASSERT_TRUE(sink) << error;
  ASSERT_TRUE(sink->write(testVerdict(3), &error)) << error;
  EXPECT_EQ(scalar("SELECT max(version) FROM schema_version"), PostgresSink::kSchemaVersion);
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads WHERE state = 'FAILED' AND jsonb_array_length(nodes_json) = 2"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM symptoms"), 4);
  EXPECT_EQ(scalar("SELECT count(*) FROM evidence WHERE role = 'root' AND line_number = 3"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM connector_reports WHERE status = 'ok'"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM verdict_summary WHERE family = 'accelerator-gpu' AND "
                   "end_ts = to_timestamp(1700000100.000000003)"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts WHERE verdict_json ->> 'schema' IS NOT NULL AND "
                   "jsonb_typeof(actions_json) = 'array'"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM bad_nodes WHERE symptoms_json ? 'gpu.xid.xid79'"), 1);
  EXPECT_TRUE(sink->contains("slurm/1003", "sha256:rules-a"));
  EXPECT_FALSE(sink->contains("slurm/1003", "sha256:rules-b"));
  EXPECT_EQ(inconsistentVerdicts(), 0);
  // Through keyword=value as well as the URL.
  auto again = PostgresSink::open(server_->conninfo(db_), &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM schema_version"), 1) << "migrations ran once";
}

TEST_F(PostgresSinkTest, TwoWritersAtOnceLeaveOneWholeVerdictPerKey) {
  std::string error;
  ASSERT_TRUE(PostgresSink::open(url(), &error)) << error;  // the schema, first
  std::atomic<int> failures{0};
  std::atomic<bool> done{false};
  std::atomic<int> reads{0}, bad{0};
  std::thread reader([&] {
    while (!done) {
      if (inconsistentVerdicts() != 0) ++bad;
      ++reads;
    }
  });
  auto writer = [&](int seed) {
    std::string why;
    auto sink = PostgresSink::open(url(), &why);
    if (!sink) {
      ++failures;
      return;
    }
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < 40; ++i) {
        int k = (i * 7 + seed * 13 + round) % 40;  // the same 40 keys, in different orders
        if (!sink->write(testVerdict(k), &why)) {
          ADD_FAILURE() << why;
          ++failures;
        }
      }
    }
  };
  std::thread a(writer, 1), b(writer, 2);
  a.join();
  b.join();
  done = true;
  reader.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(reads.load(), 3);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 40);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), 40);
  EXPECT_EQ(scalar("SELECT count(*) FROM bad_nodes"), 40);
  EXPECT_EQ(inconsistentVerdicts(), 0);
}

TEST_F(PostgresSinkTest, AWriterKilledMidBatchLeavesEveryVerdictWholeOrAbsent) {
  std::string error;
  ASSERT_TRUE(PostgresSink::open(url(), &error)) << error;
  std::string target = url();
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string why;
    auto sink = PostgresSink::open(target, &why);
    if (!sink) ::_exit(2);
    for (int i = 0;; ++i) {
      if (!sink->write(testVerdict(i), &why)) ::_exit(3);
    }
  }
  for (int waited = 0; waited < 250; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (scalar("SELECT count(*) FROM verdicts") >= 50) break;
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped on its own with " << WEXITSTATUS(status);
  // The server rolls back the dead client's transaction when it sees the connection close.
  for (int i = 0; i < 100 && scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'attrib sink'") > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int64_t stored = scalar("SELECT count(*) FROM verdicts");
  EXPECT_GE(stored, 50);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), stored);
  EXPECT_EQ(scalar("SELECT count(*) FROM bad_nodes"), stored);
  EXPECT_EQ(scalar("SELECT count(*) FROM evidence"), stored);
  EXPECT_EQ(inconsistentVerdicts(), 0);
  auto sink = PostgresSink::open(url(), &error);
  ASSERT_TRUE(sink) << error;
  ASSERT_TRUE(sink->write(testVerdict(100000), &error)) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), stored + 1);
}

TEST_F(PostgresSinkTest, ASizeLimitIsAClearErrorAndStoresNoPartOfTheVerdict) {
  std::string error;
  ASSERT_TRUE(PostgresSink::open(url(), &error)) << error;
  int64_t empty = scalar("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                         "WHERE n.nspname = 'public' AND c.relkind = 'r'");
  PostgresOptions small;
  small.maxBytes = static_cast<uint64_t>(empty) + 512 * 1024;  // the first verdict takes a page of every table and index
  auto sink = PostgresSink::open(url(), &error, small);
  ASSERT_TRUE(sink) << error;
  int written = 0;
  for (; written < 3000; ++written) {
    if (!sink->write(testVerdict(written), &error)) break;
  }
  ASSERT_LT(written, 3000) << "the size limit never bit";
  EXPECT_GT(written, 10);
  EXPECT_NE(error.find("could not store the verdict of slurm/"), std::string::npos) << error;
  EXPECT_NE(error.find("full"), std::string::npos) << error;
  EXPECT_NE(error.find("SQLSTATE 53100"), std::string::npos) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), written);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), written) << "the failed verdict's workload row was rolled back";
  EXPECT_EQ(inconsistentVerdicts(), 0);
  // Rewriting a stored verdict still fails cleanly (the pages are taken), and keeps the old one.
  EXPECT_FALSE(sink->write(testVerdict(0), &error));
  EXPECT_TRUE(sink->contains("slurm/1000", "sha256:rules-a"));
}

TEST_F(PostgresSinkTest, AnUnreachableServerIsAOneLineErrorAtOpening) {
  int closed = testing::freeLoopbackPort();
  std::string error;
  auto started = std::chrono::steady_clock::now();
  std::string secret = server_->password();
  EXPECT_FALSE(PostgresSink::open("postgresql://attrib_admin:" + secret + "@127.0.0.1:" + std::to_string(closed) + "/verdicts", &error));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(6));
  EXPECT_EQ(error.rfind("the PostgreSQL sink: cannot connect to PostgreSQL at 127.0.0.1:", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
  // A database that does not exist, and a wrong password: clear, and no secret either.
  EXPECT_FALSE(PostgresSink::open(server_->url("no_such_database"), &error));
  EXPECT_NE(error.find("\"no_such_database\" does not exist"), std::string::npos) << error;
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
  EXPECT_FALSE(PostgresSink::open(server_->conninfo(db_) + " password=" + secret + "x", &error));
  EXPECT_NE(error.find("password authentication failed"), std::string::npos) << error;
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
}

// A workload id that is not UTF-8: the SQLite sink stores it as U+FFFD (the suite's rows are
// made valid by verdictRows), but this sink looks the previous verdict up by the raw id, which
// PostgreSQL refuses: the write fails with one line and stores nothing (never a throw).
TEST_F(PostgresSinkTest, AWorkloadIdThatIsNotUtf8IsRefusedWithOneLineAndNothingStored) {
  std::string error;
  auto sink = PostgresSink::open(url(), &error);
  ASSERT_TRUE(sink) << error;
  runtime::Verdict v = testVerdict(5);
  v.workload.id = "slurm/\xff" "1005";
  bool written = true;
  EXPECT_NO_THROW(written = sink->write(v, &error));
  EXPECT_FALSE(written);
  EXPECT_NE(error.find("SQLSTATE 22021"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 0);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), 0);
  ASSERT_TRUE(sink->write(testVerdict(5), &error)) << "the sink still works: " << error;
}

}  // namespace
}  // namespace attrib::sinks
