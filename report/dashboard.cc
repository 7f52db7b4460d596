#include "report/dashboard.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "ir/civil_time.h"
#include "report/assets.h"
#include "report/html.h"
#include "report/report.h"
#include "runtime/verdict_json.h"

namespace attrib::report {
namespace {

using html::Writer;
constexpr int64_t kDayNs = 86'400'000'000'000;

struct Interrupted {};
struct QueryFailed {
  std::string message;
};

// One prepared statement, run under the dashboard's deadline (the progress handler interrupts it).
class Query {
 public:
  Query(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) throw QueryFailed{sqlite3_errmsg(db)};
  }
  ~Query() { sqlite3_finalize(stmt_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  Query& bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Query& bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  bool next() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    if (rc == SQLITE_INTERRUPT) throw Interrupted{};
    throw QueryFailed{sqlite3_errmsg(db_)};
  }
  std::string text(int col) {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : "";
  }
  int64_t integer(int col) { return sqlite3_column_int64(stmt_, col); }
  double real(int col) { return sqlite3_column_double(stmt_, col); }
  bool null(int col) { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

struct Deadline {
  std::chrono::steady_clock::time_point at;
};

int onProgress(void* data) { return std::chrono::steady_clock::now() > static_cast<Deadline*>(data)->at ? 1 : 0; }

std::string minute(int64_t ns) {
  std::string t = formatTimestamp(ns);
  return t.size() >= 16 ? t.substr(0, 10) + " " + t.substr(11, 5) : t;
}

std::optional<int64_t> number(const std::map<std::string, std::string>& q, const std::string& key) {
  auto it = q.find(key);
  if (it == q.end() || it->second.empty()) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  if (ec != std::errc() || end != it->second.data() + it->second.size()) return std::nullopt;
  return v;
}

std::string param(const std::map<std::string, std::string>& q, const std::string& key) {
  auto it = q.find(key);
  return it == q.end() ? "" : it->second;
}

std::string urlEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string verdictLink(int64_t id) { return fmt::format("/verdicts/{}", id); }

// The frame of every dashboard page.
std::string page(const std::string& title, const std::string& body, const std::string& generator, bool filterScript) {
  Writer w;
  w.raw("<!DOCTYPE html>\n");
  w.open("html", {{"lang", "en"}});
  w.open("head");
  w.empty("meta", {{"charset", "utf-8"}});
  std::vector<std::string_view> scripts;
  if (filterScript) scripts.push_back(kTableFilterScript);
  w.empty("meta", {{"http-equiv", "Content-Security-Policy"}, {"content", contentSecurityPolicy(kStyle, scripts)}});
  w.empty("meta", {{"name", "viewport"}, {"content", "width=device-width, initial-scale=1"}});
  w.element("title", title);
  w.open("style").raw(kStyle).close();
  w.close();
  w.open("body");
  w.open("nav", {{"class", "top"}});
  w.element("a", {{"href", "/"}}, "attrib dashboard");
  w.element("a", {{"href", "/verdicts"}}, "verdicts");
  w.close();
  w.open("main").raw(body);
  w.element("footer", fmt::format("{} · read-only view of the verdict database", generator));
  w.close();
  if (filterScript) w.open("script").raw(kTableFilterScript).close();
  return w.take() + "\n";
}

DashboardResponse error(int status, const std::string& message, const std::string& generator) {
  Writer w;
  w.element("h1", status == 404 ? "Not found" : status == 405 ? "Method not allowed" : "Error");
  w.element("p", {{"class", "error"}}, message);
  return {status, "text/html; charset=utf-8", page("attrib: " + message, w.take(), generator, false)};
}

// Where a verdict's stats are in its JSON, for the largest/slowest tables.
constexpr const char* kElapsed =
    "coalesce(json_extract(v.verdict_json, '$.stats.elapsed_ms.collect'), 0) + "
    "coalesce(json_extract(v.verdict_json, '$.stats.elapsed_ms.scan'), 0) + "
    "coalesce(json_extract(v.verdict_json, '$.stats.elapsed_ms.refine'), 0)";

}  // namespace

std::unique_ptr<Dashboard> Dashboard::open(const std::string& path, std::string* error, DashboardOptions options) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    *error = fmt::format("cannot open the verdict database {}: {}", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return nullptr;
  }
  std::unique_ptr<Dashboard> d(new Dashboard(db, std::move(options)));
  sqlite3_busy_timeout(db, 2000);
  sqlite3_exec(db, "PRAGMA query_only=ON", nullptr, nullptr, nullptr);
  try {
    Query v(db, "SELECT max(version) FROM schema_version");
    int64_t version = v.next() ? v.integer(0) : 0;
    if (version > kSchemaVersion) {
      *error = fmt::format("the verdict database {} has schema version {}, newer than this attrib's {}; use a newer attrib",
                           path, version, kSchemaVersion);
      return nullptr;
    }
    if (version < 1) {
      *error = fmt::format("{} holds no verdicts yet (schema version {})", path, version);
      return nullptr;
    }
  } catch (const QueryFailed& e) {
    *error = fmt::format("{} is not an attrib verdict database ({})", path, e.message);
    return nullptr;
  }
  return d;
}

Dashboard::~Dashboard() { sqlite3_close(db_); }

int64_t Dashboard::now() const {
  if (options_.now) return options_.now;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

DashboardResponse Dashboard::handle(const DashboardRequest& request) {
  if (request.method != "GET" && request.method != "HEAD") {
    return error(405, "the dashboard is read-only: only GET and HEAD", options_.generator);
  }
  std::lock_guard<std::mutex> lock(mu_);
  Deadline deadline{std::chrono::steady_clock::now() + options_.queryTimeout};
  sqlite3_progress_handler(db_, 1000, onProgress, &deadline);
  DashboardResponse out;
  try {
    const std::string& p = request.path;
    if (p == "/" || p.empty()) {
      out = overview(request);
    } else if (p == "/verdicts" || p == "/verdicts/") {
      out = verdicts(request);
    } else if (p.rfind("/verdicts/", 0) == 0) {
      std::string id = p.substr(10);
      bool json = id.size() > 5 && id.compare(id.size() - 5, 5, ".json") == 0;
      if (json) id.resize(id.size() - 5);
      out = verdict(id, json);
    } else {
      out = error(404, "no such page", options_.generator);
    }
  } catch (const Interrupted&) {
    out = error(503, fmt::format("the query took longer than {} ms; narrow the filters", options_.queryTimeout.count()),
                options_.generator);
  } catch (const QueryFailed& e) {
    out = error(500, "the database could not be read: " + e.message, options_.generator);
  }
  sqlite3_progress_handler(db_, 0, nullptr, nullptr);
  return out;
}

DashboardResponse Dashboard::overview(const DashboardRequest& request) {
  int64_t days = std::clamp<int64_t>(number(request.query, "days").value_or(90), 1, 366);
  int64_t t = now();
  int64_t weekAgo = t - 7 * kDayNs, since = t - days * kDayNs;
  Writer w;
  {
    Query q(db_, "SELECT count(*), max(created_ns) FROM verdicts");
    q.next();
    w.element("h1", "Verdicts");
    w.element("p", {{"class", "muted"}},
              fmt::format("{} verdict(s) stored{}.", q.integer(0), q.null(1) ? "" : ", the last attributed " + minute(q.integer(1)) + " UTC"));
  }

  // Failures (every workload that did not complete) per family: in all, and per day.
  w.element("h2", fmt::format("Failures per family, last {} days (by the workload's end)", days));
  struct Cell {
    std::string day, family;
    int64_t count;
  };
  std::vector<Cell> cells;
  {
    Query q(db_, R"sql(
SELECT date(coalesce(w.end_ns, v.created_ns) / 1000000000, 'unixepoch') AS day, v.family, count(*) AS n
FROM verdicts v JOIN workloads w USING (workload_id, ruleset_digest)
WHERE w.state <> 'COMPLETED' AND coalesce(w.end_ns, v.created_ns) >= ?1
GROUP BY day, v.family ORDER BY day DESC, n DESC, v.family LIMIT ?2)sql");
    q.bind(1, since).bind(2, static_cast<int64_t>(366 * 20));
    while (q.next()) cells.push_back({q.text(0), q.text(1), q.integer(2)});
  }
  std::map<std::string, int64_t> perFamily;
  for (const auto& c : cells) perFamily[c.family] += c.count;
  std::vector<std::pair<std::string, int64_t>> families(perFamily.begin(), perFamily.end());
  std::stable_sort(families.begin(), families.end(), [](auto& a, auto& b) { return a.second > b.second; });
  int64_t most = families.empty() ? 1 : families.front().second;
  w.open("table", {{"id", "families"}});
  w.raw("<thead><tr><th>family</th><th>failures</th><th></th></tr></thead><tbody>");
  for (const auto& [family, count] : families) {
    w.open("tr", {{"data-family", family}, {"data-count", std::to_string(count)}});
    w.open("td").element("a", {{"href", "/verdicts?family=" + urlEncode(family)}}, family).close();
    w.element("td", {{"class", "n"}}, std::to_string(count));
    w.open("td").raw(fmt::format("<svg width=\"200\" height=\"10\"><rect width=\"{}\" height=\"10\" fill=\"#2456a6\"></rect></svg>",
                                 html::num(200.0 * static_cast<double>(count) / static_cast<double>(most))));
    w.close().close();
  }
  if (families.empty()) w.raw("<tr><td colspan=\"3\" class=\"muted\">no failures in this window</td></tr>");
  w.raw("</tbody>");
  w.close();
  w.open("details");
  w.element("summary", "per day");
  w.open("table", {{"id", "families-per-day"}});
  w.raw("<thead><tr><th>day</th><th>family</th><th>failures</th></tr></thead><tbody>");
  for (auto it = cells.begin(); it != cells.end(); ++it) {
    w.open("tr", {{"data-day", it->day}, {"data-family", it->family}, {"data-count", std::to_string(it->count)}});
    w.element("td", {{"class", "mono"}}, it->day);
    w.element("td", it->family);
    w.element("td", {{"class", "n"}}, std::to_string(it->count));
    w.close();
  }
  w.raw("</tbody>");
  w.close().close();

  // Repeat offenders: the nodes blamed most this week, each with its latest verdicts.
  w.element("h2", "Nodes blamed most this week (by attribution time)");
  w.open("table", {{"id", "blamed-nodes"}});
  w.raw("<thead><tr><th>node</th><th>verdicts</th><th>recent verdicts</th></tr></thead><tbody>");
  {
    Query q(db_, R"sql(
SELECT b.node, count(*) AS n FROM bad_nodes b JOIN verdicts v USING (verdict_id)
WHERE v.created_ns >= ?1 GROUP BY b.node ORDER BY n DESC, b.node LIMIT 20)sql");
    q.bind(1, weekAgo);
    bool any = false;
    while (q.next()) {
      any = true;
      std::string node = q.text(0);
      w.open("tr", {{"data-node", node}, {"data-count", std::to_string(q.integer(1))}});
      w.open("td", {{"class", "mono"}}).element("a", {{"href", "/verdicts?node=" + urlEncode(node)}}, node).close();
      w.element("td", {{"class", "n"}}, std::to_string(q.integer(1)));
      w.open("td");
      Query r(db_, R"sql(
SELECT v.verdict_id, v.workload_id, coalesce(v.outcome, 'unknown'), v.family, v.created_ns
FROM bad_nodes b JOIN verdicts v USING (verdict_id)
WHERE b.node = ?1 ORDER BY v.created_ns DESC, v.verdict_id DESC LIMIT 5)sql");
      r.bind(1, node);
      bool first = true;
      while (r.next()) {
        if (!first) w.raw("<br>");
        first = false;
        w.element("a", {{"href", verdictLink(r.integer(0))}, {"class", "verdict-link"}}, r.text(1));
        w.text(fmt::format(" {} [{}] {}", r.text(2), r.text(3), minute(r.integer(4))));
      }
      w.close().close();
    }
    if (!any) w.raw("<tr><td colspan=\"3\" class=\"muted\">no node was blamed this week</td></tr>");
  }
  w.raw("</tbody>");
  w.close();

  // The largest and the slowest workloads attributed in the window.
  auto workloads = [&](const char* id, const std::string& heading, const std::string& order) {
    w.element("h2", heading);
    w.open("table", {{"id", id}});
    w.raw("<thead><tr><th>workload</th><th>outcome</th><th>nodes</th><th>lines</th><th>bytes</th><th>attribution ms</th>"
          "<th>ran for</th></tr></thead><tbody>");
    std::string sql = fmt::format(R"sql(
SELECT v.verdict_id, v.workload_id, coalesce(v.outcome, 'unknown'), json_array_length(w.nodes_json),
       coalesce(json_extract(v.verdict_json, '$.stats.lines_scanned'), 0),
       coalesce(json_extract(v.verdict_json, '$.stats.bytes_scanned'), 0), {0}, w.end_ns - w.start_ns
FROM verdicts v JOIN workloads w USING (workload_id, ruleset_digest)
WHERE v.created_ns >= ?1 ORDER BY {1} DESC, v.verdict_id LIMIT 10)sql",
                                  kElapsed, order);
    Query q(db_, sql.c_str());
    q.bind(1, since);
    while (q.next()) {
      w.open("tr");
      w.open("td", {{"class", "mono"}}).element("a", {{"href", verdictLink(q.integer(0))}}, q.text(1)).close();
      w.element("td", q.text(2));
      w.element("td", {{"class", "n"}}, std::to_string(q.integer(3)));
      w.element("td", {{"class", "n"}}, std::to_string(q.integer(4)));
      w.element("td", {{"class", "n"}}, std::to_string(q.integer(5)));
      w.element("td", {{"class", "n"}}, std::to_string(q.integer(6)));
      w.element("td", {{"class", "n"}}, q.null(7) ? "" : fmt::format("{:.1f} h", static_cast<double>(q.integer(7)) / 3.6e12));
      w.close();
    }
    w.raw("</tbody>");
    w.close();
  };
  workloads("largest", fmt::format("Largest workloads attributed in the last {} days", days),
            "json_array_length(w.nodes_json) * 1e15 + coalesce(json_extract(v.verdict_json, '$.stats.bytes_scanned'), 0)");
  workloads("slowest", fmt::format("Slowest to attribute, last {} days", days), kElapsed);
  return {200, "text/html; charset=utf-8", page("attrib dashboard", w.take(), options_.generator, false)};
}

DashboardResponse Dashboard::verdicts(const DashboardRequest& request) {
  const auto& q = request.query;
  int64_t limit = std::clamp<int64_t>(number(q, "limit").value_or(100), 1, static_cast<int64_t>(options_.maxRows));
  std::optional<int64_t> days = number(q, "days");
  std::string family = param(q, "family"), outcome = param(q, "outcome"), node = param(q, "node"), state = param(q, "state"),
              text = param(q, "q");
  Query rows(db_, R"sql(
SELECT v.verdict_id, v.workload_id, w.state, coalesce(v.outcome, 'unknown'), v.family, v.root_symptom, v.root_node,
       v.confidence, v.created_ns, w.end_ns
FROM verdicts v JOIN workloads w USING (workload_id, ruleset_digest)
WHERE (?1 = '' OR v.family = ?1) AND (?2 = '' OR coalesce(v.outcome, 'unknown') = ?2) AND (?3 = '' OR w.state = ?3)
  AND (?4 = '' OR instr(v.workload_id, ?4) > 0) AND v.created_ns >= ?5
  AND (?6 = '' OR EXISTS (SELECT 1 FROM bad_nodes b WHERE b.verdict_id = v.verdict_id AND b.node = ?6))
ORDER BY v.created_ns DESC, v.verdict_id DESC LIMIT ?7)sql");
  rows.bind(1, family).bind(2, outcome).bind(3, state).bind(4, text);
  rows.bind(5, days ? now() - std::clamp<int64_t>(*days, 1, 3660) * kDayNs : INT64_MIN);
  rows.bind(6, node).bind(7, limit);
  Writer w;
  w.element("h1", "Verdicts");
  w.open("form", {{"method", "get"}, {"action", "/verdicts"}, {"class", "filters"}});
  for (auto [name, value] : {std::pair{"family", &family}, std::pair{"outcome", &outcome}, std::pair{"node", &node},
                             std::pair{"state", &state}, std::pair{"q", &text}}) {
    w.open("label").text(std::string(name) + " ");
    w.empty("input", {{"name", name}, {"value", *value}, {"size", "14"}});
    w.close().text(" ");
  }
  w.element("button", {{"type", "submit"}}, "filter");
  w.close();
  w.open("p");
  w.empty("input", {{"id", "filter"}, {"class", "filter"}, {"placeholder", "narrow the rows shown (any text)"}, {"type", "search"}});
  w.close();
  w.open("table", {{"id", "verdicts"}});
  w.raw("<thead><tr><th>attributed</th><th>workload</th><th>state</th><th>outcome</th><th>family</th><th>root cause</th>"
        "<th>node</th><th>confidence</th></tr></thead><tbody>");
  int64_t n = 0;
  while (rows.next()) {
    ++n;
    w.open("tr", {{"data-verdict", std::to_string(rows.integer(0))}});
    w.element("td", {{"class", "mono"}}, minute(rows.integer(8)));
    w.open("td", {{"class", "mono"}}).element("a", {{"href", verdictLink(rows.integer(0))}, {"class", "report-link"}}, rows.text(1));
    w.text(" ").element("a", {{"href", verdictLink(rows.integer(0)) + ".json"}, {"class", "muted"}}, "json").close();
    w.element("td", rows.text(2));
    w.element("td", rows.text(3));
    w.element("td", rows.text(4));
    w.element("td", {{"class", "mono"}}, rows.text(5));
    w.element("td", {{"class", "mono"}}, rows.text(6));
    w.element("td", {{"class", "n"}}, fmt::format("{:.2f}", rows.real(7)));
    w.close();
  }
  w.raw("</tbody>");
  w.close();
  w.element("p", {{"class", "muted"}},
            fmt::format("{} verdict(s) shown{}.", n, n == limit ? fmt::format(" (the limit; ask for up to {} with limit=)", options_.maxRows) : ""));
  w.open("p", {{"class", "muted"}}).text("Rows matching the box: ").element("span", {{"id", "shown"}}, std::to_string(n)).close();
  return {200, "text/html; charset=utf-8", page("attrib: verdicts", w.take(), options_.generator, true)};
}

DashboardResponse Dashboard::verdict(const std::string& id, bool json) {
  int64_t verdictId = 0;
  auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), verdictId);
  if (id.empty() || ec != std::errc() || end != id.data() + id.size()) return error(404, "no such verdict", options_.generator);
  Query q(db_, "SELECT verdict_json FROM verdicts WHERE verdict_id = ?1");
  q.bind(1, verdictId);
  if (!q.next()) return error(404, fmt::format("no verdict {}", verdictId), options_.generator);
  std::string text = q.text(0);
  if (json) return {200, "application/json", text};
  std::string why;
  std::optional<runtime::Verdict> v = runtime::parseVerdictJson(text, &why);
  if (!v) return error(500, fmt::format("verdict {} cannot be read: {}", verdictId, why), options_.generator);
  ReportOptions options;
  options.generator = options_.generator;
  return {200, "text/html; charset=utf-8", renderReport(*v, options)};
}

}  // namespace attrib::report
