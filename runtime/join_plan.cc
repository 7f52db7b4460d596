#include "runtime/join_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/interpreter.h"

namespace attrib::runtime {
namespace {

using ir::Expr;
using ir::Op;

// The binding whose symptom alone decides `e` (IsSymptom tests on one slot under not/and/or), or
// -1 when `e` reads anything else.
int32_t symptomOnlySlot(const Expr& e) {
  switch (e.op) {
    case Op::IsSymptom:
      return e.operands.size() == 1 && e.operands[0].op == Op::Slot ? e.operands[0].slot : -1;
    case Op::Not:
      return e.operands.size() == 1 ? symptomOnlySlot(e.operands[0]) : -1;
    case Op::And:
    case Op::Or: {
      if (e.operands.size() != 2) return -1;
      int32_t a = symptomOnlySlot(e.operands[0]);
      return a >= 0 && a == symptomOnlySlot(e.operands[1]) ? a : -1;
    }
    default: return -1;
  }
}

// `e` (a symptom-only expression) for an instance of `symptom`: the interpreter's answer, since
// an instance's symptom is never missing.
bool holdsFor(const ir::Program& program, const Expr& e, int32_t symptom) {
  switch (e.op) {
    case Op::IsSymptom: {
      const auto& set = program.symptomSets[e.set];
      return std::binary_search(set.begin(), set.end(), symptom) != e.negated;
    }
    case Op::Not: return !holdsFor(program, e.operands[0], symptom);
    case Op::And: return holdsFor(program, e.operands[0], symptom) && holdsFor(program, e.operands[1], symptom);
    case Op::Or: return holdsFor(program, e.operands[0], symptom) || holdsFor(program, e.operands[1], symptom);
    default: return true;
  }
}

// `s.time` -> s; else -1.
int32_t timeOfSlot(const Expr& e) {
  if (e.op == Op::FieldOf && e.field == ir::Field::Time && e.operands.size() == 1 && e.operands[0].op == Op::Slot) {
    return e.operands[0].slot;
  }
  return -1;
}

// `a.time`, `a.time + D`, `a.time - D` with D a constant duration: a and the offset.
std::optional<std::pair<int32_t, int64_t>> anchoredTime(const Expr& e) {
  if (int32_t s = timeOfSlot(e); s >= 0) return std::make_pair(s, int64_t{0});
  if ((e.op == Op::Add || e.op == Op::Sub) && e.operands.size() == 2) {
    int32_t s = timeOfSlot(e.operands[0]);
    const Expr& d = e.operands[1];
    if (s < 0 || d.op != Op::Const || d.constant.type != ir::Type::Duration) return std::nullopt;
    int64_t v = d.constant.i;
    if (e.op == Op::Sub) {
      if (v == INT64_MIN) return std::nullopt;
      v = -v;
    }
    return std::make_pair(s, v);
  }
  return std::nullopt;
}

bool isKeyField(ir::Field f) { return f == ir::Field::Node || f == ir::Field::Rank || f == ir::Field::Gpu; }

// `a.F == b.F` with F a key field: the field and the two slots.
std::optional<std::pair<ir::Field, std::pair<int32_t, int32_t>>> keyEquality(const Expr& e) {
  if (e.op != Op::Eq || e.operands.size() != 2) return std::nullopt;
  const Expr& l = e.operands[0];
  const Expr& r = e.operands[1];
  auto slotOf = [](const Expr& f) {
    return f.op == Op::FieldOf && f.operands.size() == 1 && f.operands[0].op == Op::Slot ? f.operands[0].slot : -1;
  };
  int32_t a = slotOf(l), b = slotOf(r);
  if (a < 0 || b < 0 || a == b || l.field != r.field || !isKeyField(l.field)) return std::nullopt;
  return std::make_pair(l.field, std::make_pair(std::min(a, b), std::max(a, b)));
}

// " + 30m", " - 1m" (formatDuration's form, the language's), "" for no offset.
std::string offsetText(int64_t ns) {
  if (ns == 0) return "";
  std::string d = formatDuration(ns);
  return d[0] == '-' ? " - " + d.substr(1) : " + " + d;
}

}  // namespace

void conjuncts(const ir::Expr& e, std::vector<const ir::Expr*>* out) {
  if (e.op == Op::And && e.operands.size() == 2) {
    conjuncts(e.operands[0], out);
    conjuncts(e.operands[1], out);
  } else {
    out->push_back(&e);
  }
}

JoinPlan planJoin(const ir::Program& program, const ir::Rule& rule) {
  JoinPlan plan;
  int32_t n = static_cast<int32_t>(rule.bindings.size());
  plan.bindings.resize(n);
  for (int32_t b = 0; b < n; ++b) plan.bindings[b].symptoms = program.symptomSets[rule.bindings[b]];
  if (!rule.hasWhere) return plan;
  std::vector<const Expr*> parts;
  conjuncts(rule.where, &parts);
  for (const Expr* c : parts) {
    if (int32_t b = symptomOnlySlot(*c); b >= 0 && b < n) {
      auto& syms = plan.bindings[b].symptoms;
      size_t before = syms.size();
      syms.erase(std::remove_if(syms.begin(), syms.end(), [&](int32_t s) { return !holdsFor(program, *c, s); }),
                 syms.end());
      plan.bindings[b].narrowed |= syms.size() != before;
      continue;
    }
    if (c->op == Op::Same && isKeyField(c->field)) {
      // Every binding shares the key: each one after the first matches the first's.
      for (int32_t b = 1; b < n; ++b) {
        if (!plan.bindings[b].key) plan.bindings[b].key = KeyMatch{0, c->field};
      }
      continue;
    }
    if (auto eq = keyEquality(*c)) {
      auto [anchor, b] = eq->second;
      if (b < n && !plan.bindings[b].key) plan.bindings[b].key = KeyMatch{anchor, eq->first};
      continue;
    }
    if (c->op == Op::InInterval && c->operands.size() == 3) {
      int32_t b = timeOfSlot(c->operands[0]);
      auto lo = anchoredTime(c->operands[1]);
      auto hi = anchoredTime(c->operands[2]);
      if (b < 0 || b >= n || !lo || !hi || lo->first != hi->first) continue;
      int32_t anchor = lo->first;
      // The walk binds in declaration order: the anchor must be bound before b is visited.
      if (anchor >= b || plan.bindings[b].window) continue;
      plan.bindings[b].window = TimeWindow{anchor, lo->second, hi->second};
    }
  }
  return plan;
}

std::vector<std::string> describePlan(const ir::Program& program, const ir::Rule& rule, const JoinPlan& plan) {
  std::vector<std::string> lines;
  for (size_t b = 0; b < plan.bindings.size(); ++b) {
    const BindingPlan& p = plan.bindings[b];
    size_t all = program.symptomSets[rule.bindings[b]].size();
    std::string line = fmt::format("binding {}: {} of {} symptom{}", b + 1, p.symptoms.size(), all, all == 1 ? "" : "s");
    if (p.narrowed) line += " (narrowed by `is`)";
    if (p.key) line += fmt::format("; {} of binding {} (hash)", ir::fieldName(p.key->field), p.key->anchor + 1);
    if (p.window) {
      line += fmt::format("; time in [binding {} time{}, binding {} time{}] (binary search)", p.window->anchor + 1,
                          offsetText(p.window->lo), p.window->anchor + 1, offsetText(p.window->hi));
    } else if (b > 0 && !p.key) {
      line += "; every candidate";
    }
    lines.push_back(std::move(line));
  }
  // The estimate, in candidates per binding: n_k for the bindings walked whole, and for an
  // indexed one the w_k its index yields per assignment of the bindings before it, found by a
  // hash lookup or after a binary search (log n_k). Next to it the pair walk it replaces.
  if (plan.bindings.size() > 1) {
    std::string cost, walk;
    bool indexed = false;
    for (size_t b = 0; b < plan.bindings.size(); ++b) {
      const BindingPlan& p = plan.bindings[b];
      const size_t k = b + 1;
      std::string factor;
      if (b > 0 && p.window) {
        factor = fmt::format("(log n{} + w{})", k, k);
        indexed = true;
      } else if (b > 0 && p.key) {
        factor = fmt::format("w{}", k);
        indexed = true;
      } else {
        factor = fmt::format("n{}", k);
      }
      cost += (b ? " x " : "") + factor;
      walk += fmt::format("{}n{}", b ? " x " : "", k);
    }
    lines.push_back(indexed ? fmt::format("cost: {} assignments visited (every combination: {}); n = a binding's candidates, "
                                          "w = those its index yields",
                                          cost, walk)
                            : fmt::format("cost: {} assignments visited (no index serves this rule); n = a binding's candidates",
                                          cost));
  }
  return lines;
}

}  // namespace attrib::runtime
