#include "compiler/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>

#include "compiler/regex_check.h"

namespace attrib {

const std::vector<std::string>& failureFamilies() {
  static const std::vector<std::string> v = {
      "accelerator-gpu", "accelerator-memory", "accelerator-fabric", "network-fabric", "host-hardware",
      "kernel-fatal", "host-oom", "device-oom", "storage", "communication", "scheduler-timeout",
      "scheduler-preemption", "scheduler-cancel", "node-failure", "orchestration", "software-framework",
      "user-code", "numerics", "unknown"};
  return v;
}

const std::vector<std::string>& logSources() {
  static const std::vector<std::string> v = {"applog", "syslog", "dmesg", "scheduler", "k8s_events", "container"};
  return v;
}

const std::vector<std::string>& terminalStates() {
  static const std::vector<std::string> v = {"COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL",
                                             "OUT_OF_MEMORY", "PREEMPTED", "EVICTED", "BOOT_FAIL", "DEADLINE",
                                             "RUNNING", "UNKNOWN"};
  return v;
}

const std::vector<std::string>& knownActions() {
  static const std::vector<std::string> v = {
      "none", "restart", "resubmit", "drain_node", "reboot_node", "reset_gpu", "replace_gpu", "check_fabric",
      "check_storage", "fix_code", "fix_config", "increase_memory", "increase_time_limit", "investigate", "stop"};
  return v;
}

std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t prev = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t cur = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
        prev = cur;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t bestDistance = std::max<size_t>(1, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    if (c.size() > word.size() + bestDistance || word.size() > c.size() + bestDistance) continue;
    size_t d = distance(word, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best;
}

namespace {

using ast::Expr;
using ast::ExprKind;

std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string m = closestMatch(word, candidates);
  return m.empty() ? "" : fmt::format("; did you mean '{}'?", m);
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Where an expression is evaluated decides which names it can see.
struct Scope {
  enum class Kind { SymptomClause, Filter, Rule, Outcome };
  Kind kind = Kind::Outcome;
  ast::StreamSpec::Kind stream = ast::StreamSpec::Kind::Log;  // SymptomClause
  // The implicit instance whose fields bare names read (symptom clauses, filters, aggregate
  // where-clauses without an alias): the symptoms it may be, and their captures.
  bool hasImplicit = false;
  std::vector<std::string> implicitSymptoms;
  // Named instances: rule bindings and aggregate aliases, innermost last.
  std::vector<std::pair<std::string, std::vector<std::string>>> aliases;
  bool hasReference = false;  // an instance `on same node` compares against
};

struct ImportState {
  const ast::Import* import;
  std::string alias;
  bool used = false;
};

class Checker {
 public:
  Checker(const SourceManager& sources, DiagnosticSink& sink) : sources_(sources), sink_(sink) {}

  ProgramIndex run(const std::vector<ast::Module*>& modules) {
    for (auto* m : modules) declare(*m);
    for (auto* m : modules) checkImports(*m);
    for (auto* m : modules) {
      module_ = m;
      for (auto& decl : m->declarations) {
        std::visit([&](auto& d) { if (!d.broken) checkDecl(d); }, decl);
      }
    }
    for (auto* m : modules) {
      for (auto& imp : imports_[m]) {
        if (!imp.used) {
          sink_.report(DiagKind::UnusedImport, imp.import->range,
                       fmt::format("package '{}' is imported but never used", imp.import->package.str()));
        }
      }
    }
    warnUnusedSymptoms();
    return std::move(index_);
  }

 private:
  // ------------------------------------------------------------------ declarations

  void declareName(const std::string& qualified, const ast::Ident& name, const std::string& what) {
    auto [it, inserted] = firstDefinition_.emplace(qualified, name.range);
    if (!inserted) {
      sink_.report(DiagKind::DuplicateDeclaration, name.range, fmt::format("redefinition of '{}'", qualified))
          .note(it->second, fmt::format("'{}' was first defined here", qualified));
    }
    (void)what;
  }

  void declare(ast::Module& m) {
    std::string pkg = m.packageName();
    index_.packages.insert(pkg);
    std::map<std::string, SourceRange> testNames;
    for (auto& decl : m.declarations) {
      if (auto* s = std::get_if<ast::SymptomDecl>(&decl)) {
        std::string q = ast::qualify(pkg, s->name.text);
        declareName(q, s->name, "symptom");
        if (!index_.symptoms.count(q)) {
          SymptomInfo info;
          info.decl = s;
          info.module = &m;
          info.qualifiedName = q;
          info.role = roleOf(*s);
          for (auto& re : s->matches) {
            RegexInfo ri = checkRegex(re.pattern, re.flags, true);
            info.captures.insert(ri.captures.begin(), ri.captures.end());
          }
          index_.symptoms.emplace(q, std::move(info));
        }
      } else if (auto* f = std::get_if<ast::FilterDecl>(&decl)) {
        std::string q = ast::qualify(pkg, f->name.text);
        declareName(q, f->name, "filter");
        index_.filters.emplace(q, f);
      } else if (auto* r = std::get_if<ast::RuleDecl>(&decl)) {
        std::string q = ast::qualify(pkg, r->name.text);
        declareName(q, r->name, "rule");
        index_.rules.emplace(q, r);
      } else if (auto* o = std::get_if<ast::OutcomeDecl>(&decl)) {
        std::string q = ast::qualify(pkg, o->name.text);
        declareName(q, o->name, "outcome");
        index_.outcomes.emplace(q, o);
      } else if (auto* t = std::get_if<ast::TestDecl>(&decl)) {
        auto [it, inserted] = testNames.emplace(t->name, t->nameRange);
        if (!inserted) {
          sink_.report(DiagKind::DuplicateDeclaration, t->nameRange, fmt::format("a second test named \"{}\" in this file", t->name))
              .note(it->second, "the first test with this name is here");
        }
      }
    }
  }

  static SymptomRole roleOf(const ast::SymptomDecl& s) {
    std::string severity, blame;
    for (auto& p : s.properties) {
      if (p.values.empty()) continue;
      if (p.name.text == "role") {
        if (p.values[0].text == "consequence") return SymptomRole::Consequence;
        if (p.values[0].text == "context") return SymptomRole::Context;
        return SymptomRole::Cause;
      }
      if (p.name.text == "severity") severity = p.values[0].text;
      if (p.name.text == "blame") blame = p.values[0].kind == ast::PropertyValue::Kind::None ? "none" : p.values[0].text;
    }
    if (severity == "info" || blame == "none") return SymptomRole::Context;
    return SymptomRole::Cause;
  }

  void checkImports(ast::Module& m) {
    auto& list = imports_[&m];
    std::vector<std::string> packages(index_.packages.begin(), index_.packages.end());
    for (auto& imp : m.imports) {
      std::string name = imp.package.str();
      std::string alias = imp.alias ? imp.alias->text : imp.package.parts.back().text;
      if (!index_.packages.count(name)) {
        sink_.report(DiagKind::UnknownPackage, imp.package.range,
                     fmt::format("no checked file declares package '{}'{}", name, didYouMean(name, packages)));
        continue;
      }
      bool duplicate = false;
      for (auto& other : list) {
        if (other.import->package.str() == name || other.alias == alias) {
          sink_.report(DiagKind::DuplicateImport, imp.range,
                       other.alias == alias && other.import->package.str() != name
                           ? fmt::format("the name '{}' is already used by another import", alias)
                           : fmt::format("package '{}' is imported twice", name))
              .note(other.import->range, "the earlier import is here");
          duplicate = true;
        }
      }
      if (!duplicate) list.push_back({&imp, alias, false});
    }
  }

  // ------------------------------------------------------------------ name resolution

  // Resolves a reference to a package-level name in the current module: `x` (own package),
  // `alias.x` (through an import), or a fully qualified name of an imported package.
  // Returns the candidate qualified name and whether its package is visible.
  struct Lookup {
    std::string qualified;
    bool visible = false;
    std::string package;  // the package the name would be in
  };

  Lookup lookup(const ast::QualifiedName& name) {
    std::string own = module_->packageName();
    if (name.parts.size() == 1) return {ast::qualify(own, name.parts[0].text), true, own};
    std::string last = name.parts.back().text;
    std::string prefix;
    for (size_t i = 0; i + 1 < name.parts.size(); ++i) prefix += (i ? "." : "") + name.parts[i].text;
    // Through an import alias: `nccl.watchdog_timeout` with `import std.nccl`.
    for (auto& imp : imports_[module_]) {
      const std::string& head = name.parts[0].text;
      if (head == imp.alias) {
        std::string pkg = imp.import->package.str();
        for (size_t i = 1; i + 1 < name.parts.size(); ++i) pkg += "." + name.parts[i].text;
        std::string q = pkg + "." + last;
        if (exists(q)) {
          imp.used = true;
          return {q, true, pkg};
        }
      }
    }
    std::string q = prefix + "." + last;
    if (prefix == own) return {q, true, prefix};
    for (auto& imp : imports_[module_]) {
      if (imp.import->package.str() == prefix) {
        imp.used = true;
        return {q, true, prefix};
      }
    }
    return {q, false, prefix};
  }

  bool exists(const std::string& q) const {
    return index_.symptoms.count(q) || index_.outcomes.count(q) || index_.rules.count(q) || index_.filters.count(q);
  }

  std::vector<std::string> symptomNamesVisible() const {
    std::vector<std::string> out;
    std::string own = module_->packageName();
    for (auto& [q, info] : index_.symptoms) {
      out.push_back(q);
      if (info.module->packageName() == own) out.push_back(info.decl->name.text);
    }
    return out;
  }

  // Resolves a symptom name; reports and returns nullopt when it is not a visible symptom.
  std::optional<std::string> resolveSymptom(const ast::QualifiedName& name, bool report = true) {
    Lookup l = lookup(name);
    if (!index_.symptoms.count(l.qualified)) {
      if (report) reportUnknown(name, l, "symptom", symptomNamesVisible());
      return std::nullopt;
    }
    if (!l.visible) {
      if (report) {
        sink_.report(DiagKind::PackageNotImported, name.range,
                     fmt::format("'{}' is in package '{}', which this file does not import", name.str(), l.package))
            .note({}, fmt::format("add 'import {}' after the package line", l.package));
      }
      return std::nullopt;
    }
    used_.insert(l.qualified);
    return l.qualified;
  }

  void reportUnknown(const ast::QualifiedName& name, const Lookup& l, const char* what,
                     const std::vector<std::string>& candidates) {
    if (exists(l.qualified) && !l.visible) {
      sink_.report(DiagKind::PackageNotImported, name.range,
                   fmt::format("'{}' is in package '{}', which this file does not import", name.str(), l.package));
      return;
    }
    sink_.report(DiagKind::UnknownName, name.range,
                 fmt::format("unknown {} '{}'{}", what, name.str(), didYouMean(name.str(), candidates)));
  }

  // Expands a selector to the symptoms it denotes; reports unknown or empty selectors.
  std::optional<std::vector<std::string>> expand(const ast::Selector& sel) {
    std::vector<std::string> out;
    if (sel.kind == ast::Selector::Kind::All) {
      for (auto& [q, _] : index_.symptoms) {
        out.push_back(q);
        used_.insert(q);
      }
      return out;
    }
    if (sel.kind == ast::Selector::Kind::Name) {
      auto q = resolveSymptom(sel.name);
      if (!q) return std::nullopt;
      return std::vector<std::string>{*q};
    }
    // Prefix: `pkg.*` or `alias.*`, where pkg is the own package, an imported one, or below one.
    std::string prefix = sel.name.str();
    std::string own = module_->packageName();
    std::string resolved;
    auto under = [](const std::string& p, const std::string& base) {
      return p == base || (p.size() > base.size() && p.compare(0, base.size(), base) == 0 && p[base.size()] == '.');
    };
    if (!own.empty() && under(prefix, own)) resolved = prefix;
    for (auto& imp : imports_[module_]) {
      if (!resolved.empty()) break;
      std::string pkg = imp.import->package.str();
      if (under(prefix, pkg)) { resolved = prefix; imp.used = true; }
      else if (sel.name.parts[0].text == imp.alias) {
        resolved = pkg + prefix.substr(imp.alias.size());
        imp.used = true;
      }
    }
    if (resolved.empty()) {
      bool known = std::any_of(index_.packages.begin(), index_.packages.end(), [&](auto& p) { return under(p, prefix); });
      if (known) {
        sink_.report(DiagKind::PackageNotImported, sel.name.range,
                     fmt::format("package '{}' is not imported by this file", prefix));
      } else {
        std::vector<std::string> pkgs(index_.packages.begin(), index_.packages.end());
        sink_.report(DiagKind::UnknownName, sel.name.range,
                     fmt::format("unknown package '{}' in wildcard{}", prefix, didYouMean(prefix, pkgs)));
      }
      return std::nullopt;
    }
    for (auto& [q, _] : index_.symptoms) {
      if (q.size() > resolved.size() && q.compare(0, resolved.size(), resolved) == 0 && q[resolved.size()] == '.') {
        out.push_back(q);
        used_.insert(q);
      }
    }
    if (out.empty()) {
      sink_.report(DiagKind::EmptySelector, sel.range, fmt::format("'{}' matches no symptom", sel.str()));
      return std::nullopt;
    }
    return out;
  }

  // ------------------------------------------------------------------ properties

  struct PropertySpec {
    std::string name;
    enum class Shape { String, Strings, Word, Words, Number, Int, Timestamp, WordList, Any } shape;
    const std::vector<std::string>* allowed = nullptr;
    bool repeatable = false;
  };

  const std::vector<PropertySpec>& metadataSpecs() {
    static const std::vector<PropertySpec> v = {
        {"title", PropertySpec::Shape::String},       {"description", PropertySpec::Shape::String},
        {"ref", PropertySpec::Shape::Strings, nullptr, true}, {"tags", PropertySpec::Shape::WordList},
        {"status", PropertySpec::Shape::Word, &statuses()}, {"author", PropertySpec::Shape::String},
        {"id", PropertySpec::Shape::String}};
    return v;
  }

  static const std::vector<std::string>& statuses() {
    static const std::vector<std::string> v = {"experimental", "test", "stable", "deprecated"};
    return v;
  }
  static const std::vector<std::string>& severities() {
    static const std::vector<std::string> v = {"critical", "error", "warning", "info"};
    return v;
  }
  static const std::vector<std::string>& blames() {
    static const std::vector<std::string> v = {"gpu", "node", "rank", "workload", "none"};
    return v;
  }
  static const std::vector<std::string>& roles() {
    static const std::vector<std::string> v = {"cause", "consequence", "context"};
    return v;
  }
  static const std::vector<std::string>& phases() {
    static const std::vector<std::string> v = {"early", "main", "final", "post_outcome"};
    return v;
  }

  static std::string valueSpelling(const ast::PropertyValue& v) {
    return v.kind == ast::PropertyValue::Kind::None ? "none" : v.text;
  }

  bool isWordLike(const ast::PropertyValue& v) {
    return v.kind == ast::PropertyValue::Kind::Word || v.kind == ast::PropertyValue::Kind::None;
  }

  void checkWordValue(const ast::PropertyValue& v, const PropertySpec& spec, const std::string& owner) {
    if (!isWordLike(v)) {
      sink_.report(DiagKind::InvalidValue, v.range,
                   fmt::format("'{}' takes a name{}, not '{}'", spec.name,
                               spec.allowed ? fmt::format(" ({})", fmt::join(*spec.allowed, ", ")) : "", v.text));
      return;
    }
    std::string w = valueSpelling(v);
    if (spec.allowed && !contains(*spec.allowed, w)) {
      sink_.report(DiagKind::InvalidValue, v.range,
                   fmt::format("'{}' is not a valid {} for {}{}", w, spec.name, owner, didYouMean(w, *spec.allowed)))
          .note({}, fmt::format("valid values: {}", fmt::join(*spec.allowed, ", ")));
    }
  }

  // Checks properties against their specs; returns the first occurrence of each by name.
  std::map<std::string, const ast::Property*> checkProperties(const std::vector<ast::Property>& props,
                                                              const std::vector<PropertySpec>& specs,
                                                              const std::string& owner) {
    std::map<std::string, const ast::Property*> seen;
    std::vector<std::string> names;
    for (auto& s : specs) names.push_back(s.name);
    for (auto& p : props) {
      auto spec = std::find_if(specs.begin(), specs.end(), [&](auto& s) { return s.name == p.name.text; });
      if (spec == specs.end()) {
        sink_.report(DiagKind::UnknownProperty, p.name.range,
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
          case Shape::String: case Shape::Strings:
            if (v.kind != ast::PropertyValue::Kind::String) {
              sink_.report(DiagKind::InvalidValue, v.range, fmt::format("'{}' takes a string in double quotes", p.name.text));
            }
            break;
          case Shape::Word: case Shape::Words:
            checkWordValue(v, *spec, owner);
            break;
          case Shape::WordList:
            if (v.kind == ast::PropertyValue::Kind::List) {
              for (auto& item : v.items) {
                if (!isWordLike(item) && item.kind != ast::PropertyValue::Kind::String) {
                  sink_.report(DiagKind::InvalidValue, item.range, fmt::format("'{}' lists names or strings", p.name.text));
                }
              }
            } else if (!isWordLike(v) && v.kind != ast::PropertyValue::Kind::String) {
              sink_.report(DiagKind::InvalidValue, v.range, fmt::format("'{}' takes a list of names: [a, b]", p.name.text));
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

  std::string titleConflict(const std::optional<std::string>& title, const std::map<std::string, const ast::Property*>& seen,
                            const ast::Ident& name) {
    if (title && seen.count("title")) {
      sink_.report(DiagKind::DuplicateProperty, seen.at("title")->name.range,
                   fmt::format("'{}' already has a title after its name", name.text));
    }
    return {};
  }

  // ------------------------------------------------------------------ symptoms

  void checkDecl(ast::SymptomDecl& s) {
    std::string owner = fmt::format("symptom '{}'", s.name.text);
    std::vector<PropertySpec> specs = metadataSpecs();
    specs.push_back({"family", PropertySpec::Shape::Word, &failureFamilies()});
    specs.push_back({"severity", PropertySpec::Shape::Word, &severities()});
    specs.push_back({"blame", PropertySpec::Shape::Word, &blames()});
    specs.push_back({"role", PropertySpec::Shape::Word, &roles()});
    specs.push_back({"action", PropertySpec::Shape::Words, &knownActions()});
    auto seen = checkProperties(s.properties, specs, owner);
    titleConflict(s.title, seen, s.name);
    if (!seen.count("family")) {
      sink_.report(DiagKind::MissingProperty, s.name.range,
                   fmt::format("symptom '{}' has no 'family'; every symptom names its failure family "
                               "(use 'family unknown' if none fits)", s.name.text));
    }

    if (s.streams.empty()) {
      sink_.report(DiagKind::MissingProperty, s.name.range,
                   fmt::format("symptom '{}' does not say what evidence it reads; add 'on log', "
                               "'on metric NAME' or 'on scheduler'", s.name.text));
      return;
    }
    for (size_t i = 1; i < s.streams.size(); ++i) {
      sink_.report(DiagKind::DuplicateProperty, s.streams[i].range, "a symptom reads one evidence stream")
          .note(s.streams[0].range, "its stream is given here");
    }
    const ast::StreamSpec& stream = s.streams[0];
    if (stream.kind == ast::StreamSpec::Kind::Log) {
      if (stream.filterField && stream.filterField->text != "source") {
        sink_.report(DiagKind::InvalidValue, stream.filterField->range,
                     fmt::format("a log stream is filtered by 'source', not '{}'", stream.filterField->text));
      }
      for (auto& src : stream.sources) checkSource(src);
      if (s.matches.empty()) {
        sink_.report(DiagKind::MissingProperty, s.name.range,
                     fmt::format("log symptom '{}' has no 'match' pattern", s.name.text));
      }
    } else {
      const char* kind = stream.kind == ast::StreamSpec::Kind::Metric ? "metric" : "scheduler";
      for (auto& re : s.matches) {
        sink_.report(DiagKind::StreamMismatch, re.range,
                     fmt::format("'match' reads log lines, but this symptom reads the {} stream; use 'when'", kind))
            .note(stream.range, "the stream is chosen here");
      }
      if (!s.when) {
        sink_.report(DiagKind::MissingProperty, s.name.range,
                     fmt::format("{} symptom '{}' needs a 'when' condition", kind, s.name.text));
      }
    }
    if (s.sustained && stream.kind != ast::StreamSpec::Kind::Metric) {
      sink_.report(DiagKind::WindowMisuse, s.sustainedRange,
                   "'for D' (a condition sustained over time) applies to metric symptoms only");
    }
    for (auto& re : s.matches) checkRegexLiteral(re, true);

    if (s.when) {
      Scope scope;
      scope.kind = Scope::Kind::SymptomClause;
      scope.stream = stream.kind;
      scope.hasImplicit = true;
      scope.implicitSymptoms = {ast::qualify(module_->packageName(), s.name.text)};
      expectBool(*s.when, scope, "a 'when' condition");
    }
  }

  void checkSource(const ast::PropertyValue& v) {
    if (v.kind != ast::PropertyValue::Kind::Word && v.kind != ast::PropertyValue::Kind::String) {
      sink_.report(DiagKind::InvalidValue, v.range, "a log source is a name such as syslog or applog");
      return;
    }
    if (!contains(logSources(), v.text)) {
      sink_.report(DiagKind::UnknownSource, v.range,
                   fmt::format("no connector produces the log source '{}'{}", v.text, didYouMean(v.text, logSources())))
          .note({}, fmt::format("known sources: {}", fmt::join(logSources(), ", ")));
    }
  }

  void checkRegexLiteral(ast::Regex& re, bool forScanning) {
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
          sink_.report(DiagKind::UnknownRegexFlag,
                       {re.range.file, re.patternRange.end + 1, re.range.end}, p.message);
          break;
        case RegexProblem::Engine::Hyperscan:
          sink_.report(DiagKind::InvalidRegex, where, fmt::format("Hyperscan cannot compile this pattern: {}", p.message));
          break;
        case RegexProblem::Engine::Pcre2:
          sink_.report(DiagKind::InvalidCaptureRegex, where,
                       fmt::format("PCRE2 cannot compile this pattern for capture extraction: {}", p.message));
          break;
        case RegexProblem::Engine::DuplicateCapture:
          sink_.report(DiagKind::DuplicateCapture, where, "two named groups in this pattern have the same name");
          break;
      }
    }
    if (info.problems.empty() && forScanning && info.longestLiteral > 0 && info.longestLiteral < 3) {
      sink_.report(DiagKind::WeakPattern, re.patternRange,
                   "this pattern has no literal text of 3 or more characters, so it is tried on nearly every "
                   "line and slows the whole scan");
    }
  }

  // ------------------------------------------------------------------ filters

  void checkDecl(ast::FilterDecl& f) {
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
        auto e = expand(t);
        if (!e) { ok = false; continue; }
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
        sink_.report(DiagKind::InvalidValue, st.range, "'keep first N' needs N of at least 1");
      }
      if (st.where && ok) {
        Scope scope;
        scope.kind = Scope::Kind::Filter;
        scope.hasImplicit = true;
        scope.implicitSymptoms = symptoms;
        expectBool(*st.where, scope, "a filter condition");
      }
    }
  }

  // ------------------------------------------------------------------ rules

  void checkDecl(ast::RuleDecl& r) {
    std::string owner = fmt::format("rule '{}'", r.name.text);
    std::vector<PropertySpec> specs = metadataSpecs();
    specs.push_back({"phase", PropertySpec::Shape::Word, &phases()});
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
        sink_.report(DiagKind::DuplicateAlias, b.alias.range, fmt::format("'{}' is bound twice in this rule", b.alias.text))
            .note(it->second, "first bound here");
      }
      auto e = expand(b.selector);
      if (!e) { bindingsOk = false; continue; }
      b.symptoms = *e;
      scope.aliases.emplace_back(b.alias.text, *e);
    }
    std::set<std::string> usedAliases;
    if (r.where && bindingsOk) {
      expectBool(*r.where, scope, "a rule condition", &usedAliases);
      if (containsSame(*r.where) && r.bindings.size() < 2) {
        sink_.report(DiagKind::WindowMisuse, r.where->range, "'same node' compares the rule's bindings; bind at least two");
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
    std::string key = fmt::format("{}|{}|", r.where ? canonical(*r.where) : "", phaseOf(r));
    for (auto& b : r.bindings) key += b.selector.str() + " as " + b.alias.text + ",";
    for (auto& a : r.actions) key += fmt::format("{}:{}:{};", static_cast<int>(a.kind), a.subject.text, a.object.text);
    auto [it, inserted] = ruleKeys_.emplace(key, &r);
    if (!inserted) {
      sink_.report(DiagKind::ShadowedRule, r.name.range,
                   fmt::format("rule '{}' repeats rule '{}' exactly, so it can never change a verdict", r.name.text,
                               it->second->name.text))
          .note(it->second->name.range, "the earlier rule is here");
    }
  }

  static std::string phaseOf(const ast::RuleDecl& r) {
    for (auto& p : r.properties) {
      if (p.name.text == "phase" && !p.values.empty()) return p.values[0].text;
    }
    return "main";
  }

  static bool containsSame(const Expr& e) {
    if (e.kind == ExprKind::Same) return true;
    for (auto& op : e.operands) if (op && containsSame(*op)) return true;
    for (auto& a : e.args) {
      if (a.value && containsSame(*a.value)) return true;
      if (a.where && containsSame(*a.where)) return true;
    }
    return false;
  }

  // ------------------------------------------------------------------ outcomes

  void checkDecl(ast::OutcomeDecl& o) {
    std::string owner = fmt::format("outcome '{}'", o.name.text);
    std::vector<PropertySpec> specs = metadataSpecs();
    specs.push_back({"family", PropertySpec::Shape::Word, &failureFamilies()});
    specs.push_back({"action", PropertySpec::Shape::Words, &knownActions()});
    specs.push_back({"confidence", PropertySpec::Shape::Number});
    auto seen = checkProperties(o.properties, specs, owner);
    titleConflict(o.title, seen, o.name);
    if (!seen.count("family")) {
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
    if (!expectBool(*o.when, scope, "an outcome condition")) return;
    if (auto why = neverHolds(*o.when)) {
      sink_.report(DiagKind::UnreachableOutcome, o.when->range,
                   fmt::format("outcome '{}' can never hold: {}", o.name.text, *why));
    }
    std::string key = canonical(*o.when);
    auto [it, inserted] = outcomeKeys_.emplace(key, &o);
    if (!inserted) {
      sink_.report(DiagKind::ShadowedRule, o.name.range,
                   fmt::format("outcome '{}' has the same condition as outcome '{}', which comes first", o.name.text,
                               it->second->name.text))
          .note(it->second->when->range, "the earlier condition is here");
    }
  }

  // A reason the condition is always false, looking through `and`: the literal false, or
  // `root is S` where no symptom of S can be a root cause.
  std::optional<std::string> neverHolds(const Expr& e) {
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
      return fmt::format("'{}' {} never the root cause (consequence and context symptoms cannot be)",
                         e.selector->str(), e.symptoms.size() == 1 ? "is" : "are");
    }
    return std::nullopt;
  }

  // ------------------------------------------------------------------ tests

  void checkDecl(ast::TestDecl& t) {
    static const std::vector<PropertySpec> workloadSpecs = {
        {"id", PropertySpec::Shape::Any},        {"name", PropertySpec::Shape::String},
        {"scheduler", PropertySpec::Shape::Word}, {"state", PropertySpec::Shape::Word, &terminalStates()},
        {"exit_code", PropertySpec::Shape::Int}, {"signal", PropertySpec::Shape::Any},
        {"start", PropertySpec::Shape::Timestamp}, {"end", PropertySpec::Shape::Timestamp},
        {"nodes", PropertySpec::Shape::WordList}, {"ranks_per_node", PropertySpec::Shape::Int},
        {"ranks", PropertySpec::Shape::Int},     {"reason", PropertySpec::Shape::String},
        {"user", PropertySpec::Shape::Any},      {"partition", PropertySpec::Shape::Any}};
    for (size_t i = 1; i < t.workloadRanges.size(); ++i) {
      sink_.report(DiagKind::InvalidTest, t.workloadRanges[i], "a test has one 'workload' block")
          .note(t.workloadRanges[0], "the first one is here");
    }
    auto seen = checkProperties(t.workload, workloadSpecs, "a test workload");
    bool hasStart = seen.count("start") > 0;
    if (t.fixture) {
      namespace fs = std::filesystem;
      fs::path base = fs::path(sources_.file(module_->file).path()).parent_path();
      std::error_code ec;
      if (!fs::is_regular_file(base / *t.fixture, ec)) {
        sink_.report(DiagKind::InvalidTest, t.fixtureRange,
                     fmt::format("fixture file '{}' not found (paths are relative to this rule file)", *t.fixture));
      }
    }
    auto checkTime = [&](const ast::TestTime& at) {
      if (at.kind != ast::TestTime::Kind::Absolute && !hasStart) {
        sink_.report(DiagKind::InvalidTest, at.range,
                     "a time of day or '+offset' needs the workload's start: add 'start 2026-01-01T00:00:00Z' "
                     "to the workload block");
      }
    };
    static const std::vector<std::string> logAttributes = {"rank", "gpu", "pod", "container"};
    for (auto& line : t.logs) {
      checkTime(line.at);
      checkSource(line.source);
      for (auto& a : line.attributes) {
        if (!contains(logAttributes, a.name.text)) {
          sink_.report(DiagKind::InvalidTest, a.name.range,
                       fmt::format("a log line has no attribute '{}'{}; attributes are {}", a.name.text,
                                   didYouMean(a.name.text, logAttributes), fmt::join(logAttributes, ", ")));
        } else if (a.name.text == "rank" && a.value.kind != ast::PropertyValue::Kind::Int) {
          sink_.report(DiagKind::InvalidTest, a.value.range, "a rank is an integer");
        }
      }
    }
    for (auto& m : t.metrics) checkTime(m.at);
    if (t.expectations.empty()) {
      sink_.report(DiagKind::InvalidTest, t.nameRange, fmt::format("test \"{}\" expects nothing; add 'expect' lines", t.name));
    }
    for (auto& e : t.expectations) checkExpectation(e);
  }

  void checkExpectation(ast::Expectation& e) {
    using Arg = ast::Expectation::Arg;
    static const std::vector<std::string> keys = {"outcome", "root", "bad_nodes", "interesting_nodes", "downstream",
                                                  "family", "state", "confidence", "action", "symptom"};
    const std::string& key = e.key.text;
    auto bad = [&](const SourceRange& r, const std::string& usage) {
      sink_.report(DiagKind::InvalidTest, r, fmt::format("malformed expectation; write 'expect {}'", usage));
    };
    auto wordArg = [&](size_t i) -> const ast::PropertyValue* {
      if (i < e.args.size() && e.args[i].kind == Arg::Kind::Value &&
          (e.args[i].value.kind == ast::PropertyValue::Kind::Word || e.args[i].value.kind == ast::PropertyValue::Kind::None)) {
        return &e.args[i].value;
      }
      return nullptr;
    };
    auto symptomArg = [&](const ast::PropertyValue& v) {
      ast::QualifiedName q;
      q.range = v.range;
      size_t start = 0;
      for (size_t dot = 0; dot != std::string::npos; start = dot + 1) {
        dot = v.text.find('.', start);
        q.parts.push_back({v.text.substr(start, dot == std::string::npos ? std::string::npos : dot - start), v.range});
      }
      resolveSymptom(q);
    };
    if (!contains(keys, key)) {
      sink_.report(DiagKind::InvalidTest, e.key.range,
                   fmt::format("unknown expectation '{}'{}; expectations are {}", key, didYouMean(key, keys),
                               fmt::join(keys, ", ")));
      return;
    }
    if (key == "outcome") {
      if (e.args.empty()) return bad(e.range, "outcome NAME[, NAME...]");
      for (size_t i = 0; i < e.args.size(); ++i) {
        const auto* w = wordArg(i);
        if (!w) return bad(e.args[i].value.range, "outcome NAME");
        if (w->text == "unknown") continue;
        std::string q = w->text.find('.') == std::string::npos ? ast::qualify(module_->packageName(), w->text) : w->text;
        if (!index_.outcomes.count(q)) {
          std::vector<std::string> names;
          for (auto& [n, _] : index_.outcomes) names.push_back(n);
          sink_.report(DiagKind::UnknownName, w->range,
                       fmt::format("unknown outcome '{}'{}", w->text, didYouMean(q, names)));
        }
      }
    } else if (key == "root") {
      const auto* w = wordArg(0);
      if (!w) return bad(e.range, "root SYMPTOM [on NODE]' or 'expect root none");
      if (w->kind != ast::PropertyValue::Kind::None) symptomArg(*w);
      if (e.args.size() > 1 && (e.args[1].kind != Arg::Kind::On || e.args.size() > 2)) {
        bad(e.args[1].value.range, "root SYMPTOM on NODE");
      }
    } else if (key == "bad_nodes" || key == "interesting_nodes") {
      if (e.args.size() != 1 || e.args[0].value.kind != ast::PropertyValue::Kind::List) {
        return bad(e.range, key + " [NODE, ...]");
      }
    } else if (key == "downstream" || key == "symptom") {
      const auto* w = wordArg(0);
      if (!w) return bad(e.range, key + " SYMPTOM [count N]");
      symptomArg(*w);
      if (e.args.size() > 1) {
        const auto* c = wordArg(1);
        if (!c || c->text != "count" || e.args.size() != 3 || e.args[2].value.kind != ast::PropertyValue::Kind::Int) {
          bad(e.args[1].value.range, key + " SYMPTOM count N");
        }
      }
    } else if (key == "family") {
      for (size_t i = 0; i < e.args.size(); ++i) {
        const auto* w = wordArg(i);
        if (!w) return bad(e.range, "family NAME");
        if (!contains(failureFamilies(), w->text)) {
          sink_.report(DiagKind::InvalidValue, w->range,
                       fmt::format("'{}' is not a failure family{}", w->text, didYouMean(w->text, failureFamilies())));
        }
      }
      if (e.args.empty()) bad(e.range, "family NAME");
    } else if (key == "state") {
      const auto* w = wordArg(0);
      if (!w || e.args.size() != 1) return bad(e.range, "state FAILED");
      if (!contains(terminalStates(), w->text)) {
        sink_.report(DiagKind::InvalidValue, w->range,
                     fmt::format("'{}' is not a terminal state{}", w->text, didYouMean(w->text, terminalStates())));
      }
    } else if (key == "confidence") {
      bool ok = e.args.size() == 1 && (e.args[0].value.kind == ast::PropertyValue::Kind::Float ||
                                       e.args[0].value.kind == ast::PropertyValue::Kind::Int);
      if (!ok) bad(e.range, "confidence 0.9' or 'expect confidence >= 0.9");
    } else if (key == "action") {
      if (e.args.empty()) return bad(e.range, "action NAME[, NAME...]");
      for (size_t i = 0; i < e.args.size(); ++i) {
        const auto* w = wordArg(i);
        if (!w) return bad(e.args[i].value.range, "action NAME");
        if (!contains(knownActions(), w->text)) {
          sink_.report(DiagKind::InvalidValue, w->range,
                       fmt::format("'{}' is not an action{}", w->text, didYouMean(w->text, knownActions())));
        }
      }
    }
  }

  // ------------------------------------------------------------------ expressions

  bool expectBool(Expr& e, Scope& scope, const char* what, std::set<std::string>* usedAliases = nullptr) {
    usedAliases_ = usedAliases;
    Type t = typeOf(e, scope);
    usedAliases_ = nullptr;
    if (t.isError() || t.is(TypeKind::Bool) || t.is(TypeKind::SymptomSet)) return !t.isError();
    sink_.report(DiagKind::TypeMismatch, e.range, fmt::format("{} must be a bool, but this is a {}", what, t.name()));
    return false;
  }

  Type mismatch(const Expr& e, std::string message) {
    sink_.report(DiagKind::TypeMismatch, e.range, std::move(message));
    return Type::error();
  }

  static bool truthy(const Type& t) { return t.is(TypeKind::Bool) || t.is(TypeKind::SymptomSet); }

  Type typeOf(Expr& e, Scope& scope) {
    e.type = computeType(e, scope);
    return e.type;
  }

  // The captures any of `symptoms` may carry.
  std::set<std::string> capturesOf(const std::vector<std::string>& symptoms) {
    std::set<std::string> out;
    for (auto& q : symptoms) {
      auto it = index_.symptoms.find(q);
      if (it != index_.symptoms.end()) out.insert(it->second.captures.begin(), it->second.captures.end());
    }
    return out;
  }

  // The type of field `name` of an instance of `symptoms`; nullopt if it has no such field.
  std::optional<Type> instanceField(const std::string& name, const std::vector<std::string>& symptoms,
                                    std::optional<ast::StreamSpec::Kind> stream) {
    static const std::map<std::string, TypeKind> common = {
        {"time", TypeKind::Time}, {"node", TypeKind::String}, {"rank", TypeKind::Int}, {"gpu", TypeKind::String},
        {"symptom", TypeKind::String}, {"family", TypeKind::String}, {"source", TypeKind::String},
        {"text", TypeKind::String}};
    if (auto it = common.find(name); it != common.end()) return Type::of(it->second);
    if (stream == ast::StreamSpec::Kind::Metric || !stream) {
      if (name == "value") return Type::of(TypeKind::Float);
      if (name == "metric") return Type::of(TypeKind::String);
    }
    if (stream == ast::StreamSpec::Kind::Scheduler || !stream) {
      if (name == "state") return Type::of(TypeKind::State);
      if (name == "exit_code" || name == "signal") return Type::of(TypeKind::Int);
      if (name == "reason") return Type::of(TypeKind::String);
    }
    if (capturesOf(symptoms).count(name)) return Type::of(TypeKind::String);
    return std::nullopt;
  }

  std::vector<std::string> instanceFieldNames(const std::vector<std::string>& symptoms,
                                              std::optional<ast::StreamSpec::Kind> stream) {
    std::vector<std::string> names = {"time", "node", "rank", "gpu", "symptom", "family", "source", "text"};
    if (stream == ast::StreamSpec::Kind::Metric) names.insert(names.end(), {"value", "metric"});
    if (stream == ast::StreamSpec::Kind::Scheduler) names.insert(names.end(), {"state", "exit_code", "signal", "reason"});
    for (auto& c : capturesOf(symptoms)) names.push_back(c);
    return names;
  }

  std::optional<Type> workloadField(const std::string& name) {
    static const std::map<std::string, TypeKind> fields = {
        {"id", TypeKind::String},      {"name", TypeKind::String},    {"scheduler", TypeKind::String},
        {"user", TypeKind::String},    {"partition", TypeKind::String}, {"state", TypeKind::State},
        {"exit_code", TypeKind::Int},  {"signal", TypeKind::Int},     {"start", TypeKind::Time},
        {"end", TypeKind::Time},       {"ranks", TypeKind::Int},      {"ranks_per_node", TypeKind::Int},
        {"duration", TypeKind::Duration}, {"reason", TypeKind::String}};
    if (name == "nodes") return Type::listOf(Type::of(TypeKind::String));
    if (auto it = fields.find(name); it != fields.end()) return Type::of(it->second);
    return std::nullopt;
  }

  Type fieldOfInstance(Expr& e, const ast::Ident& field, const std::vector<std::string>& symptoms, bool rootLike,
                       const std::string& owner) {
    std::optional<ast::StreamSpec::Kind> stream;
    if (symptoms.size() == 1) {
      auto it = index_.symptoms.find(symptoms[0]);
      if (it != index_.symptoms.end() && !it->second.decl->streams.empty()) stream = it->second.decl->streams[0].kind;
    }
    if (auto t = instanceField(field.text, symptoms, rootLike ? std::nullopt : stream)) {
      e.field = field.text;
      return *t;
    }
    auto names = instanceFieldNames(symptoms, stream);
    sink_.report(DiagKind::UnknownField, field.range,
                 fmt::format("{} has no field '{}'{}", owner, field.text, didYouMean(field.text, names)))
        .note({}, fmt::format("its fields are: {}", fmt::join(names, ", ")));
    return Type::error();
  }

  Type nameType(Expr& e, Scope& scope) {
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
      return fieldOfInstance(e, parts[1], it->second, false, fmt::format("'{}'", head));
    }
    // 2. root, in outcomes
    if (head == "root" && scope.kind == Scope::Kind::Outcome) {
      e.ref = ast::NameRef::Root;
      if (parts.size() == 1) return Type::of(TypeKind::Instance);
      if (parts.size() > 2) return mismatch(e, fmt::format("'root.{}' has no fields", parts[1].text));
      std::vector<std::string> all;
      return fieldOfInstance(e, parts[1], all, true, "the root cause");
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
        static const std::vector<std::string> names = {"id", "name", "scheduler", "user", "partition", "state",
                                                       "exit_code", "signal", "start", "end", "nodes", "ranks",
                                                       "ranks_per_node", "duration", "reason"};
        sink_.report(DiagKind::UnknownField, parts[1].range,
                     fmt::format("the workload has no field '{}'{}", parts[1].text, didYouMean(parts[1].text, names)));
        return Type::error();
      }
    }
    // 4. fields of the implicit instance
    if (scope.hasImplicit && parts.size() == 1) {
      std::optional<ast::StreamSpec::Kind> stream;
      if (scope.kind == Scope::Kind::SymptomClause) stream = scope.stream;
      if (auto t = instanceField(head, scope.implicitSymptoms, stream)) {
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
    if (scope.kind == Scope::Kind::Rule || scope.kind == Scope::Kind::Outcome || scope.kind == Scope::Kind::Filter) {
      Lookup l = lookup(e.name);
      if (index_.symptoms.count(l.qualified) && l.visible) {
        used_.insert(l.qualified);
        e.ref = ast::NameRef::Symptom;
        e.symptoms = {l.qualified};
        return Type::of(TypeKind::SymptomSet);
      }
      if (index_.symptoms.count(l.qualified)) {
        reportUnknown(e.name, l, "symptom", {});
        return Type::error();
      }
    }
    std::vector<std::string> candidates = terminalStates();
    for (auto& [a, _] : scope.aliases) candidates.push_back(a);
    if (scope.kind == Scope::Kind::Outcome) candidates.push_back("root");
    candidates.push_back("workload");
    if (scope.hasImplicit) {
      auto names = instanceFieldNames(scope.implicitSymptoms,
                                      scope.kind == Scope::Kind::SymptomClause ? std::optional(scope.stream) : std::nullopt);
      candidates.insert(candidates.end(), names.begin(), names.end());
    }
    if (scope.kind != Scope::Kind::SymptomClause) {
      auto names = symptomNamesVisible();
      candidates.insert(candidates.end(), names.begin(), names.end());
    }
    std::string hint = didYouMean(e.name.str(), candidates);
    if (hint.empty() && parts.size() == 1 && contains(logSources(), head)) {
      hint = fmt::format("; log sources are strings in expressions: \"{}\"", head);
    }
    sink_.report(DiagKind::UnknownName, e.name.range, fmt::format("unknown name '{}'{}", e.name.str(), hint));
    return Type::error();
  }

  // Type of a symptom-selecting aggregate argument; pushes its alias/implicit frame for `where`.
  std::optional<std::vector<std::string>> selectorArg(ast::CallArg& a, Scope& scope) {
    if (a.selector) return expand(*a.selector);
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

  Type callType(Expr& e, Scope& scope) {
    const std::string& fn = e.name.parts[0].text;
    static const std::vector<std::string> setAggregates = {"count", "exists", "first", "last", "distinct"};
    static const std::vector<std::string> windowAggregates = {"avg", "min", "max", "sum", "rate", "delta"};
    static const std::vector<std::string> scalars = {"int", "float", "string", "abs", "len", "lower",
                                                     "contains", "starts_with", "ends_with", "min", "max"};
    bool isWindow = contains(windowAggregates, fn) && (e.over || !contains(scalars, fn));
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
                                 "last, distinct), not to {}()", fn));
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
      if (!arity(fn == "distinct" ? 2 : 1)) return Type::error();
      auto& a = e.args[0];
      auto symptoms = selectorArg(a, scope);
      if (!symptoms) return Type::error();
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
          mismatch(*a.where, fmt::format("a 'where' condition must be a bool, but this is a {}", w.name()));
        }
      }
      if (fn == "count" || fn == "distinct") {
        if (fn == "distinct") {
          auto& f = e.args[1];
          if (!f.value || f.value->kind != ExprKind::Name || f.value->name.parts.size() != 1 ||
              !instanceField(f.value->name.parts[0].text, *symptoms, std::nullopt)) {
            sink_.report(DiagKind::ArgumentMismatch, f.range,
                         "distinct() counts the distinct values of a field: distinct(SYMPTOMS, node)");
            return Type::error();
          }
          f.value->ref = ast::NameRef::Field;
          f.value->field = f.value->name.parts[0].text;
          f.value->type = *instanceField(f.value->field, *symptoms, std::nullopt);
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
                                 "symptom's 'when'", fn));
        return Type::error();
      }
      if (!e.over) {
        sink_.report(DiagKind::WindowMisuse, e.range,
                     fmt::format("{}() needs a time window: {}(value) over 5m", fn, fn));
        return Type::error();
      }
      if (*e.over <= 0) {
        sink_.report(DiagKind::WindowMisuse, e.overRange, "a window must be longer than zero");
      }
      if (!arity(1)) return Type::error();
      Type t = typeOf(*e.args[0].value, scope);
      if (!t.isError() && !t.isNumeric()) {
        return mismatch(*e.args[0].value, fmt::format("{}() over a window needs a number, not a {}", fn, t.name()));
      }
      return Type::of(TypeKind::Float);
    }

    if (!contains(scalars, fn)) {
      std::vector<std::string> all = setAggregates;
      all.insert(all.end(), windowAggregates.begin(), windowAggregates.end());
      all.insert(all.end(), scalars.begin(), scalars.end());
      sink_.report(DiagKind::UnknownFunction, e.name.parts[0].range,
                   fmt::format("unknown function '{}'{}", fn, didYouMean(fn, all)));
      for (auto& a : e.args) if (a.value) typeOf(*a.value, scope);
      return Type::error();
    }
    std::vector<Type> args;
    for (auto& a : e.args) args.push_back(a.value ? typeOf(*a.value, scope) : Type::error());
    for (auto& t : args) if (t.isError()) return Type::error();
    auto want = [&](size_t i, bool ok, const char* what) {
      if (ok) return true;
      mismatch(*e.args[i].value, fmt::format("{}() needs {}, not a {}", fn, what, args[i].name()));
      return false;
    };
    auto scalar = [](const Type& t) {
      return t.isNumeric() || t.is(TypeKind::String) || t.is(TypeKind::Bool) || t.is(TypeKind::Time) ||
             t.is(TypeKind::Duration) || t.is(TypeKind::State);
    };
    if (fn == "int" || fn == "float") {
      if (!arity(1) || !want(0, args[0].isNumeric() || args[0].is(TypeKind::String), "a number or a string")) return Type::error();
      return Type::of(fn == "int" ? TypeKind::Int : TypeKind::Float);
    }
    if (fn == "string") {
      if (!arity(1) || !want(0, scalar(args[0]), "a scalar value")) return Type::error();
      return Type::of(TypeKind::String);
    }
    if (fn == "abs") {
      if (!arity(1) || !want(0, args[0].isNumeric() || args[0].is(TypeKind::Duration), "a number or a duration")) return Type::error();
      return args[0];
    }
    if (fn == "len" || fn == "lower") {
      if (!arity(1) || !want(0, args[0].is(TypeKind::String), "a string")) return Type::error();
      return Type::of(fn == "len" ? TypeKind::Int : TypeKind::String);
    }
    if (fn == "min" || fn == "max") {
      if (!arity(2)) return Type::error();
      if (args[0].isNumeric() && args[1].isNumeric()) {
        return args[0].is(TypeKind::Float) || args[1].is(TypeKind::Float) ? Type::of(TypeKind::Float) : Type::of(TypeKind::Int);
      }
      if (args[0] == args[1] && (args[0].is(TypeKind::Time) || args[0].is(TypeKind::Duration))) return args[0];
      return mismatch(e, fmt::format("{}() of a {} and a {}: both must be numbers, times or durations", fn,
                                     args[0].name(), args[1].name()));
    }
    // contains, starts_with, ends_with
    if (!arity(2) || !want(0, args[0].is(TypeKind::String), "a string") || !want(1, args[1].is(TypeKind::String), "a string")) {
      return Type::error();
    }
    return Type::of(TypeKind::Bool);
  }

  static bool comparable(const Type& a, const Type& b) {
    if (a.isNumeric() && b.isNumeric()) return true;
    if (a.is(TypeKind::Instance) && b.is(TypeKind::None)) return true;
    if (a.is(TypeKind::None) && b.is(TypeKind::Instance)) return true;
    return a == b && !a.is(TypeKind::Workload) && !a.is(TypeKind::SymptomSet);
  }

  Type computeType(Expr& e, Scope& scope) {
    switch (e.kind) {
      case ExprKind::Int: return Type::of(TypeKind::Int);
      case ExprKind::Float: return Type::of(TypeKind::Float);
      case ExprKind::String: return Type::of(TypeKind::String);
      case ExprKind::Duration: return Type::of(TypeKind::Duration);
      case ExprKind::Time: return Type::of(TypeKind::Time);
      case ExprKind::Bool: return Type::of(TypeKind::Bool);
      case ExprKind::None: return Type::of(TypeKind::None);
      case ExprKind::Name: return nameType(e, scope);
      case ExprKind::Member: {
        Type t = typeOf(*e.operands[0], scope);
        if (t.isError()) return t;
        const ast::Ident& member = e.name.parts[0];
        if (t.is(TypeKind::Instance)) {
          return fieldOfInstance(e, member, e.operands[0]->symptoms, e.operands[0]->ref == ast::NameRef::Root,
                                 "this symptom instance");
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
                     fmt::format("a {} has no fields; '.{}' cannot apply to it", t.name(), member.text));
        return Type::error();
      }
      case ExprKind::Negate: {
        Type t = typeOf(*e.operands[0], scope);
        if (t.isError() || t.isNumeric() || t.is(TypeKind::Duration)) return t;
        return mismatch(e, fmt::format("'-' negates numbers and durations, not a {}", t.name()));
      }
      case ExprKind::Not: {
        Type t = typeOf(*e.operands[0], scope);
        if (t.isError()) return t;
        if (!truthy(t)) return mismatch(*e.operands[0], fmt::format("'not' needs a bool, but this is a {}", t.name()));
        return Type::of(TypeKind::Bool);
      }
      case ExprKind::Binary: return binaryType(e, scope);
      case ExprKind::In: return inType(e, scope);
      case ExprKind::RegexMatch: {
        Type t = typeOf(*e.operands[0], scope);
        checkRegexLiteral(*e.regex, false);
        if (t.isError()) return t;
        if (!t.is(TypeKind::String)) {
          return mismatch(*e.operands[0], fmt::format("'{}' matches strings, but this is a {}", e.negated ? "!~" : "=~", t.name()));
        }
        return Type::of(TypeKind::Bool);
      }
      case ExprKind::Is: {
        Type t = typeOf(*e.operands[0], scope);
        if (!e.isNone) {
          auto symptoms = expand(*e.selector);
          if (!symptoms) return Type::error();
          e.symptoms = *symptoms;
        }
        if (t.isError()) return t;
        if (!t.is(TypeKind::Instance)) {
          return mismatch(*e.operands[0], fmt::format("'is' tests a symptom instance (such as root), not a {}", t.name()));
        }
        return Type::of(TypeKind::Bool);
      }
      case ExprKind::Call: return callType(e, scope);
      case ExprKind::List: {
        Type element = Type::error();
        for (auto& op : e.operands) {
          Type t = typeOf(*op, scope);
          if (t.isError()) continue;
          if (element.isError()) { element = t; continue; }
          if (element.isNumeric() && t.isNumeric()) {
            if (t.is(TypeKind::Float)) element = t;
            continue;
          }
          if (!(element == t)) {
            return mismatch(*op, fmt::format("list elements must have one type: this is a {}, earlier ones are {}",
                                             t.name(), element.name()));
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
                                   "'[start, end]'", a.name(), b.name()));
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
        if (usedAliases_) for (auto& [a, _] : scope.aliases) usedAliases_->insert(a);
        return Type::of(TypeKind::Bool);
      }
    }
    return Type::error();
  }

  Type binaryType(Expr& e, Scope& scope) {
    using ast::BinaryOp;
    Type a = typeOf(*e.operands[0], scope);
    Type b = typeOf(*e.operands[1], scope);
    if (a.isError() || b.isError()) return Type::error();
    const char* op = ast::spelling(e.op);
    auto bad = [&] {
      return mismatch(e, fmt::format("'{}' cannot combine a {} and a {}", op, a.name(), b.name()));
    };
    switch (e.op) {
      case BinaryOp::And: case BinaryOp::Or:
        if (!truthy(a)) return mismatch(*e.operands[0], fmt::format("'{}' needs bools, but this is a {}", op, a.name()));
        if (!truthy(b)) return mismatch(*e.operands[1], fmt::format("'{}' needs bools, but this is a {}", op, b.name()));
        return Type::of(TypeKind::Bool);
      case BinaryOp::Eq: case BinaryOp::Ne:
        if (!comparable(a, b)) {
          return mismatch(e, fmt::format("cannot compare a {} with a {}", a.name(), b.name()));
        }
        return Type::of(TypeKind::Bool);
      case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge:
        if ((a.isNumeric() && b.isNumeric()) || (a == b && (a.is(TypeKind::Time) || a.is(TypeKind::Duration) ||
                                                            a.is(TypeKind::String)))) {
          return Type::of(TypeKind::Bool);
        }
        return mismatch(e, fmt::format("cannot order a {} and a {} with '{}'", a.name(), b.name(), op));
      case BinaryOp::Add:
        if (a.isNumeric() && b.isNumeric()) return a.is(TypeKind::Float) || b.is(TypeKind::Float) ? Type::of(TypeKind::Float) : a;
        if (a.is(TypeKind::Time) && b.is(TypeKind::Duration)) return a;
        if (a.is(TypeKind::Duration) && b.is(TypeKind::Time)) return b;
        if (a.is(TypeKind::Duration) && b.is(TypeKind::Duration)) return a;
        return bad();
      case BinaryOp::Sub:
        if (a.isNumeric() && b.isNumeric()) return a.is(TypeKind::Float) || b.is(TypeKind::Float) ? Type::of(TypeKind::Float) : a;
        if (a.is(TypeKind::Time) && b.is(TypeKind::Duration)) return a;
        if (a.is(TypeKind::Time) && b.is(TypeKind::Time)) return Type::of(TypeKind::Duration);
        if (a.is(TypeKind::Duration) && b.is(TypeKind::Duration)) return a;
        return bad();
      case BinaryOp::Mul:
        if (a.isNumeric() && b.isNumeric()) return a.is(TypeKind::Float) || b.is(TypeKind::Float) ? Type::of(TypeKind::Float) : a;
        if (a.is(TypeKind::Duration) && b.isNumeric()) return a;
        if (a.isNumeric() && b.is(TypeKind::Duration)) return b;
        return bad();
      case BinaryOp::Div:
        if (a.isNumeric() && b.isNumeric()) return a.is(TypeKind::Float) || b.is(TypeKind::Float) ? Type::of(TypeKind::Float) : a;
        if (a.is(TypeKind::Duration) && b.isNumeric()) return a;
        if (a.is(TypeKind::Duration) && b.is(TypeKind::Duration)) return Type::of(TypeKind::Float);
        return bad();
      case BinaryOp::Mod:
        if (a.is(TypeKind::Int) && b.is(TypeKind::Int)) return a;
        return mismatch(e, fmt::format("'%' takes two integers, not a {} and a {}", a.name(), b.name()));
    }
    return Type::error();
  }

  Type inType(Expr& e, Scope& scope) {
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
        return mismatch(rhs, fmt::format("the bounds of this interval are {}s, but the value is a {}", b.element().name(), a.name()));
      }
      return Type::of(TypeKind::Bool);
    }
    if (b.is(TypeKind::Range)) {
      if (!a.is(TypeKind::Int)) return mismatch(*e.operands[0], fmt::format("an integer range holds integers, not a {}", a.name()));
      return Type::of(TypeKind::Bool);
    }
    if (b.is(TypeKind::List)) {
      if (b.element().isError()) return Type::of(TypeKind::Bool);  // empty list
      if (!comparable(a, b.element())) {
        return mismatch(e, fmt::format("a {} cannot be in a {}", a.name(), b.name()));
      }
      return Type::of(TypeKind::Bool);
    }
    return mismatch(rhs, fmt::format("'in' needs a list, a range [a .. b] or an interval [start, end], not a {}", b.name()));
  }

  // A canonical text of an expression, for detecting identical conditions.
  static std::string canonical(const Expr& e) {
    std::string out = fmt::format("({}", static_cast<int>(e.kind));
    switch (e.kind) {
      case ExprKind::Int: case ExprKind::Duration: case ExprKind::Time: out += fmt::format(" {}", e.intValue); break;
      case ExprKind::Float: out += fmt::format(" {}", e.floatValue); break;
      case ExprKind::String: out += " \"" + e.text + "\""; break;
      case ExprKind::Bool: out += e.boolValue ? " true" : " false"; break;
      case ExprKind::Name: case ExprKind::Member: case ExprKind::Call: case ExprKind::Same: out += " " + e.name.str(); break;
      case ExprKind::Binary: out += std::string(" ") + ast::spelling(e.op); break;
      case ExprKind::Is: out += e.isNone ? " none" : " " + e.selector->str(); break;
      case ExprKind::RegexMatch: out += " /" + e.regex->pattern + "/" + e.regex->flags; break;
      default: break;
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

  // ------------------------------------------------------------------ whole program

  void warnUnusedSymptoms() {
    for (auto& [q, info] : index_.symptoms) {
      if (info.role == SymptomRole::Cause || used_.count(q) || info.decl->broken) continue;
      sink_.report(DiagKind::UnusedSymptom, info.decl->name.range,
                   fmt::format("{} symptom '{}' is never used: it cannot be a root cause, and no rule, filter, "
                               "outcome or test refers to it", info.role == SymptomRole::Consequence ? "consequence" : "context",
                               q));
    }
  }

  const SourceManager& sources_;
  DiagnosticSink& sink_;
  ProgramIndex index_;
  std::map<std::string, SourceRange> firstDefinition_;
  std::map<const ast::Module*, std::vector<ImportState>> imports_;
  std::set<std::string> used_;
  std::map<std::string, const ast::RuleDecl*> ruleKeys_;
  std::map<std::string, const ast::OutcomeDecl*> outcomeKeys_;
  const ast::Module* module_ = nullptr;
  std::set<std::string>* usedAliases_ = nullptr;
};

}  // namespace

ProgramIndex checkProgram(const std::vector<ast::Module*>& modules, const SourceManager& sources,
                          DiagnosticSink& diagnostics) {
  Checker checker(sources, diagnostics);
  return checker.run(modules);
}

}  // namespace attrib
