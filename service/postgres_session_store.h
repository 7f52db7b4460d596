// The Service's sessions in PostgreSQL, so that N `attrib serve` replicas behind one load
// balancer share them: any replica serves any request of any session (docs/service.md,
// "Deployment").
//
// What is stored: a session row (workload context, counts, the bytes received of each file,
// the latest verdict, the time it was last used, by the database's clock) and each append's
// observations as attrib JSON lines (wire::attribRecord), replayed in order by snapshot().
//
// The bounds are the memory store's (session_store.h), enforced across replicas:
// - maxSessions and maxBytes: one totals row, changed by a check-and-add UPDATE in the same
//   transaction as the session it accounts for, so two replicas can never both take the last
//   slot. maxBytes counts the stored evidence (the memory store's estimate of it) plus, on each
//   replica, the copies it is attributing now.
// - maxObservationsPerSession, maxSessionFileBytes and the order of file slices: checked under
//   the session row's lock, so concurrent appends to one session serialise.
// - ttl: a session idle longer is gone (404) at once; sweep() deletes expired ones and gives
//   back their share of the totals. Every replica may sweep: one sweeps at a time (an advisory
//   lock; the others skip), and a session used meanwhile is kept.
// A refused call changes nothing (its transaction is rolled back).
#pragma once

#include <memory>
#include <string>

#include "service/session_store.h"

namespace attrib::service {

class PostgresSessionStore : public SessionStore {
 public:
  // Connects `connections` times (conninfo: keyword=value or a postgresql:// URL) and creates
  // or migrates the store's tables (attrib_session*; they may share a database with the sink);
  // nullptr with a one-line `error` (never the password).
  static std::unique_ptr<PostgresSessionStore> open(const std::string& conninfo, SessionLimits limits, std::string* error,
                                                    size_t connections = 4);
  ~PostgresSessionStore() override;

  StoreStatus create(evidence::Workload workload, std::string* id) override;
  StoreStatus append(const std::string& id, wire::Observations observations, std::optional<evidence::Workload> context,
                     SessionCounts* counts, uint64_t* sequence) override;
  StoreStatus snapshot(const std::string& id, evidence::Workload* workload, wire::Observations* observations,
                       std::shared_ptr<void>* hold) override;
  void setVerdict(const std::string& id, std::string verdict) override;
  StoreStatus describe(const std::string& id, std::string* workloadId, SessionCounts* counts, std::string* verdict) override;
  size_t sessions() override;
  uint64_t bytes() override;

  // Deletes the sessions idle past the TTL; how many. -1 when another replica is sweeping now
  // (nothing to do here), or on a database error. The store also sweeps on its own, at most
  // once a second, from create() and sessions().
  int64_t sweep();

  static constexpr int kSchemaVersion = 1;

 private:
  struct Impl;
  explicit PostgresSessionStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace attrib::service
