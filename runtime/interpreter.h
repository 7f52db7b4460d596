// The reference evaluator of IR predicates (ir/ir.h documents the semantics). The LLVM JIT
// must agree with it on every input; it is also the fallback when the JIT is unavailable.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"
#include "runtime/instance.h"
#include "runtime/regex_table.h"
#include "runtime/evidence_types.h"

namespace attrib::runtime {

// The live instances of each symptom, in time order, for aggregates.
struct InstanceIndex {
  const std::vector<Instance>* instances = nullptr;
  std::vector<std::vector<int32_t>> bySymptom;  // symptom id -> indices into *instances

  // Rebuilds from scratch, leaving out filtered instances.
  void rebuild(const std::vector<Instance>& all, size_t symptoms);

  // The part of bySymptom[symptom] whose `key` (Node, Rank or Gpu) equals `rank` (Rank) or
  // `text` (Node, Gpu), in the same order: what an `on same KEY` aggregate walks instead of every
  // instance of the symptom. Built on first use per (symptom, key) and dropped by rebuild(); not
  // thread-safe (an index belongs to one attribution). Other keys give all of bySymptom[symptom].
  const std::vector<int32_t>& withKey(int32_t symptom, ir::Field key, int64_t rank, std::string_view text) const;

 private:
  struct KeyLists {
    bool built = false;
    std::map<std::string, std::vector<int32_t>, std::less<>> byText;
    std::map<int64_t, std::vector<int32_t>> byRank;
  };
  mutable std::vector<std::array<KeyLists, 3>> keyed_;  // by symptom: node, rank, gpu
};

struct Value;

// Values of slot-invariant aggregates (ir::isSlotInvariant), kept across the calls of one batch
// over unchanged instances: the candidates of one derived symptom. The interpreter keys them by
// expression, compiled code by its own per-predicate numbering; the owner clears it whenever
// the instances change.
struct AggregateMemo {
  struct Entry {
    int64_t i = 0;
    double f = 0;
    const Instance* instance = nullptr;
    bool null = false;
    bool invariant = true;  // interpreted: false records that the aggregate must be evaluated
  };
  std::map<const ir::Expr*, Entry> interpreted;
  std::vector<std::pair<bool, Entry>> compiled;  // by id: (present, value)
  void clear() {
    interpreted.clear();
    compiled.clear();
  }
};

// Everything an expression can read. Slots hold the instances bound by the enclosing rule,
// filter, symptom clause or outcome; aggregates bind their own slots while they iterate.
struct EvalContext {
  const ir::Program* program = nullptr;
  const RegexTable* regexes = nullptr;
  const Workload* workload = nullptr;
  const InstanceIndex* index = nullptr;   // aggregates; may be null where none are allowed
  const Instance* slots[ir::kMaxSlots] = {};
  int32_t bindings = 0;                   // rule bindings occupy slots [0, bindings) (for `same`)
  // Window aggregates: the series (time-ordered) and the position of the current sample.
  const std::vector<const Instance*>* series = nullptr;
  size_t seriesPos = 0;
  AggregateMemo* memo = nullptr;          // null: evaluate every aggregate every time
};

struct Value {
  ir::Type type = ir::Type::Null;
  int64_t i = 0;
  double f = 0;
  std::string_view s;
  const Instance* instance = nullptr;
  bool isNull() const { return type == ir::Type::Null; }
};

class Interpreter {
 public:
  // A predicate's verdict: null (a missing value) counts as false.
  bool test(const ir::Expr& e, EvalContext& ctx);
  Value eval(const ir::Expr& e, EvalContext& ctx);

 private:
  Value binary(const ir::Expr& e, EvalContext& ctx);
  Value compare(ir::Op op, const Value& a, const Value& b);
  Value aggregate(const ir::Expr& e, EvalContext& ctx);
  Value window(const ir::Expr& e, EvalContext& ctx);
  Value call(const ir::Expr& e, EvalContext& ctx);
  std::string_view keep(std::string s);

  // Strings computed during one evaluation (lower(), string()); cleared by test().
  std::deque<std::string> arena_;
};

// Formats a duration in nanoseconds the way string() does: "1h2m3.5s", "250ms", "0s".
std::string formatDuration(int64_t nanos);

// The pieces of the semantics that the interpreter and the JIT's helpers share, so that the
// two cannot drift apart on them.
Value workloadValue(ir::WorkloadField f, const Workload& w);  // s points into `w`
// An instance's field, null when missing (an empty node, gpu, source...; no rank): what
// `x.F` reads, and what the join plans' key matching hashes. s points into `inst`/`program`.
Value fieldValue(const Instance& inst, ir::Field f, const ir::Program& program);
bool parseIntText(std::string_view s, int64_t* out);          // int("42"), strict
bool parseFloatText(std::string_view s, double* out);         // float("1.5"), strict
// string() of a Bool, Int, Float, Duration, Time or State value; empty for other types.
std::string valueText(ir::Type type, int64_t i, double f);
std::string lowerAscii(std::string_view s);
// percentile(S, x, p): the p-th percentile (0..100) of `values`, linear interpolation between the
// closest ranks (median: p = 50). False when `values` is empty or p is outside [0, 100] or NaN.
// Sorts `values`.
bool percentileOf(std::vector<double>& values, double p, double* out);

}  // namespace attrib::runtime
