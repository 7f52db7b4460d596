// The PostgreSQL history reader (sinks/postgres_history.h) on databases the real PostgreSQL sink
// filled: the reader suite every HistoryReader passes (tests/history/history_reader_suite.h, run
// on SQLite by history_tests), then what only a server has: one it cannot reach, a lost
// connection, a password that never shows, and the Service's routes over it.
#include "sinks/postgres_history.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "pg/connection.h"
#include "service/service.h"
#include "sinks/postgres_sink.h"
#include "tests/connectors/loopback.h"
#include "tests/history/history_reader_suite.h"
#include "tests/pg/postgres_fixture.h"
#include "tests/runtime/engine_util.h"

namespace attrib::sinks {
namespace {

using attrib::testing::historyVerdict;
using attrib::testing::kHistoryDay;
using attrib::testing::kHistoryT0;

pg::Result query(const std::string& url, const std::string& sql) {
  pg::Error e;
  auto c = pg::Connection::open(url, &e);
  EXPECT_TRUE(c) << e.message;
  if (!c) return {};
  pg::Result r = c->exec(sql);
  EXPECT_TRUE(r.ok()) << r.error().message << ": " << sql;
  return r;
}

// A fresh database per test on the shared server; the foreign store is a second database.
class PostgresBackend {
 public:
  static constexpr const char* kName = "PostgreSQL";
  std::string setUp(const std::string& /*test*/, bool* skip) {
    std::string why = testing::freshPostgresDatabase("history", &server_, &db_, skip);
    if (!why.empty()) return why;
    foreign_ = "foreign_" + db_;
    return server_->createDatabase(foreign_);
  }
  void tearDown() {}
  bool store(const std::vector<runtime::Verdict>& verdicts, std::string* error) {
    auto sink = PostgresSink::open(url(), error);
    if (!sink) return false;
    for (const auto& v : verdicts) {
      if (!sink->write(v, error)) return false;
    }
    return true;
  }
  std::unique_ptr<history::HistoryReader> open(std::string* error) { return PostgresHistoryReader::open(url(), error); }
  void setSchemaVersion(int64_t version) {
    query(url(), "INSERT INTO schema_version(version) VALUES (" + std::to_string(version) + ")");
  }
  void makeForeign() { query(server_->url(foreign_), "CREATE TABLE t(x int)"); }
  std::unique_ptr<history::HistoryReader> openForeign(std::string* error) {
    auto r = PostgresHistoryReader::open(server_->url(foreign_), error);
    if (!r && error->find(server_->password()) != std::string::npos) *error = "the password leaked: " + *error;
    return r;
  }
  bool foreignUntouched() {
    pg::Result r = query(server_->url(foreign_), "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'");
    return r.ok() && r.text(0, 0) == "t";
  }
  // Every table's rows, in order: any write shows.
  std::string fingerprint() {
    std::string out;
    for (const char* t : {"schema_version", "workloads", "verdicts", "bad_nodes", "symptoms", "evidence", "connector_reports"}) {
      pg::Result r = query(url(), std::string("SELECT coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '-') FROM ") + t + " x");
      out += std::string(t) + "=" + (r.ok() ? r.text(0, 0) : "?") + ";";
    }
    pg::Result tables = query(url(), "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'");
    return out + (tables.ok() ? tables.text(0, 0) : "?");
  }
  std::string url() const { return server_->url(db_); }
  testing::PostgresServer* server_ = nullptr;
  std::string db_, foreign_;
};

}  // namespace
}  // namespace attrib::sinks

namespace attrib::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, HistoryReaderTest, ::testing::Types<attrib::sinks::PostgresBackend>);
}  // namespace attrib::testing

namespace attrib::sinks {
namespace {

class PostgresHistory : public testing::PostgresTest {
 protected:
  PostgresHistory() : PostgresTest("history") {}
  void store(const std::vector<runtime::Verdict>& verdicts) {
    std::string error;
    auto sink = PostgresSink::open(url(), &error);
    ASSERT_TRUE(sink) << error;
    for (const auto& v : verdicts) ASSERT_TRUE(sink->write(v, &error)) << error;
  }
};

TEST_F(PostgresHistory, AServerItCannotReachIsOneLineInBoundedTimeWithoutThePassword) {
  const std::string secret = server_->password();
  int closed = testing::freeLoopbackPort();
  std::string error;
  auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(PostgresHistoryReader::open("postgresql://attrib_admin:" + secret + "@127.0.0.1:" + std::to_string(closed) + "/v", &error));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(6));
  EXPECT_EQ(error.rfind("the PostgreSQL verdict database: cannot connect to PostgreSQL at 127.0.0.1:" + std::to_string(closed), 0), 0u)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
  // A database that does not exist, a wrong password, a conninfo that does not parse.
  EXPECT_FALSE(PostgresHistoryReader::open(server_->url("no_such_database"), &error));
  EXPECT_NE(error.find("\"no_such_database\" does not exist"), std::string::npos) << error;
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
  EXPECT_FALSE(PostgresHistoryReader::open(server_->conninfo(db_) + " password=" + secret + "x", &error));
  EXPECT_NE(error.find("password authentication failed"), std::string::npos) << error;
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
  EXPECT_FALSE(PostgresHistoryReader::open("host=127.0.0.1 password='" + secret, &error));
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST_F(PostgresHistory, AnEmptySchemaVersionHoldsNoVerdictsYetAndIsNotMigrated) {
  pg::Result r = query(url(), "CREATE TABLE schema_version(version BIGINT NOT NULL)");
  ASSERT_TRUE(r.ok());
  std::string error;
  EXPECT_FALSE(PostgresHistoryReader::open(url(), &error));
  EXPECT_NE(error.find("holds no verdicts yet (schema version 0)"), std::string::npos) << error;
  EXPECT_EQ(query(url(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").integer(0, 0), 1) << "nothing created";
}

TEST_F(PostgresHistory, AConnectionCutBetweenQueriesIsOpenedAgain) {
  store({historyVerdict("w1", "gpu-1", "accelerator-gpu", kHistoryT0)});
  std::string error;
  auto r = PostgresHistoryReader::open(url(), &error);
  ASSERT_TRUE(r) << error;
  std::vector<history::NodeEvent> events;
  ASSERT_TRUE(r->events({}, &events, &error)) << error;
  pg::Result killed = query(url(), "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                   "WHERE application_name = 'attrib history' AND datname = current_database()) k");
  ASSERT_EQ(killed.integer(0, 0), 1);
  events.clear();
  ASSERT_TRUE(r->events({}, &events, &error)) << error;
  EXPECT_EQ(events.size(), 1u);
}

TEST_F(PostgresHistory, AReaderSeesVerdictsStoredAfterItOpened) {
  store({historyVerdict("w1", "gpu-1", "accelerator-gpu", kHistoryT0)});
  std::string error;
  auto r = PostgresHistoryReader::open(url(), &error);
  ASSERT_TRUE(r) << error;
  std::vector<history::NodeEvent> events;
  ASSERT_TRUE(r->events({}, &events, &error)) << error;
  EXPECT_EQ(events.size(), 1u);
  store({historyVerdict("w2", "gpu-1", "accelerator-gpu", kHistoryT0 + 1)});  // the sink writes beside it
  events.clear();
  ASSERT_TRUE(r->events({}, &events, &error)) << error;
  EXPECT_EQ(events.size(), 2u);
}

// The Service's routes over the PostgreSQL reader, as `attrib serve --history-db postgres:...`
// wires them: the suspects, one node's history, and a store that fails under it.
TEST_F(PostgresHistory, TheServicesRoutesReadItAndAFailureIsAJsonErrorSayingSo) {
  std::vector<runtime::Verdict> verdicts;
  for (int i = 0; i < 3; ++i) verdicts.push_back(historyVerdict("w" + std::to_string(i), "gpu-07", "accelerator-gpu", kHistoryT0 - i * kHistoryDay));
  verdicts.push_back(historyVerdict("w9", "gpu 09/\xff", "network-fabric", kHistoryT0));
  store(verdicts);
  std::string error;
  service::ServiceOptions o;
  o.history = PostgresHistoryReader::open(url(), &error);
  ASSERT_TRUE(o.history) << error;
  service::Service s(testing::stdlibEngine(), o);
  httpd::Response all = s.call("GET", "/v1/nodes?suspect=true&now=2027-01-15T08:00:00Z", "");
  ASSERT_EQ(all.status, 200) << all.body;
  auto j = nlohmann::json::parse(all.body);
  ASSERT_EQ(j["nodes"].size(), 1u) << all.body;
  EXPECT_EQ(j["nodes"][0]["node"], "gpu-07");
  EXPECT_EQ(j["nodes"][0]["events"], 3);
  httpd::Response one = s.call("GET", "/v1/nodes/gpu%2009%2F%FF/history?now=2027-01-15T08:00:00Z", "");
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(nlohmann::json::parse(one.body)["failures"], 1) << "a name with bytes that are not UTF-8 is found as stored";
  query(url(), "DROP TABLE bad_nodes");
  for (const char* target : {"/v1/nodes", "/v1/nodes/gpu-07/history"}) {
    httpd::Response r = s.call("GET", target, "");
    EXPECT_EQ(r.status, 503) << r.body;
    auto err = nlohmann::json::parse(r.body, nullptr, false);
    EXPECT_EQ(err["error"]["code"], "history_unavailable") << r.body;
    EXPECT_EQ(err["error"]["message"], "the history store could not be read") << r.body;
    EXPECT_EQ(r.body.find(db_), std::string::npos) << "the store's own message stays in the server: " << r.body;
  }
}

}  // namespace
}  // namespace attrib::sinks
