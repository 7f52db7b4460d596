// The AST of .attr files: attrib's own types, independent of the parser that built them.
//
// The parser (parser.h) produces it; the checker (check.h) annotates expressions in place with
// their types and what their names resolve to, turning it into the checked AST that later
// stages lower. Every node keeps the source range it came from, for diagnostics.
//
// Literals keep their source spelling (`text`) next to their value so tools can show them as
// written.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "compiler/source.h"
#include "compiler/types.h"

namespace attrib::ast {

struct Ident {
  std::string text;
  SourceRange range;
};

// `a.b.c`
struct QualifiedName {
  std::vector<Ident> parts;
  SourceRange range;
  std::string str() const;
};

// What a selector denotes: every symptom (`*`), the symptoms of a package and its
// sub-packages (`std.nccl.*`), or one name (`xid79`, `std.nccl.watchdog_timeout`).
struct Selector {
  enum class Kind { All, Prefix, Name };
  Kind kind = Kind::Name;
  QualifiedName name;  // empty for All
  SourceRange range;
  std::string str() const;
};

// `/pattern/flags`
struct Regex {
  std::string pattern;  // between the slashes, as written (escapes kept for the engines)
  std::string flags;
  SourceRange range;         // the whole literal
  SourceRange patternRange;  // the pattern alone
  std::vector<std::string> captures;  // named groups, in order; filled by the checker
};

// ---- expressions

enum class ExprKind {
  Int, Float, String, Duration, Time, Bool, None,
  Name,       // a (possibly qualified) name: a field, alias, constant or symptom reference
  Member,     // operand.member, on a computed operand such as `first(x).time`
  Negate, Not,
  Binary,     // arithmetic, comparison, and/or
  In,         // operand [not] in list/range/interval
  RegexMatch, // operand =~ /re/   (negated for !~)
  Is,         // operand is [not] selector | none
  Call,       // name(args) [over D]
  List,       // [a, b, c]
  Range,      // [a .. b]
  Same,       // same node|rank|gpu
};

enum class BinaryOp { Add, Sub, Mul, Div, Mod, Eq, Ne, Lt, Le, Gt, Ge, And, Or };
const char* spelling(BinaryOp op);

// What a name in an expression refers to, decided by the checker.
enum class NameRef {
  Unresolved,
  Field,        // a field of the implicit instance (filters, symptom clauses): time, node, a capture
  Alias,        // a rule binding or aggregate alias; `member` (if any) is the field read
  Root,         // the root cause instance (outcomes)
  Workload,     // workload or workload.<field>
  StateConst,   // COMPLETED, FAILED, ...
  Symptom,      // a symptom set: one symptom or a selector's expansion
  Let,          // a `let` of the derived symptom being checked; `field` is its name
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct CallArg {
  ExprPtr value;                       // for a selector argument: a Name expr, or null when `selector` is set
  std::optional<Selector> selector;    // wildcard argument (`std.nccl.*`, `*`)
  std::optional<Ident> alias;          // `as t`
  std::optional<Ident> sameKey;        // `on same node`
  ExprPtr where;                       // `where ...`
  SourceRange range;
};

struct Expr {
  ExprKind kind;
  SourceRange range;
  std::string text;  // source spelling of literals; the decoded value for strings

  // Literal values
  int64_t intValue = 0;       // Int; Duration (nanoseconds); Time (nanoseconds since the epoch)
  double floatValue = 0;      // Float
  bool boolValue = false;     // Bool
  bool timeOfDay = false;     // Time written as HH:MM[:SS] (tests only)

  // Name / Member / Call / Same
  QualifiedName name;         // Name: the parts; Member/Call/Same: one part
  BinaryOp op = BinaryOp::Add;
  bool negated = false;       // In (not in), RegexMatch (!~), Is (is not)
  std::vector<ExprPtr> operands;
  std::optional<Selector> selector;  // Is
  bool isNone = false;               // Is: `is none`
  std::optional<Regex> regex;        // RegexMatch
  std::vector<CallArg> args;         // Call
  std::optional<int64_t> over;       // Call: window in nanoseconds (`over 5m`)
  SourceRange overRange;

  // Filled by the checker.
  Type type;
  NameRef ref = NameRef::Unresolved;
  std::vector<std::string> symptoms;  // Symptom refs, Is, selector args: qualified names matched
  std::string field;                  // the field a Name or Member reads, if any
};

// ---- properties: `name value, value`

struct PropertyValue {
  enum class Kind { String, Int, Float, Duration, Timestamp, None, Bool, Word, List };
  Kind kind = Kind::Word;
  std::string text;  // decoded string, word spelling, or literal spelling
  int64_t intValue = 0;  // Int, Duration (ns), Timestamp (ns)
  double floatValue = 0;
  bool boolValue = false;
  std::vector<PropertyValue> items;  // List
  SourceRange range;
};

struct Property {
  Ident name;
  std::vector<PropertyValue> values;
  SourceRange range;
};

// ---- declarations

// `override KIND NAME { ... }`: the declaration replaces NAME, a declaration of the same kind in
// a lower layer (docs/language.md, "Layers"). It keeps NAME's qualified name and its place in
// the order of declarations; its body is read in the scope of the file it is written in.
struct OverrideOf {
  QualifiedName target;    // as written: gpu.xid.gpu_lost, or xid.gpu_lost through an alias
  SourceRange keyword;     // `override`; invalid when the keyword was left out (reported)
  std::string qualified;   // filled by the checker: what it replaces; empty when unresolved
};

struct StreamSpec {
  // Ranks and Nodes are derived: `on ranks` makes one candidate instance per rank of the
  // workload. Unknown is any other bare word after `on` (the checker reports it).
  enum class Kind { Log, Metric, Scheduler, Ranks, Nodes, Unknown };
  Kind kind = Kind::Log;
  std::string word;                          // the word after `on`, for Ranks/Nodes/Unknown
  std::optional<Ident> filterField;          // `source` in `log(source in [...])`
  std::vector<PropertyValue> sources;        // the listed log sources; empty = every source
  std::string metric;                        // Metric
  SourceRange range;
};

struct SymptomDecl {
  bool broken = false;  // held a syntax error: its name is declared, its body is not checked
  Ident name;           // for an override, the last part of the target
  std::optional<OverrideOf> overrides;
  std::optional<std::string> title;
  SourceRange titleRange;
  std::vector<StreamSpec> streams;  // one expected; more is diagnosed
  std::vector<Regex> matches;       // alternatives: a line matching any of them
  ExprPtr when;
  std::optional<int64_t> sustained;  // `for D`, nanoseconds
  SourceRange sustainedRange;
  struct Let {
    Ident name;
    ExprPtr value;
    SourceRange range;
  };
  std::vector<Let> lets;             // `let NAME = EXPR`, derived streams only
  std::vector<Property> properties;
  SourceRange range;
};

struct FilterStmt {
  enum class Kind { Drop, KeepPer, KeepWhere };
  Kind kind = Kind::Drop;
  std::vector<Selector> targets;
  ExprPtr where;
  bool keepFirst = true;     // KeepPer: first or last
  int64_t keepCount = 1;     // KeepPer: how many per key
  std::vector<Ident> keys;   // KeepPer: node, rank, gpu, workload
  SourceRange range;
  // Filled by the checker: the symptoms the targets expand to.
  std::vector<std::string> symptoms;
};

struct FilterDecl {
  bool broken = false;  // held a syntax error: its name is declared, its body is not checked
  Ident name;           // for an override, the last part of the target
  std::optional<OverrideOf> overrides;
  std::optional<std::string> title;
  std::vector<FilterStmt> statements;
  std::vector<Property> properties;
  SourceRange range;
};

struct Binding {
  Selector selector;
  Ident alias;
  SourceRange range;
  std::vector<std::string> symptoms;  // filled by the checker
};

struct RuleAction {
  enum class Kind { Explain, Mark, Drop };
  Kind kind = Kind::Explain;
  Ident subject;  // explain SUBJECT by OBJECT; mark SUBJECT as OBJECT; drop SUBJECT
  Ident object;
  SourceRange range;
};

struct RuleDecl {
  bool broken = false;  // held a syntax error: its name is declared, its body is not checked
  Ident name;           // for an override, the last part of the target
  std::optional<OverrideOf> overrides;
  std::optional<std::string> title;
  std::vector<Binding> bindings;
  std::vector<SourceRange> whenRanges;  // one per `when` clause (more than one is diagnosed)
  ExprPtr where;
  std::vector<SourceRange> whereRanges;
  std::vector<RuleAction> actions;
  std::vector<Property> properties;
  SourceRange range;
};

struct OutcomeDecl {
  bool broken = false;  // held a syntax error: its name is declared, its body is not checked
  Ident name;           // for an override, the last part of the target
  std::optional<OverrideOf> overrides;
  std::optional<std::string> title;
  ExprPtr when;
  std::vector<SourceRange> whenRanges;
  std::vector<Property> properties;
  SourceRange range;
};

struct TestTime {
  int64_t nanos = 0;
  enum class Kind { Absolute, TimeOfDay, Offset } kind = Kind::Absolute;
  bool missing = false;  // no 'at TIME' was written: `range` is where it belongs (A207)
  SourceRange range;
};

struct TestAttribute {
  Ident name;
  PropertyValue value;
};

struct TestLogLine {
  PropertyValue node;
  PropertyValue source;
  std::vector<TestAttribute> attributes;  // rank 3, gpu 0, pod x, container y
  TestTime at;
  std::string text;
  SourceRange range;
};

struct TestMetricSample {
  std::string metric;
  std::vector<TestAttribute> attributes;  // node n1, gpu 0, other labels
  TestTime at;
  double value = 0;
  SourceRange range;
};

struct Expectation {
  Ident key;  // outcome, root, bad_nodes, downstream, family, ...
  struct Arg {
    enum class Kind { Value, On, Compare };
    Kind kind = Kind::Value;
    PropertyValue value;
    std::string compareOp;  // Compare: ==, >=, ...
  };
  std::vector<Arg> args;
  SourceRange range;
};

struct TestDecl {
  bool broken = false;  // held a syntax error: its name is declared, its body is not checked
  std::string name;
  SourceRange nameRange;
  std::optional<std::string> fixture;
  SourceRange fixtureRange;
  std::vector<Property> workload;
  std::vector<SourceRange> workloadRanges;
  std::vector<TestLogLine> logs;
  std::vector<TestMetricSample> metrics;
  std::vector<Expectation> expectations;
  SourceRange range;
};

// `disable rule gpu.xid.r ["why"]`: a lower layer's declaration no longer takes part. A
// disabled symptom stays declared (rules and tests that name it still check) but never
// produces an instance; a disabled filter, rule or outcome is left out of the program.
struct DisableDecl {
  enum class Kind { Symptom, Filter, Rule, Outcome };
  bool broken = false;
  Kind kind = Kind::Rule;
  QualifiedName target;
  std::optional<std::string> reason;
  SourceRange range;
  std::string qualified;  // filled by the checker: what it disables; empty when unresolved
};

const char* kindName(DisableDecl::Kind kind);  // "symptom", "filter", "rule", "outcome"

using Declaration = std::variant<SymptomDecl, FilterDecl, RuleDecl, OutcomeDecl, TestDecl, DisableDecl>;

struct Import {
  QualifiedName package;
  std::optional<Ident> alias;
  SourceRange range;
};

// One parsed file.
struct Module {
  FileId file = kNoFile;
  size_t layer = 0;  // the rule-set layer of the file (Compilation::beginLayer)
  std::optional<QualifiedName> package;  // absent: the root package ""
  std::vector<Import> imports;
  std::vector<Declaration> declarations;  // in source order

  std::string packageName() const { return package ? package->str() : std::string(); }
};

// The qualified name of a declaration in `package`.
std::string qualify(const std::string& package, const std::string& name);

}  // namespace attrib::ast
