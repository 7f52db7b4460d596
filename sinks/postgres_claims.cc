#include "sinks/postgres_claims.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "pg/connection.h"

namespace attrib::sinks {
namespace {

// Each migration takes the claims schema from version i to i + 1; never edit a shipped one.
const char* const kMigrations[] = {
    // 0 -> 1
    R"sql(
CREATE TABLE work_claims(
  workload_id TEXT NOT NULL,
  ruleset_digest TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'claimed', 'done')),
  owner TEXT,                          -- the worker holding it (claimed), or that completed it (done)
  fence BIGINT NOT NULL DEFAULT 0,     -- +1 at every claim: a completion names the one it holds
  lease_until TIMESTAMPTZ,             -- claimed: the claim is free after this (server time)
  claims BIGINT NOT NULL DEFAULT 0,    -- how many times it was claimed (more than 1: taken over or retried)
  attributions BIGINT NOT NULL DEFAULT 0,  -- completed attributions: 1 once done
  claimed_at TIMESTAMPTZ,               -- the last claim's start (done_at - claimed_at: how long it took)
  done_at TIMESTAMPTZ,
  PRIMARY KEY (ruleset_digest, workload_id));
CREATE INDEX work_claims_owner ON work_claims(owner) WHERE state = 'claimed';
)sql",
};

constexpr int64_t kClaimsLock = 0x61747472696232;  // "attrib2": the claims schema's migrations
constexpr size_t kChunk = 1000;                    // ids per statement

// A text[] literal: every element quoted, '"' and '\' escaped.
std::string textArray(std::vector<std::string>::const_iterator begin, std::vector<std::string>::const_iterator end) {
  std::string out = "{";
  for (auto it = begin; it != end; ++it) {
    if (it != begin) out += ',';
    out += '"';
    for (char c : *it) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

std::string withState(const pg::Error& e) { return e.message + (e.sqlstate.empty() ? "" : " (SQLSTATE " + e.sqlstate + ")"); }

}  // namespace

PostgresClaims::PostgresClaims(std::unique_ptr<pg::Connection> db, std::unique_ptr<pg::Connection> renewer, PostgresSink& sink,
                               ClaimOptions options)
    : db_(std::move(db)), renewer_(std::move(renewer)), sink_(sink), options_(std::move(options)) {
  if (options_.renew) thread_ = std::thread([this] { renewLoop(); });
}

PostgresClaims::~PostgresClaims() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::unique_ptr<PostgresClaims> PostgresClaims::open(const std::string& conninfo, PostgresSink& sink, const ClaimOptions& options,
                                                     std::string* error) {
  if (options.worker.empty()) {
    *error = "the work claims need a worker name";
    return nullptr;
  }
  if (options.lease.count() <= 0) {
    *error = "the work claims' lease must be more than 0 seconds";
    return nullptr;
  }
  pg::ConnectOptions connect;
  connect.connectTimeoutSeconds = options.connectTimeoutSeconds;
  connect.applicationName = "attrib claims";
  pg::Error e;
  auto db = pg::Connection::open(conninfo, &e, connect);
  std::unique_ptr<pg::Connection> renewer;
  if (db && options.renew) renewer = pg::Connection::open(conninfo, &e, connect);
  if (!db || (options.renew && !renewer)) {
    *error = "the work claims: " + e.message;
    return nullptr;
  }
  std::string where = db->describe();
  auto fail = [&](const std::string& what, const pg::Error& why) {
    *error = fmt::format("the work claims at {}: {}: {}", where, what, withState(why));
    return nullptr;
  };
  {
    pg::Transaction tx(*db);
    if (!tx.begun().ok()) return fail("cannot start a transaction", tx.begun().error());
    pg::Result r = db->exec("SELECT pg_advisory_xact_lock($1)", {kClaimsLock});
    if (!r.ok()) return fail("cannot lock the schema", r.error());
    r = db->exec("CREATE TABLE IF NOT EXISTS work_claims_version(version BIGINT NOT NULL)");
    if (!r.ok()) return fail("cannot create the schema", r.error());
    r = db->exec("SELECT coalesce(max(version), 0) FROM work_claims_version");
    if (!r.ok()) return fail("cannot read the schema version", r.error());
    int64_t version = r.integer(0, 0);
    if (version > kSchemaVersion) {
      return fail("refused", {"", fmt::format("claims schema version {} is newer than this attrib's {}; use a newer attrib",
                                              version, kSchemaVersion)});
    }
    for (int64_t v = version; v < kSchemaVersion; ++v) {
      r = db->script(kMigrations[v]);
      if (r.ok()) r = db->exec("INSERT INTO work_claims_version(version) VALUES ($1)", {v + 1});
      if (!r.ok()) return fail(fmt::format("cannot migrate the claims schema to version {}", v + 1), r.error());
    }
    r = tx.commit();
    if (!r.ok()) return fail("cannot commit the schema", r.error());
  }
  return std::unique_ptr<PostgresClaims>(new PostgresClaims(std::move(db), std::move(renewer), sink, options));
}

bool PostgresClaims::ready(std::string* error) {
  if (db_->healthy()) return true;
  pg::Error e;
  if (db_->reset(&e)) return true;
  *error = "the work claims: " + e.message;
  return false;
}

bool PostgresClaims::pending(const std::vector<std::string>& ids, const std::string& digest, std::vector<std::string>* out,
                             std::string* error) {
  out->clear();
  if (!ready(error)) return false;
  for (size_t at = 0; at < ids.size(); at += kChunk) {
    auto begin = ids.begin() + static_cast<std::ptrdiff_t>(at);
    auto end = ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), at + kChunk));
    std::string array = textArray(begin, end);
    // Every id gets its row (done at once when a verdict is already stored, by a writer that
    // takes no claims); the pending ones come back in their order.
    pg::Result r = db_->exec(
        "INSERT INTO work_claims(workload_id, ruleset_digest, state) "
        "SELECT t.id, $2, CASE WHEN EXISTS (SELECT 1 FROM verdicts v WHERE v.workload_id = t.id AND v.ruleset_digest = $2) "
        "THEN 'done' ELSE 'open' END FROM unnest($1::text[]) AS t(id) ON CONFLICT DO NOTHING",
        {array, digest});
    if (!r.ok()) {
      *error = "the work claims: cannot record the workloads: " + withState(r.error());
      return false;
    }
    r = db_->exec(
        "SELECT t.id FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n) "
        "WHERE NOT EXISTS (SELECT 1 FROM work_claims c WHERE c.ruleset_digest = $2 AND c.workload_id = t.id AND c.state = 'done') "
        "AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.workload_id = t.id AND v.ruleset_digest = $2) ORDER BY t.n",
        {array, digest});
    if (!r.ok()) {
      *error = "the work claims: cannot read which workloads are attributed: " + withState(r.error());
      return false;
    }
    for (int i = 0; i < r.rows(); ++i) out->push_back(r.text(i, 0));
  }
  return true;
}

bool PostgresClaims::claim(const std::vector<std::string>& candidates, const std::string& digest, std::vector<Claim>* out,
                           std::string* error) {
  out->clear();
  if (candidates.empty()) return true;
  if (!ready(error)) return false;
  pg::Result r = db_->exec(
      "WITH free AS (SELECT workload_id FROM work_claims WHERE ruleset_digest = $1 AND workload_id = ANY($2::text[]) "
      "AND (state = 'open' OR (state = 'claimed' AND lease_until < clock_timestamp())) FOR UPDATE SKIP LOCKED) "
      "UPDATE work_claims w SET state = 'claimed', owner = $3, fence = w.fence + 1, claims = w.claims + 1, claimed_at = clock_timestamp(), "
      "lease_until = clock_timestamp() + $4::bigint * interval '1 millisecond' "
      "FROM free WHERE w.ruleset_digest = $1 AND w.workload_id = free.workload_id RETURNING w.workload_id, w.fence",
      {digest, textArray(candidates.begin(), candidates.end()), options_.worker, static_cast<int64_t>(options_.lease.count())});
  if (!r.ok()) {
    *error = "the work claims: cannot claim workloads: " + withState(r.error());
    return false;
  }
  std::unordered_map<std::string, int64_t> got;
  for (int i = 0; i < r.rows(); ++i) got[r.text(i, 0)] = r.integer(i, 1);
  for (const auto& id : candidates) {
    if (auto it = got.find(id); it != got.end()) out->push_back({id, digest, it->second});
  }
  return true;
}

bool PostgresClaims::complete(const runtime::Verdict& verdict, const Claim& claim, std::string* error) {
  PostgresSink::Guard fence = [&](pg::Connection& db, std::string* why, bool* retry) {
    // The row lock taken here orders this completion after a takeover in progress, whose new
    // fence then fails the match.
    pg::Result r = db.exec(
        "UPDATE work_claims SET state = 'done', attributions = attributions + 1, lease_until = NULL, done_at = clock_timestamp() "
        "WHERE ruleset_digest = $1 AND workload_id = $2 AND owner = $3 AND fence = $4 AND state = 'claimed'",
        {claim.rulesetDigest, claim.workloadId, options_.worker, claim.fence});
    if (!r.ok()) {
      *retry = pg::retryable(r.error());
      *why = fmt::format("the work claims could not complete {}: {}", claim.workloadId, withState(r.error()));
      return false;
    }
    if (r.affected() != 1) {
      *retry = false;
      *why = fmt::format("{}: this worker's claim was taken over by another (its lease of {} ms ran out); the verdict is "
                         "not stored here",
                         claim.workloadId, options_.lease.count());
      return false;
    }
    return true;
  };
  return sink_.write(verdict, error, fence);
}

void PostgresClaims::release(const Claim& claim) {
  std::string ignored;
  if (!ready(&ignored)) return;  // the lease frees it
  db_->exec("UPDATE work_claims SET state = 'open', lease_until = NULL "
            "WHERE ruleset_digest = $1 AND workload_id = $2 AND owner = $3 AND fence = $4 AND state = 'claimed'",
            {claim.rulesetDigest, claim.workloadId, options_.worker, claim.fence});
}

void PostgresClaims::renewLoop() {
  auto every = std::max<std::chrono::milliseconds>(options_.lease / 3, std::chrono::milliseconds(20));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, every, [this] { return stopping_; })) {
    if (!renewer_->healthy()) {
      pg::Error e;
      if (!renewer_->reset(&e)) continue;  // try again next time; the lease is longer than this
    }
    renewer_->exec("UPDATE work_claims SET lease_until = clock_timestamp() + $2::bigint * interval '1 millisecond' "
                   "WHERE owner = $1 AND state = 'claimed'",
                   {options_.worker, static_cast<int64_t>(options_.lease.count())});
  }
}

}  // namespace attrib::sinks
