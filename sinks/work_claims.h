// Work claims: which worker attributes which workload, so that several `attrib run --watch`
// workers on one execution context attribute every workload exactly once (docs/orchestrator.md,
// "Work sharing"). A workload is keyed with the rule set that judges it (workload id, ruleset
// digest), as the sinks key verdicts.
//
// The contract a store keeps:
// - pending() leaves out what is attributed; what it returns may still be held by another worker.
// - claim() hands a worker some of `candidates`, each to one worker at a time: a claim held by a
//   live worker is never handed out again; one whose lease ran out (its worker died) is.
// - complete() stores the verdict through the store's sink and ends the claim as one step:
//   both or neither. It is refused, and stores nothing, when the worker no longer holds the
//   claim (another took it over): so a workload is attributed once even when a slow worker
//   finishes after its lease.
// - release() gives a claim back at once (an attribution failed: the next poll retries it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/verdict.h"
#include "sinks/sink.h"

namespace attrib::sinks {

struct Claim {
  std::string workloadId, rulesetDigest;
  int64_t fence = 0;  // the claim's generation: it changes whenever another worker takes the claim
};

class WorkClaims {
 public:
  virtual ~WorkClaims() = default;
  // The sink complete() writes through (the runner writes the blueprint's other sinks itself).
  virtual const Sink* sink() const = 0;
  // Of `ids`, those with no verdict for `digest` yet, in their order.
  virtual bool pending(const std::vector<std::string>& ids, const std::string& digest, std::vector<std::string>* out,
                       std::string* error) = 0;
  // Claims of `candidates` that this worker now holds (the others are held by live workers, or
  // were attributed meanwhile).
  virtual bool claim(const std::vector<std::string>& candidates, const std::string& digest, std::vector<Claim>* out,
                     std::string* error) = 0;
  // Stores `verdict` (whose workload and rule set are the claim's) and completes the claim.
  virtual bool complete(const runtime::Verdict& verdict, const Claim& claim, std::string* error) = 0;
  virtual void release(const Claim& claim) = 0;
};

}  // namespace attrib::sinks
