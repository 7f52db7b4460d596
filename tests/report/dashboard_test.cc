// The dashboard over a database the SQLite sink wrote with the verdicts of every scenario: its
// pages give what SQL on the database gives, it never writes, bounds its queries, escapes what
// it reads, and refuses what it cannot read. (The same pages in a browser: tests/browser.)
#include "report/dashboard.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "report/html.h"
#include "sinks/sqlite_sink.h"
#include "tests/runtime/engine_util.h"
#include "tests/runtime/workload_dirs.h"

namespace attrib::report {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Rows of a query run directly on the database, each as "a|b|c".
std::vector<std::string> sql(const fs::path& db, const std::string& query) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  std::vector<std::string> rows;
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, query.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    std::string row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      const unsigned char* t = sqlite3_column_text(st, i);
      row += (i ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "");
    }
    rows.push_back(row);
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return rows;
}

// "a|b|c" for every <tr> of table `id` that has the data attributes `keys`.
std::vector<std::string> tableRows(const std::string& page, const std::string& id, const std::vector<std::string>& keys) {
  size_t start = page.find("<table id=\"" + id + "\"");
  size_t end = page.find("</table>", start);
  EXPECT_NE(start, std::string::npos) << id;
  std::string table = page.substr(start, end - start);
  std::vector<std::string> rows;
  std::regex tr("<tr ([^>]*)>");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), tr); it != std::sregex_iterator(); ++it) {
    std::string attrs = (*it)[1], row;
    for (size_t k = 0; k < keys.size(); ++k) {
      std::smatch m;
      std::string a = attrs;
      if (!std::regex_search(a, m, std::regex("data-" + keys[k] + "=\"([^\"]*)\""))) return rows;
      row += (k ? "|" : "") + std::string(m[1]);
    }
    rows.push_back(row);
  }
  return rows;
}

class DashboardTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("attrib_dashboard_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = dir_ / "verdicts.db";
    auto engine = attrib::testing::stdlibEngine();
    ASSERT_TRUE(engine);
    std::string error;
    auto sink = sinks::SqliteSink::open(db_.string(), &error);
    ASSERT_TRUE(sink) << error;
    for (const auto& d : attrib::testing::workloadDirs()) {
      ASSERT_TRUE(sink->write(engine->diagnose(attrib::testing::evidenceOf(d)), &error)) << error;
    }
    // A hostile workload id and node: what the pages show is escaped.
    runtime::Verdict v;
    v.workload.id = "slurm/<script>alert(1)</script>";
    v.workload.state = ir::State::Failed;
    v.workload.end = 1'795'903'600'000'000'000;
    v.outcomes.push_back({"x.o", "storage", "t", {}, 0.5});
    v.badNodes.push_back({"n\"><b>", {"x.s"}});
    v.rulesetDigest = "sha256:0";
    ASSERT_TRUE(sink->write(v, &error)) << error;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static DashboardResponse get(Dashboard& d, const std::string& path, std::map<std::string, std::string> query = {}) {
    DashboardRequest r;
    r.path = path;
    r.query = std::move(query);
    return d.handle(r);
  }

  static fs::path dir_, db_;
};
fs::path DashboardTest::dir_, DashboardTest::db_;

TEST_F(DashboardTest, FailuresPerFamilyAndTheMostBlamedNodesAreWhatSqlSays) {
  std::string error;
  auto d = Dashboard::open(db_.string(), &error);
  ASSERT_TRUE(d) << error;
  DashboardResponse page = get(*d, "/", {{"days", "366"}});
  ASSERT_EQ(page.status, 200) << page.body;
  // Failures per family over the window, by the workload's end.
  std::vector<std::string> want = sql(db_, R"sql(
SELECT v.family, count(*) FROM verdicts v JOIN workloads w USING (workload_id, ruleset_digest)
WHERE w.state <> 'COMPLETED' AND coalesce(w.end_ns, v.created_ns) >= (unixepoch('now') - 366 * 86400) * 1000000000
GROUP BY v.family ORDER BY count(*) DESC, v.family)sql");
  ASSERT_GE(want.size(), 10u);
  std::vector<std::string> got = tableRows(page.body, "families", {"family", "count"});
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  std::vector<std::string> perDay = sql(db_, R"sql(
SELECT date(coalesce(w.end_ns, v.created_ns) / 1000000000, 'unixepoch') AS day, v.family, count(*)
FROM verdicts v JOIN workloads w USING (workload_id, ruleset_digest)
WHERE w.state <> 'COMPLETED' AND coalesce(w.end_ns, v.created_ns) >= (unixepoch('now') - 366 * 86400) * 1000000000
GROUP BY day, v.family ORDER BY day DESC, count(*) DESC, v.family)sql");
  got = tableRows(page.body, "families-per-day", {"day", "family", "count"});
  EXPECT_EQ(got, perDay);
  // The nodes blamed most this week (docs/sinks.md's query).
  want = sql(db_, R"sql(
SELECT b.node, count(*) AS verdicts FROM bad_nodes b JOIN verdicts v USING (verdict_id)
WHERE v.created_ns >= (unixepoch('now') - 7 * 86400) * 1000000000
GROUP BY b.node ORDER BY verdicts DESC, b.node LIMIT 20)sql");
  ASSERT_GE(want.size(), 10u);
  got = tableRows(page.body, "blamed-nodes", {"node", "count"});
  for (auto& row : want) row = html::escape(row);
  EXPECT_EQ(got, want);
  EXPECT_NE(page.body.find("<table id=\"largest\""), std::string::npos);
  EXPECT_NE(page.body.find("<table id=\"slowest\""), std::string::npos);
}

TEST_F(DashboardTest, TheVerdictListFiltersAndLinksToEachReport) {
  std::string error;
  auto d = Dashboard::open(db_.string(), &error);
  ASSERT_TRUE(d) << error;
  DashboardResponse all = get(*d, "/verdicts", {{"limit", "500"}});
  ASSERT_EQ(all.status, 200);
  auto ids = tableRows(all.body, "verdicts", {"verdict"});
  EXPECT_EQ(ids.size(), std::stoul(sql(db_, "SELECT count(*) FROM verdicts").at(0)));
  auto family = tableRows(get(*d, "/verdicts", {{"family", "accelerator-gpu"}}).body, "verdicts", {"verdict"});
  auto want = sql(db_, "SELECT verdict_id FROM verdicts WHERE family = 'accelerator-gpu' ORDER BY created_ns DESC, verdict_id DESC");
  EXPECT_EQ(family, want);
  EXPECT_EQ(tableRows(get(*d, "/verdicts", {{"limit", "3"}}).body, "verdicts", {"verdict"}).size(), 3u);
  EXPECT_EQ(tableRows(get(*d, "/verdicts", {{"limit", "100000"}}).body, "verdicts", {"verdict"}).size(), ids.size())
      << "the limit is bounded by maxRows (500), and there are fewer";
  std::string node = sql(db_, "SELECT node FROM bad_nodes ORDER BY node LIMIT 1").at(0);
  auto byNode = tableRows(get(*d, "/verdicts", {{"node", node}}).body, "verdicts", {"verdict"});
  EXPECT_EQ(byNode, sql(db_, "SELECT verdict_id FROM bad_nodes JOIN verdicts USING (verdict_id) WHERE node = '" + node +
                                 "' ORDER BY created_ns DESC, verdict_id DESC"));

  std::string id = want.at(0);
  DashboardResponse report = get(*d, "/verdicts/" + id);
  ASSERT_EQ(report.status, 200);
  std::string root = sql(db_, "SELECT root_symptom FROM verdicts WHERE verdict_id = " + id).at(0);
  EXPECT_NE(report.body.find("<code>" + root + "</code>"), std::string::npos);
  EXPECT_NE(report.body.find("id=\"timeline-svg\""), std::string::npos);
  DashboardResponse json = get(*d, "/verdicts/" + id + ".json");
  EXPECT_EQ(json.contentType, "application/json");
  EXPECT_EQ(json.body, sql(db_, "SELECT verdict_json FROM verdicts WHERE verdict_id = " + id).at(0));
  EXPECT_EQ(get(*d, "/verdicts/999999").status, 404);
  EXPECT_EQ(get(*d, "/verdicts/1x").status, 404);
  EXPECT_EQ(get(*d, "/nope").status, 404);
}

TEST_F(DashboardTest, ItNeverWritesAndEscapesWhatItReads) {
  std::string before = slurp(db_);
  std::string error;
  auto d = Dashboard::open(db_.string(), &error);
  ASSERT_TRUE(d) << error;
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH"}) {
    DashboardRequest r;
    r.method = method;
    r.path = "/verdicts";
    EXPECT_EQ(d->handle(r).status, 405) << method;
  }
  DashboardResponse page = get(*d, "/verdicts", {{"q", "<script>"}});
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.body.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.body.find("slurm/&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(tableRows(page.body, "verdicts", {"verdict"}).size(), 1u);
  EXPECT_EQ(get(*d, "/").body.find("n\"><b>"), std::string::npos);
  get(*d, "/", {{"days", "-5"}});
  get(*d, "/verdicts", {{"family", "'; DROP TABLE verdicts; --"}});
  d.reset();
  EXPECT_EQ(slurp(db_), before) << "the database file changed";
  EXPECT_FALSE(sql(db_, "SELECT count(*) FROM verdicts").empty());
}

TEST_F(DashboardTest, QueriesAreBoundedInTime) {
  DashboardOptions options;
  options.queryTimeout = std::chrono::milliseconds(0);
  std::string error;
  auto d = Dashboard::open(db_.string(), &error, options);
  ASSERT_TRUE(d) << error;
  DashboardResponse page = get(*d, "/", {{"days", "366"}});
  EXPECT_EQ(page.status, 503);
  EXPECT_NE(page.body.find("the query took longer than 0 ms; narrow the filters"), std::string::npos);
}

TEST_F(DashboardTest, WhatItCannotReadIsRefusedWithOneLine) {
  std::string error;
  fs::path missing = dir_ / "missing.db";
  EXPECT_FALSE(Dashboard::open(missing.string(), &error));
  EXPECT_NE(error.find("cannot open the verdict database"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(missing)) << "opening read-only never creates";
  fs::path other = dir_ / "other.db";
  {
    sqlite3* h = nullptr;
    sqlite3_open(other.c_str(), &h);
    sqlite3_exec(h, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
  EXPECT_FALSE(Dashboard::open(other.string(), &error));
  EXPECT_NE(error.find("is not an attrib verdict database"), std::string::npos) << error;
  fs::path newer = dir_ / "newer.db";
  fs::copy_file(db_, newer);
  {
    sqlite3* h = nullptr;
    sqlite3_open(newer.c_str(), &h);
    sqlite3_exec(h, "INSERT INTO schema_version(version) VALUES (9)", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
  EXPECT_FALSE(Dashboard::open(newer.string(), &error));
  EXPECT_NE(error.find("has schema version 9, newer than this attrib's 1"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace attrib::report
