#include "ir/ir.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace attrib::ir {
namespace {

template <typename E, size_t N>
bool fromName(const char* const (&names)[N], const std::string& name, E* out) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

const char* const kStates[] = {"UNKNOWN", "COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL",
                               "OUT_OF_MEMORY", "PREEMPTED", "EVICTED", "BOOT_FAIL", "DEADLINE", "RUNNING"};
const char* const kFields[] = {"time",   "node", "rank",  "gpu",       "symptom", "family", "severity", "blame",
                               "role",   "source", "text", "value",    "metric",  "state",  "exit_code", "signal",
                               "reason"};
static_assert(sizeof(kFields) / sizeof(kFields[0]) == static_cast<size_t>(Field::Reason) + 1, "every field has a name");
const char* const kSeverities[] = {"info", "warning", "error", "critical"};
const char* const kBlames[] = {"none", "workload", "rank", "node", "gpu"};
const char* const kRoles[] = {"cause", "consequence", "context"};
const char* const kWorkloadFields[] = {"id", "name", "scheduler", "user", "partition", "state", "exit_code",
                                       "signal", "start", "end", "ranks", "ranks_per_node", "duration", "reason",
                                       "nodes"};
const char* const kOps[] = {
    "const", "slot", "field", "capture", "workload", "neg", "not", "add", "sub", "mul", "div", "mod",
    "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "in-list", "in-interval", "in-range", "in-nodes",
    "match", "is-symptom", "is-none", "same", "count", "exists", "first", "last", "distinct",
    "window-avg", "window-min", "window-max", "window-sum", "window-rate", "window-delta",
    "to-int", "to-float", "to-string", "abs", "len", "lower", "contains", "starts-with", "ends-with",
    "min", "max", "min-by", "max-by", "percentile"};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == static_cast<size_t>(Op::Percentile) + 1, "every op has a name");

const char* typeName(Type t) {
  static const char* const kTypes[] = {"null", "bool", "int", "float", "string", "time", "duration", "state",
                                       "instance", "list"};
  return kTypes[static_cast<size_t>(t)];
}

}  // namespace

const char* stateName(State s) { return kStates[static_cast<size_t>(s)]; }

bool nodeFaultFamily(std::string_view family) {
  static constexpr std::string_view kNodeFamilies[] = {"accelerator-gpu", "accelerator-memory", "accelerator-fabric",
                                                       "network-fabric",  "host-hardware",      "kernel-fatal",
                                                       "node-failure"};
  return std::find(std::begin(kNodeFamilies), std::end(kNodeFamilies), family) != std::end(kNodeFamilies);
}
const char* severityName(Severity s) { return kSeverities[static_cast<size_t>(s)]; }
const char* blameName(Blame b) { return kBlames[static_cast<size_t>(b)]; }
const char* roleName(Role r) { return kRoles[static_cast<size_t>(r)]; }
bool stateFromName(const std::string& name, State* out) { return fromName(kStates, name, out); }
const char* fieldName(Field f) { return kFields[static_cast<size_t>(f)]; }
bool fieldFromName(const std::string& name, Field* out) { return fromName(kFields, name, out); }
const char* workloadFieldName(WorkloadField f) { return kWorkloadFields[static_cast<size_t>(f)]; }
bool workloadFieldFromName(const std::string& name, WorkloadField* out) {
  return fromName(kWorkloadFields, name, out);
}
const char* opName(Op op) { return kOps[static_cast<size_t>(op)]; }

std::vector<MessagePart> splitMessage(const std::string& message, bool* unclosed) {
  std::vector<MessagePart> parts;
  if (unclosed) *unclosed = false;
  size_t at = 0;
  while (at < message.size()) {
    size_t open = message.find('{', at);
    size_t close = open == std::string::npos ? std::string::npos : message.find('}', open);
    if (close == std::string::npos) {
      if (open != std::string::npos && unclosed) *unclosed = true;
      parts.push_back({false, message.substr(at)});
      break;
    }
    if (open > at) parts.push_back({false, message.substr(at, open - at)});
    parts.push_back({true, message.substr(open + 1, close - open - 1)});
    at = close + 1;
  }
  return parts;
}

bool isAggregate(Op op) {
  switch (op) {
    case Op::Count: case Op::Exists: case Op::First: case Op::Last: case Op::Distinct: case Op::MinBy:
    case Op::MaxBy: case Op::Percentile:
      return true;
    default:
      return false;
  }
}

namespace {
// `bound`: the slots the aggregates enclosing `e` (within the one being tested) bind.
bool readsOnlyBound(const Expr& e, std::vector<int32_t>& bound) {
  switch (e.op) {
    case Op::Slot:
      return std::find(bound.begin(), bound.end(), e.slot) != bound.end();
    case Op::Same: case Op::WindowAvg: case Op::WindowMin: case Op::WindowMax: case Op::WindowSum:
    case Op::WindowRate: case Op::WindowDelta:
      return false;
    default:
      break;
  }
  if (isAggregate(e.op)) {
    if (e.sameKey) return false;
    // A percentile's p is read outside the aggregate's own binding.
    size_t inside = e.op == Op::Percentile ? e.operands.size() - 1 : e.operands.size();
    if (e.op == Op::Percentile && !readsOnlyBound(e.operands.back(), bound)) return false;
    bound.push_back(e.slot);
    bool ok = true;
    for (size_t i = 0; ok && i < inside; ++i) ok = readsOnlyBound(e.operands[i], bound);
    bound.pop_back();
    return ok;
  }
  for (const auto& op : e.operands) {
    if (!readsOnlyBound(op, bound)) return false;
  }
  return true;
}
}  // namespace

bool isSlotInvariant(const Expr& aggregate) {
  if (!isAggregate(aggregate.op)) return false;
  std::vector<int32_t> bound;
  return readsOnlyBound(aggregate, bound);
}

bool Value::operator==(const Value& o) const {
  if (type != o.type) return false;
  switch (type) {
    case Type::Null: return true;
    case Type::Float: return f == o.f || (f != f && o.f != o.f);
    case Type::String: return s == o.s;
    default: return i == o.i;
  }
}

std::vector<std::string> Program::metricNames() const {
  std::set<std::string> names;
  for (const auto& s : symptoms) {
    if (s.stream == StreamKind::Metric) names.insert(s.metric);
  }
  return {names.begin(), names.end()};
}

std::string dump(const Expr& e) {
  std::string out = fmt::format("({}", opName(e.op));
  switch (e.op) {
    case Op::Const:
      switch (e.constant.type) {
        case Type::Null: out += " null"; break;
        case Type::Float: out += fmt::format(" {}", e.constant.f); break;
        case Type::String: out += fmt::format(" \"{}\"", e.constant.s); break;
        case Type::State: out += fmt::format(" {}", stateName(static_cast<State>(e.constant.i))); break;
        default: out += fmt::format(" {}", e.constant.i); break;
      }
      break;
    case Op::Slot: out += fmt::format(" {}", e.slot); break;
    case Op::FieldOf: out += fmt::format(" .{}", fieldName(e.field)); break;
    case Op::CaptureOf: out += fmt::format(" .{}", e.name); break;
    case Op::Workload: out += fmt::format(" {}", workloadFieldName(e.wfield)); break;
    case Op::Match: out += fmt::format(" regex#{}{}", e.regex, e.negated ? " negated" : ""); break;
    case Op::IsSymptom: out += fmt::format(" set#{}{}", e.set, e.negated ? " negated" : ""); break;
    case Op::IsNone: out += e.negated ? " negated" : ""; break;
    case Op::Same: out += fmt::format(" {}", fieldName(e.field)); break;
    case Op::Count: case Op::Exists: case Op::First: case Op::Last: case Op::Distinct:
      out += fmt::format(" set#{} slot{}", e.set, e.slot);
      if (e.op == Op::Distinct) out += e.name.empty() ? fmt::format(" .{}", fieldName(e.counted)) : fmt::format(" .{}", e.name);
      if (e.sameKey) out += fmt::format(" same-{}", fieldName(e.field));
      break;
    case Op::WindowAvg: case Op::WindowMin: case Op::WindowMax: case Op::WindowSum: case Op::WindowRate:
    case Op::WindowDelta:
      out += fmt::format(" {}ns", e.window);
      break;
    default:
      break;
  }
  out += fmt::format(":{}", typeName(e.type));
  for (const auto& op : e.operands) out += " " + dump(op);
  return out + ")";
}

}  // namespace attrib::ir
