#include "sinks/postgres_sink.h"

#include <fmt/format.h>

#include <variant>

#include "pg/connection.h"
#include "sinks/verdict_rows.h"

namespace attrib::sinks {
namespace {

// Each migration takes the schema from version i to i + 1. Never edit one that has shipped: add
// the next. Version 1 is the SQLite sink's schema: text as TEXT, integers as BIGINT, reals as
// DOUBLE PRECISION, the small JSON columns as JSONB (queryable), the verdict as JSON (kept
// byte for byte as docs/verdict.md writes it).
const char* const kMigrations[] = {
    // 0 -> 1
    R"sql(
CREATE TABLE workloads(
  workload_id TEXT NOT NULL,
  ruleset_digest TEXT NOT NULL,
  scheduler TEXT, name TEXT, user_name TEXT, partition_name TEXT,
  state TEXT NOT NULL,
  exit_code BIGINT, signal BIGINT,
  start_ns BIGINT, end_ns BIGINT,
  nodes_json JSONB NOT NULL,
  reason TEXT,
  PRIMARY KEY (workload_id, ruleset_digest));
CREATE TABLE verdicts(
  verdict_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workload_id TEXT NOT NULL,
  ruleset_digest TEXT NOT NULL,
  ruleset_name TEXT NOT NULL, ruleset_version TEXT NOT NULL,
  outcome TEXT, family TEXT NOT NULL, title TEXT,
  root_symptom TEXT, root_node TEXT, root_time_ns BIGINT,
  confidence DOUBLE PRECISION NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  actions_json JSONB NOT NULL,
  attrib_version TEXT NOT NULL,
  created_ns BIGINT NOT NULL,
  verdict_json JSON NOT NULL,
  UNIQUE (workload_id, ruleset_digest),
  FOREIGN KEY (workload_id, ruleset_digest) REFERENCES workloads(workload_id, ruleset_digest) ON DELETE CASCADE);
CREATE TABLE bad_nodes(
  verdict_id BIGINT NOT NULL REFERENCES verdicts(verdict_id) ON DELETE CASCADE,
  node TEXT NOT NULL,
  symptoms_json JSONB NOT NULL);
CREATE TABLE symptoms(
  verdict_id BIGINT NOT NULL REFERENCES verdicts(verdict_id) ON DELETE CASCADE,
  symptom TEXT NOT NULL,
  count BIGINT NOT NULL);
CREATE TABLE evidence(
  verdict_id BIGINT NOT NULL REFERENCES verdicts(verdict_id) ON DELETE CASCADE,
  role TEXT NOT NULL,             -- root | other_cause
  symptom TEXT NOT NULL,
  node TEXT, time_ns BIGINT,
  source TEXT, connector TEXT, location TEXT, line_number BIGINT,
  content TEXT NOT NULL);
CREATE TABLE connector_reports(
  verdict_id BIGINT NOT NULL REFERENCES verdicts(verdict_id) ON DELETE CASCADE,
  connector TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL,
  observations BIGINT NOT NULL, bytes BIGINT NOT NULL, reason TEXT, elapsed_ms BIGINT NOT NULL);
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
  SELECT v.verdict_id, v.workload_id, w.state, to_timestamp(w.end_ns / 1e9) AS end_ts, v.outcome, v.family,
         v.root_symptom, v.root_node, v.confidence, to_timestamp(v.created_ns / 1e9) AS created_ts
  FROM verdicts v JOIN workloads w USING (workload_id, ruleset_digest);
)sql",
};

// Any fixed number: the lock that serialises schema migrations of one database.
constexpr int64_t kMigrationLock = 0x61747472696231;  // "attrib1"

const char* const kTables[] = {"workloads", "verdicts", "bad_nodes", "symptoms", "evidence", "connector_reports", "schema_version"};

std::vector<pg::Value> values(const std::vector<Field>& row) {
  std::vector<pg::Value> out;
  out.reserve(row.size() + 1);
  for (const auto& f : row) {
    std::visit([&](const auto& v) {
      using T = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<T, std::monostate>) out.emplace_back(std::nullopt);
      else out.emplace_back(v);
    }, f);
  }
  return out;
}

std::string dollar(size_t i) { return "$" + std::to_string(i); }

}  // namespace

PostgresSink::PostgresSink(std::unique_ptr<pg::Connection> connection, PostgresOptions options)
    : db_(std::move(connection)), options_(options) {}
PostgresSink::~PostgresSink() = default;

std::unique_ptr<PostgresSink> PostgresSink::open(const std::string& conninfo, std::string* error, const PostgresOptions& options) {
  pg::Error e;
  pg::ConnectOptions connect;
  connect.connectTimeoutSeconds = options.connectTimeoutSeconds;
  connect.applicationName = "attrib sink";
  auto db = pg::Connection::open(conninfo, &e, connect);
  if (!db) {
    *error = "the PostgreSQL sink: " + e.message;
    return nullptr;
  }
  std::string where = db->describe();
  auto fail = [&](const std::string& what, const pg::Error& why) {
    *error = fmt::format("the PostgreSQL sink at {}: {}: {}{}", where, what, why.message,
                         why.sqlstate.empty() ? "" : " (SQLSTATE " + why.sqlstate + ")");
    return nullptr;
  };
  pg::Transaction tx(*db);
  if (!tx.begun().ok()) return fail("cannot start a transaction", tx.begun().error());
  pg::Result r = db->exec("SELECT pg_advisory_xact_lock($1)", {kMigrationLock});
  if (!r.ok()) return fail("cannot lock the schema", r.error());
  r = db->exec("CREATE TABLE IF NOT EXISTS schema_version(version BIGINT NOT NULL)");
  if (!r.ok()) return fail("cannot create the schema", r.error());
  r = db->exec("SELECT coalesce(max(version), 0) FROM schema_version");
  if (!r.ok()) return fail("cannot read the schema version", r.error());
  int64_t version = r.integer(0, 0);
  if (version > kSchemaVersion) {
    return fail("refused",
                {"", fmt::format("schema version {} is newer than this attrib's {}; use a newer attrib", version, kSchemaVersion)});
  }
  for (int64_t v = version; v < kSchemaVersion; ++v) {
    r = db->script(kMigrations[v]);
    if (r.ok()) r = db->exec("INSERT INTO schema_version(version) VALUES ($1)", {v + 1});
    if (!r.ok()) return fail(fmt::format("cannot migrate the schema to version {}", v + 1), r.error());
  }
  r = tx.commit();
  if (!r.ok()) return fail("cannot commit the schema", r.error());
  return std::unique_ptr<PostgresSink>(new PostgresSink(std::move(db), options));
}

bool PostgresSink::contains(const std::string& workloadId, const std::string& rulesetDigest) {
  pg::Result r = db_->exec("SELECT 1 FROM verdicts WHERE workload_id = $1 AND ruleset_digest = $2", {workloadId, rulesetDigest});
  return r.ok() && r.rows() == 1;
}

bool PostgresSink::write(const runtime::Verdict& v, std::string* error) { return write(v, error, Guard()); }

bool PostgresSink::write(const runtime::Verdict& v, std::string* error, const Guard& guard) {
  for (int attempt = 0;; ++attempt) {
    bool retry = false;
    if (writeOnce(v, error, &retry, guard)) return true;
    if (!retry || attempt == 3) return false;
  }
}

bool PostgresSink::writeOnce(const runtime::Verdict& v, std::string* error, bool* retry, const Guard& guard) {
  if (!db_->healthy()) {
    pg::Error e;
    if (!db_->reset(&e)) {
      *error = "the PostgreSQL sink: " + e.message;
      return false;
    }
  }
  VerdictRows rows = verdictRows(v, nowNs(), ATTRIB_SINK_VERSION);
  auto fail = [&](const std::string& what, const pg::Error& why) {
    *retry = pg::retryable(why);
    *error = fmt::format("the PostgreSQL sink could not store the verdict of {} ({}): {}{}", v.workload.id, what, why.message,
                         why.sqlstate.empty() ? "" : " (SQLSTATE " + why.sqlstate + ")");
    return false;
  };
  pg::Transaction tx(*db_);
  if (!tx.begun().ok()) return fail("begin", tx.begun().error());
  if (guard && !guard(*db_, error, retry)) return false;
  {
    // The workload row is kept (other rule sets' verdicts refer to it) and updated in place; its
    // row lock orders two writers of the same key.
    std::string sql = insertSql(rows.workload.table, rows.workload.columns, dollar) +
                      " ON CONFLICT (workload_id, ruleset_digest) DO UPDATE SET ";
    for (size_t i = 2; i < rows.workload.columns.size(); ++i) {
      sql += fmt::format("{}{} = excluded.{}", i > 2 ? ", " : "", rows.workload.columns[i], rows.workload.columns[i]);
    }
    pg::Result r = db_->exec(sql, values(rows.workload.rows[0]));
    if (!r.ok()) return fail("workload", r.error());
  }
  pg::Result del = db_->exec("DELETE FROM verdicts WHERE workload_id = $1 AND ruleset_digest = $2", {v.workload.id, v.rulesetDigest});
  if (!del.ok()) return fail("previous verdict", del.error());
  pg::Result ins = db_->exec(insertSql(rows.verdict.table, rows.verdict.columns, dollar) + " RETURNING verdict_id",
                             values(rows.verdict.rows[0]));
  if (!ins.ok()) return fail("verdict", ins.error());
  int64_t verdictId = ins.integer(0, 0);
  for (const TableRows& child : rows.children) {
    std::vector<const char*> columns{"verdict_id"};
    columns.insert(columns.end(), child.columns.begin(), child.columns.end());
    std::string sql = insertSql(child.table, columns, dollar);
    for (const auto& row : child.rows) {
      std::vector<pg::Value> params{verdictId};
      for (auto& p : values(row)) params.push_back(std::move(p));
      pg::Result r = db_->exec(sql, params);
      if (!r.ok()) return fail(child.table, r.error());
    }
  }
  if (options_.maxBytes > 0) {
    std::vector<pg::Value> params{static_cast<int64_t>(options_.maxBytes)};
    std::string tables;
    for (const char* t : kTables) {
      params.emplace_back(t);
      tables += (tables.empty() ? "" : ", ") + dollar(params.size());
    }
    // Inside the transaction: the new rows already take their pages.
    pg::Result size = db_->exec(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0), $1::bigint FROM pg_class c "
        "WHERE c.oid IN (SELECT to_regclass(t) FROM unnest(ARRAY[" + tables + "]::text[]) AS t)", params);
    if (!size.ok()) return fail("size", size.error());
    if (static_cast<uint64_t>(size.integer(0, 0)) > options_.maxBytes) {
      return fail("full", {"53100", fmt::format("the sink's tables would hold {} bytes, more than its limit of {}; the "
                                                "database is full for attrib",
                                                size.integer(0, 0), options_.maxBytes)});
    }
  }
  pg::Result c = tx.commit();
  if (!c.ok()) return fail("commit", c.error());
  return true;
}

bool postgresConninfo(const std::string& conninfo, const std::string& password, std::string* out, std::string* error) {
  if (pg::describeConninfo(conninfo, error).empty()) return false;
  *out = password.empty() ? conninfo : pg::withPassword(conninfo, password, error);
  return !out->empty();
}

}  // namespace attrib::sinks
