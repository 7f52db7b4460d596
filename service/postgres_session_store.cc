#include "service/postgres_session_store.h"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "evidence/workload_json.h"
#include "pg/connection.h"
#include "service/random_id.h"

namespace attrib::service {
namespace {

using Clock = std::chrono::steady_clock;

// Migrations, as the sink's: never edit a shipped one, add the next. Table names carry the
// attrib_session prefix so that a database may also hold the sink's tables.
const char* const kMigrations[] = {
    // 0 -> 1
    R"sql(
CREATE TABLE attrib_session_totals(
  singleton BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),
  sessions BIGINT NOT NULL CHECK (sessions >= 0),
  bytes BIGINT NOT NULL CHECK (bytes >= 0));
INSERT INTO attrib_session_totals(sessions, bytes) VALUES (0, 0);
CREATE TABLE attrib_sessions(
  id TEXT PRIMARY KEY,
  workload_id TEXT NOT NULL,
  workload_json TEXT NOT NULL,
  used_at TIMESTAMPTZ NOT NULL,
  appends BIGINT NOT NULL DEFAULT 0,
  lines BIGINT NOT NULL DEFAULT 0, samples BIGINT NOT NULL DEFAULT 0,
  files BIGINT NOT NULL DEFAULT 0, reports BIGINT NOT NULL DEFAULT 0,
  file_bytes BIGINT NOT NULL DEFAULT 0,
  files_json TEXT NOT NULL DEFAULT '{}',  -- file path -> bytes of it received, in order of first slice
  bytes BIGINT NOT NULL,                  -- this session's share of attrib_session_totals.bytes
  verdict TEXT);
CREATE INDEX attrib_sessions_used ON attrib_sessions(used_at);
CREATE TABLE attrib_session_appends(
  session_id TEXT NOT NULL REFERENCES attrib_sessions(id) ON DELETE CASCADE,
  seq BIGINT NOT NULL,
  records TEXT NOT NULL,                  -- attrib JSON lines (wire/observations.h)
  PRIMARY KEY (session_id, seq));
)sql",
};

constexpr int64_t kMigrationLock = 0x61747472736531;  // the schema's migrations
constexpr int64_t kSweepLock = 0x61747472737731;      // one sweeper at a time
constexpr uint64_t kSessionBytes = 512;               // a session row, as the budget counts it

uint64_t workloadBytes(const std::string& json) { return json.size(); }

std::string records(const wire::Observations& o) {
  std::string out;
  for (const auto& l : o.lines) out += wire::attribRecord(l);
  for (const auto& m : o.metrics) out += wire::attribRecord(m);
  for (const auto& r : o.reports) out += wire::attribRecord(r);
  for (const auto& f : o.files) {
    uint64_t at = f.offset;
    if (f.pieces.empty()) out += wire::attribFileSlice(f.file, at, "", f.error);
    for (size_t i = 0; i < f.pieces.size(); ++i) {
      out += wire::attribFileSlice(f.file, at, *f.pieces[i], i + 1 == f.pieces.size() ? f.error : "");
      at += f.pieces[i]->size();
    }
  }
  return out;
}

// Not "overloaded" (the 503's own code): retrying helps only once the database is back.
StoreStatus unavailable(const pg::Error& e) {
  return {503, "the session store (PostgreSQL) failed: " + e.message + (e.sqlstate.empty() ? "" : " (SQLSTATE " + e.sqlstate + ")"),
          "session_store_unavailable"};
}

std::string ttlSeconds(std::chrono::seconds ttl) { return std::to_string(ttl.count()); }

}  // namespace

struct PostgresSessionStore::Impl {
  SessionLimits limits;
  std::string ttl;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::unique_ptr<pg::Connection>> idle;
  Clock::time_point lastSweep{};
  // Copies being attributed on this replica (their bytes), shared with the holds.
  struct Held {
    std::mutex mu;
    uint64_t bytes = 0;
  };
  std::shared_ptr<Held> held = std::make_shared<Held>();

  // A connection for one call, given back at the end.
  class Lease {
   public:
    Lease(Impl* impl, std::unique_ptr<pg::Connection> c) : impl_(impl), c_(std::move(c)) {}
    ~Lease() {
      std::lock_guard<std::mutex> l(impl_->mu);
      impl_->idle.push_back(std::move(c_));
      impl_->cv.notify_one();
    }
    pg::Connection& operator*() { return *c_; }
    pg::Connection* operator->() { return c_.get(); }

   private:
    Impl* impl_;
    std::unique_ptr<pg::Connection> c_;
  };
  Lease take() {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return !idle.empty(); });
    auto c = std::move(idle.back());
    idle.pop_back();
    l.unlock();
    if (!c->healthy()) {
      pg::Error ignored;
      c->reset(&ignored);  // a failed reset shows as the next statement's error
    }
    return Lease(this, std::move(c));
  }

  // Runs `body` in a transaction, again when the database says a retry may succeed.
  template <typename Body>
  StoreStatus transaction(Body body) {
    for (int attempt = 0;; ++attempt) {
      Lease c = take();
      pg::Error error;
      StoreStatus s;
      {
        pg::Transaction tx(*c);
        if (!tx.begun().ok()) {
          error = tx.begun().error();
        } else {
          s = body(*c, &error);
          if (s && error.empty()) {
            pg::Result r = tx.commit();
            if (!r.ok()) error = r.error();
          }
        }
      }
      if (error.empty()) return s;
      if (!pg::retryable(error) || attempt == 3) return unavailable(error);
    }
  }

  StoreStatus full(pg::Connection& c, uint64_t wanted) {
    pg::Result r = c.exec("SELECT bytes FROM attrib_session_totals");
    uint64_t have = r.ok() ? static_cast<uint64_t>(r.integer(0, 0)) : 0;
    std::lock_guard<std::mutex> l(held->mu);
    return {507, fmt::format("the sessions hold {} of the Service's {} bytes and this needs {} more; attribute and "
                             "let sessions expire, or retry later", have + held->bytes, limits.maxBytes, wanted)};
  }

  uint64_t heldBytes() {
    std::lock_guard<std::mutex> l(held->mu);
    return held->bytes;
  }

  void maybeSweep(PostgresSessionStore* store) {
    {
      std::lock_guard<std::mutex> l(mu);
      auto now = Clock::now();
      if (now - lastSweep < std::chrono::seconds(1)) return;
      lastSweep = now;
    }
    store->sweep();
  }
};

PostgresSessionStore::PostgresSessionStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PostgresSessionStore::~PostgresSessionStore() = default;

std::unique_ptr<PostgresSessionStore> PostgresSessionStore::open(const std::string& conninfo, SessionLimits limits,
                                                                 std::string* error, size_t connections) {
  auto impl = std::make_unique<Impl>();
  impl->limits = limits;
  impl->ttl = ttlSeconds(limits.ttl);
  pg::ConnectOptions options;
  options.applicationName = "attrib sessions";
  for (size_t i = 0; i < std::max<size_t>(1, connections); ++i) {
    pg::Error e;
    auto c = pg::Connection::open(conninfo, &e, options);
    if (!c) {
      *error = "the PostgreSQL session store: " + e.message;
      return nullptr;
    }
    impl->idle.push_back(std::move(c));
  }
  pg::Connection& db = *impl->idle.front();
  std::string where = db.describe();
  auto fail = [&](const std::string& what, const pg::Error& why) {
    *error = fmt::format("the PostgreSQL session store at {}: {}: {}{}", where, what, why.message,
                         why.sqlstate.empty() ? "" : " (SQLSTATE " + why.sqlstate + ")");
    return nullptr;
  };
  {
    pg::Transaction tx(db);
    if (!tx.begun().ok()) return fail("cannot start a transaction", tx.begun().error());
    pg::Result r = db.exec("SELECT pg_advisory_xact_lock($1)", {kMigrationLock});
    if (r.ok()) r = db.exec("CREATE TABLE IF NOT EXISTS attrib_session_schema(version BIGINT NOT NULL)");
    if (!r.ok()) return fail("cannot create the schema", r.error());
    r = db.exec("SELECT coalesce(max(version), 0) FROM attrib_session_schema");
    if (!r.ok()) return fail("cannot read the schema version", r.error());
    int64_t version = r.integer(0, 0);
    if (version > kSchemaVersion) {
      return fail("refused", {"", fmt::format("schema version {} is newer than this attrib's {}; use a newer attrib", version,
                                              kSchemaVersion)});
    }
    for (int64_t v = version; v < kSchemaVersion; ++v) {
      r = db.script(kMigrations[v]);
      if (r.ok()) r = db.exec("INSERT INTO attrib_session_schema(version) VALUES ($1)", {v + 1});
      if (!r.ok()) return fail(fmt::format("cannot migrate the schema to version {}", v + 1), r.error());
    }
    r = tx.commit();
    if (!r.ok()) return fail("cannot commit the schema", r.error());
  }
  return std::unique_ptr<PostgresSessionStore>(new PostgresSessionStore(std::move(impl)));
}

StoreStatus PostgresSessionStore::create(evidence::Workload workload, std::string* id) {
  impl_->maybeSweep(this);
  std::string json = evidence::workloadToJson(workload);
  uint64_t size = kSessionBytes + workloadBytes(json);
  std::string fresh, why;
  if (!randomId(&fresh, &why)) return {500, why};
  return impl_->transaction([&](pg::Connection& c, pg::Error* error) -> StoreStatus {
    // Check and take a slot in one statement: the totals row's lock orders replicas.
    pg::Result r = c.exec(
        "UPDATE attrib_session_totals SET sessions = sessions + 1, bytes = bytes + $1 "
        "WHERE sessions < $2 AND bytes + $1 + $3 <= $4 RETURNING sessions",
        {static_cast<int64_t>(size), static_cast<int64_t>(impl_->limits.maxSessions), static_cast<int64_t>(impl_->heldBytes()),
         static_cast<int64_t>(impl_->limits.maxBytes)});
    if (!r.ok()) return *error = r.error(), StoreStatus{};
    if (r.rows() == 0) {
      pg::Result t = c.exec("SELECT sessions FROM attrib_session_totals");
      if (t.ok() && static_cast<size_t>(t.integer(0, 0)) >= impl_->limits.maxSessions) {
        return {429, fmt::format("at most {} sessions; attribute or let old ones expire", impl_->limits.maxSessions)};
      }
      return impl_->full(c, size);
    }
    r = c.exec("INSERT INTO attrib_sessions(id, workload_id, workload_json, used_at, bytes) VALUES ($1, $2, $3, now(), $4)",
               {fresh, workload.id, json, static_cast<int64_t>(size)});
    if (!r.ok()) return *error = r.error(), StoreStatus{};
    *id = fresh;
    return {};
  });
}

StoreStatus PostgresSessionStore::append(const std::string& id, wire::Observations parsed, std::optional<evidence::Workload> context,
                                         SessionCounts* counts, uint64_t* sequence) {
  uint64_t added = footprint(parsed);
  std::string text = records(parsed);
  return impl_->transaction([&](pg::Connection& c, pg::Error* error) -> StoreStatus {
    pg::Result s = c.exec(
        "SELECT workload_id, workload_json, appends, lines, samples, files, reports, file_bytes, files_json, bytes "
        "FROM attrib_sessions WHERE id = $1 AND used_at > now() - make_interval(secs => $2) FOR UPDATE",
        {id, impl_->ttl});
    if (!s.ok()) return *error = s.error(), StoreStatus{};
    if (s.rows() == 0) return {404, "no such session (it may have expired)"};
    uint64_t lines = static_cast<uint64_t>(s.integer(0, 3)), samples = static_cast<uint64_t>(s.integer(0, 4));
    uint64_t fileBytes = static_cast<uint64_t>(s.integer(0, 7));
    if (lines + samples + parsed.lines.size() + parsed.metrics.size() > impl_->limits.maxObservationsPerSession) {
      return {413, fmt::format("a session holds at most {} observations", impl_->limits.maxObservationsPerSession)};
    }
    if (fileBytes + parsed.fileBytes() > impl_->limits.maxSessionFileBytes) {
      return {413, fmt::format("a session holds at most {} bytes of files", impl_->limits.maxSessionFileBytes)};
    }
    // The slices' order, against what the session has of each file (its bytes, not the bytes).
    nlohmann::ordered_json files = nlohmann::ordered_json::parse(s.text(0, 8), nullptr, false);
    if (!files.is_object()) files = nlohmann::ordered_json::object();
    wire::Observations skeleton;
    for (const auto& [path, size] : files.items()) {
      wire::FileObservation f;
      f.file.path = path;
      f.size = size.get<uint64_t>();
      skeleton.files.push_back(std::move(f));
    }
    wire::Observations slices;
    for (const auto& f : parsed.files) {
      wire::FileObservation meta;
      meta.file.path = f.file.path;
      meta.offset = f.offset;
      meta.size = f.size;
      slices.files.push_back(std::move(meta));
    }
    std::string why;
    if (!wire::mergeObservations(&skeleton, std::move(slices), &why)) return {400, why};
    nlohmann::ordered_json after = nlohmann::ordered_json::object();
    for (const auto& f : skeleton.files) after[f.file.path] = f.size;
    std::string oldJson = s.text(0, 1), newJson = oldJson, workloadId = s.text(0, 0);
    if (context) {
      if (context->id.empty()) context->id = workloadId;
      workloadId = context->id;
      newJson = evidence::workloadToJson(*context);
    }
    int64_t delta = static_cast<int64_t>(added) + static_cast<int64_t>(workloadBytes(newJson)) - static_cast<int64_t>(workloadBytes(oldJson));
    if (delta != 0) {
      pg::Result t = c.exec(
          "UPDATE attrib_session_totals SET bytes = bytes + $1 WHERE $1 <= 0 OR bytes + $1 + $2 <= $3 RETURNING bytes",
          {delta, static_cast<int64_t>(impl_->heldBytes()), static_cast<int64_t>(impl_->limits.maxBytes)});
      if (!t.ok()) return *error = t.error(), StoreStatus{};
      if (t.rows() == 0) return impl_->full(c, static_cast<uint64_t>(delta));
    }
    int64_t seq = s.integer(0, 2) + 1;
    if (!text.empty()) {
      pg::Result a = c.exec("INSERT INTO attrib_session_appends(session_id, seq, records) VALUES ($1, $2, $3)", {id, seq, text});
      if (!a.ok()) return *error = a.error(), StoreStatus{};
    }
    SessionCounts n{lines + parsed.lines.size(), samples + parsed.metrics.size(), skeleton.files.size(),
                    static_cast<size_t>(s.integer(0, 6)) + parsed.reports.size()};
    pg::Result u = c.exec(
        "UPDATE attrib_sessions SET appends = $2, lines = $3, samples = $4, files = $5, reports = $6, file_bytes = $7, "
        "files_json = $8, bytes = bytes + $9, workload_id = $10, workload_json = $11, used_at = now() WHERE id = $1",
        {id, seq, static_cast<int64_t>(n.lines), static_cast<int64_t>(n.samples), static_cast<int64_t>(n.files),
         static_cast<int64_t>(n.reports), static_cast<int64_t>(fileBytes + parsed.fileBytes()), after.dump(), delta, workloadId,
         newJson});
    if (!u.ok()) return *error = u.error(), StoreStatus{};
    *counts = n;
    *sequence = static_cast<uint64_t>(seq);
    return {};
  });
}

StoreStatus PostgresSessionStore::snapshot(const std::string& id, evidence::Workload* workload, wire::Observations* observations,
                                           std::shared_ptr<void>* hold) {
  uint64_t copy = 0;
  StoreStatus s = impl_->transaction([&](pg::Connection& c, pg::Error* error) -> StoreStatus {
    // It writes only the time of use: losing that in a server crash costs nothing, so the
    // commit does not wait for the WAL flush.
    pg::Result async = c.exec("SET LOCAL synchronous_commit = off");
    if (!async.ok()) return *error = async.error(), StoreStatus{};
    // The row lock taken here keeps appends out until the copy is read.
    pg::Result r = c.exec(
        "UPDATE attrib_sessions SET used_at = now() WHERE id = $1 AND used_at > now() - make_interval(secs => $2) "
        "RETURNING workload_json, bytes",
        {id, impl_->ttl});
    if (!r.ok()) return *error = r.error(), StoreStatus{};
    if (r.rows() == 0) return {404, "no such session (it may have expired)"};
    copy = static_cast<uint64_t>(r.integer(0, 1));
    pg::Result t = c.exec("SELECT bytes FROM attrib_session_totals");
    if (!t.ok()) return *error = t.error(), StoreStatus{};
    if (static_cast<uint64_t>(t.integer(0, 0)) + impl_->heldBytes() + copy > impl_->limits.maxBytes) return impl_->full(c, copy);
    std::string why;
    evidence::Workload w;
    if (!evidence::parseWorkloadJson(r.text(0, 0), &w, &why)) return {500, "a stored session's context cannot be read: " + why};
    pg::Result a = c.exec("SELECT records FROM attrib_session_appends WHERE session_id = $1 ORDER BY seq", {id});
    if (!a.ok()) return *error = a.error(), StoreStatus{};
    wire::Observations all;
    for (int i = 0; i < a.rows(); ++i) {
      wire::Observations one;
      if (!wire::parseObservations("attrib", a.text(i, 0), &one, &why) || !wire::mergeObservations(&all, std::move(one), &why)) {
        return {500, "a stored session's observations cannot be read: " + why};
      }
    }
    *workload = std::move(w);
    *observations = std::move(all);
    return {};
  });
  if (!s) return s;
  auto held = impl_->held;
  {
    std::lock_guard<std::mutex> l(held->mu);
    held->bytes += copy;
  }
  *hold = std::shared_ptr<void>(held.get(), [held, copy](void*) {
    std::lock_guard<std::mutex> l(held->mu);
    held->bytes -= copy;
  });
  return {};
}

void PostgresSessionStore::setVerdict(const std::string& id, std::string verdict) {
  impl_->transaction([&](pg::Connection& c, pg::Error* error) -> StoreStatus {
    // The latest verdict can be computed again: its commit does not wait for the WAL flush.
    pg::Result r = c.exec("SET LOCAL synchronous_commit = off");
    if (r.ok()) r = c.exec("UPDATE attrib_sessions SET verdict = $2 WHERE id = $1", {id, verdict});
    if (!r.ok()) *error = r.error();
    return {};
  });
}

StoreStatus PostgresSessionStore::describe(const std::string& id, std::string* workloadId, SessionCounts* counts, std::string* verdict) {
  Impl::Lease c = impl_->take();
  pg::Result r = c->exec(
      "SELECT workload_id, lines, samples, files, reports, verdict FROM attrib_sessions "
      "WHERE id = $1 AND used_at > now() - make_interval(secs => $2)",
      {id, impl_->ttl});
  if (!r.ok()) return unavailable(r.error());
  if (r.rows() == 0) return {404, "no such session (it may have expired)"};
  *workloadId = r.text(0, 0);
  *counts = {static_cast<size_t>(r.integer(0, 1)), static_cast<size_t>(r.integer(0, 2)), static_cast<size_t>(r.integer(0, 3)),
             static_cast<size_t>(r.integer(0, 4))};
  *verdict = r.text(0, 5);
  return {};
}

size_t PostgresSessionStore::sessions() {
  impl_->maybeSweep(this);
  Impl::Lease c = impl_->take();
  pg::Result r = c->exec("SELECT sessions FROM attrib_session_totals");
  return r.ok() ? static_cast<size_t>(r.integer(0, 0)) : 0;
}

uint64_t PostgresSessionStore::bytes() {
  uint64_t stored = 0;
  {
    Impl::Lease c = impl_->take();
    pg::Result r = c->exec("SELECT bytes FROM attrib_session_totals");
    if (r.ok()) stored = static_cast<uint64_t>(r.integer(0, 0));
  }
  return stored + impl_->heldBytes();
}

int64_t PostgresSessionStore::sweep() {
  int64_t removed = -1;
  impl_->transaction([&](pg::Connection& c, pg::Error* error) -> StoreStatus {
    pg::Result lock = c.exec("SELECT pg_try_advisory_xact_lock($1)", {kSweepLock});
    if (!lock.ok()) return *error = lock.error(), StoreStatus{};
    if (lock.text(0, 0) != "t") return {};  // another replica is sweeping
    // One statement: the sessions go and their share of the totals with them. A session used
    // since the scan began is re-checked under its row lock and kept.
    pg::Result r = c.exec(
        "WITH gone AS (DELETE FROM attrib_sessions WHERE used_at <= now() - make_interval(secs => $1) RETURNING bytes) "
        "UPDATE attrib_session_totals SET sessions = sessions - (SELECT count(*) FROM gone), "
        "bytes = bytes - (SELECT coalesce(sum(bytes), 0) FROM gone) RETURNING (SELECT count(*) FROM gone)",
        {impl_->ttl});
    if (!r.ok()) return *error = r.error(), StoreStatus{};
    removed = r.integer(0, 0);
    return {};
  });
  return removed;
}

}  // namespace attrib::service
