// Root selection and outcomes: the earliest unexplained cause of the highest severity, and the
// outcomes whose when-clause holds of it.
#include <tuple>

#include "runtime/attribution_run.h"

namespace attrib::runtime {
namespace {

int blameRank(ir::Blame b) {
  switch (b) {
    case ir::Blame::Gpu: return 4;
    case ir::Blame::Node: return 3;
    case ir::Blame::Rank: return 2;
    case ir::Blame::Workload: return 1;
    case ir::Blame::None: return 0;
  }
  return 0;
}

}  // namespace

// Ties at the same instant go to the more specific blame (gpu, node, rank, workload).
int32_t selectRoot(const AttributionRun& run) {
  int32_t best = -1;
  auto key = [&](const Instance& x) {
    const ir::Symptom& s = run.program.symptoms[x.symptom];
    return std::make_tuple(-static_cast<int>(s.severity), x.time, -blameRank(s.blame), x.sequence);
  };
  for (size_t i = 0; i < run.instances.size(); ++i) {
    const Instance& inst = run.instances[i];
    if (!run.isCause(inst)) continue;
    if (best < 0 || key(inst) < key(run.instances[best])) best = static_cast<int32_t>(i);
  }
  return best;
}

// Every outcome is asked with the root (or none) in slot 0; the ids of those that hold.
std::vector<size_t> evaluateOutcomes(AttributionRun& run) {
  std::vector<size_t> held;
  EvalContext ctx = run.context();
  for (size_t o = 0; o < run.program.outcomes.size(); ++o) {
    for (auto& s : ctx.slots) s = nullptr;
    ctx.slots[0] = run.root >= 0 ? &run.instances[run.root] : nullptr;
    CompiledPredicate fn = run.compiled ? run.compiled->outcomeWhen[o] : CompiledPredicate{};
    if (run.holds(fn, run.program.outcomes[o].when, ctx)) held.push_back(o);
  }
  return held;
}

}  // namespace attrib::runtime
