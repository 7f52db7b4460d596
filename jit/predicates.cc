#include "jit/predicates.h"

#include <fmt/format.h>

namespace attrib::jit {

std::string predicateSymbol(const PredicateRef& ref) {
  switch (ref.kind) {
    case PredicateRef::Kind::SymptomWhen: return fmt::format("attrib_symptom_{}", ref.index);
    case PredicateRef::Kind::FilterWhere: return fmt::format("attrib_filter_{}_{}", ref.index, ref.statement);
    case PredicateRef::Kind::RuleWhere: return fmt::format("attrib_rule_{}", ref.index);
    case PredicateRef::Kind::OutcomeWhen: return fmt::format("attrib_outcome_{}", ref.index);
  }
  return "attrib_unknown";
}

size_t predicateCost(const ir::Expr& e) {
  using ir::Op;
  size_t cost = 1;
  switch (e.op) {
    case Op::Count: case Op::Exists: case Op::First: case Op::Last: case Op::Distinct: case Op::MinBy:
    case Op::MaxBy: case Op::Percentile:
      cost += 30;
      break;
    case Op::WindowAvg: case Op::WindowMin: case Op::WindowMax: case Op::WindowSum: case Op::WindowRate:
    case Op::WindowDelta:
      cost += 50;
      break;
    case Op::CaptureOf: cost += 12; break;
    case Op::ToInt: cost += 10; break;
    case Op::Eq: case Op::Ne: cost += 4; break;
    default: break;
  }
  for (const auto& o : e.operands) cost += predicateCost(o);
  return cost;
}

}  // namespace attrib::jit
