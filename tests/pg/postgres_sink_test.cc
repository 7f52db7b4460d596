// The PostgreSQL sink against a real PostgreSQL 15 (tests/pg/postgres_server.h), the SQLite
// sink's tests over again: schema and every part stored, idempotent upserts, readers during
// writes, two writers at once, a writer SIGKILLed mid-batch, a size limit, a newer schema, an
// unreachable server, and a password that never shows.
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
#include "tests/pg/postgres_server.h"
#include "tests/sinks/verdicts.h"

namespace attrib::sinks {
namespace {

class PostgresSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    server_ = &testing::sharedPostgres(&why);
    if (server_->missing()) GTEST_SKIP() << why;
    ASSERT_EQ(why, "");
    db_ = std::string("sink_") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(server_->createDatabase(db_), "");
  }
  std::string url() const { return server_->url(db_); }

  int64_t scalar(const std::string& sql) {
    pg::Error e;
    auto c = pg::Connection::open(url(), &e);
    EXPECT_TRUE(c) << e.message;
    if (!c) return -1;
    pg::Result r = c->exec(sql);
    EXPECT_TRUE(r.ok()) << r.error().message << ": " << sql;
    return r.ok() && r.rows() ? r.integer(0, 0) : -1;
  }

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

  testing::PostgresServer* server_ = nullptr;
  std::string db_;
};

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

TEST_F(PostgresSinkTest, RewritingAVerdictReplacesItAndNeverDuplicates) {
  std::string error;
  {
    auto sink = PostgresSink::open(url(), &error);
    ASSERT_TRUE(sink) << error;
    for (int round = 0; round < 3; ++round) ASSERT_TRUE(sink->write(testVerdict(4), &error)) << error;
  }
  auto again = PostgresSink::open(url(), &error);
  ASSERT_TRUE(again) << error;
  ASSERT_TRUE(again->write(testVerdict(4), &error)) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM symptoms"), 5);
  EXPECT_EQ(scalar("SELECT count(*) FROM evidence"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM bad_nodes"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM schema_version"), 1) << "migrations ran once";
  ASSERT_TRUE(again->write(testVerdict(4, "sha256:rules-b"), &error)) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 2);
  EXPECT_EQ(inconsistentVerdicts(), 0);
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

TEST_F(PostgresSinkTest, ANewerSchemaIsRefused) {
  std::string error;
  ASSERT_TRUE(PostgresSink::open(url(), &error)) << error;
  scalar("INSERT INTO schema_version VALUES (99) RETURNING version");
  EXPECT_FALSE(PostgresSink::open(url(), &error));
  EXPECT_NE(error.find("schema version 99 is newer than this attrib's 1; use a newer attrib"), std::string::npos) << error;
  EXPECT_EQ(error.find(server_->password()), std::string::npos) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM schema_version"), 2) << "nothing was changed";
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

}  // namespace
}  // namespace attrib::sinks
