#include "sinks/sqlite_history.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "sinks/sqlite_sink.h"
#include "sinks/verdict_rows.h"

namespace attrib::sinks {
namespace {

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

std::string text(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s, col))) : std::string();
}

// The event's time: the root cause's, else the workload's end, else when it was stored.
constexpr const char* kEvents = R"sql(
SELECT b.node, v.workload_id, v.family, v.outcome, v.root_symptom, b.symptoms_json, v.confidence,
       coalesce(v.root_time_ns, w.end_ns, v.created_ns) AS t, v.ruleset_digest
FROM bad_nodes b JOIN verdicts v USING (verdict_id)
     LEFT JOIN workloads w ON w.workload_id = v.workload_id AND w.ruleset_digest = v.ruleset_digest
WHERE (?1 IS NULL OR b.node = ?1) AND t BETWEEN ?2 AND ?3
ORDER BY b.node, t, v.workload_id
LIMIT ?4)sql";

}  // namespace

std::unique_ptr<SqliteHistoryReader> SqliteHistoryReader::open(const std::string& path, std::string* error) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    *error = fmt::format("cannot open the verdict database {}: {}", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return nullptr;
  }
  std::unique_ptr<SqliteHistoryReader> r(new SqliteHistoryReader(db, path));
  sqlite3_busy_timeout(db, 2000);
  sqlite3_exec(db, "PRAGMA query_only=ON", nullptr, nullptr, nullptr);
  Stmt v;
  if (sqlite3_prepare_v2(db, "SELECT max(version) FROM schema_version", -1, &v.s, nullptr) != SQLITE_OK) {
    *error = fmt::format("{} is not an attrib verdict database ({})", path, sqlite3_errmsg(db));
    return nullptr;
  }
  rc = sqlite3_step(v.s);
  if (rc != SQLITE_ROW) {
    *error = fmt::format("{} is not an attrib verdict database ({})", path, sqlite3_errmsg(db));
    return nullptr;
  }
  int64_t version = sqlite3_column_int64(v.s, 0);
  if (version > SqliteSink::kSchemaVersion) {
    *error = fmt::format("the verdict database {} has schema version {}, newer than this attrib's {}; use a newer attrib", path,
                         version, SqliteSink::kSchemaVersion);
    return nullptr;
  }
  if (version < 1) {
    *error = fmt::format("{} holds no verdicts yet (schema version {})", path, version);
    return nullptr;
  }
  return r;
}

SqliteHistoryReader::~SqliteHistoryReader() { sqlite3_close(db_); }

bool SqliteHistoryReader::events(const history::HistoryQuery& q, std::vector<history::NodeEvent>* out, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  auto failed = [&] {
    *error = fmt::format("cannot read the node history of {}: {}", path_, sqlite3_errmsg(db_));
    return false;
  };
  Stmt st;
  if (sqlite3_prepare_v2(db_, kEvents, -1, &st.s, nullptr) != SQLITE_OK) return failed();
  // Stored names are valid UTF-8 (verdict_rows.h): a name with other bytes is looked up as stored.
  if (q.node) {
    std::string node = validUtf8(*q.node);
    sqlite3_bind_text(st.s, 1, node.data(), static_cast<int>(node.size()), SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(st.s, 1);
  }
  sqlite3_bind_int64(st.s, 2, q.since);
  sqlite3_bind_int64(st.s, 3, q.until);
  sqlite3_bind_int64(st.s, 4, static_cast<int64_t>(q.limit) + 1);
  std::vector<history::NodeEvent> events;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    if (events.size() == q.limit) {
      *error = fmt::format("the node history of {} holds more than {} events in that range; narrow it (--since, one node)", path_, q.limit);
      return false;
    }
    history::NodeEvent e;
    e.node = text(st.s, 0);
    e.workloadId = text(st.s, 1);
    e.family = text(st.s, 2);
    e.outcome = text(st.s, 3);
    e.rootSymptom = text(st.s, 4);
    auto symptoms = nlohmann::json::parse(text(st.s, 5), nullptr, false);
    if (symptoms.is_array()) {
      for (const auto& s : symptoms) {
        if (s.is_string()) e.symptoms.push_back(s.get<std::string>());
      }
    }
    e.confidence = sqlite3_column_double(st.s, 6);
    e.time = sqlite3_column_int64(st.s, 7);
    e.rulesetDigest = text(st.s, 8);
    events.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) return failed();
  for (auto& e : events) out->push_back(std::move(e));
  return true;
}

}  // namespace attrib::sinks
