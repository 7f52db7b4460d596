#include "runtime/interpreter.h"

#include "ir/civil_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace attrib::runtime {
namespace {

using ir::Op;
using ir::Type;

Value null() { return {}; }
Value boolean(bool b) { Value v; v.type = Type::Bool; v.i = b; return v; }
Value integer(Type t, int64_t i) { Value v; v.type = t; v.i = i; return v; }
Value real(double f) { Value v; v.type = Type::Float; v.f = f; return v; }
Value text(std::string_view s) { Value v; v.type = Type::String; v.s = s; return v; }
Value instance(const Instance* p) {
  if (!p) return null();
  Value v;
  v.type = Type::Instance;
  v.instance = p;
  return v;
}

bool isIntLike(Type t) { return t == Type::Int || t == Type::Time || t == Type::Duration || t == Type::State || t == Type::Bool; }
double asDouble(const Value& v) { return v.type == Type::Float ? v.f : static_cast<double>(v.i); }

// A double that fits an int64 after truncation toward zero, or nullopt.
std::optional<int64_t> toInt64(double d) {
  if (!std::isfinite(d)) return std::nullopt;
  double t = std::trunc(d);
  if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) return std::nullopt;
  return static_cast<int64_t>(t);
}

}  // namespace

void InstanceIndex::rebuild(const std::vector<Instance>& all, size_t symptoms) {
  instances = &all;
  bySymptom.assign(symptoms, {});
  for (size_t i = 0; i < all.size(); ++i) {
    const Instance& inst = all[i];
    if (inst.filtered || inst.symptom < 0 || static_cast<size_t>(inst.symptom) >= symptoms) continue;
    bySymptom[inst.symptom].push_back(static_cast<int32_t>(i));
  }
  // Usually already in order (the phases sort instances before indexing them): then no sort.
  auto inTime = [&](int32_t a, int32_t b) { return earlier(all[a], all[b]); };
  for (auto& list : bySymptom) {
    if (!std::is_sorted(list.begin(), list.end(), inTime)) std::stable_sort(list.begin(), list.end(), inTime);
  }
  keyed_.clear();
}

const std::vector<int32_t>& InstanceIndex::withKey(int32_t symptom, ir::Field key, int64_t rank,
                                                   std::string_view text) const {
  static const std::vector<int32_t> kNone;
  const std::vector<int32_t>& all = bySymptom[symptom];
  int slot = key == ir::Field::Node ? 0 : key == ir::Field::Rank ? 1 : key == ir::Field::Gpu ? 2 : -1;
  if (slot < 0) return all;
  if (keyed_.size() != bySymptom.size()) keyed_.assign(bySymptom.size(), {});
  KeyLists& lists = keyed_[symptom][slot];
  if (!lists.built) {
    // Empty strings and absent ranks are null keys, which never match: leave them out.
    for (int32_t idx : all) {
      const Instance& inst = (*instances)[idx];
      if (slot == 1) {
        if (inst.rank) lists.byRank[*inst.rank].push_back(idx);
      } else {
        const std::string& k = slot == 0 ? inst.node : inst.gpu;
        if (!k.empty()) lists.byText[k].push_back(idx);
      }
    }
    lists.built = true;
  }
  if (slot == 1) {
    auto it = lists.byRank.find(rank);
    return it == lists.byRank.end() ? kNone : it->second;
  }
  auto it = lists.byText.find(text);
  return it == lists.byText.end() ? kNone : it->second;
}

std::string formatDuration(int64_t nanos) {
  if (nanos == 0) return "0s";
  std::string out;
  uint64_t n = nanos < 0 ? static_cast<uint64_t>(-(nanos + 1)) + 1 : static_cast<uint64_t>(nanos);
  if (nanos < 0) out = "-";
  if (n < 1'000'000'000ULL) {
    if (n % 1'000'000 == 0) return out + fmt::format("{}ms", n / 1'000'000);
    if (n % 1'000 == 0) return out + fmt::format("{}us", n / 1'000);
    return out + fmt::format("{}ns", n);
  }
  uint64_t hours = n / 3'600'000'000'000ULL;
  n %= 3'600'000'000'000ULL;
  uint64_t minutes = n / 60'000'000'000ULL;
  n %= 60'000'000'000ULL;
  if (hours) out += fmt::format("{}h", hours);
  if (minutes) out += fmt::format("{}m", minutes);
  if (n) {
    uint64_t secs = n / 1'000'000'000ULL, frac = n % 1'000'000'000ULL;
    if (frac) {
      std::string f = fmt::format("{:09}", frac);
      while (f.back() == '0') f.pop_back();
      out += fmt::format("{}.{}s", secs, f);
    } else {
      out += fmt::format("{}s", secs);
    }
  }
  return out;
}

Value workloadValue(ir::WorkloadField f, const Workload& w) {
  using W = ir::WorkloadField;
  auto str = [](const std::string& s) { return s.empty() ? null() : text(s); };
  auto opt = [](Type t, const std::optional<int64_t>& v) { return v ? integer(t, *v) : null(); };
  switch (f) {
    case W::Id: return str(w.id);
    case W::Name: return str(w.name);
    case W::Scheduler: return str(w.scheduler);
    case W::User: return str(w.user);
    case W::Partition: return str(w.partition);
    case W::State: return integer(Type::State, static_cast<int64_t>(w.state));
    case W::ExitCode: return opt(Type::Int, w.exitCode);
    case W::Signal: return opt(Type::Int, w.signal);
    case W::Start: return opt(Type::Time, w.start);
    case W::End: return opt(Type::Time, w.end);
    case W::Ranks: {
      if (w.ranks) return integer(Type::Int, *w.ranks);
      int64_t ranks;
      if (w.ranksPerNode && !w.nodes.empty() &&
          !__builtin_mul_overflow(*w.ranksPerNode, static_cast<int64_t>(w.nodes.size()), &ranks)) {
        return integer(Type::Int, ranks);
      }
      return null();
    }
    case W::RanksPerNode: return opt(Type::Int, w.ranksPerNode);
    case W::Duration: {
      int64_t d;
      if (!w.start || !w.end || __builtin_sub_overflow(*w.end, *w.start, &d)) return null();
      return integer(Type::Duration, d);
    }
    case W::Reason: return str(w.reason);
    case W::Nodes: return null();  // a list: only read through InNodes
  }
  return null();
}


bool parseIntText(std::string_view s, int64_t* out) {
  const char* begin = s.data();
  const char* end = begin + s.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, *out);
  return ec == std::errc() && ptr == end && begin != end;
}

bool parseFloatText(std::string_view s, double* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

std::string valueText(ir::Type type, int64_t i, double f) {
  switch (type) {
    case Type::Int: return std::to_string(i);
    // A NaN has no sign in the language: LLVM folds 0.0 / 0.0 to +nan where x86 computes -nan,
    // so printing the sign would make the JIT and the interpreter disagree.
    case Type::Float: return std::isnan(f) ? std::string("nan") : fmt::format("{}", f);
    case Type::Duration: return formatDuration(i);
    case Type::Time: return formatTimestamp(i);
    case Type::State: return ir::stateName(static_cast<ir::State>(i));
    case Type::Bool: return i ? "true" : "false";
    default: return {};
  }
}

std::string lowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view Interpreter::keep(std::string s) {
  arena_.push_back(std::move(s));
  return arena_.back();
}

bool Interpreter::test(const ir::Expr& e, EvalContext& ctx) {
  arena_.clear();
  Value v = eval(e, ctx);
  return v.type == Type::Bool && v.i != 0;
}

Value fieldValue(const Instance& inst, ir::Field f, const ir::Program& program) {
  using F = ir::Field;
  auto str = [](const std::string& s) { return s.empty() ? null() : text(s); };
  switch (f) {
    case F::Time: return inst.timeUnknown ? null() : integer(Type::Time, inst.time);
    case F::Node: return str(inst.node);
    case F::Rank: return inst.rank ? integer(Type::Int, *inst.rank) : null();
    case F::Gpu: return str(inst.gpu);
    case F::Symptom: return text(program.symptoms[inst.symptom].name);
    case F::Family: return text(program.symptoms[inst.symptom].family);
    case F::Severity: return text(ir::severityName(program.symptoms[inst.symptom].severity));
    case F::Blame: return text(ir::blameName(program.symptoms[inst.symptom].blame));
    case F::Role: return text(ir::roleName(program.symptoms[inst.symptom].role));
    case F::Source: return str(inst.source);
    case F::Text: return text(inst.text);
    case F::Value:
      return program.symptoms[inst.symptom].stream == ir::StreamKind::Metric ? real(inst.extra().value) : null();
    case F::Metric: return str(inst.extra().metric);
    case F::State: return inst.extra().state ? integer(Type::State, static_cast<int64_t>(*inst.extra().state)) : null();
    case F::ExitCode: return inst.extra().exitCode ? integer(Type::Int, *inst.extra().exitCode) : null();
    case F::Signal: return inst.extra().signal ? integer(Type::Int, *inst.extra().signal) : null();
    case F::Reason: return str(inst.extra().reason);
  }
  return null();
}

Value Interpreter::compare(Op op, const Value& a, const Value& b) {
  if (a.isNull() || b.isNull()) return null();
  int c;
  if (a.type == Type::Float || b.type == Type::Float) {
    double x = asDouble(a), y = asDouble(b);
    if (std::isnan(x) || std::isnan(y)) return boolean(op == Op::Ne);  // IEEE: unordered
    c = x < y ? -1 : (x > y ? 1 : 0);
  } else if (a.type == Type::String) {
    int r = a.s.compare(b.s);
    c = r < 0 ? -1 : (r > 0 ? 1 : 0);
  } else if (a.type == Type::Instance) {
    c = a.instance == b.instance ? 0 : (a.instance < b.instance ? -1 : 1);
  } else {
    c = a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
  }
  switch (op) {
    case Op::Eq: return boolean(c == 0);
    case Op::Ne: return boolean(c != 0);
    case Op::Lt: return boolean(c < 0);
    case Op::Le: return boolean(c <= 0);
    case Op::Gt: return boolean(c > 0);
    case Op::Ge: return boolean(c >= 0);
    default: return null();
  }
}

Value Interpreter::binary(const ir::Expr& e, EvalContext& ctx) {
  if (e.op == Op::And) {
    Value a = eval(e.operands[0], ctx);
    if (!(a.type == Type::Bool && a.i)) return boolean(false);
    Value b = eval(e.operands[1], ctx);
    return boolean(b.type == Type::Bool && b.i);
  }
  if (e.op == Op::Or) {
    Value a = eval(e.operands[0], ctx);
    if (a.type == Type::Bool && a.i) return boolean(true);
    Value b = eval(e.operands[1], ctx);
    return boolean(b.type == Type::Bool && b.i);
  }
  Value a = eval(e.operands[0], ctx);
  Value b = eval(e.operands[1], ctx);
  if (e.op >= Op::Eq && e.op <= Op::Ge) return compare(e.op, a, b);
  if (a.isNull() || b.isNull()) return null();
  if (e.type == Type::Float) {
    double x = asDouble(a), y = asDouble(b);
    switch (e.op) {
      case Op::Add: return real(x + y);
      case Op::Sub: return real(x - y);
      case Op::Mul: return real(x * y);
      case Op::Div:
        // duration / duration: both integers, so a zero divisor is a missing value, not inf.
        if (isIntLike(a.type) && isIntLike(b.type) && b.i == 0) return null();
        return real(x / y);
      default: return null();
    }
  }
  // Integer results (int, time, duration). A float operand (duration * 1.5) is combined as a
  // double and truncated back, range-checked.
  if (a.type == Type::Float || b.type == Type::Float) {
    double x = asDouble(a), y = asDouble(b);
    double r = e.op == Op::Mul ? x * y : e.op == Op::Div ? x / y : e.op == Op::Add ? x + y : x - y;
    if (e.op == Op::Mod) return null();
    auto i = toInt64(r);
    return i ? integer(e.type, *i) : null();
  }
  int64_t r;
  switch (e.op) {
    case Op::Add: if (__builtin_add_overflow(a.i, b.i, &r)) return null(); break;
    case Op::Sub: if (__builtin_sub_overflow(a.i, b.i, &r)) return null(); break;
    case Op::Mul: if (__builtin_mul_overflow(a.i, b.i, &r)) return null(); break;
    case Op::Div:
      if (b.i == 0 || (a.i == std::numeric_limits<int64_t>::min() && b.i == -1)) return null();
      r = a.i / b.i;
      break;
    case Op::Mod:
      if (b.i == 0) return null();
      r = b.i == -1 ? 0 : a.i % b.i;
      break;
    default: return null();
  }
  return integer(e.type, r);
}

Value Interpreter::aggregate(const ir::Expr& e, EvalContext& ctx) {
  auto emptyResult = [&]() {
    return e.op == Op::Count || e.op == Op::Distinct ? integer(Type::Int, 0)
           : e.op == Op::Exists                       ? boolean(false)
                                                      : null();
  };
  if (!ctx.index || !ctx.index->instances) return emptyResult();
  const auto& all = *ctx.index->instances;
  const ir::Program& program = *ctx.program;
  const Instance* reference = ctx.slots[0];
  Value refKey;
  if (e.sameKey) {
    if (!reference) return emptyResult();
    refKey = fieldValue(*reference, e.field, program);
    if (refKey.isNull()) return emptyResult();
  }
  bool keyed = e.op == Op::MinBy || e.op == Op::MaxBy || e.op == Op::Percentile;
  const ir::Expr* keyExpr = keyed ? &e.operands[e.hasWhere ? 1 : 0] : nullptr;
  // The percentile is read before the loop binds the aggregate's slot.
  double percentile = 0;
  if (e.op == Op::Percentile) {
    Value p = eval(e.operands.back(), ctx);
    if (p.isNull()) return null();
    percentile = p.type == Type::Float ? p.f : static_cast<double>(p.i);
  }
  const Instance* saved = ctx.slots[e.slot];
  int64_t count = 0;
  const Instance* first = nullptr;
  const Instance* last = nullptr;
  const Instance* best = nullptr;
  Value bestKey;
  std::vector<double> keys;
  std::set<std::string> distinctStrings;
  std::set<int64_t> distinctInts;
  for (int32_t symptom : program.symptomSets[e.set]) {
    const std::vector<int32_t>& candidates =
        e.sameKey ? ctx.index->withKey(symptom, e.field, refKey.i, refKey.s) : ctx.index->bySymptom[symptom];
    for (int32_t idx : candidates) {
      const Instance& inst = all[idx];
      if (inst.filtered) continue;
      if (e.sameKey) {
        Value key = fieldValue(inst, e.field, program);
        if (key.isNull() || compare(Op::Eq, key, refKey).i == 0) continue;
      }
      if (e.hasWhere || keyed) ctx.slots[e.slot] = &inst;
      if (e.hasWhere) {
        Value w = eval(e.operands[0], ctx);
        if (!(w.type == Type::Bool && w.i)) continue;
      }
      if (keyed) {
        Value k = eval(*keyExpr, ctx);
        if (k.isNull() || (k.type == Type::Float && std::isnan(k.f))) continue;
        if (e.op == Op::Percentile) {
          keys.push_back(k.type == Type::Float ? k.f : static_cast<double>(k.i));
        } else if (!best) {
          best = &inst;
          bestKey = k;
        } else {
          // Strictly better key, or an equal key on an earlier instance.
          bool less = k.type == Type::Float ? k.f < bestKey.f : k.i < bestKey.i;
          bool greater = k.type == Type::Float ? k.f > bestKey.f : k.i > bestKey.i;
          bool better = e.op == Op::MinBy ? less : greater;
          if (better || (!less && !greater && earlier(inst, *best))) {
            best = &inst;
            bestKey = k;
          }
        }
        continue;
      }
      ++count;
      if (!first || earlier(inst, *first)) first = &inst;
      if (!last || earlier(*last, inst)) last = &inst;
      if (e.op == Op::Exists) break;
      if (e.op == Op::Distinct) {
        std::optional<std::string_view> c;
        if (!e.name.empty()) c = inst.capture(e.name);
        Value v = e.name.empty() ? fieldValue(inst, e.counted, program) : c ? text(*c) : null();
        if (v.type == Type::String) distinctStrings.emplace(v.s);
        else if (!v.isNull()) distinctInts.insert(v.i);
      }
    }
    if (e.op == Op::Exists && count) break;
  }
  ctx.slots[e.slot] = saved;
  switch (e.op) {
    case Op::Count: return integer(Type::Int, count);
    case Op::Exists: return boolean(count > 0);
    case Op::First: return instance(first);
    case Op::Last: return instance(last);
    case Op::Distinct: return integer(Type::Int, static_cast<int64_t>(distinctStrings.size() + distinctInts.size()));
    case Op::MinBy: case Op::MaxBy: return instance(best);
    case Op::Percentile: {
      double out;
      return percentileOf(keys, percentile, &out) ? real(out) : null();
    }
    default: return null();
  }
}

bool percentileOf(std::vector<double>& values, double p, double* out) {
  if (values.empty() || !(p >= 0.0 && p <= 100.0)) return false;
  std::sort(values.begin(), values.end());
  double position = p / 100.0 * static_cast<double>(values.size() - 1);
  size_t lo = static_cast<size_t>(position);
  if (lo + 1 >= values.size()) {
    *out = values.back();
    return true;
  }
  double fraction = position - static_cast<double>(lo);
  *out = fraction == 0.0 ? values[lo] : values[lo] + (values[lo + 1] - values[lo]) * fraction;
  return true;
}

Value Interpreter::window(const ir::Expr& e, EvalContext& ctx) {
  if (!ctx.series || ctx.seriesPos >= ctx.series->size()) return null();
  const auto& series = *ctx.series;
  int64_t end = series[ctx.seriesPos]->time;
  int64_t start;
  if (__builtin_sub_overflow(end, e.window, &start)) start = std::numeric_limits<int64_t>::min();
  const Instance* saved = ctx.slots[0];
  size_t n = 0;
  double sum = 0, mn = 0, mx = 0, firstV = 0, lastV = 0, increase = 0, prev = 0;
  int64_t firstT = 0, lastT = 0;
  // Forward over the window (start, end] so rate and delta see samples in time order.
  size_t from = ctx.seriesPos;
  while (from > 0 && series[from - 1]->time > start) --from;
  for (size_t i = from; i <= ctx.seriesPos; ++i) {
    ctx.slots[0] = series[i];
    Value v = eval(e.operands[0], ctx);
    if (v.isNull() || !(v.type == Type::Float || v.type == Type::Int)) continue;
    double x = asDouble(v);
    if (n == 0) {
      mn = mx = firstV = x;
      firstT = series[i]->time;
    } else {
      // A counter that went down was reset: the new value is all increase.
      increase += x >= prev ? x - prev : x;
    }
    sum += x;
    mn = std::min(mn, x);
    mx = std::max(mx, x);
    lastV = prev = x;
    lastT = series[i]->time;
    ++n;
  }
  ctx.slots[0] = saved;
  if (n == 0) return null();
  switch (e.op) {
    case Op::WindowAvg: return real(sum / static_cast<double>(n));
    case Op::WindowMin: return real(mn);
    case Op::WindowMax: return real(mx);
    case Op::WindowSum: return real(sum);
    case Op::WindowDelta: return n < 2 ? null() : real(lastV - firstV);
    case Op::WindowRate: {
      if (n < 2 || lastT == firstT) return null();
      return real(increase / (static_cast<double>(lastT - firstT) / 1e9));
    }
    default: return null();
  }
}

Value Interpreter::call(const ir::Expr& e, EvalContext& ctx) {
  Value a = eval(e.operands[0], ctx);
  if (e.op == Op::Min || e.op == Op::Max || e.op == Op::Contains || e.op == Op::StartsWith || e.op == Op::EndsWith) {
    Value b = eval(e.operands[1], ctx);
    if (a.isNull() || b.isNull()) return null();
    switch (e.op) {
      case Op::Contains: return boolean(a.s.find(b.s) != std::string_view::npos);
      case Op::StartsWith: return boolean(a.s.substr(0, b.s.size()) == b.s);
      case Op::EndsWith: return boolean(a.s.size() >= b.s.size() && a.s.substr(a.s.size() - b.s.size()) == b.s);
      default: break;
    }
    bool less = compare(Op::Lt, a, b).i != 0;
    if (e.type == Type::Float) {
      double x = asDouble(a), y = asDouble(b);
      if (std::isnan(x) || std::isnan(y)) return real(std::numeric_limits<double>::quiet_NaN());
      return real(e.op == Op::Min ? std::min(x, y) : std::max(x, y));
    }
    const Value& pick = e.op == Op::Min ? (less ? a : b) : (less ? b : a);
    return integer(e.type, pick.i);
  }
  if (a.isNull()) return null();
  switch (e.op) {
    case Op::ToInt: {
      if (a.type == Type::Float) {
        auto i = toInt64(a.f);
        return i ? integer(Type::Int, *i) : null();
      }
      if (a.type != Type::String) return integer(Type::Int, a.i);
      int64_t v = 0;
      return parseIntText(a.s, &v) ? integer(Type::Int, v) : null();
    }
    case Op::ToFloat: {
      if (a.type != Type::String) return real(asDouble(a));
      double v = 0;
      return parseFloatText(a.s, &v) ? real(v) : null();
    }
    case Op::ToString: {
      switch (a.type) {
        case Type::String: return a;
        case Type::Bool: case Type::State: case Type::Int: case Type::Float: case Type::Duration: case Type::Time:
          return text(keep(valueText(a.type, a.i, a.f)));
        default: return null();
      }
    }
    case Op::Abs:
      if (a.type == Type::Float) return real(std::fabs(a.f));
      if (a.i == std::numeric_limits<int64_t>::min()) return null();
      return integer(a.type, a.i < 0 ? -a.i : a.i);
    case Op::Len: return integer(Type::Int, static_cast<int64_t>(a.s.size()));
    case Op::Lower: return text(keep(lowerAscii(a.s)));
    default: return null();
  }
}

Value Interpreter::eval(const ir::Expr& e, EvalContext& ctx) {
  switch (e.op) {
    case Op::Const: {
      const ir::Value& c = e.constant;
      switch (c.type) {
        case Type::Null: return null();
        case Type::Float: return real(c.f);
        case Type::String: return text(c.s);
        default: return integer(c.type, c.i);
      }
    }
    case Op::Slot: return instance(ctx.slots[e.slot]);
    case Op::FieldOf: {
      Value of = eval(e.operands[0], ctx);
      if (!of.instance) return null();
      return fieldValue(*of.instance, e.field, *ctx.program);
    }
    case Op::CaptureOf: {
      Value of = eval(e.operands[0], ctx);
      if (!of.instance) return null();
      std::optional<std::string_view> c = of.instance->capture(e.name);
      return c ? text(*c) : null();
    }
    case Op::Workload: return ctx.workload ? workloadValue(e.wfield, *ctx.workload) : null();
    case Op::Neg: {
      Value a = eval(e.operands[0], ctx);
      if (a.isNull()) return a;
      if (a.type == Type::Float) return real(-a.f);
      if (a.i == std::numeric_limits<int64_t>::min()) return null();
      return integer(a.type, -a.i);
    }
    case Op::Not: {
      Value a = eval(e.operands[0], ctx);
      if (a.isNull()) return a;
      return boolean(a.i == 0);
    }
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Eq: case Op::Ne: case Op::Lt:
    case Op::Le: case Op::Gt: case Op::Ge: case Op::And: case Op::Or:
      return binary(e, ctx);
    case Op::InList: {
      Value v = eval(e.operands[0], ctx);
      if (v.isNull()) return null();
      for (size_t i = 1; i < e.operands.size(); ++i) {
        Value item = eval(e.operands[i], ctx);
        Value eq = compare(Op::Eq, v, item);
        if (eq.type == Type::Bool && eq.i) return boolean(true);
      }
      return boolean(false);
    }
    case Op::InInterval: case Op::InRange: {
      Value v = eval(e.operands[0], ctx), lo = eval(e.operands[1], ctx), hi = eval(e.operands[2], ctx);
      Value a = compare(Op::Le, lo, v), b = compare(Op::Le, v, hi);
      if (a.isNull() || b.isNull()) return null();
      return boolean(a.i && b.i);
    }
    case Op::InNodes: {
      Value v = eval(e.operands[0], ctx);
      if (v.isNull() || !ctx.workload) return null();
      const auto& nodes = ctx.workload->nodes;
      return boolean(std::find(nodes.begin(), nodes.end(), v.s) != nodes.end());
    }
    case Op::Match: {
      Value v = eval(e.operands[0], ctx);
      if (v.isNull()) return null();
      bool m = ctx.regexes->expression(e.regex).match(v.s);
      return boolean(m != e.negated);
    }
    case Op::IsSymptom: {
      Value v = eval(e.operands[0], ctx);
      bool is = false;
      if (v.instance) {
        const auto& set = ctx.program->symptomSets[e.set];
        is = std::binary_search(set.begin(), set.end(), v.instance->symptom);
      }
      return boolean(is != e.negated);
    }
    case Op::IsNone: {
      Value v = eval(e.operands[0], ctx);
      return boolean((v.instance == nullptr) != e.negated);
    }
    case Op::Same: {
      Value key;
      for (int32_t i = 0; i < ctx.bindings; ++i) {
        if (!ctx.slots[i]) return boolean(false);
        Value k = fieldValue(*ctx.slots[i], e.field, *ctx.program);
        if (k.isNull()) return boolean(false);
        if (i == 0) key = k;
        else if (compare(Op::Eq, key, k).i == 0) return boolean(false);
      }
      return boolean(true);
    }
    case Op::Count: case Op::Exists: case Op::First: case Op::Last: case Op::Distinct: case Op::MinBy:
    case Op::MaxBy: case Op::Percentile: {
      if (!ctx.memo) return aggregate(e, ctx);
      auto it = ctx.memo->interpreted.find(&e);
      if (it != ctx.memo->interpreted.end()) {
        const AggregateMemo::Entry& m = it->second;
        if (!m.invariant) return aggregate(e, ctx);
        if (m.null) return null();
        Value v;
        v.type = e.type;
        v.i = m.i;
        v.f = m.f;
        v.instance = m.instance;
        return v;
      }
      if (!ir::isSlotInvariant(e)) {
        ctx.memo->interpreted[&e].invariant = false;
        return aggregate(e, ctx);
      }
      Value v = aggregate(e, ctx);
      ctx.memo->interpreted[&e] = {v.i, v.f, v.instance, v.isNull(), true};
      return v;
    }
    case Op::WindowAvg: case Op::WindowMin: case Op::WindowMax: case Op::WindowSum: case Op::WindowRate:
    case Op::WindowDelta:
      return window(e, ctx);
    default:
      return call(e, ctx);
  }
}

}  // namespace attrib::runtime
