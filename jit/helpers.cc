#include "jit/helpers.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "runtime/compiled_predicates.h"

namespace {

using attrib::runtime::EvalContext;
using attrib::runtime::Instance;
using attrib::runtime::PredicateScratch;

std::string_view view(const char* p, int64_t n) { return {p, static_cast<size_t>(n)}; }

void hand(std::string_view s, const char** p, int64_t* n) {
  *p = s.data();
  *n = static_cast<int64_t>(s.size());
}

}  // namespace

// Every helper returns int32_t for truth values, never bool: the generated code and the C++
// compiler then agree on how the result is extended. Helpers are noexcept (predicates have no
// unwind tables): running out of memory while formatting a string ends the process.
extern "C" {

int32_t attrib_jit_str_cmp(const char* a, int64_t an, const char* b, int64_t bn) noexcept {
  int r = view(a, an).compare(view(b, bn));
  return r < 0 ? -1 : (r > 0 ? 1 : 0);
}

int32_t attrib_jit_str_eq(const char* a, int64_t an, const char* b, int64_t bn) noexcept {
  return view(a, an) == view(b, bn);
}

int32_t attrib_jit_capture(const Instance* inst, const char* name, int64_t nameLen, const char** p, int64_t* n) noexcept {
  if (!inst) return 0;
  std::optional<std::string_view> v = inst->capture(view(name, nameLen));
  if (!v) return 0;
  hand(*v, p, n);
  return 1;
}

int32_t attrib_jit_match(EvalContext* ctx, int32_t regex, const char* p, int64_t n) noexcept {
  return ctx->regexes->expression(regex).match(view(p, n));
}

int32_t attrib_jit_workload_str(EvalContext* ctx, int32_t field, const char** p, int64_t* n) noexcept {
  if (!ctx->workload) return 0;
  auto v = attrib::runtime::workloadValue(static_cast<attrib::ir::WorkloadField>(field), *ctx->workload);
  if (v.type != attrib::ir::Type::String) return 0;
  hand(v.s, p, n);
  return 1;
}

int32_t attrib_jit_workload_int(EvalContext* ctx, int32_t field, int64_t* out) noexcept {
  if (!ctx->workload) return 0;
  auto v = attrib::runtime::workloadValue(static_cast<attrib::ir::WorkloadField>(field), *ctx->workload);
  if (v.isNull() || v.type == attrib::ir::Type::String) return 0;
  *out = v.i;
  return 1;
}

// -1: null (no workload).
int32_t attrib_jit_in_nodes(EvalContext* ctx, const char* p, int64_t n) noexcept {
  if (!ctx->workload) return -1;
  const auto& nodes = ctx->workload->nodes;
  return std::find(nodes.begin(), nodes.end(), view(p, n)) != nodes.end();
}

const Instance* attrib_jit_instances(EvalContext* ctx) noexcept {
  if (!ctx->index || !ctx->index->instances) return nullptr;
  return ctx->index->instances->data();
}

int64_t attrib_jit_symptom_list(EvalContext* ctx, int32_t symptom, const int32_t** list) noexcept {
  const auto& lists = ctx->index->bySymptom;
  if (symptom < 0 || static_cast<size_t>(symptom) >= lists.size()) return 0;
  *list = lists[symptom].data();
  return static_cast<int64_t>(lists[symptom].size());
}

// The instances of `symptom` whose key field equals the reference's (InstanceIndex::withKey).
int64_t attrib_jit_symptom_list_keyed(EvalContext* ctx, int32_t symptom, int32_t field, int64_t rank, const char* p,
                                      int64_t n, const int32_t** list) noexcept {
  const auto& lists = ctx->index->bySymptom;
  if (symptom < 0 || static_cast<size_t>(symptom) >= lists.size()) return 0;
  const auto& keyed = ctx->index->withKey(symptom, static_cast<attrib::ir::Field>(field), rank,
                                          std::string_view(p ? p : "", static_cast<size_t>(n)));
  *list = keyed.data();
  return static_cast<int64_t>(keyed.size());
}

int64_t attrib_jit_series(EvalContext* ctx, const Instance* const** data) noexcept {
  if (!ctx->series) return 0;
  *data = ctx->series->data();
  return static_cast<int64_t>(ctx->series->size());
}

void attrib_jit_lower(PredicateScratch* scratch, const char* s, int64_t sn, const char** p, int64_t* n) noexcept {
  scratch->arena.push_back(attrib::runtime::lowerAscii(view(s, sn)));
  hand(scratch->arena.back(), p, n);
}

void attrib_jit_format(PredicateScratch* scratch, int32_t type, int64_t i, double f, const char** p, int64_t* n) noexcept {
  scratch->arena.push_back(attrib::runtime::valueText(static_cast<attrib::ir::Type>(type), i, f));
  hand(scratch->arena.back(), p, n);
}

int32_t attrib_jit_parse_int(const char* s, int64_t n, int64_t* out) noexcept {
  return attrib::runtime::parseIntText(view(s, n), out);
}

int32_t attrib_jit_parse_float(const char* s, int64_t n, double* out) noexcept {
  return attrib::runtime::parseFloatText(view(s, n), out);
}

int32_t attrib_jit_contains(const char* a, int64_t an, const char* b, int64_t bn) noexcept {
  return view(a, an).find(view(b, bn)) != std::string_view::npos;
}

int32_t attrib_jit_starts_with(const char* a, int64_t an, const char* b, int64_t bn) noexcept {
  return view(a, an).substr(0, static_cast<size_t>(bn)) == view(b, bn);
}

int32_t attrib_jit_ends_with(const char* a, int64_t an, const char* b, int64_t bn) noexcept {
  return an >= bn && view(a, an).substr(static_cast<size_t>(an - bn)) == view(b, bn);
}

void attrib_jit_distinct_begin(PredicateScratch* scratch) noexcept {
  if (scratch->distinct.size() <= scratch->distinctDepth) scratch->distinct.resize(scratch->distinctDepth + 1);
  auto& set = scratch->distinct[scratch->distinctDepth++];
  set.strings.clear();
  set.ints.clear();
}

void attrib_jit_distinct_add_str(PredicateScratch* scratch, const char* p, int64_t n) noexcept {
  auto& set = scratch->distinct[scratch->distinctDepth - 1];
  if (set.strings.find(view(p, n)) == set.strings.end()) set.strings.emplace(view(p, n));
}

void attrib_jit_distinct_add_int(PredicateScratch* scratch, int64_t v) noexcept {
  scratch->distinct[scratch->distinctDepth - 1].ints.insert(v);
}

int64_t attrib_jit_distinct_end(PredicateScratch* scratch) noexcept {
  auto& set = scratch->distinct[--scratch->distinctDepth];
  return static_cast<int64_t>(set.strings.size() + set.ints.size());
}

void attrib_jit_values_begin(PredicateScratch* scratch) noexcept {
  if (scratch->values.size() <= scratch->valuesDepth) scratch->values.resize(scratch->valuesDepth + 1);
  scratch->values[scratch->valuesDepth++].clear();
}

void attrib_jit_values_add(PredicateScratch* scratch, double v) noexcept {
  scratch->values[scratch->valuesDepth - 1].push_back(v);
}

// The percentile of the values collected since the matching begin; 0 when there is none.
int32_t attrib_jit_values_percentile(PredicateScratch* scratch, double p, double* out) noexcept {
  auto& values = scratch->values[--scratch->valuesDepth];
  return attrib::runtime::percentileOf(values, p, out) ? 1 : 0;
}

// The memo of slot-invariant aggregates (runtime::AggregateMemo); 0: not recorded (or no memo).
int32_t attrib_jit_memo_get(EvalContext* ctx, int32_t id, int64_t* i, double* f, const Instance** p,
                            int32_t* null) noexcept {
  if (!ctx->memo || static_cast<size_t>(id) >= ctx->memo->compiled.size()) return 0;
  const auto& [present, entry] = ctx->memo->compiled[static_cast<size_t>(id)];
  if (!present) return 0;
  *i = entry.i;
  *f = entry.f;
  *p = entry.instance;
  *null = entry.null;
  return 1;
}

void attrib_jit_memo_put(EvalContext* ctx, int32_t id, int64_t i, double f, const Instance* p, int32_t null) noexcept {
  if (!ctx->memo) return;
  auto& compiled = ctx->memo->compiled;
  if (compiled.size() <= static_cast<size_t>(id)) compiled.resize(static_cast<size_t>(id) + 1);
  compiled[static_cast<size_t>(id)] = {true, {i, f, p, null != 0, true}};
}

}  // extern "C"

namespace attrib::jit {

const std::vector<HelperSymbol>& helperSymbols() {
#define ATTRIB_HELPER(name) HelperSymbol{#name, reinterpret_cast<void*>(&name)}
  static const std::vector<HelperSymbol> symbols = {
      ATTRIB_HELPER(attrib_jit_str_cmp),          ATTRIB_HELPER(attrib_jit_str_eq),
      ATTRIB_HELPER(attrib_jit_capture),          ATTRIB_HELPER(attrib_jit_match),
      ATTRIB_HELPER(attrib_jit_workload_str),     ATTRIB_HELPER(attrib_jit_workload_int),
      ATTRIB_HELPER(attrib_jit_in_nodes),         ATTRIB_HELPER(attrib_jit_instances),
      ATTRIB_HELPER(attrib_jit_symptom_list),     ATTRIB_HELPER(attrib_jit_series),
      ATTRIB_HELPER(attrib_jit_lower),            ATTRIB_HELPER(attrib_jit_format),
      ATTRIB_HELPER(attrib_jit_parse_int),        ATTRIB_HELPER(attrib_jit_parse_float),
      ATTRIB_HELPER(attrib_jit_contains),         ATTRIB_HELPER(attrib_jit_starts_with),
      ATTRIB_HELPER(attrib_jit_ends_with),        ATTRIB_HELPER(attrib_jit_distinct_begin),
      ATTRIB_HELPER(attrib_jit_distinct_add_str), ATTRIB_HELPER(attrib_jit_distinct_add_int),
      ATTRIB_HELPER(attrib_jit_distinct_end),     ATTRIB_HELPER(attrib_jit_values_begin),
      ATTRIB_HELPER(attrib_jit_values_add),       ATTRIB_HELPER(attrib_jit_values_percentile),
      ATTRIB_HELPER(attrib_jit_memo_get),         ATTRIB_HELPER(attrib_jit_memo_put),
      ATTRIB_HELPER(attrib_jit_symptom_list_keyed),
  };
#undef ATTRIB_HELPER
  return symbols;
}

}  // namespace attrib::jit
