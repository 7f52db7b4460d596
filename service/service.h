// The attrib Service (`attrib serve`): attribution over HTTP for clients that hold the evidence
// themselves. Sessions collect a workload's context and observations in any order; attributing
// a session gives the verdict over everything ingested so far; POST /v1/attribute does it all in
// one call. docs/service.md lists the routes.
//
// Robustness: an optional bearer token (401 without it), a body limit (413), a bound on requests
// in flight (503 with Retry-After beyond it), bounded sessions (count, observations, bytes,
// idle TTL), and every failure as a JSON body {"error": {"code", "message"}} naming the offending
// field, never a stack trace or a secret.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/engine.h"
#include "wire/observations.h"

namespace httplib {
class Server;
}

namespace attrib::service {

struct ServiceOptions {
  std::string token;                   // empty: no authentication
  size_t maxBodyBytes = 64u << 20;
  size_t maxInFlight = 16;             // requests being handled at once
  unsigned threads = 8;
  size_t maxSessions = 1000;
  size_t maxObservationsPerSession = 2'000'000;  // lines plus samples
  uint64_t maxSessionFileBytes = uint64_t{1} << 30;  // bytes of log files a session holds
  std::chrono::seconds sessionTtl{3600};          // since the session was last used
  // One structured line per request (JSON: time, method, path, status, ms, bytes in/out, peer).
  // Never the body, the query string or headers: they can hold evidence and secrets.
  std::function<void(const std::string& line)> accessLog;
  // POST /v1/rulesets/reload loads the rules again with this (null: reloading is not offered).
  std::function<std::shared_ptr<const runtime::Engine>(std::string* error)> reload;
};

class Service {
 public:
  Service(std::shared_ptr<const runtime::Engine> engine, ServiceOptions options);
  ~Service();

  // Binds to host:port (0: any free port) and returns the port, or -1 with `error`.
  int bind(const std::string& host, int port, std::string* error);
  // Serves until stop(); in-flight requests finish first.
  void serve();
  void stop();

 private:
  struct Session {
    evidence::Workload workload;
    wire::Observations observations;
    std::string verdict;  // the latest, as JSON; empty before the first attribution
    std::chrono::steady_clock::time_point used;
    uint64_t observationCount = 0;  // V1 observation ids
  };
  void routes();
  // With mu_ held: the live session `id` (expired ones are dropped first), or null.
  Session* findSession(const std::string& id);
  // With mu_ held: appends `parsed`, unless the session would hold more than its limit (then
  // nothing is added and `error` says so; `what`, e.g. "a session", begins it).
  bool addObservations(Session& session, wire::Observations& parsed, const char* what, std::string* error);
  // Copies a session's context and evidence, to attribute them outside the lock.
  bool snapshot(const std::string& id, evidence::Workload* workload, wire::Observations* observations);
  template <typename Guard>
  void v1Routes(Guard& guarded);
  void expire();
  std::string attribute(const evidence::Workload& workload, wire::Observations observations);
  // The current rule set. A reload swaps it atomically; a request keeps the engine it started with.
  std::shared_ptr<const runtime::Engine> engine() const { return std::atomic_load(&engine_); }

  std::shared_ptr<const runtime::Engine> engine_;
  ServiceOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::mutex mu_;
  std::map<std::string, Session> sessions_;
  std::atomic<size_t> inFlight_{0};
  // /metrics
  std::mutex metricsMu_;
  std::map<std::string, uint64_t> requests_;  // "route status" -> count
  std::map<std::string, uint64_t> verdicts_;  // family -> count
  double latencySeconds_ = 0;
  uint64_t latencyCount_ = 0;
  uint64_t bytesScanned_ = 0;
};

}  // namespace attrib::service
