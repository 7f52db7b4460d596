// The attribution phases over one workload's evidence:
//   extraction (log instances come from LogScanner; metric and scheduler instances here)
//   -> filtering (filters, in declaration order) -> derivation (`on ranks`, `on nodes`)
//   -> refinement (rules by phase: early, main, final; `explain` links consequences to causes)
//   -> root selection -> outcomes -> post-outcome rules -> the verdict.
// One file per phase over a shared state: runtime/attribution_run.h.
// Deterministic: instances are ordered by (time, sequence) before any phase runs.
#pragma once

#include <memory>
#include <vector>

#include "runtime/bundle.h"
#include "runtime/compiled_predicates.h"
#include "runtime/instance.h"
#include "runtime/join_plan.h"
#include "runtime/regex_table.h"
#include "runtime/evidence_types.h"
#include "runtime/verdict.h"

namespace attrib::runtime {

struct Evidence {
  Workload workload;
  std::vector<Instance> logInstances;   // from LogScanner
  std::vector<MetricSample> metrics;
  std::vector<ConnectorReport> reports;
  uint64_t linesScanned = 0, bytesScanned = 0;
  int64_t collectMs = 0, scanMs = 0;
};

struct AttributionLimits {
  // Rule bindings are enumerated as a product; a rule stops after this many evaluations of
  // its where-clause (and the verdict says so) rather than run for hours.
  uint64_t maxRuleEvaluations = 50'000'000;
  // Rules visit only the combinations their plans leave (runtime/join_plan.h). False walks every
  // combination: the same verdicts, slower; the reference the plans are tested against.
  bool planJoins = true;
};

// Built once per rule set (Engine holds one): it plans every rule's join then, so an
// attribution only reads the plans. Immutable; attribute() is safe to call from many threads.
class Attributor {
 public:
  // `regexes` and `compiled` (null: interpret every predicate) must have been built from
  // `bundle`'s program.
  Attributor(std::shared_ptr<const Bundle> bundle, std::shared_ptr<const RegexTable> regexes,
             std::shared_ptr<const CompiledPredicates> compiled = nullptr);

  Verdict attribute(Evidence evidence, const AttributionLimits& limits = {}) const;

  // The join plan of rule `r` (runtime/join_plan.h), as attribute() uses it.
  const JoinPlan& plan(size_t r) const { return plans_[r]; }

 private:
  std::shared_ptr<const Bundle> bundle_;
  std::shared_ptr<const RegexTable> regexes_;
  std::shared_ptr<const CompiledPredicates> compiled_;
  std::vector<JoinPlan> plans_;  // by rule
};

}  // namespace attrib::runtime
