// The native form of a program's predicates, produced by the JIT (jit/jit_compiler.h), and the
// contract between that code and the runtime.
//
// Each where/when clause of the program becomes one function. A function reads the instances
// in ctx->slots (and ctx->index, ctx->series, ctx->workload) exactly as the interpreter does
// and returns 1 when the predicate holds (null counts as false), 0 otherwise. It must give the
// interpreter's answer on every input; the differential tests hold it to that.
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
  void reset() {
    arena.clear();
    distinctDepth = 0;
  }
};

using PredicateFn = int32_t (*)(EvalContext* ctx, PredicateScratch* scratch);

// The compiled predicates of one program; a null function means the clause is absent.
// Immutable once built; `owner` keeps the code alive (the JIT session that holds it).
struct CompiledPredicates {
  std::vector<PredicateFn> symptomWhen;              // by symptom id
  std::vector<std::vector<PredicateFn>> filterWhere;  // by filter, then statement
  std::vector<PredicateFn> ruleWhere;                 // by rule
  std::vector<PredicateFn> outcomeWhen;               // by outcome
  std::shared_ptr<const void> owner;
};

// How a rule set's predicates are evaluated, for the verdict's stats.
struct EvaluatorInfo {
  std::string name = "interpreter";  // "jit" or "interpreter"
  std::string fallbackReason;         // why the JIT is not in use, when it was asked for
};

}  // namespace attrib::runtime
