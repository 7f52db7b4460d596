#include "sinks/postgres_history.h"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "pg/connection.h"
#include "sinks/postgres_sink.h"
#include "sinks/verdict_rows.h"

namespace attrib::sinks {
namespace {

// The SQLite reader's query (sqlite_history.cc) in PostgreSQL's dialect. The event's time: the
// root cause's, else the workload's end, else when it was stored. Names and workload ids sort
// byte by byte (COLLATE "C"), as SQLite's do, whatever the database's collation.
constexpr const char* kEvents = R"sql(
SELECT b.node, v.workload_id, v.family, v.outcome, v.root_symptom, b.symptoms_json::text, v.confidence, t.t,
       v.ruleset_digest
FROM bad_nodes b JOIN verdicts v USING (verdict_id)
     LEFT JOIN workloads w ON w.workload_id = v.workload_id AND w.ruleset_digest = v.ruleset_digest
     CROSS JOIN LATERAL (SELECT coalesce(v.root_time_ns, w.end_ns, v.created_ns) AS t) t
WHERE ($1::text IS NULL OR b.node = $1::text) AND t.t BETWEEN $2::bigint AND $3::bigint
ORDER BY b.node COLLATE "C", t.t, v.workload_id COLLATE "C"
LIMIT $4::bigint)sql";

std::string withState(const pg::Error& e) {
  return e.message + (e.sqlstate.empty() ? "" : " (SQLSTATE " + e.sqlstate + ")");
}

// Every transaction of the session is read-only: the reader cannot write, whatever it runs.
pg::Result readOnly(pg::Connection& db) { return db.exec("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"); }

}  // namespace

PostgresHistoryReader::PostgresHistoryReader(std::unique_ptr<pg::Connection> db) : db_(std::move(db)) {}
PostgresHistoryReader::~PostgresHistoryReader() = default;

std::unique_ptr<PostgresHistoryReader> PostgresHistoryReader::open(const std::string& conninfo, std::string* error,
                                                                   int connectTimeoutSeconds) {
  pg::Error e;
  pg::ConnectOptions connect;
  connect.connectTimeoutSeconds = connectTimeoutSeconds;
  connect.applicationName = "attrib history";
  auto db = pg::Connection::open(conninfo, &e, connect);
  if (!db) {
    *error = "the PostgreSQL verdict database: " + e.message;
    return nullptr;
  }
  const std::string where = "PostgreSQL at " + db->describe();
  pg::Result r = readOnly(*db);
  if (!r.ok()) {
    *error = fmt::format("cannot read the verdict database {}: {}", where, withState(r.error()));
    return nullptr;
  }
  r = db->exec("SELECT to_regclass('schema_version') IS NOT NULL");
  if (!r.ok()) {
    *error = fmt::format("cannot read the verdict database {}: {}", where, withState(r.error()));
    return nullptr;
  }
  if (r.text(0, 0) != "t") {
    *error = fmt::format("{} is not an attrib verdict database (it has no schema_version table)", where);
    return nullptr;
  }
  r = db->exec("SELECT coalesce(max(version), 0) FROM schema_version");
  if (!r.ok()) {
    *error = fmt::format("{} is not an attrib verdict database ({})", where, withState(r.error()));
    return nullptr;
  }
  int64_t version = r.integer(0, 0);
  if (version > PostgresSink::kSchemaVersion) {
    *error = fmt::format("the verdict database {} has schema version {}, newer than this attrib's {}; use a newer attrib", where,
                         version, PostgresSink::kSchemaVersion);
    return nullptr;
  }
  if (version < 1) {
    *error = fmt::format("{} holds no verdicts yet (schema version {})", where, version);
    return nullptr;
  }
  return std::unique_ptr<PostgresHistoryReader>(new PostgresHistoryReader(std::move(db)));
}

bool PostgresHistoryReader::events(const history::HistoryQuery& q, std::vector<history::NodeEvent>* out, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string where = "PostgreSQL at " + db_->describe();
  // A connection the server closed (restarted, idle timeout) is opened again once.
  auto reconnect = [&] {
    pg::Error e;
    if (!db_->reset(&e)) {
      *error = fmt::format("cannot read the node history of {}: {}", where, e.message);
      return false;
    }
    pg::Result r = readOnly(*db_);
    if (!r.ok()) *error = fmt::format("cannot read the node history of {}: {}", where, withState(r.error()));
    return r.ok();
  };
  if (!db_->healthy() && !reconnect()) return false;
  // Stored names are valid UTF-8 (verdict_rows.h), and PostgreSQL refuses other bytes in a
  // parameter: a name with them is looked up as stored.
  std::vector<pg::Value> params{q.node ? pg::Value(validUtf8(*q.node)) : pg::Value(std::nullopt), q.since, q.until,
                                static_cast<int64_t>(q.limit) + 1};
  pg::Result r = db_->exec(kEvents, params);
  if (!r.ok() && !db_->healthy()) {
    if (!reconnect()) return false;
    r = db_->exec(kEvents, params);
  }
  if (!r.ok()) {
    *error = fmt::format("cannot read the node history of {}: {}", where, withState(r.error()));
    return false;
  }
  if (static_cast<size_t>(r.rows()) > q.limit) {
    *error = fmt::format("the node history of {} holds more than {} events in that range; narrow it (--since, one node)", where,
                         q.limit);
    return false;
  }
  std::vector<history::NodeEvent> events;
  events.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    history::NodeEvent e;
    e.node = r.text(i, 0);
    e.workloadId = r.text(i, 1);
    e.family = r.text(i, 2);
    e.outcome = r.text(i, 3);
    e.rootSymptom = r.text(i, 4);
    auto symptoms = nlohmann::json::parse(r.text(i, 5), nullptr, false);
    if (symptoms.is_array()) {
      for (const auto& s : symptoms) {
        if (s.is_string()) e.symptoms.push_back(s.get<std::string>());
      }
    }
    e.confidence = std::strtod(r.text(i, 6).c_str(), nullptr);
    e.time = r.integer(i, 7);
    e.rulesetDigest = r.text(i, 8);
    events.push_back(std::move(e));
  }
  for (auto& e : events) out->push_back(std::move(e));
  return true;
}

}  // namespace attrib::sinks
