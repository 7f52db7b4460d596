#include "sinks/sqlite_sink.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>


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
  Statement& bindOptional(int i, const std::string& s) { return s.empty() ? null(i) : bind(i, s); }
  Statement& bind(int i, int64_t v) {
    ok_ = ok_ && sqlite3_bind_int64(stmt_, i, v) == SQLITE_OK;
    return *this;
  }
  Statement& bind(int i, const std::optional<int64_t>& v) { return v ? bind(i, *v) : null(i); }
  Statement& bind(int i, double v) {
    ok_ = ok_ && sqlite3_bind_double(stmt_, i, v) == SQLITE_OK;
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

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string jsonArray(const std::vector<std::string>& v) { return nlohmann::json(v).dump(); }

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
  q.bind(1, workloadId).bind(2, rulesetDigest);
  return q.row();
}

bool SqliteSink::write(const runtime::Verdict& v, std::string* error) {
  std::string why;
  if (!exec(db_, "BEGIN IMMEDIATE", &why)) {
    *error = "cannot start a transaction in the SQLite sink: " + why;
    return false;
  }
  auto fail = [&](const char* what) {
    *error = fmt::format("the SQLite sink could not store the verdict of {} ({}): {}", v.workload.id, what, lastError(db_));
    std::string ignored;
    exec(db_, "ROLLBACK", &ignored);
    return false;
  };
  const std::string& id = v.workload.id;
  const std::string& digest = v.rulesetDigest;
  {
    Statement w(db_, R"sql(
INSERT INTO workloads(workload_id, ruleset_digest, scheduler, name, user_name, partition_name, state, exit_code,
                      signal, start_ns, end_ns, nodes_json, reason)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
ON CONFLICT (workload_id, ruleset_digest) DO UPDATE SET
  scheduler = excluded.scheduler, name = excluded.name, user_name = excluded.user_name,
  partition_name = excluded.partition_name, state = excluded.state, exit_code = excluded.exit_code,
  signal = excluded.signal, start_ns = excluded.start_ns, end_ns = excluded.end_ns,
  nodes_json = excluded.nodes_json, reason = excluded.reason)sql");
    w.bind(1, id).bind(2, digest).bindOptional(3, v.workload.scheduler).bindOptional(4, v.workload.name);
    w.bindOptional(5, v.workload.user).bindOptional(6, v.workload.partition).bind(7, std::string(ir::stateName(v.workload.state)));
    w.bind(8, v.workload.exitCode).bind(9, v.workload.signal).bind(10, v.workload.start).bind(11, v.workload.end);
    w.bind(12, jsonArray(v.workload.nodes)).bindOptional(13, v.workload.reason);
    if (!w.run()) return fail("workload");
  }
  {
    Statement del(db_, "DELETE FROM verdicts WHERE workload_id = ?1 AND ruleset_digest = ?2");
    if (!del.bind(1, id).bind(2, digest).run()) return fail("previous verdict");
  }
  int64_t verdictId;
  {
    Statement ins(db_, R"sql(
INSERT INTO verdicts(workload_id, ruleset_digest, ruleset_name, ruleset_version, outcome, family, title,
                     root_symptom, root_node, root_time_ns, confidence, actions_json, attrib_version, created_ns,
                     verdict_json)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15))sql");
    const runtime::OutcomeFinding* primary = v.outcomes.empty() ? nullptr : &v.outcomes[0];
    ins.bind(1, id).bind(2, digest).bind(3, v.rulesetName).bind(4, v.rulesetVersion);
    if (primary) ins.bind(5, primary->name).bind(6, primary->family).bind(7, primary->title);
    else ins.null(5).bind(6, std::string("unknown")).null(7);
    if (v.root) {
      ins.bind(8, v.root->symptom).bindOptional(9, v.root->node);
      ins.bind(10, v.root->timeKnown ? std::optional<int64_t>(v.root->time) : std::nullopt);
    } else {
      ins.null(8).null(9).null(10);
    }
    ins.bind(11, v.confidence).bind(12, jsonArray(v.actions)).bind(13, std::string(ATTRIB_SINK_VERSION)).bind(14, nowNs());
    runtime::RenderOptions render;
    ins.bind(15, runtime::toJson(v, render));
    if (!ins.run()) return fail("verdict");
    verdictId = sqlite3_last_insert_rowid(db_);
  }
  {
    Statement bad(db_, "INSERT INTO bad_nodes(verdict_id, node, symptoms_json) VALUES (?1, ?2, ?3)");
    for (const auto& n : v.badNodes) {
      if (!bad.bind(1, verdictId).bind(2, n.node).bind(3, jsonArray(n.symptoms)).run()) return fail("bad nodes");
    }
  }
  {
    Statement s(db_, "INSERT INTO symptoms(verdict_id, symptom, count) VALUES (?1, ?2, ?3)");
    for (const auto& [name, count] : v.symptomCounts) {
      if (!s.bind(1, verdictId).bind(2, name).bind(3, static_cast<int64_t>(count)).run()) return fail("symptoms");
    }
  }
  {
    Statement e(db_, R"sql(
INSERT INTO evidence(verdict_id, role, symptom, node, time_ns, source, connector, location, line_number, content)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10))sql");
    auto add = [&](const runtime::SymptomFinding& f, const std::string& role) {
      for (const auto& line : f.evidence) {
        e.bind(1, verdictId).bind(2, role).bind(3, f.symptom).bindOptional(4, line.node).bind(5, line.time);
        e.bindOptional(6, line.source).bindOptional(7, line.connector).bindOptional(8, line.location);
        e.bind(9, static_cast<int64_t>(line.lineNumber)).bind(10, line.line);
        if (!e.run()) return false;
      }
      return true;
    };
    if (v.root && !add(*v.root, "root")) return fail("evidence");
    for (const auto& c : v.otherCauses) {
      if (!add(c, "other_cause")) return fail("evidence");
    }
  }
  {
    Statement r(db_, R"sql(
INSERT INTO connector_reports(verdict_id, connector, source, status, observations, bytes, reason, elapsed_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))sql");
    for (const auto& rep : v.reports) {
      r.bind(1, verdictId).bind(2, rep.connector).bind(3, rep.source).bind(4, std::string(evidence::statusName(rep.status)));
      r.bind(5, static_cast<int64_t>(rep.observations)).bind(6, static_cast<int64_t>(rep.bytes)).bindOptional(7, rep.reason);
      if (!r.bind(8, rep.elapsedMs).run()) return fail("connector reports");
    }
  }
  if (!exec(db_, "COMMIT", &why)) return fail("commit");
  return true;
}

}  // namespace attrib::sinks
