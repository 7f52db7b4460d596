// The attrib Service (`attrib serve`): attribution over HTTP for clients that hold the evidence
// themselves. Sessions collect a workload's context and observations in any order; attributing
// a session gives the verdict over everything ingested so far; POST /v1/attribute does it all in
// one call. docs/service.md lists the routes.
//
// Layers: httpd::Server (connections, deadlines, body limits) -> admission here, on the head
// alone (route, 404/405, the token, the in-flight bound) -> runHandler (endpoint.h: the
// request-parsing layer; nothing thrown escapes it) -> the route's handler -> the
// SessionStore (session_store.h: count, size and memory bounds).
//
// Robustness: an optional bearer token (401, checked before any byte of the body is read), a
// body limit for every transfer encoding (413), a bound on requests in flight (503 with
// Retry-After; the health routes are not counted), bounded sessions (429, 413, 507), and every
// failure as a JSON body {"error": {"code", "message"}} naming the offending field, never a
// stack trace or a secret. Each request is one access-log line and a metric, 500s included.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "history/node_history.h"
#include "history/repeat_offender.h"
#include "httpd/router.h"
#include "httpd/server.h"
#include "runtime/engine.h"
#include "service/endpoint.h"
#include "service/evidence_collector.h"
#include "service/in_flight.h"
#include "service/recovery_adapter.h"
#include "service/session_store.h"

namespace attrib::service {

struct ServiceOptions {
  std::string token;                   // empty: no authentication
  size_t maxBodyBytes = 64u << 20;
  size_t maxInFlight = 16;             // requests being handled at once (health routes aside)
  unsigned threads = 8;                // worker threads for handlers
  size_t maxConnections = 1024;        // open at once (idle keep-alive ones give way to new ones)
  std::chrono::milliseconds headerTimeout{10'000};  // a request's head, from its first byte
  std::chrono::milliseconds bodyTimeout{60'000};    // a request's body
  std::chrono::milliseconds idleTimeout{30'000};    // keep-alive, between requests
  size_t maxSessions = 1000;
  size_t maxObservationsPerSession = 2'000'000;  // lines plus samples
  uint64_t maxSessionFileBytes = uint64_t{1} << 30;  // bytes of log files a session holds
  uint64_t maxSessionBytes = uint64_t{4} << 30;      // every session's evidence together (507 beyond)
  std::chrono::seconds sessionTtl{3600};          // since the session was last used
  // One structured line per request (JSON: time, method, route, status, ms, bytes in/out, peer).
  // Never the body, the path, the query string or headers: they can hold evidence and secrets.
  std::function<void(const std::string& line)> accessLog;
  // POST /v1/rulesets/reload loads the rules again with this (null: reloading is not offered).
  std::function<std::shared_ptr<const runtime::Engine>(std::string* error)> reload;
  // Where sessions live (null: in memory, with the limits above).
  std::shared_ptr<SessionStore> store;
  // GET /v1/nodes and /v1/nodes/{node}/history read node histories here, and judge them by
  // this policy (docs/history.md); null: those routes answer 404.
  std::shared_ptr<history::HistoryReader> history;
  history::PolicyOptions historyPolicy;
  // Where POST /v1/attribution (the NVIDIA Recovery adapter) finds evidence (null: only what is
  // posted to its sessions); `attrib serve --sources` builds it from connectors.
  std::shared_ptr<EvidenceCollector> collector;
};

// Settings that cannot work (zero or negative limits, timeouts, TTLs): the first one, named as
// `attrib serve` spells it (e.g. "--max-in-flight must be at least 1"), or "" when all are fine.
std::string checkOptions(const ServiceOptions& options);

class Service {
 public:
  Service(std::shared_ptr<const runtime::Engine> engine, ServiceOptions options);
  ~Service();

  // Binds to host:port (0: any free port) and returns the port, or -1 with `error`.
  int bind(const std::string& host, int port, std::string* error);
  // Serves until stop(); in-flight requests finish first.
  void serve();
  void stop();

  // The handler of a route, run through the parsing layer, without the network (the fuzzer and
  // tests call it; `method` and `path` are matched as the server would).
  httpd::Response call(const std::string& method, const std::string& target, const std::string& body);

 private:
  struct Route {
    Handler handler;
    bool authenticate = true;
    bool counted = true;  // counts against maxInFlight
    bool takesBody = true;  // false: any body is a 413 (limit 0)
  };
  void routes();
  void v1Routes();
  void nodeRoutes();
  void recoveryRoutes();  // recovery_routes.cc
  httpd::Admission admit(const httpd::Head& head);
  void record(const httpd::Exchange& e);
  std::string attribute(const evidence::Workload& workload, wire::Observations observations, runtime::Verdict* out = nullptr);
  runtime::Verdict diagnose(evidence::WorkloadEvidence evidence);
  std::string metricsText();
  // The current rule set. A reload swaps it atomically; a request keeps the engine it started with.
  std::shared_ptr<const runtime::Engine> engine() const { return std::atomic_load(&engine_); }

  std::shared_ptr<const runtime::Engine> engine_;
  ServiceOptions options_;
  std::shared_ptr<SessionStore> store_;
  std::unique_ptr<RecoveryAdapter> recovery_;  // POST /v1/attribution; before the server goes, after
  InFlight inFlight_;
  httpd::Router<Route> router_;
  std::string openapi_;
  std::unique_ptr<httpd::Server> server_;
  // /metrics
  std::mutex metricsMu_;
  std::map<std::string, uint64_t> requests_;  // "route status" -> count
  std::map<std::string, uint64_t> verdicts_;  // family -> count
  double latencySeconds_ = 0;
  uint64_t latencyCount_ = 0;
  uint64_t bytesScanned_ = 0;
  uint64_t internalErrors_ = 0;
};

}  // namespace attrib::service
