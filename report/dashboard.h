// The dashboard: read-only pages over the SQLite sink's database (docs/sinks.md has the schema,
// docs/report.md the pages). No HTTP here: a request goes in, a page comes out, so any server
// can carry it (today tools/attrib binds it to cpp-httplib, as the Service is).
//
// Pages (GET or HEAD; anything else is 405):
//   /                      failures per family per day, the most-blamed nodes this week with
//                          their recent verdicts, the largest and the slowest workloads
//   /verdicts              the verdicts, newest first, filtered by family, outcome, node, state,
//                          workload (q, a substring) and age (days); a filter box narrows the rows
//   /verdicts/ID           that verdict's report (report/report.h)
//   /verdicts/ID.json      that verdict, as stored
//
// Guarantees: the database is opened read-only (SQLITE_OPEN_READONLY and query_only), so no
// request can change it; every query is bounded by a row limit and by a deadline (a query still
// running after `queryTimeout` is interrupted and the page says so: 503); parameters are bound,
// never spliced into SQL; every value from the database is escaped. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

struct sqlite3;

namespace attrib::report {

struct DashboardOptions {
  std::chrono::milliseconds queryTimeout{2000};
  size_t maxRows = 500;                       // the most rows a list shows
  std::string generator = "attrib";           // footer and reports
  // Now, in nanoseconds since the epoch (0: the clock): "this week" is counted back from it.
  int64_t now = 0;
};

struct DashboardRequest {
  std::string method = "GET";
  std::string path;                          // decoded, without the query string
  std::map<std::string, std::string> query;  // decoded parameters
};

struct DashboardResponse {
  int status = 200;
  std::string contentType = "text/html; charset=utf-8";
  std::string body;
};

class Dashboard {
 public:
  // Opens the database at `path` read-only; nullptr with a one-line `error` when it cannot be
  // opened, is not an attrib database, or has a schema newer than this dashboard reads.
  static std::unique_ptr<Dashboard> open(const std::string& path, std::string* error, DashboardOptions options = {});
  ~Dashboard();
  Dashboard(const Dashboard&) = delete;
  Dashboard& operator=(const Dashboard&) = delete;

  DashboardResponse handle(const DashboardRequest& request);

  static constexpr int kSchemaVersion = 1;  // the sink's schema this dashboard reads

 private:
  Dashboard(sqlite3* db, DashboardOptions options) : db_(db), options_(std::move(options)) {}
  DashboardResponse overview(const DashboardRequest& request);
  DashboardResponse verdicts(const DashboardRequest& request);
  DashboardResponse verdict(const std::string& id, bool json);
  int64_t now() const;

  sqlite3* db_;
  DashboardOptions options_;
  std::mutex mu_;  // one connection, one query at a time
};

}  // namespace attrib::report
