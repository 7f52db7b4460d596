// The diagnosing step done by a remote attrib Service (docs/service.md) instead of in-process:
// each workload's context and the evidence the blueprint's sources collected go over HTTP in the
// Service's attrib observation format (service/observations.h), with their provenance, so the
// verdict's evidence points at the same files and streams, and the verdict comes back as JSON
// (runtime/verdict_json.h).
//
// - Log files go whole, as base64 slices of their bytes: the Service scans them exactly as an
//   in-process diagnosis does (offsets, line numbers, gzip, the per-file connector reports).
//   Lines (scheduler facts, Loki, pod logs) and samples go as records; the connector reports
//   collected here go too, so they are in the verdict and weigh on its confidence.
// - One POST /v1/attribute when everything fits the Service's body limit (GET /v1/rulesets
//   announces it; `max_body` may lower it), else a session: POST /v1/sessions, observation
//   POSTs each within the limit, POST .../attribute.
// - The bearer token is read from its file for every workload (so it can be rotated) and never
//   appears in an error, a log line or a verdict.
// - 429 and 503 are retried after their Retry-After (at most `maxRetryWait`), `attempts` times
//   in all; every other failure (no answer: unreachable or timed out; 401, 413, another status;
//   an answer that is not a verdict) is one line in `error`.
#pragma once

#include <string>

#include "connectors/source.h"
#include "orchestrator/blueprint.h"
#include "runtime/verdict.h"

namespace attrib::orchestrator {

struct RemoteRuleset {
  std::string name, version, digest;
  uint64_t maxBody = 0;  // the body limit the Service announced (0: none announced)
};

struct RemoteStats {
  uint64_t requests = 0, bytesSent = 0, sessions = 0, retries = 0;
};

class RemoteService {
 public:
  explicit RemoteService(ServiceSpec spec) : spec_(std::move(spec)) {}

  // GET /v1/rulesets: the rule set that judges (its digest keys the watch state) and the body
  // limit. Cached until forget() (the runner forgets at every poll, so a reload is noticed).
  bool ruleset(RemoteRuleset* out, std::string* error);
  void forget() { known_ = false; }

  // The verdict over `context` and `found`; false with a one-line `error`.
  bool attribute(const connectors::WorkloadContext& context, const connectors::SourceEvidence& found,
                 runtime::Verdict* out, std::string* error);

  const RemoteStats& stats() const { return stats_; }

 private:
  struct Reply;
  Reply call(const std::string& path, const std::string* body, const char* contentType, const std::string& token);
  bool token(std::string* out, std::string* error) const;
  bool verdictOf(const Reply& reply, const connectors::WorkloadContext& context, runtime::Verdict* out, std::string* error);

  ServiceSpec spec_;
  RemoteRuleset ruleset_;
  bool known_ = false;
  RemoteStats stats_;
};

}  // namespace attrib::orchestrator
