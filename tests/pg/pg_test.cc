// attrib_pg against a real PostgreSQL 15 started on 127.0.0.1 (tests/pg/postgres_server.h):
// parameterised statements carry any value verbatim, transactions commit or roll back, errors
// carry their SQLSTATE in one line, and no password ever shows in a message.
#include "pg/connection.h"

#include <gtest/gtest.h>

#include <chrono>

#include "tests/connectors/loopback.h"
#include "tests/pg/postgres_fixture.h"

namespace attrib::pg {
namespace {

class PgTest : public testing::PostgresTest {
 protected:
  PgTest() : PostgresTest("pg") {}
  std::unique_ptr<Connection> connect() {
    Error e;
    auto c = Connection::open(server_->url(db_), &e);
    EXPECT_TRUE(c) << e.message;
    return c;
  }
};

TEST_F(PgTest, ParametersCarryAnyValueVerbatim) {
  auto c = connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->exec("CREATE TABLE t(s TEXT, n BIGINT, d DOUBLE PRECISION)").ok());
  const std::string hostile = "x'); DROP TABLE t; -- \"quoted\" \\ back\nslash ü";
  Result ins = c->exec("INSERT INTO t VALUES ($1, $2, $3)", {hostile, int64_t{-9'000'000'000'000'000'000}, 0.1});
  ASSERT_TRUE(ins.ok()) << ins.error().message;
  EXPECT_EQ(ins.affected(), 1);
  ASSERT_TRUE(c->exec("INSERT INTO t VALUES ($1, $2, $3)", {std::nullopt, std::optional<int64_t>(), optionalText("")}).ok());
  Result r = c->exec("SELECT s, n, d::text FROM t ORDER BY n NULLS LAST");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r.rows(), 2);
  EXPECT_EQ(r.text(0, 0), hostile);
  EXPECT_EQ(r.integer(0, 1), -9'000'000'000'000'000'000);
  EXPECT_EQ(r.text(0, 2), "0.1");
  EXPECT_TRUE(r.isNull(1, 0));
  EXPECT_TRUE(r.isNull(1, 1));
  EXPECT_TRUE(r.isNull(1, 2));
  // The same through keyword=value.
  Error e;
  auto kv = Connection::open(server_->conninfo(db_), &e);
  ASSERT_TRUE(kv) << e.message;
  EXPECT_EQ(kv->exec("SELECT count(*) FROM t").integer(0, 0), 2);
  EXPECT_EQ(kv->describe(), "127.0.0.1:" + std::to_string(server_->port()) + "/" + db_ + " as attrib_admin");
}

TEST_F(PgTest, TransactionsCommitOrRollBack) {
  auto c = connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->exec("CREATE TABLE t(k TEXT PRIMARY KEY)").ok());
  {
    Transaction tx(*c);
    ASSERT_TRUE(tx.begun().ok());
    ASSERT_TRUE(c->exec("INSERT INTO t VALUES ($1)", {"kept"}).ok());
    ASSERT_TRUE(tx.commit().ok());
  }
  {
    Transaction tx(*c);
    ASSERT_TRUE(c->exec("INSERT INTO t VALUES ($1)", {"dropped"}).ok());
  }  // no commit: rolled back
  {
    Transaction tx(*c);
    ASSERT_TRUE(c->exec("INSERT INTO t VALUES ($1)", {"also dropped"}).ok());
    Result dup = c->exec("INSERT INTO t VALUES ($1)", {"kept"});
    ASSERT_FALSE(dup.ok());
    EXPECT_EQ(dup.error().sqlstate, "23505");
    EXPECT_NE(dup.error().message.find("duplicate key value"), std::string::npos) << dup.error().message;
    EXPECT_EQ(dup.error().message.find('\n'), std::string::npos);
    Result after = c->exec("SELECT 1");
    EXPECT_EQ(after.error().sqlstate, "25P02") << "an aborted transaction refuses until it ends";
  }
  Result r = c->exec("SELECT string_agg(k, ',') FROM t");
  EXPECT_EQ(r.text(0, 0), "kept");
  Result bad = c->exec("SELEC 1");
  EXPECT_EQ(bad.error().sqlstate, "42601");
  EXPECT_TRUE(c->healthy());
}

TEST_F(PgTest, PasswordsNeverAppearInErrors) {
  const std::string& secret = server_->password();
  Error e;
  // The right user with a wrong password whose text we then look for.
  std::string wrong = "host=127.0.0.1 port=" + std::to_string(server_->port()) + " user=attrib_admin dbname=" + db_ +
                      " password=" + secret + "-wrong";
  EXPECT_FALSE(Connection::open(wrong, &e));
  EXPECT_NE(e.message.find("password authentication failed"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find(secret), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find('\n'), std::string::npos) << e.message;
  // Unreadable conninfos: libpq quotes what it could not read; we do not.
  for (const std::string& bad : {"host=127.0.0.1 password='" + secret, "host=127.0.0.1 " + secret,
                                 "postgresql://u:" + secret + "@127.0.0.1:notaport/db?x=%zz" + secret}) {
    Error p;
    EXPECT_FALSE(Connection::open(bad, &p));
    EXPECT_FALSE(p.message.empty());
    EXPECT_EQ(p.message.find(secret), std::string::npos) << p.message;
    EXPECT_EQ(p.message.find(secret.substr(3, 8)), std::string::npos) << p.message;
  }
  // A good connection's errors, and its description.
  auto c = connect();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->describe().find(secret), std::string::npos);
  Result r = c->exec("SELECT $1::int", {secret});  // the server quotes the bad value
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().sqlstate, "22P02");
  EXPECT_EQ(r.error().message.find(secret), std::string::npos) << r.error().message;
  EXPECT_EQ(describeConninfo(server_->url(db_)).find(secret), std::string::npos);
}

TEST_F(PgTest, AnUnreachableServerIsAClearErrorInBoundedTime) {
  int closed = testing::freeLoopbackPort();  // nothing listens there
  Error e;
  auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(Connection::open("postgresql://attrib_admin:" + server_->password() + "@127.0.0.1:" + std::to_string(closed) + "/x", &e));
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_LT(took, std::chrono::seconds(6));
  EXPECT_NE(e.message.find("cannot connect to PostgreSQL at 127.0.0.1:" + std::to_string(closed) + "/x as attrib_admin"),
            std::string::npos) << e.message;
  EXPECT_NE(e.message.find("refused"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find('\n'), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find(server_->password()), std::string::npos) << e.message;
  EXPECT_TRUE(e.sqlstate.empty());
}

}  // namespace
}  // namespace attrib::pg
