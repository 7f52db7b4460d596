#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "compiler/check_internal.h"
#include "compiler/regex_check.h"
#include "compiler/vocabulary.h"
#include "ir/log_channels.h"
#include "ir/ir.h"

namespace attrib::check_detail {

using ast::Expr;
using ast::ExprKind;

const std::vector<Checker::PropertySpec>& Checker::metadataSpecs() {
  static const std::vector<PropertySpec> v = {{"title", PropertySpec::Shape::String},
                                              {"description", PropertySpec::Shape::String},
                                              {"ref", PropertySpec::Shape::Strings, nullptr, true},
                                              {"tags", PropertySpec::Shape::WordList},
                                              {"status", PropertySpec::Shape::Word, &ruleStatuses()},
                                              {"author", PropertySpec::Shape::String},
                                              {"id", PropertySpec::Shape::String}};
  return v;
}

std::string Checker::valueSpelling(const ast::PropertyValue& v) {
  return v.kind == ast::PropertyValue::Kind::None ? "none" : v.text;
}

bool Checker::isWordLike(const ast::PropertyValue& v) {
  return v.kind == ast::PropertyValue::Kind::Word || v.kind == ast::PropertyValue::Kind::None;
}

std::string_view Checker::sourceText(const SourceRange& r) const {
  return std::string_view(sources_.file(r.file).text()).substr(r.begin, r.end - r.begin);
}

void Checker::checkWordValue(const ast::PropertyValue& v, const PropertySpec& spec, const std::string& owner) {
  if (!isWordLike(v)) {
    sink_.report(
        DiagKind::InvalidValue, v.range,
        fmt::format("'{}' takes a name{}, not {}", spec.name,
                    spec.allowed ? fmt::format(" ({})", fmt::join(*spec.allowed, ", ")) : "", sourceText(v.range)));
    return;
  }
  std::string w = valueSpelling(v);
  if (spec.allowed && !contains(*spec.allowed, w)) {
    sink_
        .report(DiagKind::InvalidValue, v.range,
                fmt::format("'{}' is not a valid {} for {}{}", w, spec.name, owner, didYouMean(w, *spec.allowed)))
        .note({}, fmt::format("valid values: {}", fmt::join(*spec.allowed, ", ")));
  }
}

std::map<std::string, const ast::Property*> Checker::checkProperties(const std::vector<ast::Property>& props,
                                                                     const std::vector<PropertySpec>& specs,
                                                                     const std::string& owner) {
  std::map<std::string, const ast::Property*> seen;
  std::vector<std::string> names;
  for (auto& s : specs) names.push_back(s.name);
  for (auto& p : props) {
    auto spec = std::find_if(specs.begin(), specs.end(), [&](auto& s) { return s.name == p.name.text; });
    if (spec == specs.end()) {
      sink_
          .report(DiagKind::UnknownProperty, p.name.range,
                  fmt::format("{} has no property '{}'{}", owner, p.name.text, didYouMean(p.name.text, names)))
          .note({}, fmt::format("its properties are: {}", fmt::join(names, ", ")));
      continue;
    }
    auto [it, inserted] = seen.emplace(p.name.text, &p);
    if (!inserted && !spec->repeatable) {
      sink_.report(DiagKind::DuplicateProperty, p.name.range, fmt::format("'{}' is given twice", p.name.text))
          .note(it->second->name.range, "first given here");
      continue;
    }
    using Shape = PropertySpec::Shape;
    bool many = spec->shape == Shape::Strings || spec->shape == Shape::Words || spec->shape == Shape::Any;
    if (!many && p.values.size() > 1) {
      sink_.report(DiagKind::InvalidValue, p.values[1].range, fmt::format("'{}' takes one value", p.name.text));
    }
    for (auto& v : p.values) {
      switch (spec->shape) {
        case Shape::String:
        case Shape::Strings:
          if (v.kind != ast::PropertyValue::Kind::String) {
            sink_.report(DiagKind::InvalidValue, v.range,
                         fmt::format("'{}' takes a string in double quotes", p.name.text));
          }
          break;
        case Shape::Word:
        case Shape::Words:
          checkWordValue(v, *spec, owner);
          break;
        case Shape::WordList:
          if (v.kind == ast::PropertyValue::Kind::List) {
            for (auto& item : v.items) {
              if (!isWordLike(item) && item.kind != ast::PropertyValue::Kind::String) {
                sink_.report(DiagKind::InvalidValue, item.range,
                             fmt::format("'{}' lists names or strings", p.name.text));
              }
            }
          } else if (!isWordLike(v) && v.kind != ast::PropertyValue::Kind::String) {
            sink_.report(DiagKind::InvalidValue, v.range,
                         fmt::format("'{}' takes a list of names: [a, b]", p.name.text));
          }
          break;
        case Shape::Number:
          if (v.kind != ast::PropertyValue::Kind::Int && v.kind != ast::PropertyValue::Kind::Float) {
            sink_.report(DiagKind::InvalidValue, v.range, fmt::format("'{}' takes a number", p.name.text));
          }
          break;
        case Shape::Int:
          if (v.kind != ast::PropertyValue::Kind::Int) {
            sink_.report(DiagKind::InvalidValue, v.range, fmt::format("'{}' takes an integer", p.name.text));
          }
          break;
        case Shape::Timestamp:
          if (v.kind != ast::PropertyValue::Kind::Timestamp) {
            sink_.report(DiagKind::InvalidValue, v.range,
                         fmt::format("'{}' takes a timestamp such as 2026-01-01T10:00:00Z", p.name.text));
          }
          break;
        case Shape::Any:
          break;
      }
    }
  }
  return seen;
}

bool Checker::misspelled(const std::string& name, const std::vector<ast::Property>& props) {
  return std::any_of(props.begin(), props.end(), [&](const ast::Property& p) {
    return p.name.text != name && closestMatch(p.name.text, {name}) == name;
  });
}

void Checker::titleConflict(const std::optional<std::string>& title,
                            const std::map<std::string, const ast::Property*>& seen, const ast::Ident& name) {
  if (title && seen.count("title")) {
    sink_.report(DiagKind::DuplicateProperty, seen.at("title")->name.range,
                 fmt::format("'{}' already has a title after its name", name.text));
  }
}

void Checker::checkDecl(ast::SymptomDecl& s) {
  std::string owner = fmt::format("symptom '{}'", s.name.text);
  std::vector<PropertySpec> specs = metadataSpecs();
  specs.push_back({"family", PropertySpec::Shape::Word, &failureFamilies()});
  specs.push_back({"severity", PropertySpec::Shape::Word, &severities()});
  specs.push_back({"blame", PropertySpec::Shape::Word, &blames()});
  specs.push_back({"role", PropertySpec::Shape::Word, &roles()});
  specs.push_back({"action", PropertySpec::Shape::Words, &knownActions()});
  specs.push_back({"message", PropertySpec::Shape::String});
  auto seen = checkProperties(s.properties, specs, owner);
  titleConflict(s.title, seen, s.name);
  // `blame none` reads as "nothing to drain", but it also makes the symptom context, which is
  // never a root cause: say so where it happens, unless the role is given.
  if (auto blame = seen.find("blame"); blame != seen.end() && !seen.count("role") && !blame->second->values.empty() &&
                                       blame->second->values[0].kind == ast::PropertyValue::Kind::None) {
    const ast::Property& p = *blame->second;
    sink_
        .report(DiagKind::ImplicitContext, p.range,
                fmt::format("'blame none' makes symptom '{}' a context symptom, which is never the root cause; if it "
                            "can be one, add 'role cause' (it then blames nothing); if not, add 'role context'",
                            s.name.text))
        .fix({p.range.file, p.range.end, p.range.end}, "  role cause", false);
  }
  if (!seen.count("family") && !misspelled("family", s.properties)) {
    sink_.report(DiagKind::MissingProperty, s.name.range,
                 fmt::format("symptom '{}' has no 'family'; every symptom names its failure family "
                             "(use 'family unknown' if none fits)",
                             s.name.text));
  }

  if (s.streams.empty()) {
    sink_.report(DiagKind::MissingProperty, s.name.range,
                 fmt::format("symptom '{}' does not say what evidence it reads; add 'on log', "
                             "'on metric NAME' or 'on scheduler'",
                             s.name.text));
    return;
  }
  for (size_t i = 1; i < s.streams.size(); ++i) {
    sink_.report(DiagKind::DuplicateProperty, s.streams[i].range, "a symptom reads one evidence stream")
        .note(s.streams[0].range, "its stream is given here");
  }
  const ast::StreamSpec& stream = s.streams[0];
  bool derived = stream.kind == ast::StreamSpec::Kind::Ranks || stream.kind == ast::StreamSpec::Kind::Nodes;
  if (stream.kind == ast::StreamSpec::Kind::Unknown) {
    sink_.report(DiagKind::InvalidValue, stream.range,
                 fmt::format("unknown evidence stream '{}'; a symptom reads 'log', 'metric NAME' or 'scheduler', "
                             "or is derived per rank or node with 'on ranks' or 'on nodes'{}",
                             stream.word, didYouMean(stream.word, {"ranks", "nodes"})));
    return;
  }
  if (stream.kind == ast::StreamSpec::Kind::Log) {
    if (stream.filterField && stream.filterField->text != "source") {
      sink_.report(DiagKind::InvalidValue, stream.filterField->range,
                   fmt::format("a log stream is filtered by 'source', not '{}'", stream.filterField->text));
    }
    for (auto& src : stream.sources) checkSource(src);
    if (stream.filterField && stream.sources.empty()) {
      sink_.report(DiagKind::InvalidValue, stream.range,
                   "an empty source list matches nothing; write 'on log' to read every source");
    }
    if (s.matches.empty()) {
      sink_.report(DiagKind::MissingProperty, s.name.range,
                   fmt::format("log symptom '{}' has no 'match' pattern", s.name.text));
    }
  } else {
    const char* kind = stream.kind == ast::StreamSpec::Kind::Metric      ? "metric"
                       : stream.kind == ast::StreamSpec::Kind::Scheduler ? "scheduler"
                       : stream.kind == ast::StreamSpec::Kind::Ranks     ? "per-rank"
                                                                         : "per-node";
    for (auto& re : s.matches) {
      sink_
          .report(DiagKind::StreamMismatch, re.range,
                  fmt::format("'match' reads log lines, but this symptom reads the {} stream; use 'when'", kind))
          .note(stream.range, "the stream is chosen here");
    }
    if (!s.when) {
      sink_.report(DiagKind::MissingProperty, s.name.range,
                   fmt::format("{} symptom '{}' needs a 'when' condition", kind, s.name.text));
    }
  }
  if (s.sustained && *s.sustained <= 0) {
    sink_.report(DiagKind::WindowMisuse, s.sustainedRange, "'for D' needs a duration longer than zero");
  }
  if (s.sustained && stream.kind != ast::StreamSpec::Kind::Metric) {
    sink_.report(DiagKind::WindowMisuse, s.sustainedRange,
                 "'for D' (a condition sustained over time) applies to metric symptoms only");
  }
  for (auto& re : s.matches) {
    exprs_.checkRegexLiteral(re, true);
    warnShadowedCaptures(re);
  }

  std::string self = selfName(s);
  Scope scope;
  scope.kind = derived ? Scope::Kind::Derived : Scope::Kind::SymptomClause;
  scope.stream = stream.kind;
  scope.hasImplicit = true;
  scope.implicitSymptoms = {self};
  scope.hasReference = derived;  // `on same rank` compares with the candidate
  if (!derived) {
    for (auto& let : s.lets) {
      sink_.report(DiagKind::StreamMismatch, let.range,
                   "'let' names a value computed per rank or node; it belongs to 'on ranks' and 'on nodes' "
                   "symptoms")
          .note(stream.range, "this symptom's stream is chosen here");
    }
    for (const auto& p : s.properties) {
      if (p.name.text != "message") continue;
      sink_.report(DiagKind::StreamMismatch, p.range,
                   "'message' is the text of a derived instance; a log, metric or scheduler instance's text is "
                   "its evidence, so 'message' belongs to 'on ranks' and 'on nodes' symptoms")
          .note(stream.range, "this symptom's stream is chosen here");
    }
  } else {
    for (auto& let : s.lets) {
      ir::Field builtin;
      if (ir::fieldFromName(let.name.text, &builtin)) {
        sink_.report(DiagKind::InvalidValue, let.name.range,
                     fmt::format("'{}' is a built-in field of every instance; give the let another name", let.name.text));
        continue;
      }
      const ast::SymptomDecl::Let* first = nullptr;
      for (auto& earlier : s.lets) {
        if (&earlier == &let) break;
        if (earlier.name.text == let.name.text) {
          first = &earlier;
          break;
        }
      }
      if (first) {
        sink_.report(DiagKind::DuplicateDeclaration, let.name.range,
                     fmt::format("'{}' is already defined by an earlier let of this symptom", let.name.text))
            .note(first->name.range, fmt::format("the first 'let {}' is here", let.name.text));
        continue;
      }
      // A let in error is still defined: reading it is no further error.
      scope.lets.emplace_back(let.name.text, exprs_.checkValue(*let.value, scope, "a let"));
    }
    checkMessage(s, scope);
  }
  if (s.when) exprs_.expectBool(*s.when, scope, "a 'when' condition");
}

// `message "rank {rank} on {node}: ..."`: every placeholder names a let or rank, node, gpu.
void Checker::checkMessage(const ast::SymptomDecl& s, const Scope& scope) {
  for (const auto& p : s.properties) {
    if (p.name.text != "message" || p.values.empty() || p.values[0].kind != ast::PropertyValue::Kind::String) continue;
    const std::string& text = p.values[0].text;
    std::vector<std::string> names = {"rank", "node", "gpu"};
    for (auto& [name, _] : scope.lets) names.push_back(name);
    bool unclosed = false;
    for (const auto& part : ir::splitMessage(text, &unclosed)) {
      if (!part.placeholder) continue;
      const std::string& name = part.text;
      if (!contains(names, name)) {
        sink_.report(DiagKind::InvalidValue, p.values[0].range,
                     fmt::format("the message names '{{{}}}', which is no let of this symptom{}", name,
                                 didYouMean(name, names)))
            .note({}, fmt::format("placeholders: {}", fmt::join(names, ", ")));
      }
    }
    if (unclosed) sink_.report(DiagKind::InvalidValue, p.values[0].range, "a '{' in the message is never closed");
  }
}

void Checker::warnShadowedCaptures(const ast::Regex& re) {
  static const std::vector<std::string> builtins = {"time",   "symptom", "family", "severity",  "blame",
                                                    "role",   "source",  "text",   "value",     "metric",
                                                    "state",  "exit_code", "signal", "reason"};
  for (const auto& c : re.captures) {
    if (contains(builtins, c)) {
      sink_.report(DiagKind::ShadowedCapture, re.patternRange,
                   fmt::format("the capture '{}' has the name of a built-in field, so '{}' always reads the "
                               "field; rename the capture",
                               c, c));
    }
  }
}

void Checker::checkSource(const ast::PropertyValue& v) {
  if (v.kind != ast::PropertyValue::Kind::Word && v.kind != ast::PropertyValue::Kind::String) {
    sink_.report(DiagKind::InvalidValue, v.range, "a log source is a channel name such as kernel or application");
    return;
  }
  if (!contains(logSources(), v.text)) {
    sink_
        .report(DiagKind::UnknownSource, v.range,
                fmt::format("'{}' is not a log channel{}", v.text, didYouMean(v.text, logSources())))
        .note({}, fmt::format("the channels are {}; the older source words {} still read theirs",
                              fmt::join(logSources().begin(), logSources().begin() + ir::kChannelCount, ", "),
                              fmt::join(logSources().begin() + ir::kChannelCount, logSources().end(), ", ")));
  }
}

void Checker::checkDecl(ast::FilterDecl& f) {
  std::string owner = fmt::format("filter '{}'", f.name.text);
  auto seen = checkProperties(f.properties, metadataSpecs(), owner);
  titleConflict(f.title, seen, f.name);
  if (f.statements.empty()) {
    sink_.report(DiagKind::MissingProperty, f.name.range,
                 fmt::format("filter '{}' has no 'drop' or 'keep' statement", f.name.text));
  }
  static const std::vector<std::string> keys = {"node", "rank", "gpu", "workload", "source"};
  for (auto& st : f.statements) {
    std::vector<std::string> symptoms;
    bool ok = true;
    for (auto& t : st.targets) {
      auto e = names_.expand(t);
      if (!e) {
        ok = false;
        continue;
      }
      symptoms.insert(symptoms.end(), e->begin(), e->end());
    }
    std::sort(symptoms.begin(), symptoms.end());
    symptoms.erase(std::unique(symptoms.begin(), symptoms.end()), symptoms.end());
    st.symptoms = symptoms;
    for (auto& k : st.keys) {
      if (!contains(keys, k.text)) {
        sink_.report(DiagKind::InvalidValue, k.range,
                     fmt::format("'{}' is not a grouping key{}; keys are {}", k.text, didYouMean(k.text, keys),
                                 fmt::join(keys, ", ")));
      }
    }
    if (st.kind == ast::FilterStmt::Kind::KeepPer && st.keepCount < 1) {
      sink_.report(DiagKind::InvalidValue, st.range,
                   fmt::format("'keep {} N' needs N of at least 1", st.keepFirst ? "first" : "last"));
    }
    if (st.where && ok) {
      Scope scope;
      scope.kind = Scope::Kind::Filter;
      scope.hasImplicit = true;
      scope.implicitSymptoms = symptoms;
      exprs_.expectBool(*st.where, scope, "a filter condition");
    }
  }
}

void Checker::checkDecl(ast::RuleDecl& r) {
  std::string owner = fmt::format("rule '{}'", r.name.text);
  std::vector<PropertySpec> specs = metadataSpecs();
  specs.push_back({"phase", PropertySpec::Shape::Word, &rulePhases()});
  auto seen = checkProperties(r.properties, specs, owner);
  titleConflict(r.title, seen, r.name);
  for (size_t i = 1; i < r.whenRanges.size(); ++i) {
    sink_.report(DiagKind::DuplicateProperty, r.whenRanges[i], "a rule has one 'when' clause; list all bindings in it")
        .note(r.whenRanges[0], "the first 'when' clause is here");
  }
  if (r.bindings.empty()) {
    sink_.report(DiagKind::MissingProperty, r.name.range,
                 fmt::format("rule '{}' binds no symptoms; add 'when SYMPTOM as NAME, ...'", r.name.text));
  }
  if (r.actions.empty()) {
    sink_.report(DiagKind::MissingProperty, r.name.range,
                 fmt::format("rule '{}' has no 'then' actions (explain, mark, drop)", r.name.text));
  }
  Scope scope;
  scope.kind = Scope::Kind::Rule;
  scope.hasReference = !r.bindings.empty();
  bool bindingsOk = true;
  std::map<std::string, SourceRange> aliasRanges;
  for (auto& b : r.bindings) {
    auto [it, inserted] = aliasRanges.emplace(b.alias.text, b.alias.range);
    if (!inserted) {
      sink_
          .report(DiagKind::DuplicateAlias, b.alias.range,
                  fmt::format("'{}' is bound twice in this rule", b.alias.text))
          .note(it->second, "first bound here");
    }
    auto e = names_.expand(b.selector);
    if (!e) {
      bindingsOk = false;
      continue;
    }
    b.symptoms = *e;
    scope.aliases.emplace_back(b.alias.text, *e);
  }
  std::set<std::string> usedAliases;
  if (r.where && bindingsOk) {
    exprs_.expectBool(*r.where, scope, "a rule condition", &usedAliases);
    if (containsSame(*r.where) && r.bindings.size() < 2) {
      sink_.report(DiagKind::WindowMisuse, r.where->range,
                   "'same node' compares the rule's bindings; bind at least two");
    }
  }
  static const std::vector<std::string> marks = {"bad", "interesting"};
  for (auto& a : r.actions) {
    auto bound = [&](const ast::Ident& id) {
      if (!aliasRanges.count(id.text)) {
        std::vector<std::string> names;
        for (auto& [n, _] : aliasRanges) names.push_back(n);
        sink_.report(DiagKind::InvalidAction, id.range,
                     fmt::format("'{}' is not bound by this rule's 'when'{}", id.text, didYouMean(id.text, names)));
        return false;
      }
      usedAliases.insert(id.text);
      return true;
    };
    bound(a.subject);
    if (a.kind == ast::RuleAction::Kind::Explain) {
      if (bound(a.object) && a.subject.text == a.object.text) {
        sink_.report(DiagKind::InvalidAction, a.range, "a symptom cannot explain itself");
      }
    } else if (a.kind == ast::RuleAction::Kind::Mark && !contains(marks, a.object.text)) {
      sink_.report(DiagKind::InvalidAction, a.object.range,
                   fmt::format("'mark {} as {}': a symptom is marked 'bad' or 'interesting'{}", a.subject.text,
                               a.object.text, didYouMean(a.object.text, marks)));
    }
  }
  for (auto& b : r.bindings) {
    if (!usedAliases.count(b.alias.text)) {
      sink_.report(DiagKind::UnusedAlias, b.alias.range,
                   fmt::format("'{}' is bound but neither the condition nor the actions use it", b.alias.text));
    }
  }
  // Shadowing: an identical earlier rule makes this one add nothing.
  std::string key = fmt::format("{}|{}|", r.where ? ExprChecker::canonical(*r.where) : "", phaseOf(r));
  for (auto& b : r.bindings) key += b.selector.str() + " as " + b.alias.text + ",";
  for (auto& a : r.actions) key += fmt::format("{}:{}:{};", static_cast<int>(a.kind), a.subject.text, a.object.text);
  auto [it, inserted] = ruleKeys_.emplace(key, &r);
  if (!inserted) {
    sink_
        .report(DiagKind::ShadowedRule, r.name.range,
                fmt::format("rule '{}' repeats rule '{}' exactly, so it can never change a verdict", r.name.text,
                            it->second->name.text))
        .note(it->second->name.range, "the earlier rule is here");
  }
}

std::string Checker::phaseOf(const ast::RuleDecl& r) {
  for (auto& p : r.properties) {
    if (p.name.text == "phase" && !p.values.empty()) return p.values[0].text;
  }
  return "main";
}

bool Checker::containsSame(const Expr& e) {
  if (e.kind == ExprKind::Same) return true;
  for (auto& op : e.operands)
    if (op && containsSame(*op)) return true;
  for (auto& a : e.args) {
    if (a.value && containsSame(*a.value)) return true;
    if (a.where && containsSame(*a.where)) return true;
  }
  return false;
}

void Checker::checkDecl(ast::OutcomeDecl& o) {
  std::string owner = fmt::format("outcome '{}'", o.name.text);
  std::vector<PropertySpec> specs = metadataSpecs();
  specs.push_back({"family", PropertySpec::Shape::Word, &failureFamilies()});
  specs.push_back({"action", PropertySpec::Shape::Words, &knownActions()});
  specs.push_back({"confidence", PropertySpec::Shape::Number});
  auto seen = checkProperties(o.properties, specs, owner);
  titleConflict(o.title, seen, o.name);
  if (!seen.count("family") && !misspelled("family", o.properties)) {
    sink_.report(DiagKind::MissingProperty, o.name.range, fmt::format("outcome '{}' has no 'family'", o.name.text));
  }
  if (auto it = seen.find("confidence"); it != seen.end() && !it->second->values.empty()) {
    const auto& v = it->second->values[0];
    double c = v.kind == ast::PropertyValue::Kind::Int ? static_cast<double>(v.intValue) : v.floatValue;
    if ((v.kind == ast::PropertyValue::Kind::Int || v.kind == ast::PropertyValue::Kind::Float) && (c < 0 || c > 1)) {
      sink_.report(DiagKind::InvalidValue, v.range, fmt::format("confidence {} is outside [0, 1]", v.text));
    }
  }
  if (!o.when) {
    sink_.report(DiagKind::MissingProperty, o.name.range,
                 fmt::format("outcome '{}' has no 'when' condition", o.name.text));
    return;
  }
  Scope scope;
  scope.kind = Scope::Kind::Outcome;
  scope.hasReference = true;
  if (!exprs_.expectBool(*o.when, scope, "an outcome condition")) return;
  if (auto why = neverHolds(*o.when)) {
    sink_.report(DiagKind::UnreachableOutcome, o.when->range,
                 fmt::format("outcome '{}' can never hold: {}", o.name.text, *why));
  }
  std::string key = ExprChecker::canonical(*o.when);
  auto [it, inserted] = outcomeKeys_.emplace(key, &o);
  if (!inserted) {
    sink_
        .report(DiagKind::ShadowedRule, o.name.range,
                fmt::format("outcome '{}' has the same condition as outcome '{}', which comes first", o.name.text,
                            it->second->name.text))
        .note(it->second->when->range, "the earlier condition is here");
  }
}

std::optional<std::string> Checker::neverHolds(const Expr& e) {
  if (e.kind == ExprKind::Bool && !e.boolValue) return "the condition is the constant false";
  if (e.kind == ExprKind::Binary && e.op == ast::BinaryOp::And) {
    if (auto r = neverHolds(*e.operands[0])) return r;
    return neverHolds(*e.operands[1]);
  }
  if (e.kind == ExprKind::Binary && e.op == ast::BinaryOp::Or) {
    auto a = neverHolds(*e.operands[0]);
    auto b = neverHolds(*e.operands[1]);
    if (a && b) return *a;
    return std::nullopt;
  }
  if (e.kind == ExprKind::Is && !e.negated && !e.isNone && e.operands[0]->ref == ast::NameRef::Root &&
      e.operands[0]->field.empty() && !e.symptoms.empty()) {
    for (auto& q : e.symptoms) {
      if (index_.symptoms.at(q).role == SymptomRole::Cause) return std::nullopt;
    }
    return fmt::format("'{}' {} never the root cause (consequence and context symptoms cannot be)", e.selector->str(),
                       e.symptoms.size() == 1 ? "is" : "are");
  }
  return std::nullopt;
}
}  // namespace attrib::check_detail
