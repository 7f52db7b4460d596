// A cause whose own lines name no node takes the node of the evidence it explains, when the rule
// that explained it says the two are on the same node.
//
// Pasted excerpts often carry the node on one line and not on another (srun's "node107: task 0:
// Out Of Memory" beside slurmstepd's "Detected 1 oom-kill event(s)"). Rules relate such lines
// null-tolerantly, `not (t.node < root.node or t.node > root.node)`: on the same node, or one of
// them unknown. When such a rule explained t by a root that names no node, the rule has said that
// root ran where t ran, so the root's node is t's. Only that form counts: `same node` and
// `a.node == b.node` are false for a missing node (the root then has one), and a rule without a
// node relation may explain across nodes (a node's fault explains every peer's timeout), where
// t's node says nothing about the root's. A root that explains lines of several nodes so keeps
// none. The verdict says the node was inferred (phase_verdict.cc).
#include <optional>
#include <vector>

#include "runtime/attribution_run.h"
#include "runtime/join_plan.h"

namespace attrib::runtime {
namespace {

using ir::Expr;
using ir::Op;

int32_t nodeSlot(const Expr& e) {
  return e.op == Op::FieldOf && e.field == ir::Field::Node && e.operands.size() == 1 && e.operands[0].op == Op::Slot
             ? e.operands[0].slot
             : -1;
}

// `a.node < b.node` or `a.node > b.node`, as (the slot it says is smaller, the other).
std::optional<std::pair<int32_t, int32_t>> nodeLess(const Expr& e) {
  if ((e.op != Op::Lt && e.op != Op::Gt) || e.operands.size() != 2) return std::nullopt;
  const int32_t a = nodeSlot(e.operands[0]), b = nodeSlot(e.operands[1]);
  if (a < 0 || b < 0 || a == b) return std::nullopt;
  return e.op == Op::Lt ? std::make_pair(a, b) : std::make_pair(b, a);
}

// `not (x.node < y.node or x.node > y.node)` (the two comparisons over the same slots in
// opposite directions, in any spelling): the slots, lowest first.
std::optional<std::pair<int32_t, int32_t>> nullTolerantSameNode(const Expr& e) {
  if (e.op != Op::Not || e.operands.size() != 1) return std::nullopt;
  const Expr& o = e.operands[0];
  if (o.op != Op::Or || o.operands.size() != 2) return std::nullopt;
  auto l = nodeLess(o.operands[0]), r = nodeLess(o.operands[1]);
  if (!l || !r || l->first != r->second || l->second != r->first) return std::nullopt;
  return std::make_pair(std::min(l->first, l->second), std::max(l->first, l->second));
}

// Whether `rule`'s where-clause puts bindings `x` and `y` null-tolerantly on the same node.
bool relatesNodes(const ir::Rule& rule, int32_t x, int32_t y) {
  if (!rule.hasWhere) return false;
  std::vector<const Expr*> parts;
  conjuncts(rule.where, &parts);
  for (const Expr* c : parts) {
    if (auto s = nullTolerantSameNode(*c); s && *s == std::make_pair(std::min(x, y), std::max(x, y))) return true;
  }
  return false;
}

}  // namespace

void inferNodes(AttributionRun& run) {
  const auto& rules = run.program.rules;
  // Per rule: whether every one of its explain actions relates explained and explainer so.
  std::vector<char> relates(rules.size(), 0);
  for (size_t r = 0; r < rules.size(); ++r) {
    bool all = false;
    for (const auto& a : rules[r].actions) {
      if (a.kind != ir::RuleAction::Kind::Explain) continue;
      all = relatesNodes(rules[r], a.subject, a.object);
      if (!all) break;
    }
    relates[r] = all;
  }
  // A root may be explained in turn (a chain); each pass moves a node one link up.
  for (int pass = 0; pass < 4; ++pass) {
    // Per instance: the first explained instance that names a node for it (-1: none), and
    // whether another names a different node. Indices, not node copies: a dense run has 10^5+.
    std::vector<int32_t> from(run.instances.size(), -1);
    std::vector<char> conflict(run.instances.size(), 0);
    for (size_t t = 0; t < run.instances.size(); ++t) {
      const Instance& inst = run.instances[t];
      if (!run.live(inst) || inst.explainedBy < 0 || inst.explainRule < 0 || inst.node.empty()) continue;
      if (static_cast<size_t>(inst.explainRule) >= relates.size() || !relates[static_cast<size_t>(inst.explainRule)]) continue;
      const size_t r = static_cast<size_t>(inst.explainedBy);
      if (!run.instances[r].node.empty()) continue;
      if (from[r] < 0) {
        from[r] = static_cast<int32_t>(t);
      } else if (run.instances[static_cast<size_t>(from[r])].node != inst.node) {
        conflict[r] = 1;
      }
    }
    bool changed = false;
    for (size_t r = 0; r < from.size(); ++r) {
      if (from[r] < 0 || conflict[r]) continue;
      run.instances[r].node = run.instances[static_cast<size_t>(from[r])].node;
      run.inferredNodes.push_back({static_cast<int32_t>(r), from[r]});
      changed = true;
    }
    if (!changed) return;
    run.reindex();
  }
}

}  // namespace attrib::runtime
