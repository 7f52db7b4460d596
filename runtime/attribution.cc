// Attributor: the pass list of one attribution. Each phase is in its own file over the shared
// AttributionRun (runtime/attribution_run.h says which and what holds between them).
#include "runtime/attribution.h"

#include <algorithm>
#include <chrono>

#include "runtime/attribution_run.h"

namespace attrib::runtime {

Attributor::Attributor(std::shared_ptr<const Bundle> bundle, std::shared_ptr<const RegexTable> regexes,
                       std::shared_ptr<const CompiledPredicates> compiled)
    : bundle_(std::move(bundle)), regexes_(std::move(regexes)), compiled_(std::move(compiled)) {
  // A rule's plan depends only on the program: made once here, read by every attribution.
  plans_.reserve(bundle_->program.rules.size());
  for (const auto& rule : bundle_->program.rules) plans_.push_back(planJoin(bundle_->program, rule));
}

Verdict Attributor::attribute(Evidence evidence, const AttributionLimits& limits) const {
  auto started = std::chrono::steady_clock::now();
  AttributionRun run(*bundle_, *regexes_, compiled_.get(), plans_, evidence, limits);
  run.instances = std::move(evidence.logInstances);

  extractScheduler(run);
  extractMetrics(run);
  orderInstances(run);
  applyFilters(run);
  deriveInstances(run);
  for (ir::Phase phase : {ir::Phase::Early, ir::Phase::Main, ir::Phase::Final}) runRules(run, phase);
  inferNodes(run);
  run.root = selectRoot(run);
  run.outcomes = evaluateOutcomes(run);
  runRules(run, ir::Phase::PostOutcome);
  Verdict v = assembleVerdict(run);

  v.stats.refineMs =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  return v;
}

// ---- the shared state's helpers

EvalContext AttributionRun::context() const {
  EvalContext ctx;
  ctx.program = &program;
  ctx.regexes = &regexes;
  ctx.workload = &evidence.workload;
  ctx.index = &index;
  return ctx;
}

bool AttributionRun::holds(CompiledPredicate fn, const ir::Expr& e, EvalContext& ctx) {
  if (!fn) return interpreter.test(e, ctx);
  scratch_.reset();
  return fn(&ctx, &scratch_);
}

void orderInstances(AttributionRun& run) {
  sortEarlierFirst(run.instances);
  run.reindex();
}

}  // namespace attrib::runtime
