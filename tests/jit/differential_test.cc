// Differential tests: the LLVM JIT's compiled predicates (jit/codegen*.cc) against the reference
// interpreter (runtime/interpreter.cc), which must agree on every predicate and every input.
//
// A seeded generator writes random WELL-TYPED predicate IR, shaped the way compiler/lower.cc
// lowers rule files (result types as the checker gives them; slots numbered as lowering numbers
// them: rule bindings first, then one per aggregate), and random inputs: instances, an instance
// index, a workload and metric series, with the awkward values mixed in (NaN, infinities, -0.0,
// INT64_MIN/MAX, overflowing arithmetic, division by zero, INT64_MIN / -1, missing fields and
// captures, empty strings, strings that do and do not parse as numbers, negative and extreme
// times, instances filtered before and after the index was built, sequence ties across 2^63).
// The predicates of one batch become the where/when clauses of one ir::Program (rule
// where-clauses with 1-3 bindings, outcome and filter clauses, metric symptoms' `when` with
// window aggregates over a series), compiled once; every predicate then runs on many contexts
// in both evaluators, whose verdicts must be equal.
//
// Non-bool values are observed through predicates built around them ("probes"): `x == x`
// (false exactly when x is null), `x != x` (NaN), `x in {the values the interpreter gives x on
// this predicate's contexts}` and its negation, `x == v and not (x < v)` at one context's
// value, `string(x) == "<text>"`, `not b`, `is none` and the time and text of instances.
// EdgeCaseValuesAgree draws its probes from a table of every operator and operand-type
// combination, on edge constants (which LLVM folds) and on fields holding edge values at run
// time (which run the generated instructions). HarnessDetectsDisagreement compiles deliberately
// miscompiled programs and checks that they are caught.
//
// Each failure names the seed, the test, the predicate (ir::dump) and every input it read.
// The seeds are fixed; ATTRIB_DIFF_SEED=N runs seed N instead (and ATTRIB_DIFF_SEEDS=K runs
// seeds N .. N+K-1), for exploration and to reproduce a failure with the same build.
//
// string() of a NaN is "nan" whatever its sign (runtime::valueText): LLVM folds constant float
// arithmetic (0.0 / 0.0 gives +nan, where x86 computes -nan) and may commute an fadd of two
// NaNs, so the sign may differ between the evaluators, and nothing in the language observes it.
// The generator applies string() to any float, NaNs of either sign included.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "jit/jit_compiler.h"
#include "runtime/compiled_predicates.h"
#include "runtime/instance.h"
#include "runtime/interpreter.h"
#include "runtime/regex_table.h"
#include "evidence/workload_evidence.h"

namespace attrib {
namespace {

using ir::Expr;
using ir::Field;
using ir::Op;
using ir::Type;
using ir::WorkloadField;
using runtime::Instance;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kBase = 1'700'000'000 * kSecond;  // 2023-11-14T22:13:20Z
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// ---- randomness

class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  uint64_t next() { return g_(); }
  int64_t below(int64_t n) { return n <= 1 ? 0 : static_cast<int64_t>(g_() % static_cast<uint64_t>(n)); }
  int64_t between(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }  // small ranges only
  double unit() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(below(static_cast<int64_t>(v.size())))];
  }
  // An edge value: half the time one of the few extremes, else anything from the pool.
  template <typename T>
  const T& edge(const std::vector<T>& extremes, const std::vector<T>& pool) {
    return chance(0.5) ? pick(extremes) : pick(pool);
  }

 private:
  std::mt19937_64 g_;
};

// ---- value pools

const std::vector<int64_t> kEdgeInts = {
    0, 1, -1, 2, -2, 3, 7, -7, 10, 64, 255, 1000, int64_t{1} << 31, int64_t{1} << 32, 3037000499, 3037000500,
    -3037000500, kMax, kMin, kMax - 1, kMin + 1, int64_t{1} << 62, -(int64_t{1} << 62), 9007199254740993,
    -9007199254740993};

const std::vector<double> kEdgeFloats = {
    0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 0.1, 1e-310, -1e-310, 4.9e-324, 1e308, -1e308,
    std::numeric_limits<double>::max(), kInf, -kInf, kNaN, -kNaN, 9223372036854775808.0, -9223372036854775808.0,
    9223372036854774784.0, 1e9, 1e15 + 0.5, 2.5, -0.5, 1e19};

const std::vector<int64_t> kExtremeInts = {kMin, kMax, -1, 0, kMin + 1};
const std::vector<double> kExtremeFloats = {kNaN, kInf, -kInf, -0.0, 9223372036854775808.0, -9223372036854775808.0,
                                            -9223372036854777856.0};
const std::vector<int64_t> kExtremeTimes = {kMin, kMax, 0, -1};
const std::vector<int64_t> kExtremeDurations = {kMin, kMax, 0, -1, 1};

const std::vector<int64_t> kEdgeTimes = {0,         -1,        1,          kMin,        kMax,
                                         kMin + 1,  kMax - 1,  kBase,      kBase + 1,   kBase - kSecond,
                                         -kBase,    -kSecond,  int64_t{9'000'000'000} * kSecond /* 2255 */, kMin + kSecond, kMax - kSecond};

const std::vector<int64_t> kEdgeDurations = {0,           1,          -1,          kSecond,      60 * kSecond,
                                             3600 * kSecond, -kSecond, 1'500'000'000, kMax,        kMin,
                                             kMin + 1,    365 * 86400 * kSecond, 999, 1'000'000, 90061 * kSecond + 5};

const std::vector<std::string> kStrings = {
    "", "a", "A", "abc", "ABC", "Abc", "ERR", "ERROR: Xid 79 on node-1", "err timeout", "Timeout", "42", "-17",
    "+5", "+", "-", "0", "-0", "007", " 7", "7 ", "3.5", "-2.25e3", "1e400", "1e-400", ".5", "5.", "nan", "NaN",
    "-nan", "inf", "-inf", "infinity", "0x1A", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "123456789012345678", "1234567890123456789", "node-1", "node-2", "node-3", "gpu0",
    "GPU-1", "xid 48", "\xc3\xbc", "\xc3\x9c", "a.b", "a\nb", "x@node", "ERR x@node", "1,5", "true", "Failed",
    "slurm", "12a", "9", "99999999999999999999", "999999999999999999", "000000000000000000001", "1-2",
    std::string("a\0b", 3), std::string("\0", 1), "18446744073709551616", "0.000", "1e5", "-1e-5", "+-1", "\t1", "\xff\xfe", "\xc3", "x@node\xc3"};

// Captured numbers: what int() and float() mostly read, around the parsers' boundaries.
const std::vector<std::string> kNumbers = {
    "0", "7", "-17", "+5", "007", "", "-0", "12a", " 7", "3.5", "1e5", "nan", "-inf", "123456789012345678",
    "999999999999999999", "1234567890123456789", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "-9223372036854775809", "9999999999999999999", "99999999999999999999",
    "18446744073709551616", "00000000000000000009", "4.9e-324", "1e309"};

const std::vector<std::string> kNodes = {"node-1", "node-2", "node-3", "node-4"};
const std::vector<std::string> kGpus = {"0", "1", "2", "GPU-a"};
const std::vector<std::string> kSources = {"syslog", "dmesg", "applog", "scheduler", "metric"};
const std::vector<std::string> kCaptureNames = {"code", "msg", "num", "val"};
const std::vector<std::string> kReasons = {"OutOfMemory", "NodeFail", "TimeLimit", "none", ""};

// ---- the fixed part of every program: symptoms, symptom sets, regexes

constexpr int32_t kBaseSymptoms = 8;
const std::vector<int32_t> kMetricSymptoms = {4, 5};

ir::Program skeleton() {
  ir::Program p;
  p.name = "differential";
  struct S {
    const char* name;
    const char* family;
    ir::StreamKind stream;
    const char* metric;
  };
  const S symptoms[kBaseSymptoms] = {
      {"gpu.xid79", "gpu", ir::StreamKind::Log, ""},
      {"gpu.xid48", "gpu", ir::StreamKind::Log, ""},
      {"net.ib_down", "network", ir::StreamKind::Log, ""},
      {"sched.failed", "scheduler", ir::StreamKind::Scheduler, ""},
      {"metric.temp", "thermal", ir::StreamKind::Metric, "gpu_temp"},
      {"metric.ecc", "", ir::StreamKind::Metric, "ecc_errors"},
      {"app.error", "", ir::StreamKind::Log, ""},
      {"app.nccl", "nccl", ir::StreamKind::Log, ""},
  };
  for (const S& s : symptoms) {
    ir::Symptom out;
    out.name = s.name;
    out.family = s.family;
    // Every severity, blame and role occurs, so the fields that read them see different words.
    size_t i = p.symptoms.size();
    out.severity = static_cast<ir::Severity>(i % 4);
    out.blame = static_cast<ir::Blame>(i % 5);
    out.role = static_cast<ir::Role>(i % 3);
    out.stream = s.stream;
    out.metric = s.metric;
    if (s.stream == ir::StreamKind::Log) out.patterns.push_back({"(?<code>\\d+)", "", {"code"}});
    p.symptoms.push_back(out);
  }
  p.symptomSets = {{0}, {1}, {0, 1}, {2, 6, 7}, {3}, {4, 5}, {4}, {0, 1, 2, 3, 4, 5, 6, 7}, {6}, {5, 7}, {}};
  p.regexes = {
      {"^ERR", "", {}},
      {"xid\\s*(?<code>\\d+)", "i", {"code"}},
      {"timeout", "i", {}},
      {"^$", "", {}},
      {"a.b", "s", {}},
      {"^[+-]?[0-9]+(\\.[0-9]+)?$", "", {}},
      {"(?<w>\\w+)@node", "u", {"w"}},
      {"\xc3\xbc", "iu", {}},
      {"^node-[12]$", "", {}},
      {"", "", {}},
  };
  return p;
}

// ---- inputs

struct Config {
  double edge = 0.2;          // how often a constant or an input field takes an edge value
  int depth = 4;              // expression depth
  double aggregates = 0.08;   // extra chance of an aggregate where a bool or int is generated
  double windows = 0.1;       // extra chance of a window aggregate where a float is generated
  double probes = 0.3;        // share of predicates that observe one value (probes)
  double table = 0;           // share of probes that observe one operator of the edge table
  int contexts = 24;          // contexts per predicate (cheap: compiling is what costs)
  int worlds = 6;             // input worlds per batch
};

// The inputs a predicate can read: instances (and their index), a metric series, a workload.
struct World {
  std::vector<Instance> instances;
  runtime::InstanceIndex index;
  std::vector<Instance> samples;
  std::vector<const Instance*> series;
  evidence::Workload workload;
};

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kMax : kMin;
  return r;
}

class InputGen {
 public:
  InputGen(Rng& rng, const Config& cfg) : rng_(rng), cfg_(cfg) {}

  int64_t time() {
    if (rng_.chance(cfg_.edge)) return rng_.edge(kExtremeTimes, kEdgeTimes);
    if (rng_.chance(0.15)) return kBase;  // ties, ordered by sequence
    return kBase + rng_.between(-600, 600) * kSecond + (rng_.chance(0.3) ? rng_.below(kSecond) : 0);
  }

  double real() {
    if (rng_.chance(cfg_.edge)) return rng_.edge(kExtremeFloats, kEdgeFloats);
    if (rng_.chance(0.3)) return static_cast<double>(rng_.between(-5, 100));
    return (rng_.unit() - 0.3) * 200.0;
  }

  int64_t integer() {
    if (rng_.chance(cfg_.edge)) return rng_.edge(kExtremeInts, kEdgeInts);
    return rng_.between(-3, 20);
  }

  std::string text() {
    if (rng_.chance(0.5)) return rng_.pick(kStrings);
    return fmt::format("{} Xid {} on {}{}", rng_.pick(kStrings), rng_.between(0, 150), rng_.pick(kNodes),
                       rng_.chance(0.3) ? " x@node" : "");
  }

  Instance instance(int32_t symptom, bool metric) {
    Instance in;
    in.symptom = symptom;
    in.time = time();
    in.sequence = rng_.chance(0.25) ? (uint64_t{1} << 63) + static_cast<uint64_t>(rng_.below(4))
                                   : static_cast<uint64_t>(rng_.below(40));
    in.node = rng_.chance(0.15) ? "" : rng_.pick(kNodes);
    if (!rng_.chance(0.3)) in.rank = rng_.chance(cfg_.edge) ? rng_.edge(kExtremeInts, kEdgeInts) : rng_.below(8);
    in.gpu = rng_.chance(0.3) ? "" : rng_.pick(kGpus);
    in.source = rng_.chance(0.1) ? "" : rng_.pick(kSources);
    in.text = rng_.chance(0.08) ? "" : text();
    for (const auto& name : kCaptureNames) {
      if (!rng_.chance(0.5)) continue;
      int r = static_cast<int>(rng_.below(3));
      in.captures.append(name, r == 0 ? rng_.pick(kStrings) : r == 1 ? rng_.pick(kNumbers) : std::to_string(integer()));
    }
    if (!in.captures.empty() && rng_.chance(0.05)) in.captures.append(in.captures[0].name(), "shadowed");
    // Log evidence has no metric or scheduler fields at all: the compiled code reads a stand-in.
    if (metric || !rng_.chance(0.3)) {
      runtime::MetricOrSchedulerFields f;
      f.value = real();
      f.metric = metric ? (rng_.chance(0.8) ? "gpu_temp" : "") : (rng_.chance(0.1) ? "stray" : "");
      if (rng_.chance(0.4)) f.state = static_cast<ir::State>(rng_.below(12));
      if (rng_.chance(0.5)) f.exitCode = integer();
      if (rng_.chance(0.3)) f.signal = rng_.chance(0.5) ? 9 : integer();
      f.reason = rng_.pick(kReasons);
      in.extraFields = std::make_shared<const runtime::MetricOrSchedulerFields>(std::move(f));
    }
    in.filtered = rng_.chance(0.1);
    return in;
  }

  static void setValue(Instance& in, double value) {
    runtime::MetricOrSchedulerFields f = in.extra();
    f.value = value;
    in.extraFields = std::make_shared<const runtime::MetricOrSchedulerFields>(std::move(f));
  }

  // `hostSymptoms` metric symptoms follow the base ones: attribution runs a metric symptom's
  // `when` on candidate samples that carry that symptom's id.
  std::unique_ptr<World> world(int32_t hostSymptoms, bool first) {
    auto w = std::make_unique<World>();
    int n = !first && rng_.chance(0.1) ? 0 : static_cast<int>(rng_.between(1, 30));
    for (int i = 0; i < n; ++i) {
      int32_t symptom = static_cast<int32_t>(rng_.below(kBaseSymptoms));
      bool metric = symptom == 4 || symptom == 5;
      w->instances.push_back(instance(symptom, metric));
    }
    w->index.rebuild(w->instances, kBaseSymptoms);
    // Filtered after the index was built: aggregates must still skip them.
    for (auto& inst : w->instances) {
      if (rng_.chance(0.05)) inst.filtered = true;
    }

    // A metric series: time-ordered samples, with ties, resets, gaps and extreme times.
    int samples = rng_.chance(0.1) ? 0 : static_cast<int>(rng_.between(1, 14));
    int64_t t = rng_.chance(cfg_.edge)
                    ? rng_.pick(std::vector<int64_t>{kMin, kMin + 5, -30 * kSecond, kMax - 100 * kSecond, 0, kMax - 3})
                    : kBase + rng_.between(-100, 100) * kSecond;
    int64_t step = rng_.pick(std::vector<int64_t>{0, 1, kSecond, 15 * kSecond, 60 * kSecond, kSecond / 2});
    bool counter = rng_.chance(0.4);
    double v = static_cast<double>(rng_.below(50));
    for (int i = 0; i < samples; ++i) {
      int32_t symptom = hostSymptoms > 0 && rng_.chance(0.5) ? kBaseSymptoms + static_cast<int32_t>(rng_.below(hostSymptoms))
                                                          : rng_.pick(kMetricSymptoms);
      Instance s = instance(symptom, true);
      s.filtered = false;
      s.time = t;
      if (counter) {
        v = rng_.chance(0.15) ? static_cast<double>(rng_.below(10)) : v + static_cast<double>(rng_.below(100));
        setValue(s, rng_.chance(cfg_.edge / 4) ? real() : v);
      }
      if (rng_.chance(cfg_.edge / 3)) setValue(s, rng_.edge(kExtremeFloats, kEdgeFloats));
      w->samples.push_back(std::move(s));
      t = saturatingAdd(t, rng_.chance(0.2) ? rng_.below(120) * kSecond : step);
    }
    for (const auto& s : w->samples) w->series.push_back(&s);

    evidence::Workload& wl = w->workload;
    wl.id = rng_.chance(0.1) ? "" : fmt::format("{}", rng_.between(1000, 9999));
    wl.name = rng_.chance(0.2) ? "" : rng_.pick(kStrings);
    wl.scheduler = rng_.chance(0.1) ? "" : "slurm";
    wl.user = rng_.chance(0.2) ? "" : "alice";
    wl.partition = rng_.chance(0.3) ? "" : "gpu";
    wl.state = static_cast<ir::State>(rng_.below(12));
    if (rng_.chance(0.6)) wl.exitCode = integer();
    if (rng_.chance(0.3)) wl.signal = integer();
    if (rng_.chance(0.8)) wl.start = time();
    if (rng_.chance(0.7)) wl.end = rng_.chance(0.7) && wl.start ? saturatingAdd(*wl.start, rng_.below(3600) * kSecond) : time();
    for (const auto& node : kNodes) {
      if (rng_.chance(0.5)) wl.nodes.push_back(node);
    }
    if (rng_.chance(0.5)) wl.ranksPerNode = rng_.chance(cfg_.edge) ? rng_.edge(kExtremeInts, kEdgeInts) : rng_.between(1, 8);
    // An overflowing ranks_per_node x nodes is null (workloadValue checks it).
    if (rng_.chance(0.4)) wl.ranks = integer();
    wl.reason = rng_.pick(kReasons);
    return w;
  }

 private:
  Rng& rng_;
  const Config& cfg_;
};

// ---- expressions

Expr node(Op op, Type type, std::vector<Expr> operands = {}) {
  Expr e;
  e.op = op;
  e.type = type;
  e.operands = std::move(operands);
  return e;
}

Expr konst(ir::Value v) {
  Expr e;
  e.op = Op::Const;
  e.type = v.type;
  e.constant = std::move(v);
  return e;
}

Expr intConst(Type t, int64_t v) { return konst(ir::Value::integer(t, v)); }
Expr realConst(double v) { return konst(ir::Value::real(v)); }

// What a generated expression may read.
struct Scope {
  std::vector<int32_t> slots;  // instance slots in scope; the innermost aggregate's last
  int32_t nextSlot = 1;        // the next slot an aggregate takes (as lowering numbers them)
  int32_t bindings = 0;        // rule bindings: `same` is allowed when > 0
  bool windows = false;        // a metric symptom's `when`: window aggregates are allowed
  int aggDepth = 0;
};

class ExprGen {
 public:
  ExprGen(Rng& rng, const Config& cfg, const ir::Program& program) : rng_(rng), cfg_(cfg), program_(program) {}

  std::array<int, static_cast<size_t>(Op::Percentile) + 1> opCounts{};

  Expr boolean(int depth, Scope& s) {
    if (depth <= 0) return boolLeaf(s);
    if (aggregatesAllowed(s) && rng_.chance(cfg_.aggregates)) return aggregatePredicate(depth, s);
    if (s.windows && rng_.chance(cfg_.windows)) {
      return compare(pick({Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}), window(depth - 1, s),
                     rng_.chance(0.5) ? floatConst() : value(Type::Float, depth - 1, s));
    }
    int r = static_cast<int>(rng_.below(100));
    if (r < 30) return comparison(depth, s);
    if (r < 42) {
      return count(node(rng_.chance(0.5) ? Op::And : Op::Or, Type::Bool,
                        {boolean(depth - 1, s), boolean(depth - 1, s)}));
    }
    if (r < 47) return count(node(Op::Not, Type::Bool, {boolean(depth - 1, s)}));
    if (r < 53) return inList(depth, s);
    if (r < 57) return inInterval(depth, s);
    if (r < 60) {
      return count(node(Op::InRange, Type::Bool,
                        {value(Type::Int, depth - 1, s), rangeBound(depth, s), rangeBound(depth, s)}));
    }
    if (r < 62) return count(node(Op::InNodes, Type::Bool, {value(Type::String, depth - 1, s)}));
    if (r < 68) return match(value(Type::String, depth - 1, s));
    if (r < 72) return isSymptom(instance(depth - 1, s));
    if (r < 76) return isNone(rng_.chance(0.1) ? konst(ir::Value::null()) : instance(depth - 1, s));
    if (r < 79 && s.bindings > 0) return same();
    if (r < 86 && aggregatesAllowed(s)) return aggregate(Op::Exists, Type::Bool, depth, s);
    if (r < 94) {
      return count(node(pick({Op::Contains, Op::StartsWith, Op::EndsWith}), Type::Bool,
                        {value(Type::String, depth - 1, s), stringOperand(depth - 1, s)}));
    }
    return comparison(depth, s);
  }

  Expr value(Type t, int depth, Scope& s) {
    if (depth <= 0 || rng_.chance(0.15)) return leaf(t, s);
    switch (t) {
      case Type::Bool: return boolean(depth, s);
      case Type::Int: return intExpr(depth, s);
      case Type::Float: return floatExpr(depth, s);
      case Type::String: return stringExpr(depth, s);
      case Type::Time: return timeExpr(depth, s);
      case Type::Duration: return durationExpr(depth, s);
      case Type::State: return leaf(t, s);
      case Type::Instance: return instance(depth, s);
      default: return leaf(t, s);
    }
  }

  Expr instance(int depth, Scope& s) {
    if (depth > 0 && aggregatesAllowed(s) && rng_.chance(0.3)) {
      return aggregate(pick({Op::First, Op::Last, Op::MinBy, Op::MaxBy}), Type::Instance, depth, s);
    }
    return slotRef(s);
  }

  Expr window(int depth, Scope& s) {
    Op op = pick({Op::WindowAvg, Op::WindowMin, Op::WindowMax, Op::WindowSum, Op::WindowRate, Op::WindowDelta});
    Expr operand;
    int r = static_cast<int>(rng_.below(100));
    if (r < 45 || depth <= 0) {
      operand = field(slot(0), Field::Value, Type::Float);
    } else if (r < 55) {
      operand = count(node(Op::ToFloat, Type::Float, {capture(slot(0))}));
    } else if (r < 62) {
      operand = field(slot(0), pick({Field::Rank, Field::ExitCode}), Type::Int);
    } else if (r < 65 && s.aggDepth == 0) {
      operand = window(depth - 1, s);  // the checker allows a window inside a window
    } else {
      operand = value(rng_.chance(0.7) ? Type::Float : Type::Int, depth - 1, s);
    }
    Expr e = count(node(op, Type::Float, {std::move(operand)}));
    e.window = rng_.pick(std::vector<int64_t>{1, kSecond, 10 * kSecond, 30 * kSecond, 60 * kSecond, 300 * kSecond,
                                              3600 * kSecond, kMax, int64_t{1} << 62});
    return e;
  }

  // One operator from a table of every operator and operand-type combination the checker
  // allows, on operands that are edge constants (which LLVM folds) or fields that hold edge
  // values at run time (which run the generated instructions).
  Expr edgeOp(Scope& s) {
    auto un = [&](Op op, Type t, Type from) { return count(node(op, t, {edgeOperand(from, s)})); };
    auto bin = [&](Op op, Type t, Type a, Type b) { return arith(op, t, edgeOperand(a, s), edgeOperand(b, s)); };
    const Type I = Type::Int, F = Type::Float, S = Type::String, T = Type::Time, D = Type::Duration;
    switch (rng_.below(26)) {
      case 0: { Type t = pick({I, F, D}); return un(Op::Neg, t, t); }
      case 1: { Type t = pick({I, F, D}); return un(Op::Abs, t, t); }
      case 2: return un(Op::ToInt, I, pick({I, F, S, S}));
      case 3: return un(Op::ToFloat, F, pick({I, F, S, S}));
      case 4: {
        Type t = pick({I, F, S, T, D, Type::State});
        Expr x = t == Type::State ? leaf(t, s) : edgeOperand(t, s);
        return count(node(Op::ToString, S, {std::move(x)}));
      }
      case 5: return rng_.chance(0.5) ? un(Op::Len, I, S) : un(Op::Lower, S, S);
      case 6: case 7: {
        Op op = pick({Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Mod});
        if ((op == Op::Div || op == Op::Mod) && rng_.chance(0.4)) {
          return arith(op, I, edgeOperand(I, s), intConst(I, pick<int64_t>({-1, 0, 1, kMin})));  // x / -1, x % 0
        }
        return bin(op, I, I, I);
      }
      case 8: case 9: {
        auto [a, b] = pick({std::pair{F, F}, std::pair{I, F}, std::pair{F, I}});
        return bin(pick({Op::Add, Op::Sub, Op::Mul, Op::Div}), F, a, b);
      }
      case 10: return rng_.chance(0.5) ? bin(pick({Op::Add, Op::Sub}), T, T, D) : bin(Op::Add, T, D, T);
      case 11: return bin(Op::Sub, D, T, T);
      case 12: return bin(pick({Op::Add, Op::Sub}), D, D, D);
      case 13: {
        Type n = pick({I, F});
        return rng_.chance(0.5) ? bin(Op::Mul, D, D, n) : bin(Op::Mul, D, n, D);
      }
      case 14: return bin(Op::Div, D, D, pick({I, F}));
      case 15: return bin(Op::Div, F, D, D);
      case 16: case 17: {
        auto [a, b] = pick({std::pair{I, I}, std::pair{I, F}, std::pair{F, I}, std::pair{F, F}, std::pair{T, T},
                            std::pair{D, D}});
        Type t = a == F || b == F ? F : a;
        return bin(rng_.chance(0.5) ? Op::Min : Op::Max, t, a, b);
      }
      case 18: case 19: {
        auto [a, b] = pick({std::pair{I, I}, std::pair{I, F}, std::pair{F, I}, std::pair{F, F}, std::pair{S, S},
                            std::pair{T, T}, std::pair{D, D}});
        return compare(pick({Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}), edgeOperand(a, s), edgeOperand(b, s));
      }
      case 20: return count(node(Op::InRange, Type::Bool, {edgeOperand(I, s), edgeOperand(I, s), edgeOperand(I, s)}));
      case 21: {
        Type t = pick({F, T, D});
        Type bound = t == F && rng_.chance(0.4) ? I : t;
        return count(node(Op::InInterval, Type::Bool, {edgeOperand(t, s), edgeOperand(bound, s), edgeOperand(bound, s)}));
      }
      case 22: {
        Expr x = edgeOperand(I, s);
        std::vector<Expr> ops;
        ops.push_back(std::move(x));
        for (int i = 0; i < 3; ++i) ops.push_back(edgeOperand(pick({I, F}), s));
        return count(node(Op::InList, Type::Bool, std::move(ops)));
      }
      case 23: return count(node(Op::InNodes, Type::Bool, {edgeOperand(S, s)}));
      case 24: return match(edgeOperand(S, s));
      default:
        return count(node(pick({Op::Contains, Op::StartsWith, Op::EndsWith}), Type::Bool,
                          {edgeOperand(S, s), edgeOperand(S, s)}));
    }
  }

  Type scalarType() {
    return pick({Type::Int, Type::Float, Type::String, Type::Time, Type::Duration, Type::State, Type::Bool});
  }

  Expr count(Expr e) {
    ++opCounts[static_cast<size_t>(e.op)];
    return e;
  }

 private:
  template <typename T>
  T pick(std::initializer_list<T> items) {
    return *(items.begin() + rng_.below(static_cast<int64_t>(items.size())));
  }

  bool aggregatesAllowed(const Scope& s) const { return s.aggDepth < 3 && s.nextSlot < ir::kMaxSlots - 4; }

  // ---- constants

  int64_t intValue() {
    if (rng_.chance(cfg_.edge)) return rng_.edge(kExtremeInts, kEdgeInts);
    if (rng_.chance(0.1)) return static_cast<int64_t>(rng_.next() >> rng_.below(64));
    return rng_.between(-10, 100);
  }
  double floatValue() {
    if (rng_.chance(cfg_.edge)) return rng_.edge(kExtremeFloats, kEdgeFloats);
    if (rng_.chance(0.4)) return static_cast<double>(rng_.between(-10, 100));
    return (rng_.unit() - 0.3) * 200.0;
  }
  int64_t timeValue() {
    if (rng_.chance(cfg_.edge)) return rng_.edge(kExtremeTimes, kEdgeTimes);
    return kBase + rng_.between(-700, 700) * kSecond;
  }
  int64_t durationValue() {
    if (rng_.chance(cfg_.edge)) return rng_.edge(kExtremeDurations, kEdgeDurations);
    return rng_.between(-5, 600) * (rng_.chance(0.8) ? kSecond : 1'000'000);
  }
  std::string stringValue() {
    if (rng_.chance(0.15)) return rng_.pick(kNodes);
    if (rng_.chance(0.05)) return program_.symptoms[static_cast<size_t>(rng_.below(kBaseSymptoms))].name;
    if (rng_.chance(cfg_.edge * 0.4)) return rng_.pick(kNumbers);
    return rng_.pick(kStrings);
  }

  Expr floatConst() { return count(konst(ir::Value::real(floatValue()))); }

  Expr constant(Type t) {
    switch (t) {
      case Type::Bool: return count(konst(ir::Value::boolean(rng_.chance(0.5))));
      case Type::Int: return count(intConst(Type::Int, intValue()));
      case Type::Float: return floatConst();
      case Type::String: return count(konst(ir::Value::string(stringValue())));
      case Type::Time: return count(intConst(Type::Time, timeValue()));
      case Type::Duration: return count(intConst(Type::Duration, durationValue()));
      case Type::State: return count(intConst(Type::State, rng_.below(12)));
      default: return count(konst(ir::Value::null()));
    }
  }

  // ---- leaves

  Expr slot(int32_t s) {
    Expr e = node(Op::Slot, Type::Instance);
    e.slot = s;
    return count(e);
  }

  Expr slotRef(const Scope& s) {
    // Where-clauses mostly read their own aggregate's instance.
    if (s.aggDepth > 0 && rng_.chance(0.6)) return slot(s.slots.back());
    return slot(rng_.pick(s.slots));
  }

  Expr field(Expr of, Field f, Type t) {
    Expr e = node(Op::FieldOf, t, {std::move(of)});
    e.field = f;
    return count(e);
  }

  Expr capture(Expr of) {
    Expr e = node(Op::CaptureOf, Type::String, {std::move(of)});
    e.name = rng_.chance(0.1) ? "absent" : rng_.pick(kCaptureNames);
    return count(e);
  }

  Expr workload(WorkloadField f, Type t) {
    Expr e = node(Op::Workload, t);
    e.wfield = f;
    return count(e);
  }

  Expr leaf(Type t, Scope& s) {
    int r = static_cast<int>(rng_.below(100));
    switch (t) {
      case Type::Bool: return boolLeaf(s);
      case Type::Int:
        if (r < 35) return constant(t);
        if (r < 65) return field(slotRef(s), pick({Field::Rank, Field::ExitCode, Field::Signal}), Type::Int);
        if (r < 85) {
          return workload(pick({WorkloadField::ExitCode, WorkloadField::Signal, WorkloadField::Ranks,
                                WorkloadField::RanksPerNode}),
                          Type::Int);
        }
        if (r < 93 && aggregatesAllowed(s)) return aggregate(Op::Count, Type::Int, 0, s);
        return count(node(Op::Len, Type::Int, {stringLeaf(s)}));
      case Type::Float:
        if (s.windows && r < 20) return window(0, s);
        if (r < 50) return constant(t);
        return field(slotRef(s), Field::Value, Type::Float);
      case Type::String: return stringLeaf(s);
      case Type::Time:
        if (r < 35) return constant(t);
        if (r < 80) return field(slotRef(s), Field::Time, Type::Time);
        return workload(rng_.chance(0.5) ? WorkloadField::Start : WorkloadField::End, Type::Time);
      case Type::Duration:
        if (r < 70) return constant(t);
        return workload(WorkloadField::Duration, Type::Duration);
      case Type::State:
        if (r < 40) return constant(t);
        if (r < 75) return field(slotRef(s), Field::State, Type::State);
        return workload(WorkloadField::State, Type::State);
      case Type::Instance: return slotRef(s);
      default: return constant(t);
    }
  }

  Expr stringLeaf(Scope& s) {
    int r = static_cast<int>(rng_.below(100));
    if (r < 30) return constant(Type::String);
    if (r < 60) {
      return field(slotRef(s),
                   pick({Field::Node, Field::Gpu, Field::Symptom, Field::Family, Field::Severity, Field::Blame,
                         Field::Role, Field::Source, Field::Text, Field::Metric, Field::Reason}),
                   Type::String);
    }
    if (r < 85) return capture(slotRef(s));
    return workload(pick({WorkloadField::Id, WorkloadField::Name, WorkloadField::Scheduler, WorkloadField::User,
                          WorkloadField::Partition, WorkloadField::Reason}),
                    Type::String);
  }

  // An operand of edgeOp: a constant, or a field read at run time.
  Expr edgeOperand(Type t, Scope& s) {
    if (rng_.chance(0.45)) return constant(t);
    switch (t) {
      case Type::Int:
        if (rng_.chance(0.8)) return field(slotRef(s), pick({Field::Rank, Field::ExitCode, Field::Signal}), Type::Int);
        return workload(pick({WorkloadField::ExitCode, WorkloadField::Signal, WorkloadField::Ranks}), Type::Int);
      case Type::Float: {
        // value; float(rank) (exactly -2^63 for INT64_MIN); float("1e309"), float("nan"), ...
        int r = static_cast<int>(rng_.below(10));
        if (r < 4) return field(slotRef(s), Field::Value, Type::Float);
        if (r < 7) return count(node(Op::ToFloat, Type::Float, {field(slotRef(s), pick({Field::Rank, Field::ExitCode}), Type::Int)}));
        return count(node(Op::ToFloat, Type::Float, {capture(slotRef(s))}));
      }
      case Type::Time:
        if (rng_.chance(0.8)) return field(slotRef(s), Field::Time, Type::Time);
        return workload(rng_.chance(0.5) ? WorkloadField::Start : WorkloadField::End, Type::Time);
      case Type::Duration:
        // A duration read at run time: workload.duration, or 1ns * rank.
        if (rng_.chance(0.3)) return workload(WorkloadField::Duration, Type::Duration);
        return arith(Op::Mul, Type::Duration, intConst(Type::Duration, 1),
                     field(slotRef(s), pick({Field::Rank, Field::ExitCode}), Type::Int));
      case Type::String:
        if (rng_.chance(0.8)) return capture(slotRef(s));
        return field(slotRef(s), pick({Field::Text, Field::Node}), Type::String);
      default: return constant(t);
    }
  }

  Expr stringOperand(int depth, Scope& s) {
    return rng_.chance(0.5) ? constant(Type::String) : value(Type::String, depth, s);
  }

  Expr boolLeaf(Scope& s) {
    int r = static_cast<int>(rng_.below(100));
    if (r < 15) return constant(Type::Bool);
    if (r < 30) return isNone(slotRef(s));
    if (r < 45) return isSymptom(slotRef(s));
    if (r < 52 && s.bindings > 0) return same();
    if (r < 62 && aggregatesAllowed(s)) return aggregate(Op::Exists, Type::Bool, 0, s);
    if (r < 72) return match(stringLeaf(s));
    Type t = scalarType();
    if (t == Type::Bool) t = Type::Int;
    return compare(ordered(t) ? pick({Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}) : pick({Op::Eq, Op::Ne}),
                   leaf(t, s), constant(t));
  }

  // ---- bool forms

  static bool ordered(Type t) { return t != Type::State && t != Type::Bool && t != Type::Instance; }

  Expr compare(Op op, Expr a, Expr b) { return count(node(op, Type::Bool, {std::move(a), std::move(b)})); }

  Expr comparison(int depth, Scope& s) {
    Type a, b;
    int k = static_cast<int>(rng_.below(11));
    switch (k) {
      case 0: a = b = Type::Int; break;
      case 1: a = b = Type::Float; break;
      case 2: a = rng_.chance(0.5) ? Type::Int : Type::Float; b = a == Type::Int ? Type::Float : Type::Int; break;
      case 3: a = b = Type::String; break;
      case 4: a = b = Type::Time; break;
      case 5: a = b = Type::Duration; break;
      case 6: a = b = Type::State; break;
      case 7: a = b = Type::Bool; break;
      case 8: a = b = Type::Instance; break;
      default: {
        // x == x: true exactly when x is present (and not NaN).
        Type t = rng_.chance(0.15) ? Type::Instance : scalarType();
        Expr x = value(t, depth - 1, s);
        Expr y = x;
        return compare(rng_.chance(0.7) ? Op::Eq : Op::Ne, std::move(x), std::move(y));
      }
    }
    Op op = ordered(a) && ordered(b) ? pick({Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}) : pick({Op::Eq, Op::Ne});
    Expr x = value(a, depth - 1, s);
    Expr y = rng_.chance(0.4) && b != Type::Instance ? constant(b) : value(b, depth - 1, s);
    if (rng_.chance(0.3)) std::swap(x, y);
    return compare(op, std::move(x), std::move(y));
  }

  Expr inList(int depth, Scope& s) {
    Type t = pick({Type::Int, Type::Int, Type::String, Type::String, Type::State, Type::Bool, Type::Instance});
    std::vector<Expr> ops;
    ops.push_back(value(t, depth - 1, s));
    int n = static_cast<int>(rng_.between(1, 4));
    bool floats = t == Type::Int && rng_.chance(0.3);  // [1, 2.5]: an int compared with floats
    for (int i = 0; i < n; ++i) {
      if (t == Type::Instance) {
        ops.push_back(rng_.chance(0.2) ? konst(ir::Value::null()) : instance(depth - 1, s));
      } else if (floats && rng_.chance(0.6)) {
        ops.push_back(floatConst());
      } else {
        ops.push_back(rng_.chance(0.7) ? constant(t) : value(t, depth - 1, s));
      }
    }
    return count(node(Op::InList, Type::Bool, std::move(ops)));
  }

  Expr inInterval(int depth, Scope& s) {
    Type t = pick({Type::Time, Type::Float, Type::Duration});
    auto bound = [&]() {
      if (t == Type::Float && rng_.chance(0.4)) return rng_.chance(0.5) ? constant(Type::Int) : value(Type::Int, depth - 1, s);
      return rng_.chance(0.6) ? constant(t) : value(t, depth - 1, s);
    };
    Expr v = value(t, depth - 1, s);
    Expr lo = bound();
    Expr hi = bound();
    return count(node(Op::InInterval, Type::Bool, {std::move(v), std::move(lo), std::move(hi)}));
  }

  Expr rangeBound(int depth, Scope& s) { return rng_.chance(0.7) ? constant(Type::Int) : value(Type::Int, depth - 1, s); }

  Expr match(Expr of) {
    Expr e = node(Op::Match, Type::Bool, {std::move(of)});
    e.regex = static_cast<int32_t>(rng_.below(static_cast<int64_t>(program_.regexes.size())));
    e.negated = rng_.chance(0.3);
    return count(e);
  }

  Expr isSymptom(Expr of) {
    Expr e = node(Op::IsSymptom, Type::Bool, {std::move(of)});
    e.set = static_cast<int32_t>(rng_.below(static_cast<int64_t>(program_.symptomSets.size())));
    e.negated = rng_.chance(0.3);
    return count(e);
  }

  Expr isNone(Expr of) {
    Expr e = node(Op::IsNone, Type::Bool, {std::move(of)});
    e.negated = rng_.chance(0.5);
    return count(e);
  }

  Expr same() {
    Expr e = node(Op::Same, Type::Bool);
    e.field = pick({Field::Node, Field::Rank, Field::Gpu});
    return count(e);
  }

  // ---- aggregates

  Expr aggregate(Op op, Type t, int depth, Scope& s) {
    Expr e = node(op, t);
    e.set = static_cast<int32_t>(rng_.below(static_cast<int64_t>(program_.symptomSets.size())));
    e.slot = s.nextSlot++;
    if (rng_.chance(0.3)) {
      e.sameKey = true;
      e.field = pick({Field::Node, Field::Rank, Field::Gpu});
    }
    // Distinct counts `counted` (or a capture), independently of the same-key field.
    if (op == Op::Distinct) {
      e.counted = pick({Field::Node, Field::Rank, Field::Gpu, Field::Source, Field::Time, Field::Value, Field::State,
                      Field::Symptom, Field::Family, Field::Role, Field::Text, Field::ExitCode, Field::Metric});
      if (rng_.chance(0.25)) e.name = "code";  // distinct values of a capture
    }
    Scope inner = s;
    inner.slots.push_back(e.slot);
    ++inner.aggDepth;
    inner.windows = false;  // the checker allows windows only directly in a metric symptom's `when`
    if (depth > 0 && rng_.chance(0.65)) {
      e.hasWhere = true;
      e.operands.push_back(boolean(depth - 1, inner));
    }
    if (op == Op::MinBy || op == Op::MaxBy || op == Op::Percentile) {
      // The key, read per instance: mostly a converted capture or a field, as rules write them.
      Type kt = pick({Type::Int, Type::Float, Type::Float, Type::Time, Type::Duration});
      Expr key;
      if (kt == Type::Float && rng_.chance(0.5)) {
        key = count(node(Op::ToFloat, Type::Float, {capture(slot(e.slot))}));
      } else if (kt == Type::Int && rng_.chance(0.5)) {
        key = count(node(Op::ToInt, Type::Int, {capture(slot(e.slot))}));
      } else if (kt == Type::Time && rng_.chance(0.6)) {
        key = field(slot(e.slot), Field::Time, Type::Time);
      } else {
        key = value(kt, std::max(depth - 1, 0), inner);
      }
      e.operands.push_back(std::move(key));
    }
    s.nextSlot = std::max(s.nextSlot, inner.nextSlot);
    if (op == Op::Percentile) {
      if (rng_.chance(0.7)) {
        e.operands.push_back(rng_.chance(0.3) ? realConst(50.0)
                                              : realConst(static_cast<double>(rng_.below(121)) - 10.0));
      } else {
        e.operands.push_back(value(rng_.chance(0.5) ? Type::Float : Type::Int, std::max(depth - 1, 0), s));
      }
    }
    return count(e);
  }

  // A bool built around an aggregate.
  Expr aggregatePredicate(int depth, Scope& s) {
    switch (rng_.below(9)) {
      case 7: {
        Expr p = aggregate(Op::Percentile, Type::Float, depth, s);
        return compare(pick({Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}), std::move(p),
                       value(rng_.chance(0.5) ? Type::Float : Type::Int, depth - 1, s));
      }
      case 8: {
        Expr f = aggregate(rng_.chance(0.5) ? Op::MinBy : Op::MaxBy, Type::Instance, depth, s);
        if (rng_.chance(0.3)) return isNone(std::move(f));
        Type t = pick({Type::Time, Type::String, Type::Int});
        Field fl = t == Type::Time ? Field::Time : t == Type::Int ? Field::Rank : pick({Field::Node, Field::Text});
        return compare(pick({Op::Eq, Op::Ne, Op::Lt, Op::Ge}), field(std::move(f), fl, t), value(t, depth - 1, s));
      }
      case 0: return aggregate(Op::Exists, Type::Bool, depth, s);
      case 1: case 2: {
        Expr c = aggregate(rng_.chance(0.6) ? Op::Count : Op::Distinct, Type::Int, depth, s);
        return compare(pick({Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}), std::move(c),
                       intConst(Type::Int, rng_.below(5)));
      }
      case 3: return isNone(aggregate(rng_.chance(0.5) ? Op::First : Op::Last, Type::Instance, depth, s));
      case 4: {
        Expr f = aggregate(rng_.chance(0.5) ? Op::First : Op::Last, Type::Instance, depth, s);
        return compare(pick({Op::Eq, Op::Ne}), std::move(f), slotRef(s));
      }
      case 5: {
        Expr f = aggregate(rng_.chance(0.5) ? Op::First : Op::Last, Type::Instance, depth, s);
        Type t = pick({Type::Time, Type::String, Type::Int});
        Field fl = t == Type::Time ? Field::Time : t == Type::Int ? Field::Rank : pick({Field::Node, Field::Text});
        return compare(pick({Op::Eq, Op::Ne, Op::Lt, Op::Ge}), field(std::move(f), fl, t), value(t, depth - 1, s));
      }
      default: {
        Expr c = aggregate(Op::Count, Type::Int, depth, s);
        Expr d = aggregate(Op::Count, Type::Int, depth, s);
        return compare(pick({Op::Eq, Op::Lt, Op::Ge}), std::move(c), std::move(d));
      }
    }
  }

  // ---- typed values

  Expr arith(Op op, Type t, Expr a, Expr b) { return count(node(op, t, {std::move(a), std::move(b)})); }

  Expr intExpr(int depth, Scope& s) {
    int r = static_cast<int>(rng_.below(100));
    int d = depth - 1;
    if (aggregatesAllowed(s) && rng_.chance(cfg_.aggregates)) {
      return aggregate(rng_.chance(0.6) ? Op::Count : Op::Distinct, Type::Int, depth, s);
    }
    if (r < 12) return constant(Type::Int);
    if (r < 22) return field(slotRef(s), pick({Field::Rank, Field::ExitCode, Field::Signal}), Type::Int);
    if (r < 26) {
      return workload(pick({WorkloadField::ExitCode, WorkloadField::Signal, WorkloadField::Ranks,
                            WorkloadField::RanksPerNode}),
                      Type::Int);
    }
    if (r < 48) {
      Op op = pick({Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Mod});
      Expr b = rng_.chance(0.4) ? constant(Type::Int) : value(Type::Int, d, s);
      return arith(op, Type::Int, value(Type::Int, d, s), std::move(b));
    }
    if (r < 53) return count(node(Op::Neg, Type::Int, {value(Type::Int, d, s)}));
    if (r < 58) return count(node(Op::Abs, Type::Int, {value(Type::Int, d, s)}));
    if (r < 68) {
      Type from = pick({Type::Int, Type::Float, Type::String, Type::String});
      Expr x = from == Type::String && rng_.chance(0.5) ? capture(slotRef(s)) : value(from, d, s);
      return count(node(Op::ToInt, Type::Int, {std::move(x)}));
    }
    if (r < 73) return count(node(Op::Len, Type::Int, {value(Type::String, d, s)}));
    if (r < 80) {
      return arith(rng_.chance(0.5) ? Op::Min : Op::Max, Type::Int, value(Type::Int, d, s), value(Type::Int, d, s));
    }
    if (r < 90 && aggregatesAllowed(s)) return aggregate(Op::Count, Type::Int, depth, s);
    if (r < 95 && aggregatesAllowed(s)) return aggregate(Op::Distinct, Type::Int, depth, s);
    return leaf(Type::Int, s);
  }

  Expr floatExpr(int depth, Scope& s) {
    int r = static_cast<int>(rng_.below(100));
    int d = depth - 1;
    if (s.windows && rng_.chance(cfg_.windows)) return window(d, s);
    if (r < 12) return constant(Type::Float);
    if (r < 22) return field(slotRef(s), Field::Value, Type::Float);
    if (r < 45) {
      Op op = pick({Op::Add, Op::Sub, Op::Mul, Op::Div});
      int shape = static_cast<int>(rng_.below(3));
      Expr a = value(shape == 1 ? Type::Int : Type::Float, d, s);
      Expr b = rng_.chance(0.3) ? constant(shape == 2 ? Type::Int : Type::Float)
                                : value(shape == 2 ? Type::Int : Type::Float, d, s);
      return arith(op, Type::Float, std::move(a), std::move(b));
    }
    if (r < 50) {
      Expr b = rng_.chance(0.4) ? constant(Type::Duration) : value(Type::Duration, d, s);
      return arith(Op::Div, Type::Float, value(Type::Duration, d, s), std::move(b));  // duration / duration
    }
    if (r < 54) return count(node(Op::Neg, Type::Float, {value(Type::Float, d, s)}));
    if (r < 58) return count(node(Op::Abs, Type::Float, {value(Type::Float, d, s)}));
    if (r < 66) {
      Type from = pick({Type::Int, Type::Float, Type::String, Type::String});
      Expr x = from == Type::String && rng_.chance(0.5) ? capture(slotRef(s)) : value(from, d, s);
      return count(node(Op::ToFloat, Type::Float, {std::move(x)}));
    }
    if (r < 74) {
      bool firstFloat = rng_.chance(0.5);
      Expr a = value(firstFloat || rng_.chance(0.5) ? Type::Float : Type::Int, d, s);
      Expr b = value(!firstFloat || rng_.chance(0.5) ? Type::Float : Type::Int, d, s);
      if (a.type != Type::Float && b.type != Type::Float) b = value(Type::Float, d, s);
      return arith(rng_.chance(0.5) ? Op::Min : Op::Max, Type::Float, std::move(a), std::move(b));
    }
    if (r < 90 && s.windows) return window(d, s);
    return leaf(Type::Float, s);
  }

  Expr stringExpr(int depth, Scope& s) {
    int r = static_cast<int>(rng_.below(100));
    int d = depth - 1;
    if (r < 45) return stringLeaf(s);
    if (r < 80) {
      Type t = scalarType();
      if (t == Type::String) t = Type::Int;
      Expr x = value(t, d, s);
      return count(node(Op::ToString, Type::String, {std::move(x)}));
    }
    return count(node(Op::Lower, Type::String, {value(Type::String, d, s)}));
  }

  Expr timeExpr(int depth, Scope& s) {
    int r = static_cast<int>(rng_.below(100));
    int d = depth - 1;
    if (r < 15) return constant(Type::Time);
    if (r < 35) return field(slotRef(s), Field::Time, Type::Time);
    if (r < 42) return workload(rng_.chance(0.5) ? WorkloadField::Start : WorkloadField::End, Type::Time);
    if (r < 60) return arith(Op::Add, Type::Time, value(Type::Time, d, s), durationOperand(d, s));
    if (r < 66) return arith(Op::Add, Type::Time, durationOperand(d, s), value(Type::Time, d, s));
    if (r < 85) return arith(Op::Sub, Type::Time, value(Type::Time, d, s), durationOperand(d, s));
    return arith(rng_.chance(0.5) ? Op::Min : Op::Max, Type::Time, value(Type::Time, d, s), value(Type::Time, d, s));
  }

  Expr durationOperand(int depth, Scope& s) {
    return rng_.chance(0.5) ? constant(Type::Duration) : value(Type::Duration, depth, s);
  }

  Expr numericOperand(int depth, Scope& s) {
    Type t = rng_.chance(0.6) ? Type::Int : Type::Float;
    return rng_.chance(0.5) ? constant(t) : value(t, depth, s);
  }

  Expr durationExpr(int depth, Scope& s) {
    int r = static_cast<int>(rng_.below(100));
    int d = depth - 1;
    if (r < 12) return constant(Type::Duration);
    if (r < 20) return workload(WorkloadField::Duration, Type::Duration);
    if (r < 40) return arith(Op::Sub, Type::Duration, value(Type::Time, d, s), value(Type::Time, d, s));
    if (r < 52) {
      return arith(rng_.chance(0.5) ? Op::Add : Op::Sub, Type::Duration, value(Type::Duration, d, s),
                   durationOperand(d, s));
    }
    if (r < 60) return arith(Op::Mul, Type::Duration, value(Type::Duration, d, s), numericOperand(d, s));
    if (r < 64) return arith(Op::Mul, Type::Duration, numericOperand(d, s), value(Type::Duration, d, s));
    if (r < 74) return arith(Op::Div, Type::Duration, value(Type::Duration, d, s), numericOperand(d, s));
    if (r < 80) return count(node(Op::Neg, Type::Duration, {value(Type::Duration, d, s)}));
    if (r < 86) return count(node(Op::Abs, Type::Duration, {value(Type::Duration, d, s)}));
    return arith(rng_.chance(0.5) ? Op::Min : Op::Max, Type::Duration, value(Type::Duration, d, s),
                 value(Type::Duration, d, s));
  }

  Rng& rng_;
  const Config& cfg_;
  const ir::Program& program_;
};

// ---- describing inputs, for failure messages

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += fmt::format("\\{}", static_cast<char>(c));
    else if (c < 0x20 || c >= 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  return out + "\"";
}

template <typename T>
std::string opt(const std::optional<T>& v) {
  return v ? fmt::format("{}", static_cast<int64_t>(*v)) : "absent";
}

std::string describe(const Instance* in) {
  if (!in) return "none";
  std::string caps;
  for (const auto& e : in->captures) caps += fmt::format("{}{}={}", caps.empty() ? "" : ",", e.name(), quote(std::string(e.value())));
  return fmt::format(
      "{{symptom={} time={} seq={} node={} rank={} gpu={} source={} text={} captures=[{}] value={} metric={} "
      "state={} exit={} signal={} reason={} filtered={}}}",
      in->symptom, in->time, in->sequence, quote(in->node), opt(in->rank), quote(in->gpu), quote(in->source),
      quote(in->text), caps, in->extra().value, quote(in->extra().metric), opt(in->extra().state),
      opt(in->extra().exitCode), opt(in->extra().signal), quote(in->extra().reason), in->filtered);
}

std::string describe(const evidence::Workload& w) {
  std::string nodes;
  for (const auto& n : w.nodes) nodes += (nodes.empty() ? "" : ",") + n;
  return fmt::format(
      "{{id={} name={} scheduler={} user={} partition={} state={} exit={} signal={} start={} end={} nodes=[{}] "
      "ranks_per_node={} ranks={} reason={}}}",
      quote(w.id), quote(w.name), quote(w.scheduler), quote(w.user), quote(w.partition), ir::stateName(w.state),
      opt(w.exitCode), opt(w.signal), opt(w.start), opt(w.end), nodes, opt(w.ranksPerNode), opt(w.ranks),
      quote(w.reason));
}

// ---- batches

// One evaluation context of a predicate: which world, which instances in the bound slots.
struct ContextSpec {
  const World* world = nullptr;
  std::array<const Instance*, 3> slots{};
  bool workload = true;
  bool index = true;
  bool series = false;
  size_t seriesPos = 0;
};

struct Case {
  jit::PredicateRef ref;
  const Expr* expr = nullptr;  // set once the program stops growing
  int32_t bindings = 0;
  std::vector<ContextSpec> contexts;
  bool probe = false;
};

struct Plan {
  int rules = 110;
  int outcomes = 40;
  int filters = 20;
  int symptoms = 30;  // metric symptoms whose `when` may use window aggregates
};

struct Result {
  size_t cases = 0, verdictsTrue = 0, mismatches = 0, predicates = 0;
  double compileMs = 0;
  std::vector<std::string> messages;
  std::array<int, static_cast<size_t>(Op::Percentile) + 1> opCounts{};
};

// Deliberate miscompilations, applied to the compiled side only, that the harness must catch.
enum class Mutation {
  None,
  StrictToInclusive,  // `<` compiled as `<=`, `>` as `>=`
  AndToOr,            // `and` compiled as `or`
  DropNegation,       // `!~`, `is not` and `is not none` compiled without their negation
};

void mutate(Expr& e, Mutation m) {
  switch (m) {
    case Mutation::StrictToInclusive:
      if (e.op == Op::Lt) e.op = Op::Le;
      else if (e.op == Op::Gt) e.op = Op::Ge;
      break;
    case Mutation::AndToOr:
      if (e.op == Op::And) e.op = Op::Or;
      break;
    case Mutation::DropNegation:
      if (e.op == Op::Match || e.op == Op::IsSymptom || e.op == Op::IsNone) e.negated = false;
      break;
    case Mutation::None: break;
  }
  for (auto& o : e.operands) mutate(o, m);
}

class Batch {
 public:
  Batch(uint64_t seed, const Config& cfg, const Plan& plan, std::string test)
      : seed_(seed), cfg_(cfg), plan_(plan), test_(std::move(test)), rng_(seed), inputs_(rng_, cfg_) {}

  Result run(Mutation mutation = Mutation::None) {
    Result result;
    program_ = skeleton();
    for (int i = 0; i < cfg_.worlds; ++i) worlds_.push_back(inputs_.world(plan_.symptoms, i == 0));
    std::string error;
    // The `=~` regexes are fixed by the skeleton: a table for the probes' interpreter runs.
    if (!probeRegexes_.build(program_, &error)) {
      ADD_FAILURE() << error;
      return result;
    }
    ExprGen gen(rng_, cfg_, program_);
    generate(gen);
    result.opCounts = gen.opCounts;

    ir::Program compiled = program_;
    if (mutation != Mutation::None) {
      jit::forEachPredicate(compiled, [&](const jit::PredicateRef&, const Expr& e, int32_t) {
        mutate(const_cast<Expr&>(e), mutation);  // `compiled` is this function's own copy
      });
    }
    jit::JitReport report;
    auto started = std::chrono::steady_clock::now();
    auto predicates = jit::compilePredicates(compiled, {}, &report, &error);
    result.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    if (!predicates) {
      ADD_FAILURE() << "the JIT cannot compile the generated program (seed " << seed_ << "): " << error;
      return result;
    }
    runtime::RegexTable regexes;
    if (!regexes.build(program_, &error)) {
      ADD_FAILURE() << error;
      return result;
    }
    result.predicates = cases_.size();

    runtime::Interpreter interpreter;
    runtime::PredicateScratch scratch;
    for (size_t c = 0; c < cases_.size(); ++c) {
      const Case& kase = cases_[c];
      const runtime::CompiledPredicate& fn = function(*predicates, kase.ref);
      if (!fn) {
        ADD_FAILURE() << "no compiled function for " << jit::predicateSymbol(kase.ref);
        continue;
      }
      // The aggregate memo (runtime::AggregateMemo) is valid across calls over the same
      // instances: one pair (interpreter, compiled) per world as the contexts see it.
      std::map<std::tuple<const World*, bool, bool>, std::pair<runtime::AggregateMemo, runtime::AggregateMemo>> memos;
      for (size_t k = 0; k < kase.contexts.size(); ++k) {
        const ContextSpec& spec = kase.contexts[k];
        runtime::EvalContext a = context(kase, spec, regexes);
        runtime::EvalContext b = context(kase, spec, regexes);
        bool expected = interpreter.test(*kase.expr, a);
        scratch.reset();
        bool actual = fn(&b, &scratch);
        auto& memo = memos[{spec.world, spec.index, spec.workload}];
        runtime::EvalContext am = context(kase, spec, regexes);
        am.memo = &memo.first;
        runtime::EvalContext bm = context(kase, spec, regexes);
        bm.memo = &memo.second;
        bool expectedMemo = interpreter.test(*kase.expr, am);
        scratch.reset();
        bool actualMemo = fn(&bm, &scratch);
        if (mutation == Mutation::None && (expectedMemo != expected || actualMemo != expected)) {
          ADD_FAILURE() << "with the aggregate memo, " << jit::predicateSymbol(kase.ref) << " gives "
                        << expectedMemo << " (interpreter) and " << actualMemo << " (compiled) instead of "
                        << expected << " in context " << k << " (seed " << seed_ << "): " << ir::dump(*kase.expr);
        }
        // Compiled code leaves the caller's slots alone and balances the `distinct` stack.
        for (size_t i = 0; i < ir::kMaxSlots; ++i) {
          if (b.slots[i] != (i < kase.contexts[k].slots.size() ? kase.contexts[k].slots[i] : nullptr)) {
            ADD_FAILURE() << "compiled " << jit::predicateSymbol(kase.ref) << " changed slot " << i << " (seed " << seed_ << ")";
          }
        }
        if (scratch.distinctDepth != 0) {
          ADD_FAILURE() << "compiled " << jit::predicateSymbol(kase.ref) << " left " << scratch.distinctDepth
                        << " distinct sets open (seed " << seed_ << ")";
        }
        ++result.cases;
        result.verdictsTrue += expected;
        if (expected == actual) continue;
        ++result.mismatches;
        if (result.messages.size() < 5) result.messages.push_back(describeMismatch(kase, k, expected, actual));
      }
    }
    return result;
  }

 private:
  static const runtime::CompiledPredicate& function(const runtime::CompiledPredicates& p, const jit::PredicateRef& ref) {
    using K = jit::PredicateRef::Kind;
    switch (ref.kind) {
      case K::SymptomWhen: return p.symptomWhen[static_cast<size_t>(ref.index)];
      case K::FilterWhere: return p.filterWhere[static_cast<size_t>(ref.index)][static_cast<size_t>(ref.statement)];
      case K::RuleWhere: return p.ruleWhere[static_cast<size_t>(ref.index)];
      case K::OutcomeWhen: break;
    }
    return p.outcomeWhen[static_cast<size_t>(ref.index)];
  }

  runtime::EvalContext context(const Case& kase, const ContextSpec& spec, const runtime::RegexTable& regexes) const {
    runtime::EvalContext ctx;
    ctx.program = &program_;
    ctx.regexes = &regexes;
    ctx.workload = spec.workload ? &spec.world->workload : nullptr;
    ctx.index = spec.index ? &spec.world->index : nullptr;
    for (size_t i = 0; i < spec.slots.size(); ++i) ctx.slots[i] = spec.slots[i];
    ctx.bindings = kase.bindings;
    ctx.series = spec.series ? &spec.world->series : nullptr;
    ctx.seriesPos = spec.seriesPos;
    return ctx;
  }

  const Instance* anyInstance(const World& w) {
    if (w.instances.empty()) return nullptr;
    return &w.instances[static_cast<size_t>(rng_.below(static_cast<int64_t>(w.instances.size())))];
  }

  // Rule bindings and the instance of symptom and filter clauses are never missing
  // (runtime/compiled_predicates.h): those contexts come from worlds with instances.
  const World* worldWithInstances() {
    for (;;) {
      const World* w = worlds_[static_cast<size_t>(rng_.below(static_cast<int64_t>(worlds_.size())))].get();
      if (!w->instances.empty()) return w;
    }
  }

  // An instance of one of `set`'s symptoms when the world has one, as a rule binding would be.
  const Instance* memberOf(const World& w, int32_t set) {
    std::vector<const Instance*> members;
    for (const auto& inst : w.instances) {
      const auto& ids = program_.symptomSets[static_cast<size_t>(set)];
      if (std::binary_search(ids.begin(), ids.end(), inst.symptom)) members.push_back(&inst);
    }
    if (members.empty() || rng_.chance(0.1)) return anyInstance(w);
    return rng_.pick(members);
  }

  std::vector<ContextSpec> contexts(jit::PredicateRef::Kind kind, const std::vector<int32_t>& bindings) {
    using K = jit::PredicateRef::Kind;
    std::vector<ContextSpec> out;
    for (int i = 0; i < cfg_.contexts; ++i) {
      ContextSpec c;
      c.world = kind == K::OutcomeWhen ? worlds_[static_cast<size_t>(rng_.below(static_cast<int64_t>(worlds_.size())))].get()
                                       : worldWithInstances();
      c.workload = !rng_.chance(0.12);
      switch (kind) {
        case K::RuleWhere:
          for (size_t b = 0; b < bindings.size(); ++b) c.slots[b] = memberOf(*c.world, bindings[b]);
          break;
        case K::OutcomeWhen: c.slots[0] = rng_.chance(0.25) ? nullptr : anyInstance(*c.world); break;
        case K::FilterWhere: c.slots[0] = anyInstance(*c.world); break;
        case K::SymptomWhen: {
          // As attribution runs a metric symptom's `when`: the candidate sample in slot 0, the
          // series around it, and no instance index.
          c.index = rng_.chance(0.2);
          c.series = !rng_.chance(0.08);
          const auto& series = c.world->series;
          if (c.series && !series.empty()) {
            c.seriesPos = static_cast<size_t>(rng_.below(static_cast<int64_t>(series.size())));
            if (rng_.chance(0.03)) c.seriesPos = series.size() + static_cast<size_t>(rng_.below(2));
          }
          c.slots[0] = c.series && c.seriesPos < series.size() && !rng_.chance(0.1) ? series[c.seriesPos]
                                                                                   : anyInstance(*c.world);
          break;
        }
      }
      out.push_back(c);
    }
    return out;
  }

  // What the interpreter gives x on one context, kept past the interpreter's arena.
  struct Seen {
    bool null = true;
    int64_t i = 0;
    double f = 0;
    std::string s;
    const Instance* instance = nullptr;
  };

  Seen evaluate(const Expr& x, const Case& kase, const ContextSpec& spec) {
    runtime::EvalContext ctx = context(kase, spec, probeRegexes_);
    runtime::Interpreter interpreter;
    runtime::Value v = interpreter.eval(x, ctx);
    Seen out;
    out.null = v.isNull();
    out.i = v.i;
    out.f = v.f;
    out.s = std::string(v.s);
    out.instance = v.instance;
    return out;
  }

  // A predicate that observes the value of x:
  // - presence on every context: `x == x` (false when null), or NaN: `x != x`;
  // - the exact value on every context: x is one of the values the interpreter gives it on
  //   this predicate's contexts (`x == v1 or x == v2 ...`, `x in [...]`; for floats with the
  //   text too, which tells -0.0 from 0.0): a missing or a wrong value is caught; or it is not
  //   (`not (x in [...])`, false throughout for the interpreter): a wrong value, or a value
  //   where the interpreter has none, is caught;
  // - the value at a boundary on one context: `x == v and not (x < v)` and similar.
  Expr probe(ExprGen& gen, Expr x, const Case& kase) {
    auto cmp = [&](Op op, Expr a, Expr b) { return gen.count(node(op, Type::Bool, {std::move(a), std::move(b)})); };
    auto both = [&](Expr a, Expr b) { return gen.count(node(Op::And, Type::Bool, {std::move(a), std::move(b)})); };
    auto either = [&](Expr a, Expr b) { return gen.count(node(Op::Or, Type::Bool, {std::move(a), std::move(b)})); };
    auto text = [&](const Expr& of, std::string s) {
      Expr str = gen.count(node(Op::ToString, Type::String, {of}));
      return cmp(Op::Eq, std::move(str), konst(ir::Value::string(std::move(s))));
    };
    auto fieldOf = [&](const Expr& of, Field f, Type t) {
      Expr e = gen.count(node(Op::FieldOf, t, {of}));
      e.field = f;
      return e;
    };
    int r = static_cast<int>(rng_.below(100));
    if (x.type == Type::Bool) {  // x, `not x` (null stays null) and `x == x` tell true, false and null apart
      if (r < 35) return x;
      if (r < 70) return gen.count(node(Op::Not, Type::Bool, {std::move(x)}));
      return cmp(Op::Eq, x, x);
    }
    if (x.type != Type::Instance && r < 25) {
      Expr y = x;
      return cmp(x.type == Type::Float && rng_.chance(0.3) ? Op::Ne : Op::Eq, std::move(x), std::move(y));
    }

    std::vector<Seen> seen;
    for (const auto& spec : kase.contexts) seen.push_back(evaluate(x, kase, spec));
    // The distinct values, at most 12 of them.
    std::vector<Seen> values;
    for (size_t k = 0; k < seen.size(); ++k) {
      const Seen& v = seen[(k + static_cast<size_t>(rng_.below(static_cast<int64_t>(seen.size())))) % seen.size()];
      if (v.null || (x.type == Type::Float && std::isnan(v.f))) continue;
      bool dup = std::any_of(values.begin(), values.end(), [&](const Seen& w) {
        if (x.type == Type::Instance) return w.instance == v.instance;
        if (x.type == Type::Float) return std::memcmp(&w.f, &v.f, sizeof w.f) == 0;
        return w.i == v.i && w.s == v.s;
      });
      if (!dup && values.size() < 12) values.push_back(v);
    }

    if (x.type == Type::Instance) {
      // None where the interpreter has none; else which instance: its time and text (ties in
      // time are broken by sequence).
      Expr out = gen.count(node(Op::IsNone, Type::Bool, {x}));
      for (const Seen& v : values) {
        Expr t = cmp(Op::Eq, fieldOf(x, Field::Time, Type::Time), intConst(Type::Time, v.instance->time));
        Expr s = cmp(Op::Eq, fieldOf(x, Field::Text, Type::String), konst(ir::Value::string(v.instance->text)));
        out = either(std::move(out), both(std::move(t), std::move(s)));
      }
      return out;
    }

    auto constOf = [&](const Seen& v) {
      switch (x.type) {
        case Type::Float: return konst(ir::Value::real(v.f));
        case Type::String: return konst(ir::Value::string(v.s));
        default: return intConst(x.type, v.i);
      }
    };
    auto equals = [&](const Seen& v) {
      Expr eq = cmp(Op::Eq, x, constOf(v));
      if (x.type == Type::Float) eq = both(std::move(eq), text(x, runtime::valueText(Type::Float, 0, v.f)));
      return eq;
    };
    if (values.empty()) return cmp(Op::Eq, x, x);  // null (or NaN) everywhere

    if (r < 40 && x.type != Type::State) {
      // x == v and not (x < v) / not (v > x) / ...: exact at the boundary.
      const Seen& v = rng_.pick(values);
      Op strict = rng_.chance(0.5) ? Op::Lt : Op::Gt;
      Expr edge = rng_.chance(0.5) ? cmp(strict, x, constOf(v)) : cmp(strict, constOf(v), x);
      Expr out = both(equals(v), gen.count(node(Op::Not, Type::Bool, {std::move(edge)})));
      if (x.type != Type::Float && x.type != Type::String && rng_.chance(0.3)) {
        out = both(std::move(out), text(x, runtime::valueText(x.type, v.i, 0)));
      }
      return out;
    }
    Expr out;
    if ((x.type == Type::Int || x.type == Type::String || x.type == Type::State) && rng_.chance(0.4)) {
      std::vector<Expr> items;
      items.push_back(x);
      for (const Seen& v : values) items.push_back(constOf(v));
      out = gen.count(node(Op::InList, Type::Bool, std::move(items)));
    } else {
      out = equals(values[0]);
      for (size_t k = 1; k < values.size(); ++k) out = either(std::move(out), equals(values[k]));
    }
    if (r < 70) return out;
    // not (x in [...]) is null, not true, where x is null: `x == x and not (...)`.
    return both(cmp(Op::Eq, x, x), gen.count(node(Op::Not, Type::Bool, {std::move(out)})));
  }

  Expr predicate(ExprGen& gen, Case& kase, Scope& scope, bool windowFocus) {
    int depth = static_cast<int>(rng_.between(1, cfg_.depth));
    if (!rng_.chance(cfg_.probes)) {
      if (windowFocus && rng_.chance(0.5)) {
        Expr w = gen.window(depth - 1, scope);
        return gen.count(node(Op::Gt, Type::Bool, {std::move(w), konst(ir::Value::real(static_cast<double>(rng_.between(-10, 100))))}));
      }
      return gen.boolean(depth, scope);
    }
    kase.probe = true;
    Expr x;
    if (windowFocus && rng_.chance(0.6)) x = gen.window(depth - 1, scope);
    else if (rng_.chance(cfg_.table)) x = gen.edgeOp(scope);
    else x = gen.value(rng_.chance(0.1) ? Type::Instance : gen.scalarType(), depth, scope);
    return probe(gen, std::move(x), kase);
  }

  void generate(ExprGen& gen) {
    using K = jit::PredicateRef::Kind;
    // Metric symptoms whose `when` reads the series (slot 0: the candidate sample).
    bool windowFocus = plan_.symptoms > 0 && plan_.rules == 0 && plan_.outcomes == 0;
    for (int i = 0; i < plan_.symptoms; ++i) {
      ir::Symptom s;
      s.name = fmt::format("host.m{}", i);
      s.family = "host";
      s.stream = ir::StreamKind::Metric;
      s.metric = "gpu_temp";
      s.hasWhen = true;
      program_.symptoms.push_back(std::move(s));
    }
    for (int i = 0; i < plan_.symptoms; ++i) {
      Case kase;
      kase.ref = {K::SymptomWhen, kBaseSymptoms + i, 0};
      kase.contexts = contexts(K::SymptomWhen, {});
      Scope scope;
      scope.slots = {0};
      scope.windows = true;
      Expr e = predicate(gen, kase, scope, windowFocus || rng_.chance(0.5));
      program_.symptoms[static_cast<size_t>(kBaseSymptoms + i)].when = std::move(e);
      cases_.push_back(std::move(kase));
    }
    for (int i = 0; i < plan_.filters; ++i) {
      Case kase;
      kase.ref = {K::FilterWhere, i, 0};
      kase.contexts = contexts(K::FilterWhere, {});
      Scope scope;
      scope.slots = {0};
      ir::Filter f;
      f.name = fmt::format("filter{}", i);
      ir::FilterStatement st;
      st.set = static_cast<int32_t>(rng_.below(static_cast<int64_t>(program_.symptomSets.size())));
      st.hasWhere = true;
      st.where = predicate(gen, kase, scope, false);
      f.statements.push_back(std::move(st));
      program_.filters.push_back(std::move(f));
      cases_.push_back(std::move(kase));
    }
    for (int i = 0; i < plan_.rules; ++i) {
      Case kase;
      kase.ref = {K::RuleWhere, i, 0};
      ir::Rule rule;
      rule.name = fmt::format("rule{}", i);
      int n = static_cast<int>(rng_.between(1, 3));
      for (int b = 0; b < n; ++b) {  // any symptom set but the last, the empty one
        rule.bindings.push_back(static_cast<int32_t>(rng_.below(static_cast<int64_t>(program_.symptomSets.size()) - 1)));
      }
      kase.bindings = n;
      kase.contexts = contexts(K::RuleWhere, rule.bindings);
      Scope scope;
      for (int b = 0; b < n; ++b) scope.slots.push_back(b);
      scope.nextSlot = n;
      scope.bindings = n;
      rule.hasWhere = true;
      rule.where = predicate(gen, kase, scope, false);
      rule.slots = scope.nextSlot;
      rule.actions.push_back({ir::RuleAction::Kind::MarkBad, 0, -1});
      program_.rules.push_back(std::move(rule));
      cases_.push_back(std::move(kase));
    }
    for (int i = 0; i < plan_.outcomes; ++i) {
      Case kase;
      kase.ref = {K::OutcomeWhen, i, 0};
      kase.contexts = contexts(K::OutcomeWhen, {});
      Scope scope;
      scope.slots = {0};
      ir::Outcome o;
      o.name = fmt::format("outcome{}", i);
      o.when = predicate(gen, kase, scope, false);
      o.slots = scope.nextSlot;
      program_.outcomes.push_back(std::move(o));
      cases_.push_back(std::move(kase));
    }
    // The program has stopped growing: point the cases at their expressions.
    for (auto& kase : cases_) {
      switch (kase.ref.kind) {
        case K::SymptomWhen: kase.expr = &program_.symptoms[static_cast<size_t>(kase.ref.index)].when; break;
        case K::FilterWhere: kase.expr = &program_.filters[static_cast<size_t>(kase.ref.index)].statements[0].where; break;
        case K::RuleWhere: kase.expr = &program_.rules[static_cast<size_t>(kase.ref.index)].where; break;
        case K::OutcomeWhen: kase.expr = &program_.outcomes[static_cast<size_t>(kase.ref.index)].when; break;
      }
    }
  }

  std::string describeMismatch(const Case& kase, size_t k, bool expected, bool actual) const {
    const ContextSpec& spec = kase.contexts[k];
    size_t world = 0;
    for (size_t i = 0; i < worlds_.size(); ++i) {
      if (worlds_[i].get() == spec.world) world = i;
    }
    std::string out = fmt::format(
        "JIT and interpreter disagree: interpreter={} jit={}\n"
        "  seed {} ({}), predicate {} ({}), context {} of it, world {}\n"
        "  reproduce: ATTRIB_DIFF_SEED={} jit_tests --gtest_filter=DifferentialTest.{}\n"
        "  predicate: {}\n",
        expected, actual, seed_, test_, jit::predicateSymbol(kase.ref), kase.probe ? "probe" : "random", k,
        world, seed_, test_, ir::dump(*kase.expr));
    int slots = kase.ref.kind == jit::PredicateRef::Kind::RuleWhere ? kase.bindings : 1;
    for (int s = 0; s < slots; ++s) out += fmt::format("  slot {}: {}\n", s, describe(spec.slots[static_cast<size_t>(s)]));
    out += fmt::format("  bindings: {}\n", kase.bindings);
    out += fmt::format("  workload: {}\n", spec.workload ? describe(spec.world->workload) : "none");
    if (spec.series) {
      std::string series;
      for (const Instance* s : spec.world->series) {
        series += fmt::format("{}({}: {}, sym {})", series.empty() ? "" : " ", s->time, s->extra().value, s->symptom);
      }
      out += fmt::format("  series (pos {}): {}\n", spec.seriesPos, series);
    } else {
      out += "  series: none\n";
    }
    if (spec.index) {
      out += fmt::format("  instances ({}; the index leaves out those filtered before it was built):\n",
                         spec.world->instances.size());
      for (const auto& inst : spec.world->instances) {
        bool indexed = false;
        for (const auto& list : spec.world->index.bySymptom) {
          for (int32_t i : list) indexed |= &spec.world->instances[static_cast<size_t>(i)] == &inst;
        }
        out += fmt::format("    {}{}\n", describe(&inst), indexed ? "" : " (not indexed)");
      }
    } else {
      out += "  index: none\n";
    }
    return out;
  }

  uint64_t seed_;
  Config cfg_;
  Plan plan_;
  std::string test_;
  Rng rng_;
  InputGen inputs_;
  ir::Program program_;
  runtime::RegexTable probeRegexes_;
  std::vector<std::unique_ptr<World>> worlds_;
  std::vector<Case> cases_;
};

// The fixed seeds, or ATTRIB_DIFF_SEED (and ATTRIB_DIFF_SEEDS more after it).
std::vector<uint64_t> seeds(std::vector<uint64_t> fixed) {
  const char* seed = std::getenv("ATTRIB_DIFF_SEED");
  if (!seed || !*seed) return fixed;
  uint64_t first = std::strtoull(seed, nullptr, 10);
  const char* n = std::getenv("ATTRIB_DIFF_SEEDS");
  uint64_t count = n && *n ? std::strtoull(n, nullptr, 10) : 1;
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i < count; ++i) out.push_back(first + i);
  return out;
}

struct Totals {
  size_t cases = 0, verdictsTrue = 0, mismatches = 0, predicates = 0;
  double compileMs = 0;
  std::array<int, static_cast<size_t>(Op::Percentile) + 1> opCounts{};
};

Totals runSeeds(const std::string& test, const std::vector<uint64_t>& fixed, const Config& cfg, const Plan& plan) {
  Totals t;
  for (uint64_t seed : seeds(fixed)) {
    Batch batch(seed, cfg, plan, test);
    Result r = batch.run();
    for (const auto& m : r.messages) ADD_FAILURE() << m;
    if (r.mismatches > r.messages.size()) {
      ADD_FAILURE() << fmt::format("seed {}: {} more disagreements not shown", seed, r.mismatches - r.messages.size());
    }
    t.cases += r.cases;
    t.verdictsTrue += r.verdictsTrue;
    t.mismatches += r.mismatches;
    t.predicates += r.predicates;
    t.compileMs += r.compileMs;
    for (size_t i = 0; i < t.opCounts.size(); ++i) t.opCounts[i] += r.opCounts[i];
  }
  std::cout << fmt::format("[ diff     ] {}: {} predicates, {} cases ({} true), {} disagreements, compile {:.0f} ms\n",
                           test, t.predicates, t.cases, t.verdictsTrue, t.mismatches, t.compileMs);
  // Not vacuous: both verdicts occur often.
  EXPECT_GT(t.verdictsTrue, t.cases / 10);
  EXPECT_LT(t.verdictsTrue, t.cases - t.cases / 10);
  return t;
}

void expectGenerated(const Totals& t, std::initializer_list<Op> ops) {
  for (Op op : ops) EXPECT_GT(t.opCounts[static_cast<size_t>(op)], 0) << "never generated: " << ir::opName(op);
}

TEST(DifferentialTest, RandomPredicatesAgree) {
  Config cfg;
  Plan plan;  // 200 predicates: rules, outcomes, filters and metric symptoms
  Totals t = runSeeds("RandomPredicatesAgree", {11, 22, 33}, cfg, plan);
  if (std::getenv("ATTRIB_DIFF_SEED")) return;
  EXPECT_GE(t.cases, 5000u);
  expectGenerated(t, {Op::Const, Op::Slot, Op::FieldOf, Op::CaptureOf, Op::Workload, Op::Neg, Op::Not, Op::Add,
                      Op::Sub, Op::Mul, Op::Div, Op::Mod, Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::And,
                      Op::Or, Op::InList, Op::InInterval, Op::InRange, Op::InNodes, Op::Match, Op::IsSymptom,
                      Op::IsNone, Op::Same, Op::Count, Op::Exists, Op::First, Op::Last, Op::Distinct,
                      Op::WindowAvg, Op::WindowMin, Op::WindowMax, Op::WindowSum, Op::WindowRate, Op::WindowDelta,
                      Op::ToInt, Op::ToFloat, Op::ToString, Op::Abs, Op::Len, Op::Lower, Op::Contains,
                      Op::StartsWith, Op::EndsWith, Op::Min, Op::Max});
}

TEST(DifferentialTest, EdgeCaseValuesAgree) {
  Config cfg;
  cfg.edge = 0.8;  // NaN, infinities, INT64_MIN/MAX, extreme times in constants and inputs
  cfg.depth = 2;    // mostly one operation on edge values, observed directly
  cfg.contexts = 150;
  cfg.worlds = 16;
  cfg.probes = 0.8;
  cfg.table = 0.8;
  Plan plan;
  runSeeds("EdgeCaseValuesAgree", {101, 202, 303, 404}, cfg, plan);
}

TEST(DifferentialTest, WindowAggregatesAgree) {
  Config cfg;
  cfg.windows = 0.5;
  cfg.contexts = 12;
  cfg.edge = 0.3;
  Plan plan;
  plan.rules = plan.outcomes = plan.filters = 0;
  plan.symptoms = 200;
  Totals t = runSeeds("WindowAggregatesAgree", {7, 8}, cfg, plan);
  expectGenerated(t, {Op::WindowAvg, Op::WindowMin, Op::WindowMax, Op::WindowSum, Op::WindowRate, Op::WindowDelta});
}

TEST(DifferentialTest, AggregatesAgree) {
  Config cfg;
  cfg.aggregates = 0.5;
  cfg.depth = 4;
  Plan plan;
  plan.rules = 120;
  plan.outcomes = 70;
  plan.filters = 10;
  plan.symptoms = 0;
  Totals t = runSeeds("AggregatesAgree", {5, 6}, cfg, plan);
  expectGenerated(t, {Op::Count, Op::Exists, Op::First, Op::Last, Op::Distinct, Op::Same, Op::MinBy, Op::MaxBy,
                      Op::Percentile});
}

// The harness itself: deliberately miscompiled programs must be caught, with a message that
// shows the predicate and how to reproduce it.
TEST(DifferentialTest, HarnessDetectsDisagreement) {
  Config cfg;
  cfg.contexts = 8;
  Plan plan;
  plan.rules = 40;
  plan.outcomes = 10;
  plan.filters = 5;
  plan.symptoms = 5;
  for (Mutation m : {Mutation::StrictToInclusive, Mutation::AndToOr, Mutation::DropNegation}) {
    SCOPED_TRACE(static_cast<int>(m));
    Batch batch(4242, cfg, plan, "HarnessDetectsDisagreement");
    Result r = batch.run(m);
    EXPECT_GT(r.cases, 0u);
    EXPECT_GT(r.mismatches, 0u) << "a deliberately miscompiled program went unnoticed";
    EXPECT_LT(r.mismatches, r.cases);
    ASSERT_FALSE(r.messages.empty());
    EXPECT_NE(r.messages[0].find("predicate: ("), std::string::npos) << r.messages[0];
    EXPECT_NE(r.messages[0].find("ATTRIB_DIFF_SEED=4242"), std::string::npos) << r.messages[0];
  }
  // And the unmutated program agrees, so the disagreements above are the mutations'.
  Batch batch(4242, cfg, plan, "HarnessDetectsDisagreement");
  Result r = batch.run();
  EXPECT_EQ(r.mismatches, 0u);
  for (const auto& m : r.messages) ADD_FAILURE() << m;
}

}  // namespace
}  // namespace attrib
