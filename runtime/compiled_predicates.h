// The native form of a program's predicates, produced by the JIT (jit/jit_compiler.h), and the
// contract between that code and the runtime.
//
// Each where/when clause of the program becomes one function. A function reads the instances
// in ctx->slots (and ctx->index, ctx->series, ctx->workload) exactly as the interpreter does
// and returns 1 when the predicate holds (null counts as false), 0 otherwise. It must give the
// interpreter's answer on every input; the differential tests hold it to that.
//
// The runtime guarantees, and compiled code relies on it: a rule's where-clause is called with
// every binding bound (ctx->slots[0 .. bindings) non-null), symptom and filter clauses with
// their instance in slot 0, and window aggregates with ctx->series in time order. Only an
// outcome's slot 0 (the root) may be null.
//
// Functions are reentrant: whatever one call needs beyond ctx (strings it builds, the sets of
// `distinct`) lives in the PredicateScratch the caller passes, one per thread.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/interpreter.h"

namespace attrib::runtime {

// Per-call working memory of compiled predicates. Callers reset() it between calls.
struct PredicateScratch {
  std::deque<std::string> arena;  // strings built by lower() and string(); stable addresses
  struct DistinctSet {
    std::set<std::string, std::less<>> strings;
    std::set<int64_t> ints;
  };
  std::vector<DistinctSet> distinct;  // a stack: `distinct` aggregates may nest
  size_t distinctDepth = 0;
  std::vector<std::vector<double>> values;  // keys of `percentile`/`median`, a stack likewise
  size_t valuesDepth = 0;
  void reset() {
    if (!arena.empty()) arena.clear();
    distinctDepth = 0;
    valuesDepth = 0;
  }
};

// Compiled code evaluates predicates by id: fn(id, ctx, scratch).
using PredicateFn = int32_t (*)(int32_t id, EvalContext* ctx, PredicateScratch* scratch);

struct CompiledPredicate {
  PredicateFn fn = nullptr;  // null: the clause is absent (or not compiled)
  int32_t id = 0;
  explicit operator bool() const { return fn != nullptr; }
  bool operator()(EvalContext* ctx, PredicateScratch* scratch) const { return fn(id, ctx, scratch) != 0; }
};

// The compiled predicates of one program. Immutable once built; `owner` keeps the code alive
// (the JIT session that holds it).
struct CompiledPredicates {
  std::vector<CompiledPredicate> symptomWhen;              // by symptom id
  std::vector<std::vector<CompiledPredicate>> filterWhere;  // by filter, then statement
  std::vector<CompiledPredicate> ruleWhere;                 // by rule
  std::vector<CompiledPredicate> outcomeWhen;               // by outcome
  std::shared_ptr<const void> owner;
};

// How a rule set's predicates are evaluated, for the verdict's stats.
struct EvaluatorInfo {
  std::string name = "interpreter";  // "jit" or "interpreter"
  std::string fallbackReason;         // why the JIT is not in use, when it was asked for
};

}  // namespace attrib::runtime
