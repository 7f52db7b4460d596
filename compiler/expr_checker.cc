#include <fmt/format.h>

#include <algorithm>

#include "compiler/builtins.h"
#include "compiler/check_internal.h"
#include "compiler/regex_check.h"
#include "compiler/vocabulary.h"
#include "ir/ir.h"

namespace attrib::check_detail {

using ast::Expr;
using ast::ExprKind;

void ExprChecker::checkRegexLiteral(ast::Regex& re, bool forScanning) {
  RegexInfo info = checkRegex(re.pattern, re.flags, forScanning);
  re.captures = info.captures;
  for (auto& p : info.problems) {
    SourceRange where = re.patternRange;
    if (p.offset && *p.offset <= re.pattern.size()) {
      uint32_t at = re.patternRange.begin + static_cast<uint32_t>(*p.offset);
      where = {re.range.file, at, std::min(at + 1, re.patternRange.end == at ? at + 1 : re.patternRange.end)};
    }
    switch (p.engine) {
      case RegexProblem::Engine::Flags:
        sink_.report(DiagKind::UnknownRegexFlag, {re.range.file, re.patternRange.end + 1, re.range.end}, p.message);
        break;
      case RegexProblem::Engine::ScanForm:
        sink_.report(DiagKind::InvalidRegex, where, p.message);
        break;
      case RegexProblem::Engine::Hyperscan:
        sink_.report(DiagKind::InvalidRegex, where,
                     fmt::format("Hyperscan cannot compile this pattern: {}", p.message));
        break;
      case RegexProblem::Engine::Pcre2:
        sink_.report(DiagKind::InvalidCaptureRegex, where,
                     fmt::format("PCRE2 cannot compile this pattern for capture extraction: {}", p.message));
        break;
      case RegexProblem::Engine::DuplicateCapture: {
        size_t q = p.message.find('\'');
        size_t q2 = q == std::string::npos ? q : p.message.find('\'', q + 1);
        std::string name = q2 == std::string::npos ? "" : p.message.substr(q, q2 - q + 1);
        sink_.report(DiagKind::DuplicateCapture, where,
                     name.empty() ? "two named groups in this pattern have the same name"
                                  : fmt::format("two named groups in this pattern are both called {}", name));
      } break;
    }
  }
  if (info.problems.empty() && forScanning && info.longestLiteral < 3) {
    sink_.report(DiagKind::WeakPattern, re.patternRange,
                 "this pattern has no literal text of 3 or more characters, so it is tried on nearly every "
                 "line and slows the whole scan");
  }
}

bool ExprChecker::expectBool(Expr& e, Scope& scope, const char* what, std::set<std::string>* usedAliases) {
  usedAliases_ = usedAliases;
  Type t = typeOf(e, scope);
  usedAliases_ = nullptr;
  if (t.isError() || t.is(TypeKind::Bool) || t.is(TypeKind::SymptomSet)) return !t.isError();
  sink_.report(DiagKind::TypeMismatch, e.range,
               fmt::format("{} must be a bool, but this is {}", what, t.withArticle()));
  return false;
}

Type ExprChecker::checkValue(Expr& e, Scope& scope, const char* what) {
  Type t = typeOf(e, scope);
  if (t.isError()) return t;
  if (scalar(t)) return t;
  return mismatch(e, fmt::format("{} holds a number, string, bool, time, duration or state, not {}", what,
                                 t.withArticle()));
}

bool ExprChecker::isDerived(const std::string& q) const {
  auto it = index_.symptoms.find(q);
  if (it == index_.symptoms.end() || it->second.decl->streams.empty()) return false;
  auto kind = it->second.decl->streams[0].kind;
  return kind == ast::StreamSpec::Kind::Ranks || kind == ast::StreamSpec::Kind::Nodes;
}

bool ExprChecker::derivedMayRead(const std::vector<std::string>& symptoms, const Scope& scope,
                                 const SourceRange& where) {
  if (scope.kind != Scope::Kind::Derived) return true;
  for (const auto& q : symptoms) {
    if (isDerived(q)) {
      sink_.report(DiagKind::WindowMisuse, where,
                   fmt::format("'{}' is itself derived per rank or node; derived symptoms are evaluated together "
                               "and cannot read one another (relate them in a rule or outcome)",
                               q));
      return false;
    }
  }
  return true;
}

Type ExprChecker::mismatch(const Expr& e, std::string message) {
  last_ = &sink_.report(DiagKind::TypeMismatch, e.range, std::move(message));
  return Type::error();
}

Type ExprChecker::typeOf(Expr& e, Scope& scope) {
  e.type = computeType(e, scope);
  return e.type;
}

std::set<std::string> ExprChecker::capturesOf(const std::vector<std::string>& symptoms) {
  std::set<std::string> out;
  for (auto& q : symptoms) {
    auto it = index_.symptoms.find(q);
    if (it != index_.symptoms.end()) out.insert(it->second.captures.begin(), it->second.captures.end());
  }
  return out;
}

std::vector<std::pair<std::string, Type>> ExprChecker::fieldsOf(const std::vector<std::string>& symptoms) {
  std::vector<std::pair<std::string, Type>> fields = {
      {"time", Type::of(TypeKind::Time)},      {"node", Type::of(TypeKind::String)},
      {"rank", Type::of(TypeKind::Int)},       {"gpu", Type::of(TypeKind::String)},
      {"symptom", Type::of(TypeKind::String)}, {"family", Type::of(TypeKind::String)},
      {"severity", Type::of(TypeKind::String)}, {"blame", Type::of(TypeKind::String)},
      {"role", Type::of(TypeKind::String)},    {"source", Type::of(TypeKind::String)},
      {"text", Type::of(TypeKind::String)}};
  bool metric = false, scheduler = false;
  for (const auto& q : symptoms) {
    auto it = index_.symptoms.find(q);
    if (it == index_.symptoms.end() || it->second.decl->streams.empty()) continue;
    metric |= it->second.decl->streams[0].kind == ast::StreamSpec::Kind::Metric;
    scheduler |= it->second.decl->streams[0].kind == ast::StreamSpec::Kind::Scheduler;
  }
  if (metric) {
    fields.push_back({"value", Type::of(TypeKind::Float)});
    fields.push_back({"metric", Type::of(TypeKind::String)});
  }
  if (scheduler) {
    fields.push_back({"state", Type::of(TypeKind::State)});
    fields.push_back({"exit_code", Type::of(TypeKind::Int)});
    fields.push_back({"signal", Type::of(TypeKind::Int)});
    fields.push_back({"reason", Type::of(TypeKind::String)});
  }
  for (const auto& c : capturesOf(symptoms)) {
    bool builtin = std::any_of(fields.begin(), fields.end(), [&](auto& f) { return f.first == c; });
    if (!builtin) fields.push_back({c, Type::of(TypeKind::String)});
  }
  return fields;
}

std::optional<Type> ExprChecker::instanceField(const std::string& name, const std::vector<std::string>& symptoms) {
  for (auto& [field, type] : fieldsOf(symptoms)) {
    if (field == name) return type;
  }
  return std::nullopt;
}

std::vector<std::string> ExprChecker::instanceFieldNames(const std::vector<std::string>& symptoms) {
  std::vector<std::string> names;
  for (auto& [field, type] : fieldsOf(symptoms)) names.push_back(field);
  return names;
}

std::vector<std::string> ExprChecker::allSymptoms() const {
  std::vector<std::string> out;
  for (auto& [q, _] : index_.symptoms) out.push_back(q);
  return out;
}

std::optional<Type> ExprChecker::workloadField(const std::string& name) {
  static const std::map<std::string, TypeKind> fields = {
      {"id", TypeKind::String},         {"name", TypeKind::String},      {"scheduler", TypeKind::String},
      {"user", TypeKind::String},       {"partition", TypeKind::String}, {"state", TypeKind::State},
      {"exit_code", TypeKind::Int},     {"signal", TypeKind::Int},       {"start", TypeKind::Time},
      {"end", TypeKind::Time},          {"ranks", TypeKind::Int},        {"ranks_per_node", TypeKind::Int},
      {"duration", TypeKind::Duration}, {"reason", TypeKind::String}};
  if (name == "nodes") return Type::listOf(Type::of(TypeKind::String));
  if (auto it = fields.find(name); it != fields.end()) return Type::of(it->second);
  return std::nullopt;
}

Type ExprChecker::fieldOfInstance(Expr& e, const ast::Ident& field, const std::vector<std::string>& symptoms,
                                  const std::string& owner) {
  if (auto t = instanceField(field.text, symptoms)) {
    e.field = field.text;
    return *t;
  }
  auto names = instanceFieldNames(symptoms);
  sink_
      .report(DiagKind::UnknownField, field.range,
              fmt::format("{} has no field '{}'{}", owner, field.text, didYouMean(field.text, names)))
      .note({}, fmt::format("its fields are: {}", fmt::join(names, ", ")));
  return Type::error();
}

Type ExprChecker::nameType(Expr& e, Scope& scope) {
  const auto& parts = e.name.parts;
  const std::string& head = parts[0].text;
  // 1. aliases, innermost first
  for (auto it = scope.aliases.rbegin(); it != scope.aliases.rend(); ++it) {
    if (it->first != head) continue;
    e.ref = ast::NameRef::Alias;
    e.symptoms = it->second;
    if (usedAliases_) usedAliases_->insert(head);
    if (parts.size() == 1) return Type::of(TypeKind::Instance);
    if (parts.size() > 2) return mismatch(e, fmt::format("'{}.{}' has no fields", head, parts[1].text));
    return fieldOfInstance(e, parts[1], it->second, fmt::format("'{}'", head));
  }
  // 2. root, in outcomes
  if (head == "root" && scope.kind == Scope::Kind::Outcome) {
    e.ref = ast::NameRef::Root;
    if (parts.size() == 1) return Type::of(TypeKind::Instance);
    if (parts.size() > 2) return mismatch(e, fmt::format("'root.{}' has no fields", parts[1].text));
    return fieldOfInstance(e, parts[1], allSymptoms(), "the root cause");
  }
  // 3. workload
  if (head == "workload") {
    e.ref = ast::NameRef::Workload;
    if (parts.size() == 1) return Type::of(TypeKind::Workload);
    if (parts.size() == 2) {
      if (auto t = workloadField(parts[1].text)) {
        e.field = parts[1].text;
        return *t;
      }
      static const std::vector<std::string> names = {"id",    "name",      "scheduler",      "user",     "partition",
                                                     "state", "exit_code", "signal",         "start",    "end",
                                                     "nodes", "ranks",     "ranks_per_node", "duration", "reason"};
      sink_.report(DiagKind::UnknownField, parts[1].range,
                   fmt::format("the workload has no field '{}'{}", parts[1].text, didYouMean(parts[1].text, names)));
      return Type::error();
    }
  }
  // 4. lets of the derived symptom being checked, then fields of the implicit instance
  if (parts.size() == 1) {
    for (auto& [name, type] : scope.lets) {
      if (name != head) continue;
      e.ref = ast::NameRef::Let;
      e.field = head;
      return type;
    }
  }
  if (scope.hasImplicit && parts.size() == 1) {
    std::optional<ast::StreamSpec::Kind> stream;
    if (scope.kind == Scope::Kind::SymptomClause) stream = scope.stream;
    // The candidate of a derived symptom has no captures while it is evaluated: its lets become
    // captures afterwards. A let not in scope.lets is the one being defined or a later one.
    ir::Field field;
    bool common = ir::fieldFromName(head, &field) && field <= ir::Field::Text;  // every instance's fields
    if (scope.kind == Scope::Kind::Derived && scope.implicitSymptoms.size() == 1 &&
        isDerived(scope.implicitSymptoms[0]) && !common &&
        capturesOf(scope.implicitSymptoms).count(head)) {
      sink_.report(DiagKind::UnknownName, e.name.range,
                   fmt::format("'{}' is a let of this symptom that is not defined yet here; a let reads only "
                               "the lets before it",
                               head));
      return Type::error();
    }
    if (auto t = instanceField(head, scope.implicitSymptoms)) {
      e.ref = ast::NameRef::Field;
      e.field = head;
      return *t;
    }
  }
  // 5. terminal states
  if (parts.size() == 1 && contains(terminalStates(), head)) {
    e.ref = ast::NameRef::StateConst;
    return Type::of(TypeKind::State);
  }
  // 6. symptoms (as sets) where sets of instances mean something
  if (scope.kind == Scope::Kind::Rule || scope.kind == Scope::Kind::Outcome || scope.kind == Scope::Kind::Filter ||
      scope.kind == Scope::Kind::Derived) {
    NameResolver::Lookup l = names_.lookup(e.name);
    if (index_.symptoms.count(l.qualified) && l.visible) {
      if (!derivedMayRead({l.qualified}, scope, e.name.range)) return Type::error();
      names_.markUsed(l.qualified);
      e.ref = ast::NameRef::Symptom;
      e.symptoms = {l.qualified};
      return Type::of(TypeKind::SymptomSet);
    }
    if (index_.symptoms.count(l.qualified)) {
      names_.reportUnknown(e.name, l, "symptom", {});
      return Type::error();
    }
  }
  std::vector<std::string> candidates = terminalStates();
  for (auto& [a, _] : scope.aliases) candidates.push_back(a);
  if (scope.kind == Scope::Kind::Outcome) candidates.push_back("root");
  candidates.push_back("workload");
  if (scope.hasImplicit) {
    auto names = instanceFieldNames(scope.implicitSymptoms);
    candidates.insert(candidates.end(), names.begin(), names.end());
  }
  if (scope.kind != Scope::Kind::SymptomClause) {
    auto names = names_.symptomNamesVisible();
    candidates.insert(candidates.end(), names.begin(), names.end());
  }
  std::string hint = didYouMean(e.name.str(), candidates);
  if (hint.empty() && parts.size() == 1 && contains(logSources(), head)) {
    hint = fmt::format("; log sources are strings in expressions: \"{}\"", head);
  }
  sink_.report(DiagKind::UnknownName, e.name.range, fmt::format("unknown name '{}'{}", e.name.str(), hint));
  return Type::error();
}

std::optional<std::vector<std::string>> ExprChecker::selectorArg(ast::CallArg& a, Scope& scope) {
  if (a.selector) return names_.expand(*a.selector);
  if (a.value && a.value->kind == ExprKind::Name) {
    Scope inner = scope;
    inner.kind = scope.kind == Scope::Kind::SymptomClause ? Scope::Kind::Outcome : scope.kind;
    Type t = typeOf(*a.value, inner);
    if (t.isError()) return std::nullopt;
    if (t.is(TypeKind::SymptomSet)) return a.value->symptoms;
  }
  if (a.value) {
    sink_.report(DiagKind::ArgumentMismatch, a.value->range,
                 "this argument selects symptoms: write a symptom name or a wildcard such as std.nccl.*");
  }
  return std::nullopt;
}

Type ExprChecker::callType(Expr& e, Scope& scope) {
  const std::string& fn = e.name.parts[0].text;
  static const std::vector<std::string> setAggregates = {"count", "exists", "first",  "last",   "distinct",
                                                         "min_by", "max_by", "median", "percentile"};
  static const std::vector<std::string> windowAggregates = {"avg", "min", "max", "sum", "rate", "delta"};
  const Builtin* builtin = findBuiltin(fn);  // the scalar functions (compiler/builtins.h)
  bool isWindow = contains(windowAggregates, fn) && (e.over || !builtin);
  if (e.over && !isWindow) {
    sink_.report(DiagKind::WindowMisuse, e.overRange,
                 fmt::format("'over' gives a time window to avg, min, max, sum, rate or delta, not to {}()", fn));
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    auto& a = e.args[i];
    bool isSelectorFn = contains(setAggregates, fn) && i == 0;
    if (!isSelectorFn && (a.alias || a.sameKey || a.where || a.selector)) {
      sink_.report(DiagKind::ArgumentMismatch, a.range,
                   fmt::format("'as', 'on same' and 'where' belong to symptom aggregates (count, exists, first, "
                               "last, distinct, min_by, max_by, median, percentile), not to {}()",
                               fn));
      return Type::error();
    }
  }
  auto arity = [&](size_t n) {
    if (e.args.size() == n) return true;
    sink_.report(DiagKind::ArgumentMismatch, e.range,
                 fmt::format("{}() takes {} argument{}, not {}", fn, n, n == 1 ? "" : "s", e.args.size()));
    return false;
  };

  if (contains(setAggregates, fn)) {
    if (scope.kind == Scope::Kind::SymptomClause) {
      sink_.report(DiagKind::WindowMisuse, e.range,
                   fmt::format("{}() relates symptom instances, which do not exist yet while a symptom is being "
                               "extracted; use it in a rule, filter or outcome",
                               fn));
      return Type::error();
    }
    bool keyed = fn == "min_by" || fn == "max_by" || fn == "median" || fn == "percentile";
    if (!arity(fn == "percentile" ? 3 : fn == "distinct" || keyed ? 2 : 1)) return Type::error();
    auto& a = e.args[0];
    auto symptoms = selectorArg(a, scope);
    if (!symptoms) return Type::error();
    if (scope.kind == Scope::Kind::Derived && a.selector) {
      // A wildcard in a derived symptom's condition means the evidence, not other derived
      // symptoms (which it could not read).
      symptoms->erase(std::remove_if(symptoms->begin(), symptoms->end(),
                                     [&](const std::string& q) { return isDerived(q); }),
                      symptoms->end());
    }
    if (!derivedMayRead(*symptoms, scope, a.range)) return Type::error();
    e.symptoms = *symptoms;
    if (a.sameKey) {
      static const std::vector<std::string> keys = {"node", "rank", "gpu"};
      if (!contains(keys, a.sameKey->text)) {
        sink_.report(DiagKind::InvalidValue, a.sameKey->range,
                     fmt::format("'on same {}': the keys are node, rank and gpu", a.sameKey->text));
      } else if (!scope.hasReference) {
        sink_.report(DiagKind::WindowMisuse, a.sameKey->range,
                     "'on same' compares with the root cause (outcomes) or the rule's first binding; "
                     "there is neither here");
      }
    }
    Scope inner = scope;
    if (a.alias) {
      for (auto& [name, _] : scope.aliases) {
        if (name == a.alias->text) {
          sink_.report(DiagKind::DuplicateAlias, a.alias->range,
                       fmt::format("'{}' is already bound; choose another name", name));
        }
      }
      inner.aliases.emplace_back(a.alias->text, *symptoms);
    } else {
      inner.hasImplicit = true;
      inner.implicitSymptoms = *symptoms;
      if (inner.kind == Scope::Kind::SymptomClause) inner.kind = Scope::Kind::Outcome;
    }
    if (a.where) {
      Type w = typeOf(*a.where, inner);
      if (!w.isError() && !truthy(w)) {
        mismatch(*a.where, fmt::format("a 'where' condition must be a bool, but this is {}", w.withArticle()));
      }
    }
    if (keyed) {
      // The key is read per instance, like the where-clause.
      Type key = typeOf(*e.args[1].value, inner);
      if (key.isError()) return key;
      if (!key.isNumeric() && !key.is(TypeKind::Time) && !key.is(TypeKind::Duration)) {
        return mismatch(*e.args[1].value, fmt::format("{}() orders instances by a number, time or duration, not {}; "
                                                      "convert a capture with int() or float()",
                                                      fn, key.withArticle()));
      }
      if (fn == "percentile") {
        Type p = typeOf(*e.args[2].value, scope);
        if (p.isError()) return p;
        if (!p.isNumeric()) {
          return mismatch(*e.args[2].value, fmt::format("percentile() needs a number from 0 to 100, not {}",
                                                        p.withArticle()));
        }
      }
      if (fn == "min_by" || fn == "max_by") return Type::of(TypeKind::Instance);
      return Type::of(TypeKind::Float);
    }
    if (fn == "count" || fn == "distinct") {
      if (fn == "distinct") {
        auto& f = e.args[1];
        if (!f.value || f.value->kind != ExprKind::Name || f.value->name.parts.size() != 1 ||
            !instanceField(f.value->name.parts[0].text, *symptoms)) {
          sink_.report(DiagKind::ArgumentMismatch, f.range,
                       "distinct() counts the distinct values of a field: distinct(SYMPTOMS, node)");
          return Type::error();
        }
        f.value->ref = ast::NameRef::Field;
        f.value->field = f.value->name.parts[0].text;
        f.value->type = *instanceField(f.value->field, *symptoms);
      }
      return Type::of(TypeKind::Int);
    }
    if (fn == "exists") return Type::of(TypeKind::Bool);
    return Type::of(TypeKind::Instance);
  }

  if (isWindow) {
    if (scope.kind != Scope::Kind::SymptomClause || scope.stream != ast::StreamSpec::Kind::Metric) {
      sink_.report(DiagKind::WindowMisuse, e.range,
                   fmt::format("{}(...) over D aggregates a metric series; it is only meaningful in a metric "
                               "symptom's 'when'",
                               fn));
      return Type::error();
    }
    if (!e.over) {
      sink_.report(DiagKind::WindowMisuse, e.range, fmt::format("{}() needs a time window: {}(value) over 5m", fn, fn));
      return Type::error();
    }
    if (*e.over <= 0) {
      sink_.report(DiagKind::WindowMisuse, e.overRange, "a window must be longer than zero");
    }
    if (!arity(1)) return Type::error();
    Type t = typeOf(*e.args[0].value, scope);
    if (!t.isError() && !t.isNumeric()) {
      return mismatch(*e.args[0].value, fmt::format("{}() over a window needs a number, not {}", fn, t.withArticle()));
    }
    return Type::of(TypeKind::Float);
  }

  if (!builtin) {
    std::vector<std::string> all = setAggregates;
    all.insert(all.end(), windowAggregates.begin(), windowAggregates.end());
    for (const auto& b : builtins()) all.emplace_back(b.name);
    sink_.report(DiagKind::UnknownFunction, e.name.parts[0].range,
                 fmt::format("unknown function '{}'{}", fn, didYouMean(fn, all)));
    for (auto& a : e.args)
      if (a.value) typeOf(*a.value, scope);
    return Type::error();
  }
  std::vector<Type> args;
  for (auto& a : e.args) args.push_back(a.value ? typeOf(*a.value, scope) : Type::error());
  for (auto& t : args)
    if (t.isError()) return Type::error();
  auto want = [&](size_t i, bool ok, const char* what) {
    if (ok) return true;
    mismatch(*e.args[i].value, fmt::format("{}() needs {}, not {}", fn, what, args[i].withArticle()));
    return false;
  };
  if (!arity(builtin->arity)) return Type::error();
  if (builtin->result == BuiltinResult::Ordered) {  // min, max: the two arguments together
    if (args[0].isNumeric() && args[1].isNumeric()) {
      return args[0].is(TypeKind::Float) || args[1].is(TypeKind::Float) ? Type::of(TypeKind::Float)
                                                                        : Type::of(TypeKind::Int);
    }
    if (args[0] == args[1] && (args[0].is(TypeKind::Time) || args[0].is(TypeKind::Duration))) return args[0];
    return mismatch(e, fmt::format("{}() of {} and {}: both must be numbers, times or durations", fn,
                                   args[0].withArticle(), args[1].withArticle()));
  }
  auto accepts = [&](BuiltinArg kind, const Type& t) {
    switch (kind) {
      case BuiltinArg::NumberOrString: return t.isNumeric() || t.is(TypeKind::String);
      case BuiltinArg::Scalar: return scalar(t);
      case BuiltinArg::NumberOrDuration: return t.isNumeric() || t.is(TypeKind::Duration);
      case BuiltinArg::String: return t.is(TypeKind::String);
      case BuiltinArg::Ordered: return false;  // handled above
    }
    return false;
  };
  for (size_t i = 0; i < builtin->arity; ++i) {
    if (!want(i, accepts(builtin->args[i], args[i]), builtinArgText(builtin->args[i]))) return Type::error();
  }
  switch (builtin->result) {
    case BuiltinResult::Int: return Type::of(TypeKind::Int);
    case BuiltinResult::Float: return Type::of(TypeKind::Float);
    case BuiltinResult::String: return Type::of(TypeKind::String);
    case BuiltinResult::Bool: return Type::of(TypeKind::Bool);
    case BuiltinResult::SameAsArgument: return args[0];
    case BuiltinResult::Ordered: break;  // handled above
  }
  return Type::error();
}

bool ExprChecker::comparable(const Type& a, const Type& b) {
  if (a.isNumeric() && b.isNumeric()) return true;
  if (a.is(TypeKind::Instance) && b.is(TypeKind::None)) return true;
  if (a.is(TypeKind::None) && b.is(TypeKind::Instance)) return true;
  return a == b && !a.is(TypeKind::Workload) && !a.is(TypeKind::SymptomSet);
}

Type ExprChecker::computeType(Expr& e, Scope& scope) {
  switch (e.kind) {
    case ExprKind::Int:
      return Type::of(TypeKind::Int);
    case ExprKind::Float:
      return Type::of(TypeKind::Float);
    case ExprKind::String:
      return Type::of(TypeKind::String);
    case ExprKind::Duration:
      return Type::of(TypeKind::Duration);
    case ExprKind::Time:
      return Type::of(TypeKind::Time);
    case ExprKind::Bool:
      return Type::of(TypeKind::Bool);
    case ExprKind::None:
      return Type::of(TypeKind::None);
    case ExprKind::Name:
      return nameType(e, scope);
    case ExprKind::Member: {
      Type t = typeOf(*e.operands[0], scope);
      if (t.isError()) return t;
      const ast::Ident& member = e.name.parts[0];
      if (t.is(TypeKind::Instance)) {
        const auto& symptoms = e.operands[0]->ref == ast::NameRef::Root ? allSymptoms() : e.operands[0]->symptoms;
        return fieldOfInstance(e, member, symptoms, "this symptom instance");
      }
      if (t.is(TypeKind::Workload)) {
        if (auto f = workloadField(member.text)) {
          e.field = member.text;
          return *f;
        }
        sink_.report(DiagKind::UnknownField, member.range, fmt::format("the workload has no field '{}'", member.text));
        return Type::error();
      }
      sink_.report(DiagKind::UnknownField, member.range,
                   fmt::format("{} has no fields; '.{}' cannot apply to it", t.withArticle(), member.text));
      return Type::error();
    }
    case ExprKind::Negate: {
      Type t = typeOf(*e.operands[0], scope);
      if (t.isError() || t.isNumeric() || t.is(TypeKind::Duration)) return t;
      return mismatch(e, fmt::format("'-' negates numbers and durations, not {}", t.withArticle()));
    }
    case ExprKind::Not: {
      Type t = typeOf(*e.operands[0], scope);
      if (t.isError()) return t;
      if (!truthy(t))
        return mismatch(*e.operands[0], fmt::format("'not' needs a bool, but this is {}", t.withArticle()));
      return Type::of(TypeKind::Bool);
    }
    case ExprKind::Binary:
      return binaryType(e, scope);
    case ExprKind::In:
      return inType(e, scope);
    case ExprKind::RegexMatch: {
      Type t = typeOf(*e.operands[0], scope);
      checkRegexLiteral(*e.regex, false);
      if (t.isError()) return t;
      if (!t.is(TypeKind::String)) {
        return mismatch(*e.operands[0],
                        fmt::format("'{}' matches strings, but this is {}", e.negated ? "!~" : "=~", t.withArticle()));
      }
      return Type::of(TypeKind::Bool);
    }
    case ExprKind::Is: {
      Type t = typeOf(*e.operands[0], scope);
      if (!e.isNone) {
        auto symptoms = names_.expand(*e.selector);
        if (!symptoms) return Type::error();
        e.symptoms = *symptoms;
      }
      if (t.isError()) return t;
      if (!t.is(TypeKind::Instance)) {
        return mismatch(*e.operands[0],
                        fmt::format("'is' tests a symptom instance (such as root), not {}", t.withArticle()));
      }
      return Type::of(TypeKind::Bool);
    }
    case ExprKind::Call:
      return callType(e, scope);
    case ExprKind::List: {
      Type element = Type::error();
      for (auto& op : e.operands) {
        Type t = typeOf(*op, scope);
        if (t.isError()) continue;
        if (element.isError()) {
          element = t;
          continue;
        }
        if (element.isNumeric() && t.isNumeric()) {
          if (t.is(TypeKind::Float)) element = t;
          continue;
        }
        if (!(element == t)) {
          return mismatch(*op, fmt::format("list elements must have one type: this is {}, earlier ones are {}",
                                           t.withArticle(), element.name() + "s"));
        }
      }
      return Type::listOf(element);
    }
    case ExprKind::Range: {
      Type a = typeOf(*e.operands[0], scope), b = typeOf(*e.operands[1], scope);
      if (a.isError() || b.isError()) return Type::error();
      if (!a.is(TypeKind::Int) || !b.is(TypeKind::Int)) {
        sink_.report(DiagKind::InvalidRange, e.range,
                     fmt::format("'[a .. b]' is a range of integers, not of {} and {}; for times write an interval "
                                 "'[start, end]'",
                                 a.name(), b.name()));
        return Type::error();
      }
      return Type::rangeOf(a);
    }
    case ExprKind::Same: {
      static const std::vector<std::string> keys = {"node", "rank", "gpu"};
      const auto& key = e.name.parts[0];
      if (!contains(keys, key.text)) {
        sink_.report(DiagKind::InvalidValue, key.range,
                     fmt::format("'same {}': the keys are node, rank and gpu{}", key.text, didYouMean(key.text, keys)));
        return Type::error();
      }
      if (scope.kind != Scope::Kind::Rule) {
        sink_.report(DiagKind::WindowMisuse, e.range,
                     "'same node' relates a rule's bindings; in aggregates write 'count(X on same node)'");
        return Type::error();
      }
      if (usedAliases_)
        for (auto& [a, _] : scope.aliases) usedAliases_->insert(a);
      return Type::of(TypeKind::Bool);
    }
  }
  return Type::error();
}

Type ExprChecker::binaryType(Expr& e, Scope& scope) {
  using ast::BinaryOp;
  Type a = typeOf(*e.operands[0], scope);
  Type b = typeOf(*e.operands[1], scope);
  if (a.isError() || b.isError()) return Type::error();
  const char* op = ast::spelling(e.op);
  // `root.time + 20`, `workload.duration > 3600`: a number written where a duration belongs.
  // Which unit was meant is a guess, so the fix-it is only shown, never applied by --fix.
  auto unitHint = [&](Diagnostic& d) {
    for (int i = 0; i < 2; ++i) {
      const Type& self = i == 0 ? a : b;
      const Type& other = i == 0 ? b : a;
      const Expr& literal = *e.operands[i];
      if (self.is(TypeKind::Int) && literal.kind == ExprKind::Int &&
          (other.is(TypeKind::Time) || other.is(TypeKind::Duration))) {
        d.message += fmt::format("; did you mean '{}m' (or '{}s')? A duration carries a unit: ms, us, s, m, h, d",
                                 literal.text, literal.text);
        d.fix(literal.range, literal.text + "m", false);
        return;
      }
    }
  };
  auto bad = [&] {
    Type t = mismatch(e, fmt::format("'{}' cannot combine {} and {}", op, a.withArticle(), b.withArticle()));
    unitHint(lastDiagnostic());
    return t;
  };
  switch (e.op) {
    case BinaryOp::And:
    case BinaryOp::Or:
      if (!truthy(a))
        return mismatch(*e.operands[0], fmt::format("'{}' needs bools, but this is {}", op, a.withArticle()));
      if (!truthy(b))
        return mismatch(*e.operands[1], fmt::format("'{}' needs bools, but this is {}", op, b.withArticle()));
      return Type::of(TypeKind::Bool);
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      if (!comparable(a, b)) {
        return mismatch(e, fmt::format("cannot compare {} with {}", a.withArticle(), b.withArticle()));
      }
      return Type::of(TypeKind::Bool);
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      if ((a.isNumeric() && b.isNumeric()) ||
          (a == b && (a.is(TypeKind::Time) || a.is(TypeKind::Duration) || a.is(TypeKind::String)))) {
        return Type::of(TypeKind::Bool);
      }
      mismatch(e, fmt::format("cannot order {} and {} with '{}'", a.withArticle(), b.withArticle(), op));
      unitHint(lastDiagnostic());
      return Type::error();
    case BinaryOp::Add:
      if (a.isNumeric() && b.isNumeric())
        return a.is(TypeKind::Float) || b.is(TypeKind::Float) ? Type::of(TypeKind::Float) : a;
      if (a.is(TypeKind::Time) && b.is(TypeKind::Duration)) return a;
      if (a.is(TypeKind::Duration) && b.is(TypeKind::Time)) return b;
      if (a.is(TypeKind::Duration) && b.is(TypeKind::Duration)) return a;
      return bad();
    case BinaryOp::Sub:
      if (a.isNumeric() && b.isNumeric())
        return a.is(TypeKind::Float) || b.is(TypeKind::Float) ? Type::of(TypeKind::Float) : a;
      if (a.is(TypeKind::Time) && b.is(TypeKind::Duration)) return a;
      if (a.is(TypeKind::Time) && b.is(TypeKind::Time)) return Type::of(TypeKind::Duration);
      if (a.is(TypeKind::Duration) && b.is(TypeKind::Duration)) return a;
      return bad();
    case BinaryOp::Mul:
      if (a.isNumeric() && b.isNumeric())
        return a.is(TypeKind::Float) || b.is(TypeKind::Float) ? Type::of(TypeKind::Float) : a;
      if (a.is(TypeKind::Duration) && b.isNumeric()) return a;
      if (a.isNumeric() && b.is(TypeKind::Duration)) return b;
      return bad();
    case BinaryOp::Div:
      if (a.isNumeric() && b.isNumeric())
        return a.is(TypeKind::Float) || b.is(TypeKind::Float) ? Type::of(TypeKind::Float) : a;
      if (a.is(TypeKind::Duration) && b.isNumeric()) return a;
      if (a.is(TypeKind::Duration) && b.is(TypeKind::Duration)) return Type::of(TypeKind::Float);
      return bad();
    case BinaryOp::Mod:
      if (a.is(TypeKind::Int) && b.is(TypeKind::Int)) return a;
      return mismatch(e, fmt::format("'%' takes two integers, not {} and {}", a.withArticle(), b.withArticle()));
  }
  return Type::error();
}

Type ExprChecker::inType(Expr& e, Scope& scope) {
  Type a = typeOf(*e.operands[0], scope);
  Expr& rhs = *e.operands[1];
  Type b = typeOf(rhs, scope);
  if (a.isError() || b.isError()) return Type::error();
  // `t in [start, end]` with a time, float or duration: a closed interval.
  bool continuous = a.is(TypeKind::Time) || a.is(TypeKind::Float) || a.is(TypeKind::Duration);
  if (continuous && b.is(TypeKind::List) && rhs.kind == ExprKind::List) {
    if (rhs.operands.size() != 2) {
      sink_.report(DiagKind::InvalidRange, rhs.range,
                   fmt::format("'in [start, end]' on a {} is an interval and needs exactly two bounds, not {}",
                               a.name(), rhs.operands.size()));
      return Type::error();
    }
    if (!comparable(a, b.element()) || b.element().is(TypeKind::None)) {
      return mismatch(rhs, fmt::format("the bounds of this interval are {}s, but the value is {}", b.element().name(),
                                       a.withArticle()));
    }
    return Type::of(TypeKind::Bool);
  }
  if (b.is(TypeKind::Range)) {
    if (!a.is(TypeKind::Int))
      return mismatch(*e.operands[0], fmt::format("an integer range holds integers, not {}", a.withArticle()));
    return Type::of(TypeKind::Bool);
  }
  if (b.is(TypeKind::List)) {
    if (b.element().isError()) return Type::of(TypeKind::Bool);  // empty list
    if (!comparable(a, b.element())) {
      return mismatch(e, fmt::format("{} cannot be in {}", a.withArticle(), b.withArticle()));
    }
    return Type::of(TypeKind::Bool);
  }
  return mismatch(
      rhs, fmt::format("'in' needs a list, a range [a .. b] or an interval [start, end], not {}", b.withArticle()));
}

std::string ExprChecker::canonical(const Expr& e) {
  std::string out = fmt::format("({}", static_cast<int>(e.kind));
  switch (e.kind) {
    case ExprKind::Int:
    case ExprKind::Duration:
    case ExprKind::Time:
      out += fmt::format(" {}", e.intValue);
      break;
    case ExprKind::Float:
      out += fmt::format(" {}", e.floatValue);
      break;
    case ExprKind::String:
      out += " \"" + e.text + "\"";
      break;
    case ExprKind::Bool:
      out += e.boolValue ? " true" : " false";
      break;
    case ExprKind::Name:
    case ExprKind::Member:
    case ExprKind::Call:
    case ExprKind::Same:
      out += " " + e.name.str();
      break;
    case ExprKind::Binary:
      out += std::string(" ") + ast::spelling(e.op);
      break;
    case ExprKind::Is:
      out += e.isNone ? " none" : " " + e.selector->str();
      break;
    case ExprKind::RegexMatch:
      out += " /" + e.regex->pattern + "/" + e.regex->flags;
      break;
    default:
      break;
  }
  if (e.negated) out += " not";
  for (auto& op : e.operands) out += " " + (op ? canonical(*op) : "_");
  for (auto& a : e.args) {
    out += " [";
    if (a.selector) out += a.selector->str();
    if (a.value) out += canonical(*a.value);
    if (a.alias) out += " as " + a.alias->text;
    if (a.sameKey) out += " same " + a.sameKey->text;
    if (a.where) out += " where " + canonical(*a.where);
    out += "]";
  }
  if (e.over) out += fmt::format(" over {}", *e.over);
  return out + ")";
}

}  // namespace attrib::check_detail
