#include "sinks/sqlite_sink.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <variant>

#include "sinks/verdict_rows.h"


namespace attrib::sinks {
namespace {

// Each migration takes the schema from version i to i + 1. Never edit one that has shipped: add
// the next.
const char* const kMigrations[] = {
    // 0 -> 1
    R"sql(
CREATE TABLE workloads(
  workload_id TEXT NOT NULL,
  ruleset_digest TEXT NOT NULL,
  scheduler TEXT, name TEXT, user_name TEXT, partition_name TEXT,
  state TEXT NOT NULL,
  exit_code INTEGER, signal INTEGER,
  start_ns INTEGER, end_ns INTEGER,
  nodes_json TEXT NOT NULL CHECK (json_valid(nodes_json)),
  reason TEXT,
  PRIMARY KEY (workload_id, ruleset_digest)) STRICT;
CREATE TABLE verdicts(
  verdict_id INTEGER PRIMARY KEY,
  workload_id TEXT NOT NULL,
  ruleset_digest TEXT NOT NULL,
  ruleset_name TEXT NOT NULL, ruleset_version TEXT NOT NULL,
  outcome TEXT, family TEXT NOT NULL, title TEXT,
  root_symptom TEXT, root_node TEXT, root_time_ns INTEGER,
  confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  actions_json TEXT NOT NULL CHECK (json_valid(actions_json)),
  attrib_version TEXT NOT NULL,
  created_ns INTEGER NOT NULL,
  verdict_json TEXT NOT NULL CHECK (json_valid(verdict_json)),
  UNIQUE (workload_id, ruleset_digest),
  FOREIGN KEY (workload_id, ruleset_digest) REFERENCES workloads(workload_id, ruleset_digest) ON DELETE CASCADE) STRICT;
CREATE TABLE bad_nodes(
  verdict_id INTEGER NOT NULL REFERENCES verdicts(verdict_id) ON DELETE CASCADE,
  node TEXT NOT NULL,
  symptoms_json TEXT NOT NULL CHECK (json_valid(symptoms_json))) STRICT;
CREATE TABLE symptoms(
  verdict_id INTEGER NOT NULL REFERENCES verdicts(verdict_id) ON DELETE CASCADE,
  symptom TEXT NOT NULL,
  count INTEGER NOT NULL) STRICT;
CREATE TABLE evidence(
  verdict_id INTEGER NOT NULL REFERENCES verdicts(verdict_id) ON DELETE CASCADE,
  role TEXT NOT NULL,             -- root | other_cause
  symptom TEXT NOT NULL,
  node TEXT, time_ns INTEGER,
  source TEXT, connector TEXT, location TEXT, line_number INTEGER,
  content TEXT NOT NULL) STRICT;
CREATE TABLE connector_reports(
  verdict_id INTEGER NOT NULL REFERENCES verdicts(verdict_id) ON DELETE CASCADE,
  connector TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL,
  observations INTEGER NOT NULL, bytes INTEGER NOT NULL, reason TEXT, elapsed_ms INTEGER NOT NULL) STRICT;
CREATE INDEX verdicts_created ON verdicts(created_ns);
CREATE INDEX verdicts_family ON verdicts(family, created_ns);
CREATE INDEX bad_nodes_node ON bad_nodes(node);
CREATE INDEX bad_nodes_verdict ON bad_nodes(verdict_id);
CREATE INDEX symptoms_verdict ON symptoms(verdict_id);
CREATE INDEX symptoms_symptom ON symptoms(symptom);
CREATE INDEX evidence_verdict ON evidence(verdict_id);
CREATE INDEX connector_reports_verdict ON connector_reports(verdict_id);
CREATE INDEX workloads_end ON workloads(end_ns);
CREATE VIEW verdict_summary AS
  SELECT v.verdict_id, v.workload_id, w.state, w.end_ns / 1000000000 AS end_ts, v.outcome, v.family,
         v.root_symptom, v.root_node, v.confidence, v.created_ns / 1000000000 AS created_ts
  FROM verdicts v JOIN workloads w USING (workload_id, ruleset_digest);
)sql",
};

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) { ok_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) == SQLITE_OK; }
  ~Statement() { sqlite3_finalize(stmt_); }
  bool ok() const { return ok_; }
  Statement& bind(int i, const std::string& s) {
    ok_ = ok_ && sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT) == SQLITE_OK;
    return *this;
  }
  Statement& bind(int i, int64_t v) {
    ok_ = ok_ && sqlite3_bind_int64(stmt_, i, v) == SQLITE_OK;
    return *this;
  }
  Statement& bind(int i, double v) {
    ok_ = ok_ && sqlite3_bind_double(stmt_, i, v) == SQLITE_OK;
    return *this;
  }
  // Binds `row` to ?first, ?first+1, ...
  Statement& bindAll(const std::vector<Field>& row, int first = 1) {
    for (size_t k = 0; k < row.size(); ++k) {
      int i = first + static_cast<int>(k);
      std::visit([&](const auto& f) {
        using T = std::decay_t<decltype(f)>;
        if constexpr (std::is_same_v<T, std::monostate>) null(i);
        else bind(i, f);
      }, row[k]);
    }
    return *this;
  }
  Statement& null(int i) {
    ok_ = ok_ && sqlite3_bind_null(stmt_, i) == SQLITE_OK;
    return *this;
  }
  // Runs to completion; true when it did.
  bool run() {
    if (!ok_) return false;
    int rc;
    while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW) {
    }
    ok_ = rc == SQLITE_DONE;
    sqlite3_reset(stmt_);
    return ok_;
  }
  bool row() { return ok_ && sqlite3_step(stmt_) == SQLITE_ROW; }
  int64_t integer(int col) { return sqlite3_column_int64(stmt_, col); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  bool ok_ = false;
};

std::string lastError(sqlite3* db) { return sqlite3_errmsg(db); }

bool exec(sqlite3* db, const char* sql, std::string* error) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    *error = message ? message : lastError(db);
    sqlite3_free(message);
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<SqliteSink> SqliteSink::open(const std::string& path, std::string* error, const SqliteOptions& options) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    *error = fmt::format("cannot open the SQLite database {}: {}", path, db ? lastError(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return nullptr;
  }
  std::unique_ptr<SqliteSink> sink(new SqliteSink(db));
  sqlite3_busy_timeout(db, 5000);
  std::string why;
  auto fail = [&](const std::string& what) {
    *error = fmt::format("the SQLite database {}: {}: {}", path, what, why);
    return nullptr;
  };
  if (!exec(db, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;", &why)) return fail("cannot configure it");
  // WAL is a property of the file; setting it needs a write, which also proves we can write.
  {
    Statement wal(db, "PRAGMA journal_mode=WAL");
    if (!wal.row()) {
      why = lastError(db);
      return fail("cannot use it");
    }
  }
  if (!exec(db, "BEGIN IMMEDIATE", &why)) return fail("cannot lock it");
  if (!exec(db, "CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL) STRICT", &why)) {
    exec(db, "ROLLBACK", &why);
    return fail("cannot create the schema");
  }
  int64_t version = 0;
  {
    Statement v(db, "SELECT max(version) FROM schema_version");
    if (v.row()) version = v.integer(0);
  }
  if (version > kSchemaVersion) {
    exec(db, "ROLLBACK", &why);
    why = fmt::format("schema version {} is newer than this attrib's {}; use a newer attrib", version, kSchemaVersion);
    return fail("refused");
  }
  for (int64_t v = version; v < kSchemaVersion; ++v) {
    std::string step;
    if (!exec(db, kMigrations[v], &why) ||
        !exec(db, fmt::format("INSERT INTO schema_version(version) VALUES ({})", v + 1).c_str(), &why)) {
      std::string keep = why;
      exec(db, "ROLLBACK", &step);
      why = keep;
      return fail(fmt::format("cannot migrate the schema to version {}", v + 1));
    }
  }
  if (!exec(db, "COMMIT", &why)) return fail("cannot commit the schema");
  if (options.maxBytes > 0) {
    int64_t pageSize = 4096;
    {
      Statement p(db, "PRAGMA page_size");
      if (p.row()) pageSize = p.integer(0);
    }
    uint64_t pages = std::max<uint64_t>(1, options.maxBytes / static_cast<uint64_t>(pageSize));
    if (!exec(db, fmt::format("PRAGMA max_page_count={}", pages).c_str(), &why)) return fail("cannot limit its size");
  }
  return sink;
}

SqliteSink::~SqliteSink() { sqlite3_close(db_); }

bool SqliteSink::contains(const std::string& workloadId, const std::string& rulesetDigest) {
  Statement q(db_, "SELECT 1 FROM verdicts WHERE workload_id = ?1 AND ruleset_digest = ?2");
  q.bind(1, validUtf8(workloadId)).bind(2, validUtf8(rulesetDigest));
  return q.row();
}

bool SqliteSink::write(const runtime::Verdict& v, std::string* error) {
  VerdictRows rows = verdictRows(v, nowNs(), ATTRIB_SINK_VERSION);
  std::string why;
  if (!exec(db_, "BEGIN IMMEDIATE", &why)) {
    *error = "cannot start a transaction in the SQLite sink: " + why;
    return false;
  }
  auto fail = [&](const char* what) {
    *error = fmt::format("the SQLite sink could not store the verdict of {} ({}): {}", validUtf8(v.workload.id), what, lastError(db_));
    std::string ignored;
    exec(db_, "ROLLBACK", &ignored);
    return false;
  };
  auto placeholder = [](size_t i) { return "?" + std::to_string(i); };
  {
    // The workload row is kept (other rule sets' verdicts refer to it) and updated in place.
    std::string sql = insertSql(rows.workload.table, rows.workload.columns, placeholder) +
                      " ON CONFLICT (workload_id, ruleset_digest) DO UPDATE SET ";
    for (size_t i = 2; i < rows.workload.columns.size(); ++i) {
      sql += fmt::format("{}{} = excluded.{}", i > 2 ? ", " : "", rows.workload.columns[i], rows.workload.columns[i]);
    }
    Statement w(db_, sql.c_str());
    if (!w.bindAll(rows.workload.rows[0]).run()) return fail("workload");
  }
  {
    Statement del(db_, "DELETE FROM verdicts WHERE workload_id = ?1 AND ruleset_digest = ?2");
    // The key as stored (verdictRows made it valid UTF-8), so a verdict written again replaces it.
    if (!del.bind(1, validUtf8(v.workload.id)).bind(2, validUtf8(v.rulesetDigest)).run()) return fail("previous verdict");
  }
  int64_t verdictId;
  {
    Statement ins(db_, insertSql(rows.verdict.table, rows.verdict.columns, placeholder).c_str());
    if (!ins.bindAll(rows.verdict.rows[0]).run()) return fail("verdict");
    verdictId = sqlite3_last_insert_rowid(db_);
  }
  for (const TableRows& child : rows.children) {
    std::vector<const char*> columns{"verdict_id"};
    columns.insert(columns.end(), child.columns.begin(), child.columns.end());
    Statement ins(db_, insertSql(child.table, columns, placeholder).c_str());
    for (const auto& row : child.rows) {
      if (!ins.bind(1, verdictId).bindAll(row, 2).run()) return fail(child.table);
    }
  }
  if (!exec(db_, "COMMIT", &why)) return fail("commit");
  return true;
}

}  // namespace attrib::sinks
