// The attrib command line with PostgreSQL (tests/pg/postgres_server.h): `diagnose --sink
// postgres:URL` stores the verdict, twice stays one; an unreachable database or a bad conninfo is
// one line on stderr, exit 1, before any work and without the password; `serve --sessions
// postgres:...` refuses to start the same way.
#include <gtest/gtest.h>

#include "connectors/process.h"
#include "pg/connection.h"
#include "tests/connectors/loopback.h"
#include "tests/pg/postgres_server.h"

namespace attrib {
namespace {

using connectors::runProcess;

class PostgresCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    server_ = &testing::sharedPostgres(&why);
    if (server_->missing()) GTEST_SKIP() << why;
    ASSERT_EQ(why, "");
    db_ = std::string("cli_") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(server_->createDatabase(db_), "");
  }
  connectors::ProcessResult attrib(std::vector<std::string> args) {
    args.insert(args.begin(), ATTRIB_PATH);
    connectors::ProcessOptions o;
    o.timeout = std::chrono::seconds(60);
    o.env = {{"ATTRIB_JIT_CACHE", ATTRIB_JIT_CACHE}};
    return runProcess(args, o);
  }
  testing::PostgresServer* server_ = nullptr;
  std::string db_;
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

}  // namespace
}  // namespace attrib
