// The attrib command line with PostgreSQL (tests/pg/postgres_server.h): `diagnose --sink
// postgres:URL` stores the verdict, twice stays one; an unreachable database or a bad conninfo is
// one line on stderr, exit 1, before any work and without the password; `serve --sessions
// postgres:...` refuses to start the same way. `attrib nodes --db postgres:...` and `diagnose
// --history-db postgres:...` answer byte for byte as over the SQLite sink's file of the same
// verdicts; a history database they cannot use is one line the same way.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "connectors/process.h"
#include "pg/connection.h"
#include "tests/connectors/loopback.h"
#include "tests/pg/postgres_fixture.h"

namespace attrib {
namespace {

using connectors::runProcess;

class PostgresCli : public testing::PostgresTest {
 protected:
  PostgresCli() : PostgresTest("cli") {}
  connectors::ProcessResult attrib(std::vector<std::string> args) {
    args.insert(args.begin(), ATTRIB_PATH);
    connectors::ProcessOptions o;
    o.timeout = std::chrono::seconds(60);
    o.env = {{"ATTRIB_JIT_CACHE", ATTRIB_JIT_CACHE}};
    return runProcess(args, o);
  }
};

TEST_F(PostgresCli, DiagnoseStoresTheVerdictOnceHoweverOftenItRuns) {
  std::string example = std::string(ATTRIB_SOURCE_DIR) + "/examples/xid79-nccl-cascade";
  for (int run = 0; run < 2; ++run) {
    auto r = attrib({"diagnose", example, "--sink", "postgres:" + server_->url(db_), "--sink", "stdout:jsonl"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
  }
  pg::Error e;
  auto c = pg::Connection::open(server_->url(db_), &e);
  ASSERT_TRUE(c) << e.message;
  pg::Result v = c->exec("SELECT count(*), min(root_symptom), min(root_node) FROM verdicts");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v.integer(0, 0), 1);
  EXPECT_EQ(v.text(0, 1), "gpu.xid.xid79");
  EXPECT_EQ(c->exec("SELECT count(*) FROM evidence WHERE role = 'root'").integer(0, 0), 1);
}

TEST_F(PostgresCli, AnUnusableDatabaseIsOneLineExitOneAndNoPassword) {
  std::string example = std::string(ATTRIB_SOURCE_DIR) + "/examples/xid79-nccl-cascade";
  std::string secret = server_->password();
  std::string closed = "postgresql://attrib_admin:" + secret + "@127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/v";
  for (const std::string& sink : {"postgres:" + closed, "postgres:host=127.0.0.1 password='" + secret}) {
    auto r = attrib({"diagnose", example, "--sink", sink});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.out, "") << "no verdict before the sink is open";
    EXPECT_NE(r.err.find("PostgreSQL"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto serve = attrib({"serve", "--listen", "127.0.0.1:0", "--sessions", "postgres:" + closed});
  EXPECT_EQ(serve.exitCode, 1) << serve.err;
  EXPECT_NE(serve.err.find("the PostgreSQL session store: cannot connect"), std::string::npos) << serve.err;
  EXPECT_EQ(serve.err.find(secret), std::string::npos) << serve.err;
  auto bad = attrib({"serve", "--listen", "127.0.0.1:0", "--sessions", "mysql:" + closed});
  EXPECT_EQ(bad.exitCode, 2) << bad.err;
  EXPECT_NE(bad.err.find("--sessions wants memory or postgres:CONNINFO"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find(secret), std::string::npos) << bad.err;
}

// The three examples diagnosed into both sinks at once: every `attrib nodes` view and the
// history a new diagnosis gets are the same from PostgreSQL as from SQLite.
TEST_F(PostgresCli, NodesAndDiagnoseReadTheHistoryFromPostgresAsFromSqlite) {
  char tmpl[] = "/tmp/attrib-pgcli-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::filesystem::path dir = tmpl;
  const std::string file = (dir / "verdicts.db").string();
  const std::string pgSpec = "postgres:" + server_->url(db_);
  for (const char* example : {"xid79-nccl-cascade", "host-oom", "user-code-exception"}) {
    auto r = attrib({"diagnose", std::string(ATTRIB_SOURCE_DIR) + "/examples/" + example, "--sink", "sqlite:" + file, "--sink",
                     pgSpec, "--sink", "stdout:jsonl"});
    ASSERT_EQ(r.exitCode, 0) << example << ": " << r.err;
  }
  const std::vector<std::vector<std::string>> views = {
      {"nodes", "--format", "json", "--since", "3650d", "--now", "2026-11-30T00:00:00Z"},
      {"nodes", "--now", "2026-11-30T00:00:00Z"},
      {"nodes", "gpu-0007", "--format", "json", "--now", "2026-11-30T00:00:00Z"},
      {"nodes", "--suspect", "--format", "json", "--min-events", "1", "--min-score", "0.5", "--now", "2026-11-30T00:00:00Z"},
  };
  for (auto view : views) {
    auto withDb = [&](const std::string& db) {
      auto args = view;
      args.insert(args.end(), {"--db", db});
      return attrib(args);
    };
    auto fromSqlite = withDb(file), fromPostgres = withDb(pgSpec), fromSqliteSpec = withDb("sqlite:" + file);
    ASSERT_EQ(fromPostgres.exitCode, 0) << fromPostgres.err;
    ASSERT_EQ(fromSqlite.exitCode, 0) << fromSqlite.err;
    EXPECT_EQ(fromPostgres.out, fromSqlite.out) << view[1];
    EXPECT_EQ(fromSqliteSpec.out, fromSqlite.out);
    EXPECT_NE(fromPostgres.out.find("gpu-0007"), std::string::npos) << fromPostgres.out;
  }
  // A new diagnosis of another workload on the same node gets the same history from either.
  std::vector<std::string> diagnose = {"diagnose", std::string(ATTRIB_SOURCE_DIR) + "/examples/xid79-nccl-cascade", "--no-timings",
                                       "--history-db"};
  auto a = diagnose, b = diagnose;
  a.push_back(file);
  b.push_back(pgSpec);
  auto fromSqlite = attrib(a), fromPostgres = attrib(b);
  ASSERT_EQ(fromPostgres.exitCode, 0) << fromPostgres.err;
  EXPECT_EQ(fromPostgres.out, fromSqlite.out);
  EXPECT_NE(fromPostgres.out.find("\"history\""), std::string::npos) << fromPostgres.out;
  std::filesystem::remove_all(dir);
}

TEST_F(PostgresCli, AHistoryDatabaseItCannotUseIsOneLineExitOneAndNoPassword) {
  const std::string secret = server_->password();
  const std::string closed =
      "postgres:postgresql://attrib_admin:" + secret + "@127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/v";
  const std::string example = std::string(ATTRIB_SOURCE_DIR) + "/examples/xid79-nccl-cascade";
  struct Case {
    std::vector<std::string> args;
    int exit;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"nodes", "--db", closed}, 1, "the PostgreSQL verdict database: cannot connect to PostgreSQL at 127.0.0.1:"},
           {{"nodes", "--db", "postgres:" + server_->url(db_)}, 1, "is not an attrib verdict database"},
           {{"nodes", "--db", "postgres:host=127.0.0.1 password='" + secret}, 1, "PostgreSQL"},
           {{"nodes", "--db", "postgres:"}, 1, "postgres: wants a conninfo"},
           {{"diagnose", example, "--history-db", closed}, 1, "cannot connect to PostgreSQL"},
           {{"serve", "--listen", "127.0.0.1:0", "--no-jit", "--history-db", closed}, 1, "cannot connect to PostgreSQL"},
       }) {
    auto r = attrib(c.args);
    EXPECT_EQ(r.exitCode, c.exit) << c.message << ": " << r.err;
    EXPECT_EQ(r.err.rfind("attrib: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "") << "no verdict, no history before the database is open";
  }
  // The database it was pointed at is left without a table.
  pg::Error e;
  auto conn = pg::Connection::open(server_->url(db_), &e);
  ASSERT_TRUE(conn) << e.message;
  EXPECT_EQ(conn->exec("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").integer(0, 0), 0);
}

}  // namespace
}  // namespace attrib
