// Where the Service keeps its sessions: a workload's context and the observations sent for
// it, until attributed or idle for the TTL. An interface, so that a store other than memory
// (a database shared by several Services) can stand in; memorySessionStore() is the one here.
//
// Bounds, checked before anything is kept (a refused call changes nothing):
//   maxSessions                  429 too_many_sessions
//   maxObservationsPerSession,   413 payload_too_large (one session's share)
//   maxSessionFileBytes
//   maxBytes                     507 insufficient_storage: every session's evidence, plus the
//                                copies being attributed, in bytes (an estimate of the memory
//                                they take), stays under this
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "evidence/workload.h"
#include "wire/observations.h"

namespace attrib::service {

struct SessionLimits {
  size_t maxSessions = 1000;
  size_t maxObservationsPerSession = 2'000'000;
  uint64_t maxSessionFileBytes = uint64_t{1} << 30;
  uint64_t maxBytes = uint64_t{4} << 30;
  std::chrono::seconds ttl{3600};  // since the session was last used
};

struct SessionCounts {
  size_t lines = 0, samples = 0, files = 0, reports = 0;
};

// The outcome of a store call: 0 = done, else an HTTP status and why.
struct StoreStatus {
  StoreStatus() = default;
  StoreStatus(int status, std::string message, std::string code = "")
      : status(status), message(std::move(message)), code(std::move(code)) {}
  int status = 0;
  std::string message;
  std::string code;  // the error body's code when the status's own would mislead ("" for it)
  explicit operator bool() const { return status == 0; }
};

class SessionStore {
 public:
  virtual ~SessionStore() = default;
  // A new session for `workload`; its id (128 random bits, hex).
  virtual StoreStatus create(evidence::Workload workload, std::string* id) = 0;
  // Appends `observations`; with `context`, it also replaces the session's context (keeping
  // the session's workload id when the new one has none). `counts`: the session's totals after;
  // `sequence`: how many appends the session has had, this one included.
  virtual StoreStatus append(const std::string& id, wire::Observations observations, std::optional<evidence::Workload> context,
                             SessionCounts* counts, uint64_t* sequence) = 0;
  // A copy of the session to attribute outside the store. `hold` keeps the copy's bytes counted
  // against maxBytes until it is released.
  virtual StoreStatus snapshot(const std::string& id, evidence::Workload* workload, wire::Observations* observations,
                               std::shared_ptr<void>* hold) = 0;
  // The latest verdict (JSON) of a session; a session gone meanwhile is no error.
  virtual void setVerdict(const std::string& id, std::string verdict) = 0;
  // The session's workload id, counts and latest verdict ("" before the first attribution).
  virtual StoreStatus describe(const std::string& id, std::string* workloadId, SessionCounts* counts, std::string* verdict) = 0;
  virtual size_t sessions() = 0;
  virtual uint64_t bytes() = 0;  // held now, copies being attributed included
};

std::unique_ptr<SessionStore> memorySessionStore(SessionLimits limits);

// The bytes `observations` take in memory, as the budget counts them.
uint64_t footprint(const wire::Observations& observations);

}  // namespace attrib::service
