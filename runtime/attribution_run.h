// The state of one attribution and the phases over it (internal to runtime/; the entry point
// is Attributor, runtime/attribution.h). `Attributor::attribute` is the pass list: it calls
// the phases below in order, each in its own file, each reading and updating one
// AttributionRun:
//
//   extractScheduler, extractMetrics   phase_extract.cc   scheduler and metric instances
//   orderInstances                     attribution.cc     (time, sequence) order, the index
//   applyFilters                       phase_filter.cc    filters in declaration order
//   deriveInstances                    phase_derive.cc    `on ranks`, `on nodes`
//   runRules                           phase_rules.cc     a phase's rules, its explanations
//   inferNodes                         phase_node.cc      a nodeless cause: the node of what it explains
//   selectRoot, evaluateOutcomes       phase_root.cc      the root cause, the outcomes that hold
//   assembleVerdict                    phase_verdict.cc   the Verdict
//
// Invariants between phases: `instances` is in `earlier` order and `index` indexes its live
// (unfiltered) instances; indices into `instances` (explainedBy, root) stay valid once derivation
// is done, since no later phase adds, removes or reorders instances (rules only mark them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "runtime/attribution.h"
#include "runtime/bundle.h"
#include "runtime/compiled_predicates.h"
#include "runtime/instance.h"
#include "runtime/interpreter.h"
#include "runtime/join_plan.h"
#include "runtime/regex_table.h"
#include "runtime/verdict.h"

namespace attrib::runtime {

struct AttributionRun {
  AttributionRun(const Bundle& bundle, const RegexTable& regexes, const CompiledPredicates* compiled,
                 const std::vector<JoinPlan>& plans, Evidence& evidence, const AttributionLimits& limits)
      : bundle(bundle), program(bundle.program), regexes(regexes), compiled(compiled), plans(plans),
        evidence(evidence), limits(limits) {}

  // What the run reads.
  const Bundle& bundle;
  const ir::Program& program;
  const RegexTable& regexes;
  const CompiledPredicates* compiled;  // null: every predicate is interpreted
  const std::vector<JoinPlan>& plans;  // by rule, computed once per Attributor
  Evidence& evidence;
  const AttributionLimits& limits;

  // What the phases build.
  std::vector<Instance> instances;
  InstanceIndex index;
  std::vector<std::string> truncatedRules;  // rules stopped at limits.maxRuleEvaluations
  // inferNodes' answer: (instance, the explained instance whose node it took), by instance index
  std::vector<std::pair<int32_t, int32_t>> inferredNodes;
  int32_t root = -1;                        // selectRoot's answer: an index into instances
  std::vector<size_t> outcomes;             // evaluateOutcomes' answer: outcome ids that hold

  // An evaluation context over this run's program, regexes, workload and index.
  EvalContext context() const;
  // Every predicate goes through here: the compiled function when there is one, otherwise the
  // interpreter. `fn` is the compiled form of `e`.
  bool holds(CompiledPredicate fn, const ir::Expr& e, EvalContext& ctx);
  CompiledPredicate symptomFn(size_t s) const { return compiled ? compiled->symptomWhen[s] : CompiledPredicate{}; }
  // Sequence numbers for instances the phases make: after every scanned line's.
  uint64_t nextSequence() { return (1ULL << 62) + sequence_++; }
  void reindex() { index.rebuild(instances, program.symptoms.size()); }

  bool live(const Instance& inst) const { return !inst.filtered; }
  // Live, unexplained, and of a symptom whose role is cause.
  bool isCause(const Instance& inst) const {
    return live(inst) && inst.explainedBy < 0 && program.symptoms[inst.symptom].role == ir::Role::Cause;
  }

  Interpreter interpreter;

 private:
  PredicateScratch scratch_;
  uint64_t sequence_ = 0;
};

// The phases, in the order Attributor::attribute runs them.
void extractScheduler(AttributionRun& run);
void extractMetrics(AttributionRun& run);
void orderInstances(AttributionRun& run);
void applyFilters(AttributionRun& run);
void deriveInstances(AttributionRun& run);
void runRules(AttributionRun& run, ir::Phase phase);
void inferNodes(AttributionRun& run);
int32_t selectRoot(const AttributionRun& run);
std::vector<size_t> evaluateOutcomes(AttributionRun& run);
Verdict assembleVerdict(const AttributionRun& run);

}  // namespace attrib::runtime
