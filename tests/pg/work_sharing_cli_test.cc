// `attrib run` workers sharing one context through a PostgreSQL sink (a blueprint `postgres:`
// sink with its password in a file): two at once attribute every workload exactly once (the
// claims say so, and so does what they print); a third finds nothing to do; a wrong `postgres:`
// block is an error naming the file, line and key; an unusable database is one line without
// the password.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <thread>

#include "connectors/process.h"
#include "pg/connection.h"
#include "tests/connectors/loopback.h"
#include "tests/pg/fleet.h"
#include "tests/pg/postgres_fixture.h"

namespace attrib {
namespace {

namespace fs = std::filesystem;
using connectors::runProcess;

class WorkSharingCli : public testing::PostgresTest {
 protected:
  WorkSharingCli() : PostgresTest("share") {}
  void SetUp() override {
    PostgresTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    char tmpl[] = "/tmp/attrib-share-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    dir_ = tmpl;
    std::ofstream(dir_ / "pg.password") << server_->password() << "\n";
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  // The database without its password: the blueprint's password_file gives it.
  std::string bareUrl() const { return "postgresql://attrib_admin@127.0.0.1:" + std::to_string(server_->port()) + "/" + db_; }
  std::string postgresSink() const {
    return "  - postgres:\n      url: " + bareUrl() + "\n      password_file: pg.password\n";
  }
  connectors::ProcessResult attrib(std::vector<std::string> args) {
    args.insert(args.begin(), ATTRIB_PATH);
    connectors::ProcessOptions o;
    o.timeout = std::chrono::seconds(90);
    o.env = {{"ATTRIB_JIT_CACHE", ATTRIB_JIT_CACHE}, {"PGPASSWORD", ""}};
    return runProcess(args, o);
  }
  int64_t scalar(const std::string& sql) {
    pg::Error e;
    auto c = pg::Connection::open(url(), &e);
    EXPECT_TRUE(c) << e.message;
    if (!c) return -1;
    pg::Result r = c->exec(sql);
    EXPECT_TRUE(r.ok()) << r.error().message << ": " << sql;
    return r.ok() && r.rows() ? r.integer(0, 0) : -1;
  }
  fs::path dir_;
};

TEST_F(WorkSharingCli, TwoWorkersAttributeEveryWorkloadOnceAndAThirdFindsNothingToDo) {
  constexpr int kN = 60;
  testing::writeFleet(dir_, kN);
  fs::path bp = testing::writeFleetBlueprint(dir_, "blueprint.yaml", "  - stdout: {format: jsonl}\n" + postgresSink(),
                                             "watch:\n  batch: 4\n  lease: 30s\n");
  connectors::ProcessResult runs[2];
  std::thread workers[2];
  for (int w = 0; w < 2; ++w) {
    workers[w] = std::thread([&, w] { runs[w] = attrib({"run", "--config", bp.string(), "--watch", "--max-cycles", "1"}); });
  }
  for (auto& t : workers) t.join();
  std::map<std::string, int> printed;
  for (const auto& r : runs) {
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err.find(server_->password()), std::string::npos) << r.err;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) ++printed[nlohmann::json::parse(line)["workload"]["id"].get<std::string>()];
  }
  ASSERT_EQ(printed.size(), static_cast<size_t>(kN)) << runs[0].err << runs[1].err;
  for (const auto& [id, n] : printed) EXPECT_EQ(n, 1) << id << " was attributed " << n << " times";
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts WHERE root_symptom = 'gpu.xid.xid79'"), kN);
  EXPECT_EQ(scalar("SELECT count(*) FROM work_claims WHERE state = 'done' AND attributions = 1"), kN);
  EXPECT_EQ(scalar("SELECT sum(attributions) FROM work_claims"), kN);

  auto third = attrib({"run", "--config", bp.string()});
  ASSERT_EQ(third.exitCode, 0) << third.err;
  EXPECT_EQ(third.out, "");
  EXPECT_NE(third.err.find(fmt::format("{} workload(s) found, 0 attributed, {} already attributed, 0 failed", kN, kN)),
            std::string::npos)
      << third.err;
}

TEST_F(WorkSharingCli, AWrongPostgresSinkNamesTheFileLineAndKeyAndNeverThePassword) {
  testing::writeFleet(dir_, 1);
  std::string secret = server_->password();
  struct Case {
    std::string sinks, extra, expected;
  };
  const Case cases[] = {
      {"  - postgres: {}\n", "", "blueprint.yaml:10: sinks[0].postgres: 'url' or 'conninfo' is required (or ATTRIB_POSTGRES)"},
      {"  - postgres: {url: x, conninfo: y}\n", "", "blueprint.yaml:10: sinks[0].postgres: give 'url' or 'conninfo', not both"},
      {"  - postgres: {url: " + bareUrl() + ", pasword_file: p}\n", "", "sinks[0].postgres: unknown key 'pasword_file'"},
      {"  - postgres: {url: " + bareUrl() + ", password_file: missing}\n", "", "sinks[0].postgres: cannot read the secret file"},
      {"  - postgres: {conninfo: \"host=127.0.0.1 password='" + secret + "\"}\n", "",
       "sinks[0].postgres: the PostgreSQL connection string cannot be read"},
      {"  - postgres: {url: " + bareUrl() + ", max_bytes: -1}\n", "", "'max_bytes' must be a whole number of at least 1"},
      {postgresSink(), "watch:\n  lease: 10ms\n", "watch: 'lease' must be at least 100ms"},
      {postgresSink(), "watch:\n  batch: 0\n", "watch: 'batch' must be a whole number of at least 1"},
  };
  for (const Case& c : cases) {
    fs::path bp = testing::writeFleetBlueprint(dir_, "blueprint.yaml", c.sinks, c.extra);
    auto r = attrib({"run", "--config", bp.string()});
    EXPECT_EQ(r.exitCode, 1) << c.sinks << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // A database that does not answer, and a wrong password: one line, before any work.
  std::ofstream(dir_ / "wrong.password") << "not-" << secret << "\n";
  for (const std::string& sink :
       {"  - postgres:\n      url: postgresql://attrib_admin@127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) +
            "/x\n      password_file: pg.password\n",
        "  - postgres:\n      url: " + bareUrl() + "\n      password_file: wrong.password\n"}) {
    fs::path bp = testing::writeFleetBlueprint(dir_, "blueprint.yaml", "  - stdout: {format: jsonl}\n" + sink);
    auto r = attrib({"run", "--config", bp.string(), "--watch", "--max-cycles", "1"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.out, "") << "no verdict before the sink is open";
    EXPECT_NE(r.err.find("the PostgreSQL sink"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace attrib
