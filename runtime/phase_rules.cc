// Refinement: the rules of one phase, in declaration order. Each rule's bindings are walked as
// an odometer over their candidates, narrowed by the rule's join plan (runtime/join_plan.h);
// its actions apply to every assignment whose where-clause holds, and the `explain` proposals of
// the whole phase are resolved together at its end.
#include <algorithm>
#include <deque>
#include <tuple>
#include <unordered_map>

#include "runtime/attribution_run.h"

namespace attrib::runtime {
namespace {

// An `explain` action's link, resolved at the end of its phase.
struct Proposal {
  int32_t subject, by, rule;
};

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

// An instance's value of a join key (node, rank or gpu) as the interpreter compares it: none
// when the field is null (then it equals nothing), by the interpreter's own reading of fields.
std::optional<std::string> joinKey(const Instance& inst, ir::Field field, const ir::Program& program) {
  Value v = fieldValue(inst, field, program);
  if (v.isNull()) return std::nullopt;
  return v.type == ir::Type::Int ? std::to_string(v.i) : std::string(v.s);
}

// Whether `a` is explained, directly or through others, by `b`.
bool explainedThrough(const AttributionRun& run, int32_t a, int32_t b) {
  for (int guard = 0; a >= 0 && guard < 1'000'000; ++guard) {
    if (a == b) return true;
    a = run.instances[a].explainedBy;
  }
  return false;
}

// Applies a rule's actions to one satisfying assignment; true if an instance was dropped.
bool apply(AttributionRun& run, const ir::Rule& rule, int32_t r, const std::vector<int32_t>& chosen,
           std::vector<Proposal>& proposals) {
  bool dropped = false;
  for (const auto& a : rule.actions) {
    Instance& subject = run.instances[chosen[a.subject]];
    switch (a.kind) {
      case ir::RuleAction::Kind::Explain:
        // Resolved at the end of the phase (runRules); an earlier phase's explanation stands.
        if (subject.explainedBy < 0) proposals.push_back({chosen[a.subject], chosen[a.object], r});
        break;
      case ir::RuleAction::Kind::MarkBad: subject.markedBad = true; break;
      case ir::RuleAction::Kind::MarkInteresting: subject.markedInteresting = true; break;
      case ir::RuleAction::Kind::Drop:
        if (!subject.filtered) {
          subject.filtered = true;
          dropped = true;
        }
        break;
    }
  }
  return dropped;
}

// Candidates per binding: live instances of its symptoms (the plan's, else its set's), in time
// order. A binding with instances of one of its symptoms only (a rule over a routine symptom, or
// over a package of which only that symptom was seen) reads that symptom's list in the index,
// which InstanceIndex::rebuild keeps in time order: a rule over 10^5 `link_up` lines copies
// nothing. Otherwise its symptoms' lists are merged into one it owns. No lists when some binding
// has no candidate (then the rule cannot hold), found before any list is merged.
struct Candidates {
  std::vector<const std::vector<int32_t>*> lists;  // per binding
  std::deque<std::vector<int32_t>> merged;         // the lists of bindings over several symptoms
};

Candidates candidatesOf(const AttributionRun& run, const ir::Rule& rule, const JoinPlan* plan) {
  const size_t n = rule.bindings.size();
  auto symptomsOf = [&](size_t b) -> const std::vector<int32_t>& {
    return plan ? plan->bindings[b].symptoms : run.program.symptomSets[rule.bindings[b]];
  };
  Candidates c;
  c.lists.resize(n, nullptr);
  for (size_t b = 0; b < n; ++b) {
    size_t nonEmpty = 0;
    for (int32_t s : symptomsOf(b)) {
      if (run.index.bySymptom[s].empty()) continue;
      if (++nonEmpty == 1) c.lists[b] = &run.index.bySymptom[s];
    }
    if (nonEmpty == 0) return {};
    if (nonEmpty > 1) c.lists[b] = nullptr;  // merged below
  }
  for (size_t b = 0; b < n; ++b) {
    if (c.lists[b]) continue;
    auto inTime = [&](int32_t x, int32_t y) { return earlier(run.instances[x], run.instances[y]); };
    std::vector<int32_t>& list = c.merged.emplace_back();
    for (int32_t s : symptomsOf(b)) {
      const std::vector<int32_t>& one = run.index.bySymptom[s];
      if (one.empty()) continue;
      const size_t mid = list.size();
      list.insert(list.end(), one.begin(), one.end());
      std::inplace_merge(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(mid), list.end(), inTime);
    }
    c.lists[b] = &list;
  }
  return c;
}

void runRule(AttributionRun& run, int32_t r, std::vector<Proposal>& proposals) {
  const ir::Rule& rule = run.program.rules[r];
  const std::vector<Instance>& instances = run.instances;
  size_t n = rule.bindings.size();
  if (n == 0) return;
  // The plan narrows what each binding visits; without plans every combination is walked, the
  // reference the plans are tested against.
  const JoinPlan* plan = run.limits.planJoins ? &run.plans[r] : nullptr;
  const Candidates candidates = candidatesOf(run, rule, plan);
  if (candidates.lists.empty()) return;
  EvalContext ctx = run.context();
  ctx.bindings = static_cast<int32_t>(n);
  CompiledPredicate fn = run.compiled ? run.compiled->ruleWhere[r] : CompiledPredicate{};
  // Bindings matched by key: their candidates hashed by it, each list still in time order.
  std::vector<std::unordered_map<std::string, std::vector<int32_t>>> byKey(n);
  for (size_t b = 0; b < n; ++b) {
    if (!plan || !plan->bindings[b].key) continue;
    for (int32_t idx : *candidates.lists[b]) {
      if (auto k = joinKey(instances[idx], plan->bindings[b].key->field, run.program)) byKey[b][*k].push_back(idx);
    }
  }
  static const std::vector<int32_t> kNone;
  std::vector<const std::vector<int32_t>*> view(n, nullptr);
  std::vector<size_t> pos(n, 0), end(n, 0);
  std::vector<int32_t> chosen(n, -1);
  // Binding d's range of candidates for the bindings before it: those of the anchor's key
  // (a missing key matches nothing), then a window's by binary search over the time-ordered
  // list (an unknown time is in no window); else all of them.
  auto enter = [&](size_t d) {
    view[d] = candidates.lists[d];
    if (plan && plan->bindings[d].key) {
      const KeyMatch& m = *plan->bindings[d].key;
      auto k = joinKey(instances[chosen[m.anchor]], m.field, run.program);
      auto it = k ? byKey[d].find(*k) : byKey[d].end();
      view[d] = it != byKey[d].end() ? &it->second : &kNone;
    }
    const std::vector<int32_t>& list = *view[d];
    pos[d] = 0;
    end[d] = list.size();
    if (!plan || !plan->bindings[d].window) return;
    const TimeWindow& w = *plan->bindings[d].window;
    const Instance& anchor = instances[chosen[w.anchor]];
    if (anchor.timeUnknown) {
      end[d] = 0;
      return;
    }
    int64_t lo = saturatingAdd(anchor.time, w.lo), hi = saturatingAdd(anchor.time, w.hi);
    auto timeOf = [&](int32_t idx) { return instances[idx].time; };
    pos[d] = std::partition_point(list.begin(), list.end(), [&](int32_t idx) { return timeOf(idx) < lo; }) - list.begin();
    end[d] = std::partition_point(list.begin() + pos[d], list.end(),
                                  [&](int32_t idx) { return timeOf(idx) <= hi && !instances[idx].timeUnknown; }) -
             list.begin();
  };
  uint64_t evaluations = 0;
  bool changed = false;
  // Odometer over the product of candidate ranges; bindings are distinct instances.
  size_t depth = 0;
  enter(0);
  while (true) {
    if (pos[depth] >= end[depth]) {
      if (depth == 0) break;
      --depth;
      ++pos[depth];
      continue;
    }
    int32_t idx = (*view[depth])[pos[depth]];
    bool reused = std::find(chosen.begin(), chosen.begin() + depth, idx) != chosen.begin() + depth;
    if (reused || instances[idx].filtered) {
      ++pos[depth];
      continue;
    }
    chosen[depth] = idx;
    ctx.slots[depth] = &instances[idx];
    if (depth + 1 < n) {
      ++depth;
      enter(depth);
      continue;
    }
    if (++evaluations > run.limits.maxRuleEvaluations) {
      run.truncatedRules.push_back(rule.name);
      break;
    }
    if (!rule.hasWhere || run.holds(fn, rule.where, ctx)) changed |= apply(run, rule, r, chosen, proposals);
    ++pos[depth];
  }
  if (changed) run.reindex();
}

}  // namespace

// `explain` actions are collected from every rule of the phase and resolved together, so that
// each consequence is explained by its earliest explainer whichever rule (and package) proposed
// it; ties go to the rule declared first.
void runRules(AttributionRun& run, ir::Phase phase) {
  std::vector<Proposal> proposals;
  for (size_t r = 0; r < run.program.rules.size(); ++r) {
    if (run.program.rules[r].phase == phase) runRule(run, static_cast<int32_t>(r), proposals);
  }
  auto key = [&](const Proposal& p) {
    const Instance& s = run.instances[p.subject];
    const Instance& b = run.instances[p.by];
    // Earliest explainers first: each subject takes the earliest explainer that does not close
    // a cycle, and an earlier event is never explained away by a later one it explains.
    return std::make_tuple(b.time, b.sequence, s.time, s.sequence, p.rule);
  };
  std::sort(proposals.begin(), proposals.end(), [&](const Proposal& a, const Proposal& b) { return key(a) < key(b); });
  for (const auto& p : proposals) {
    Instance& subject = run.instances[p.subject];
    if (subject.explainedBy >= 0 || subject.filtered || run.instances[p.by].filtered) continue;
    if (explainedThrough(run, p.by, p.subject)) continue;  // never a cycle
    subject.explainedBy = p.by;
    subject.explainRule = p.rule;
  }
}

}  // namespace attrib::runtime
