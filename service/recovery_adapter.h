// NVIDIA Recovery's attribution-provider API, POST /v1/attribution (docs/service.md, "NVIDIA
// Recovery adapter"): a WorkloadAttributionRequest (recovery_request.h) in, attrib's verdict out.
//
// A pass finds the workload's evidence itself, through the EvidenceCollector's sources, narrowed
// to the request's nodes and time window, and answers within its timeout_ms from what the
// sources have delivered by then: a source that has not answered is a `partial` connector report
// in the verdict (which lowers its confidence) and is named in the answer's `evidence`, never
// dropped silently. Its collection goes on in the background; a later pass that names the
// session in `continue_session` (the slow pass) gets the rest and the full verdict.
//
// State: sessions live in the SessionStore (their id, workload, TTL and any observations posted
// to /v1/sessions/{id}/observations); what the sources collected for a session lives here, one
// Collection per session, and goes when the store has forgotten the session. Each source of a
// collection runs on a thread of its own; the adapter's destructor waits for them (sources are
// bounded by their own timeouts and budgets).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/verdict.h"
#include "service/endpoint.h"
#include "service/evidence_collector.h"
#include "service/recovery_request.h"
#include "service/session_store.h"

namespace attrib::service {

struct RecoveryOptions {
  SessionStore* store = nullptr;                  // required
  std::shared_ptr<EvidenceCollector> collector;   // null: only evidence posted to the session
  std::function<runtime::Verdict(evidence::WorkloadEvidence)> diagnose;  // required
  // True when the loaded rule set has symptoms under this package prefix ("perf.straggler.").
  std::function<bool(const std::string& prefix)> hasRules;
  RecoveryLimits limits;
  size_t maxCollections = 256;  // sessions whose sources are held at once (429 beyond)
};

class RecoveryAdapter {
 public:
  explicit RecoveryAdapter(RecoveryOptions options);
  ~RecoveryAdapter();
  RecoveryAdapter(const RecoveryAdapter&) = delete;
  RecoveryAdapter& operator=(const RecoveryAdapter&) = delete;

  // POST /v1/attribution; throws Failure / json::FieldError for runHandler to answer.
  httpd::Response attribution(const Call& call);

  struct Collection;

 private:
  std::shared_ptr<Collection> collectionFor(const std::string& session, const evidence::Workload& workload);
  void reap();

  RecoveryOptions options_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Collection>> collections_;  // by session id
  std::vector<std::shared_ptr<Collection>> retired_;  // forgotten sessions whose threads may still run
};

}  // namespace attrib::service
