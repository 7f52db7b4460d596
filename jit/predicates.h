// The predicates of a program that the JIT compiles, and the names and ids they have in
// generated code. Shared by the LLVM back end (codegen.h) and the side that loads cached code
// without LLVM (jit_compiler.cc), so both number the predicates alike.
#pragma once

#include <cstdint>
#include <string>

#include "ir/ir.h"

namespace attrib::jit {

// Which clause of a program a predicate is.
struct PredicateRef {
  enum class Kind : uint8_t { SymptomWhen, FilterWhere, RuleWhere, OutcomeWhen };
  Kind kind = Kind::RuleWhere;
  int32_t index = 0;      // symptom, filter, rule or outcome
  int32_t statement = 0;  // FilterWhere: the statement in the filter
};

std::string predicateSymbol(const PredicateRef& ref);

// Calls `visit(ref, expr, bindings)` for every clause the JIT compiles, in a fixed order.
// `bindings` is the number of rule bindings the clause sees (0 outside rules). A log symptom's
// `when` is not one: the scanner evaluates it with the interpreter on the few lines Hyperscan
// matched (runtime/log_scanner.cc), so compiling it would only cost start-up time.
inline bool compiledByJit(const ir::Symptom& s) { return s.hasWhen && s.stream != ir::StreamKind::Log; }
template <typename Visit>
void forEachPredicate(const ir::Program& program, Visit&& visit) {
  using K = PredicateRef::Kind;
  for (size_t s = 0; s < program.symptoms.size(); ++s) {
    if (compiledByJit(program.symptoms[s])) visit(PredicateRef{K::SymptomWhen, int32_t(s), 0}, program.symptoms[s].when, 0);
  }
  for (size_t f = 0; f < program.filters.size(); ++f) {
    const auto& statements = program.filters[f].statements;
    for (size_t st = 0; st < statements.size(); ++st) {
      if (statements[st].hasWhere) visit(PredicateRef{K::FilterWhere, int32_t(f), int32_t(st)}, statements[st].where, 0);
    }
  }
  for (size_t r = 0; r < program.rules.size(); ++r) {
    const auto& rule = program.rules[r];
    if (rule.hasWhere) visit(PredicateRef{K::RuleWhere, int32_t(r), 0}, rule.where, int32_t(rule.bindings.size()));
  }
  for (size_t o = 0; o < program.outcomes.size(); ++o) {
    visit(PredicateRef{K::OutcomeWhen, int32_t(o), 0}, program.outcomes[o].when, 0);
  }
}

// A rough measure of the code a predicate becomes, to balance parallel compilation.
size_t predicateCost(const ir::Expr& e);


}  // namespace attrib::jit
