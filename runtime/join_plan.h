#ifndef ATTRIB_RUNTIME_JOIN_PLAN_H_
#define ATTRIB_RUNTIME_JOIN_PLAN_H_

// How a rule's bindings are enumerated without walking every combination of their candidates.
//
// A rule `when A as a, B as b where C` holds for the assignments (a, b, ...) of distinct live
// instances for which C is true. The runtime walks bindings in declaration order (an odometer);
// a plan narrows what each binding visits, read from C's top-level conjuncts (C = C1 and C2 ...):
//
//   - a conjunct that reads only the *symptom* of one binding (`a is x or a is y`, `a is not z`)
//     narrows that binding's symptoms before any instance is gathered;
//   - a conjunct `b.time in [a.time + lo, a.time + hi]` (a declared before b; lo and hi constant
//     durations, `-` or `+`, or none) makes b visit only the candidates inside that window of
//     the current a, found by binary search in its time-ordered list;
//   - `same node|rank|gpu`, or `a.F == b.F` for one of those fields (a declared before b), makes
//     b visit only the candidates whose key equals a's (a hash of b's candidates by key; a
//     missing key equals nothing), and a window then searches within that key's list.
//
// Invariant: a plan only skips assignments for which one conjunct, hence C, cannot be true (`and`
// is true only when both sides are true; a missing value is false). The full where-clause is
// still evaluated on every assignment visited, so a plan changes how many assignments are
// visited, never which ones hold: verdicts are the same with and without plans (tested over
// every scenario and corpus case, tests/runtime/join_plan_test.cc).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace attrib::runtime {

// `binding.time in [anchor.time + lo, anchor.time + hi]`, anchor declared before binding.
struct TimeWindow {
  int32_t anchor = -1;
  int64_t lo = 0, hi = 0;  // nanoseconds
};

// `binding.field == anchor.field` (node, rank or gpu), anchor declared before binding.
struct KeyMatch {
  int32_t anchor = -1;
  ir::Field field = ir::Field::Node;
};

struct BindingPlan {
  std::vector<int32_t> symptoms;  // sorted symptom ids this binding visits (its set, narrowed)
  bool narrowed = false;          // some of its set's symptoms were ruled out by a conjunct
  std::optional<TimeWindow> window;
  std::optional<KeyMatch> key;
};

struct JoinPlan {
  std::vector<BindingPlan> bindings;  // one per binding of the rule
};

// The top-level conjuncts of `e` (C1 and C2 and ... gives C1, C2, ...; anything else gives `e`),
// in order: what a plan, the compact-text analysis and node inference read of a where-clause.
void conjuncts(const ir::Expr& e, std::vector<const ir::Expr*>* out);

// The plan of `rule` of `program` (rules without bindings: an empty plan).
JoinPlan planJoin(const ir::Program& program, const ir::Rule& rule);

// One line per binding for people (`attribc explain`): what it visits and why, e.g.
// "binding 2: 3 of 9 symptoms; node of binding 1 (hash); time in [binding 1 time - 1m, ...]",
// then, for rules of two bindings or more, the estimated cost in candidates per binding:
// "cost: n1 x (log n2 + w2) assignments visited (every combination: n1 x n2); ...".
std::vector<std::string> describePlan(const ir::Program& program, const ir::Rule& rule, const JoinPlan& plan);

}  // namespace attrib::runtime

#endif  // ATTRIB_RUNTIME_JOIN_PLAN_H_
