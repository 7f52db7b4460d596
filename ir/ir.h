// The intermediate representation of a rule set: what `attribc build` writes into a bundle and
// what the runtime executes. It is independent of the source language's syntax (the AST) and
// of any engine (Hyperscan databases and JIT code are derived from it).
//
// Predicates are typed expression trees over a small set of value types. Names are resolved:
// instances are read through numbered slots, symptoms are numbered, captures are looked up by
// name on the instance. Two evaluators must agree on every predicate, byte for byte: the
// interpreter (runtime/interpreter.h) and the LLVM JIT (a later component).
//
// Semantics every evaluator implements (docs/language.md, "Evaluation"):
// - A missing value is null: an absent capture, a field the instance does not have, `none`.
//   Arithmetic, conversions and comparisons with a null operand give null; a null predicate
//   is false. `and`/`or` treat null as false. `is none` and `exists` never give null.
// - Integers are 64-bit; an overflowing +, -, *, unary -, division by zero and INT64_MIN / -1
//   give null, never a trap. Times and durations are integer nanoseconds with the same rules.
// - Floats are IEEE doubles: NaN compares false with everything (and != is true).
// - Int and float operands of arithmetic or comparison are compared/combined as doubles.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attrib::ir {

enum class Type : uint8_t { Null, Bool, Int, Float, String, Time, Duration, State, Instance, List };

// Ranks and Nodes are derived streams (`on ranks`, `on nodes`): one candidate instance per rank
// (node) of the workload, evaluated after filtering, with aggregates over the other instances.
enum class StreamKind : uint8_t { Log, Metric, Scheduler, Ranks, Nodes };

// Terminal states, normalised across schedulers. Stored as an int in State values.
enum class State : uint8_t {
  Unknown, Completed, Failed, Timeout, Cancelled, NodeFail, OutOfMemory, Preempted, Evicted, BootFail,
  Deadline, Running,
};
const char* stateName(State s);

// The failure families that are a node's fault: its GPUs, their memory and fabric, its network,
// its host hardware and kernel, or the node lost. The node history counts only these against a
// node, and an unknown verdict's family hint names them only with the scheduler's word that the
// job failed.
bool nodeFaultFamily(std::string_view family);
bool stateFromName(const std::string& name, State* out);

enum class Severity : uint8_t { Info, Warning, Error, Critical };
enum class Blame : uint8_t { None, Workload, Rank, Node, Gpu };
enum class Role : uint8_t { Cause, Consequence, Context };
// The words of the language ("critical", "gpu", "context", ...).
const char* severityName(Severity s);
const char* blameName(Blame b);
const char* roleName(Role r);

// Fields every instance has; captures are looked up by name. Symptom, Family, Severity, Blame and
// Role are the instance's symptom's (its qualified name and properties, as words).
enum class Field : uint8_t {
  Time, Node, Rank, Gpu, Symptom, Family, Severity, Blame, Role, Source, Text,  // every instance
  Value, Metric,                                          // metric instances
  State, ExitCode, Signal, Reason,                        // scheduler instances
};
const char* fieldName(Field f);
bool fieldFromName(const std::string& name, Field* out);

enum class WorkloadField : uint8_t {
  Id, Name, Scheduler, User, Partition, State, ExitCode, Signal, Start, End, Ranks, RanksPerNode, Duration,
  Reason, Nodes,
};
const char* workloadFieldName(WorkloadField f);
bool workloadFieldFromName(const std::string& name, WorkloadField* out);

enum class Op : uint8_t {
  Const,        // `constant`
  Slot,         // the instance in slot `slot` (Instance)
  FieldOf,      // operands[0] (Instance) . field        -> the field's type
  CaptureOf,    // operands[0] (Instance) . capture `name` -> String
  Workload,     // workload.<wfield>
  Neg, Not,
  Add, Sub, Mul, Div, Mod,
  Eq, Ne, Lt, Le, Gt, Ge,
  And, Or,
  InList,       // operands[0] in operands[1..]
  InInterval,   // operands[1] <= operands[0] <= operands[2] (time, float, duration intervals)
  InRange,      // operands[1] <= operands[0] <= operands[2] (integers, [a .. b])
  InNodes,      // operands[0] (String) in workload.nodes
  Match,        // operands[0] (String) =~ regexes[regex]; `negated` for !~
  IsSymptom,    // operands[0] (Instance) is one of symptomSets[set]; `negated` for `is not`
  IsNone,       // operands[0] (Instance) is none; `negated` for `is not none`
  Same,         // all rule bindings share `key` (node, rank or gpu)
  // Aggregates over symptom instances: those of symptomSets[set] (excluding dropped and
  // filtered ones) for which operands[0] (the where-clause; absent = true) holds with the
  // instance in slot `slot`, and, when `sameKey` is set, whose key equals the reference
  // instance's (slot 0).
  Count, Exists, First, Last, Distinct,  // Distinct counts distinct values of `counted` (of capture `name` if set)
  // Window aggregates over the current metric series: operands[0] evaluated at each sample of
  // the trailing window of `window` ns ending at the current sample.
  WindowAvg, WindowMin, WindowMax, WindowSum, WindowRate, WindowDelta,
  // Scalar functions.
  ToInt, ToFloat, ToString, Abs, Len, Lower, Contains, StartsWith, EndsWith, Min, Max,
  // Aggregates with a numeric key: operands[hasWhere ? 1 : 0] is the key, evaluated with the
  // instance in slot `slot` like the where-clause. Instances whose key is null or NaN are
  // skipped. MinBy/MaxBy give the instance with the smallest/largest key (ties: the earliest);
  // Percentile gives the `operands.back()`-th percentile (0..100, linear interpolation between
  // closest ranks) of the keys as a float; median is percentile 50.
  MinBy, MaxBy,
  Percentile,  // keep last: the decoder checks operators against it
};
const char* opName(Op op);

struct Value {
  Type type = Type::Null;
  int64_t i = 0;       // Bool (0/1), Int, Time, Duration, State
  double f = 0;        // Float
  std::string s;       // String
  static Value null() { return {}; }
  static Value boolean(bool b) { Value v; v.type = Type::Bool; v.i = b; return v; }
  static Value integer(Type t, int64_t x) { Value v; v.type = t; v.i = x; return v; }
  static Value real(double x) { Value v; v.type = Type::Float; v.f = x; return v; }
  static Value string(std::string x) { Value v; v.type = Type::String; v.s = std::move(x); return v; }
  bool operator==(const Value& o) const;
};

struct Expr {
  Op op = Op::Const;
  Type type = Type::Null;    // the result type
  std::vector<Expr> operands;
  Value constant;            // Const
  int32_t slot = -1;         // Slot; aggregates: the slot their instance is bound to
  Field field = Field::Time; // FieldOf; Same/aggregates with sameKey: the key
  Field counted = Field::Time;  // Distinct: the field whose distinct values it counts (unless `name`)
  WorkloadField wfield = WorkloadField::Id;
  std::string name;          // CaptureOf: capture name
  int32_t set = -1;          // IsSymptom, aggregates: index into Program::symptomSets
  int32_t regex = -1;        // Match: index into Program::regexes
  int64_t window = 0;        // window aggregates: nanoseconds
  bool negated = false;
  bool sameKey = false;      // aggregates: restrict to instances sharing `field` with slot 0
  bool hasWhere = false;     // aggregates: operands[0] is a where-clause
};

struct Pattern {
  std::string regex;  // PCRE-compatible source, as written
  std::string flags;  // i, s, u
  std::vector<std::string> captures;
  // Log patterns: a literal every match holds that the Hyperscan scan form does not look for
  // (compiler/scan_form.h, requiredLiteral); a record without it, compared without regard to
  // case, is not confirmed with PCRE2. "" when there is none.
  std::string required;
};

struct Symptom {
  std::string name;     // qualified
  std::string title;
  std::string description;  // the `description` property, for people (reports); may be empty
  std::string family;
  Severity severity = Severity::Error;
  Blame blame = Blame::Node;
  Role role = Role::Cause;
  std::vector<std::string> actions;
  std::vector<std::string> refs;
  StreamKind stream = StreamKind::Log;
  std::vector<std::string> sources;  // log sources read; empty = all
  std::string metric;                // Metric stream
  std::vector<Pattern> patterns;     // Log stream: any of them
  bool hasWhen = false;
  Expr when;                         // slot 0 = the candidate instance
  int64_t sustained = 0;             // Metric: `for D`, ns (0 = none)
  // Ranks/Nodes streams: `let NAME = EXPR` values, evaluated (in order, slot 0 = the candidate)
  // for each instance the when-clause keeps; they become its captures, as text. The
  // when-clause has them inlined already. `message` is the instance's text, with `{name}`
  // replaced by a let, `{rank}`, `{node}` or `{gpu}`.
  struct Let {
    std::string name;
    Expr value;
  };
  std::vector<Let> lets;
  std::string message;
};

struct FilterStatement {
  enum class Kind : uint8_t { Drop, KeepPer, KeepWhere };
  Kind kind = Kind::Drop;
  int32_t set = -1;  // targets
  bool hasWhere = false;
  Expr where;        // slot 0 = the instance
  bool keepFirst = true;
  int64_t keepCount = 1;
  std::vector<std::string> keys;  // node, rank, gpu, workload, source
};

struct Filter {
  std::string name;
  std::vector<FilterStatement> statements;
};

enum class Phase : uint8_t { Early, Main, Final, PostOutcome };

struct RuleAction {
  enum class Kind : uint8_t { Explain, MarkBad, MarkInteresting, Drop };
  Kind kind = Kind::Explain;
  int32_t subject = -1;  // binding index
  int32_t object = -1;   // binding index (Explain: the explainer)
};

struct Rule {
  std::string name;
  Phase phase = Phase::Main;
  std::vector<int32_t> bindings;  // symptom set per binding; binding i is slot i
  bool hasWhere = false;
  Expr where;
  std::vector<RuleAction> actions;
  int32_t slots = 0;              // slots the where-clause needs (bindings + aggregate aliases)
};

struct Outcome {
  std::string name;
  std::string title;
  std::string family;
  std::vector<std::string> actions;
  double confidence = 0.5;
  Expr when;          // slot 0 = the root cause (or none)
  int32_t slots = 1;
};

// Evaluators keep instance slots in fixed frames of this size; lowering never needs more.
inline constexpr int32_t kMaxSlots = 64;

struct Program {
  std::string name = "rules";
  std::string version = "0.0.0";
  std::vector<Symptom> symptoms;                   // index = symptom id
  std::vector<std::vector<int32_t>> symptomSets;  // sorted symptom ids
  std::vector<Pattern> regexes;                   // for Op::Match
  std::vector<Filter> filters;                    // in declaration order
  std::vector<Rule> rules;                        // in declaration order (phases applied at run time)
  std::vector<Outcome> outcomes;                  // in declaration order
  // The names of every metric a symptom reads: what a metrics connector must fetch.
  std::vector<std::string> metricNames() const;
};

// Derived symptoms (`on ranks`, `on nodes`) are evaluated once per candidate, after filtering.
inline bool isDerived(StreamKind stream) { return stream == StreamKind::Ranks || stream == StreamKind::Nodes; }

// A derived symptom's message, split into literal text and `{name}` placeholders, in order. A
// `{` with no `}` after it starts literal text that runs to the end; `unclosed` says so. The
// compiler checks the names, the runtime fills them in: both read the message through this.
struct MessagePart {
  bool placeholder = false;
  std::string text;  // the literal text, or the placeholder's name
};
std::vector<MessagePart> splitMessage(const std::string& message, bool* unclosed = nullptr);

// Whether an aggregate's value is the same wherever it is evaluated while the instances do not
// change: it reads no slot but those it and the aggregates inside it bind, no `on same` key
// (which compares with slot 0), no rule binding (`same`) and no metric window. Evaluators may
// compute such an aggregate once per batch of calls over unchanged instances (EvalContext::memo).
bool isSlotInvariant(const Expr& aggregate);
bool isAggregate(Op op);

// A readable listing of one expression, e.g. `(and (gt (count #3) 1:int) ...)`.
std::string dump(const Expr& e);

}  // namespace attrib::ir
