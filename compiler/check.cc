#include "compiler/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "compiler/check_internal.h"
#include "compiler/regex_check.h"
#include "compiler/vocabulary.h"

namespace attrib::check_detail {

using ast::Expr;
using ast::ExprKind;

ProgramIndex Checker::run(const std::vector<ast::Module*>& modules) {
  for (auto* m : modules) declare(*m);
  for (auto* m : modules) {
    names_.setModule(m);
    names_.checkImports(*m);
  }
  resolveChanges(modules);
  for (auto* m : modules) {
    names_.setModule(m);
    for (auto& decl : m->declarations) {
      std::visit(
          [&](auto& d) {
            if (!d.broken && !skipped(d)) checkDecl(d);
          },
          decl);
    }
  }
  // A declaration with a syntax error was not checked, so what it would have used is unknown:
  // "unused" warnings would be guesses.
  bool anyBroken = false;
  for (auto* m : modules) {
    for (auto& decl : m->declarations) anyBroken |= std::visit([](auto& d) { return d.broken; }, decl);
  }
  if (!anyBroken) {
    names_.reportUnusedImports(modules);
    warnUnusedSymptoms();
  }
  return std::move(index_);
}

void Checker::declareName(const std::string& qualified, const ast::Ident& name) {
  auto [it, inserted] = firstDefinition_.emplace(qualified, name.range);
  if (!inserted) {
    sink_.report(DiagKind::DuplicateDeclaration, name.range, fmt::format("redefinition of '{}'", qualified))
        .note(it->second, fmt::format("'{}' was first defined here", qualified));
  }
}

SymptomInfo Checker::symptomInfo(const ast::SymptomDecl& s, const ast::Module& m, const std::string& q,
                                 const std::string& package) {
  SymptomInfo info;
  info.decl = &s;
  info.module = &m;
  info.qualifiedName = q;
  info.package = package;
  info.role = roleOf(s);
  for (auto& re : s.matches) {
    RegexInfo ri = checkRegex(re.pattern, re.flags, true);
    info.captures.insert(ri.captures.begin(), ri.captures.end());
  }
  // A derived symptom's lets are the captures of its instances.
  for (auto& let : s.lets) info.captures.insert(let.name.text);
  return info;
}

void Checker::declare(ast::Module& m) {
  std::string pkg = m.packageName();
  index_.packages.insert(pkg);
  std::map<std::string, SourceRange> testNames;
  auto declared = [&](const std::string& q, const ast::Ident& name) {
    declareName(q, name);
    index_.files.emplace(q, m.file);
    modules_.emplace(q, &m);
    originals_.emplace(q, name.range);
  };
  for (auto& decl : m.declarations) {
    // Overrides and disables name what they change; they declare nothing (resolveChanges).
    bool change = std::visit([](auto& d) { return changesLowerLayer(d); }, decl);
    if (change) {
      changes_.push_back({&m, &decl});
      continue;
    }
    if (auto* s = std::get_if<ast::SymptomDecl>(&decl)) {
      std::string q = ast::qualify(pkg, s->name.text);
      declared(q, s->name);
      if (!index_.symptoms.count(q)) index_.symptoms.emplace(q, symptomInfo(*s, m, q, pkg));
    } else if (auto* f = std::get_if<ast::FilterDecl>(&decl)) {
      std::string q = ast::qualify(pkg, f->name.text);
      declared(q, f->name);
      index_.filters.emplace(q, f);
    } else if (auto* r = std::get_if<ast::RuleDecl>(&decl)) {
      std::string q = ast::qualify(pkg, r->name.text);
      declared(q, r->name);
      index_.rules.emplace(q, r);
    } else if (auto* o = std::get_if<ast::OutcomeDecl>(&decl)) {
      std::string q = ast::qualify(pkg, o->name.text);
      declared(q, o->name);
      index_.outcomes.emplace(q, o);
    } else if (auto* t = std::get_if<ast::TestDecl>(&decl)) {
      auto [it, inserted] = testNames.emplace(t->name, t->nameRange);
      if (!inserted) {
        sink_
            .report(DiagKind::DuplicateDeclaration, t->nameRange,
                    fmt::format("a second test named \"{}\" in this file", t->name))
            .note(it->second, "the first test with this name is here");
      }
    }
  }
}

namespace {

const char* kindOf(const ast::Declaration& decl) {
  if (std::holds_alternative<ast::SymptomDecl>(decl)) return "symptom";
  if (std::holds_alternative<ast::FilterDecl>(decl)) return "filter";
  if (std::holds_alternative<ast::RuleDecl>(decl)) return "rule";
  if (std::holds_alternative<ast::OutcomeDecl>(decl)) return "outcome";
  if (auto* d = std::get_if<ast::DisableDecl>(&decl)) return ast::kindName(d->kind);
  return "test";
}

}  // namespace

std::string Checker::kindOfName(const std::string& q) const {
  if (index_.symptoms.count(q)) return "symptom";
  if (index_.filters.count(q)) return "filter";
  if (index_.rules.count(q)) return "rule";
  if (index_.outcomes.count(q)) return "outcome";
  return "";
}

// Overrides and disables, lowest layer first, so a team's change lands on the site's. Each must
// name, visibly, a declaration of its kind from a lower layer, and a layer changes a name once.
void Checker::resolveChanges(const std::vector<ast::Module*>& modules) {
  std::stable_sort(changes_.begin(), changes_.end(),
                   [](const PendingChange& a, const PendingChange& b) { return a.module->layer < b.module->layer; });
  struct Last {
    size_t layer;
    SourceRange range;
  };
  std::map<std::string, Last> lastChange;
  for (auto& c : changes_) {
    names_.setModule(c.module);
    std::string kind = kindOf(*c.decl);
    auto* disable = std::get_if<ast::DisableDecl>(c.decl);
    ast::OverrideOf* override = disable ? nullptr : std::visit([](auto& d) { return overrideOf(d); }, *c.decl);
    const ast::QualifiedName& target = disable ? disable->target : override->target;
    SourceRange where = disable ? disable->range : target.range;
    const char* verb = disable ? "disable" : "override";
    NameResolver::Lookup l = names_.lookup(target);
    std::string actual = kindOfName(l.qualified);
    if (actual.empty()) {
      std::vector<std::string> candidates;
      for (auto& [q, m] : modules_) {
        if (m->layer < c.module->layer && kindOfName(q) == kind) candidates.push_back(q);
      }
      std::string suggestion = closestMatch(l.qualified, candidates);
      auto& d = sink_.report(DiagKind::UnknownOverride, target.range,
                             fmt::format("cannot {} {} '{}': no lower layer declares one{}", verb, kind, target.str(),
                                         didYouMean(l.qualified, candidates)));
      if (!suggestion.empty()) d.fix(target.range, suggestion, false);
      continue;
    }
    if (actual != kind) {
      sink_
          .report(DiagKind::UnknownOverride, target.range,
                  fmt::format("cannot {} {} '{}': '{}' is {} {}", verb, kind, target.str(), l.qualified,
                              actual == "outcome" ? "an" : "a", actual))
          .note(originals_.at(l.qualified), fmt::format("the {} is declared here", actual));
      continue;
    }
    if (!l.visible) {
      sink_
          .report(DiagKind::PackageNotImported, target.range,
                  fmt::format("'{}' is in package '{}', which this file does not import", target.str(), l.package))
          .note({}, fmt::format("add 'import {}' after the package line", l.package));
      continue;
    }
    const ast::Module* original = modules_.at(l.qualified);
    if (original->layer >= c.module->layer) {
      sink_
          .report(DiagKind::UnknownOverride, target.range,
                  fmt::format("cannot {} {} '{}': it is declared in the same rule set, not a lower layer; change "
                              "it there",
                              verb, kind, l.qualified))
          .note(originals_.at(l.qualified), fmt::format("'{}' is declared here", l.qualified));
      continue;
    }
    auto [it, first] = lastChange.try_emplace(l.qualified, Last{c.module->layer, where});
    if (!first && it->second.layer == c.module->layer) {
      sink_.report(DiagKind::DuplicateDeclaration, where, fmt::format("'{}' is changed twice in this layer", l.qualified))
          .note(it->second.range, "the first override or disable is here");
      continue;
    }
    it->second = {c.module->layer, where};
    index_.changes.push_back({l.qualified, kind, disable != nullptr, c.module->file, where, c.module->layer});
    if (disable) {
      disable->qualified = l.qualified;
      index_.disabled.insert(l.qualified);
      continue;
    }
    override->qualified = l.qualified;
    index_.disabled.erase(l.qualified);
    index_.files[l.qualified] = c.module->file;
    std::visit([&](auto& d) { replaceWith(l.qualified, d, *c.module); }, *c.decl);
  }
}

void Checker::replaceWith(const std::string& q, ast::SymptomDecl& s, const ast::Module& m) {
  SymptomInfo& info = index_.symptoms.at(q);
  index_.replaced.insert(info.decl);
  info = symptomInfo(s, m, q, info.package);
}

void Checker::replaceWith(const std::string& q, ast::FilterDecl& f, const ast::Module&) {
  index_.replaced.insert(index_.filters.at(q));
  index_.filters[q] = &f;
}

void Checker::replaceWith(const std::string& q, ast::RuleDecl& r, const ast::Module&) {
  index_.replaced.insert(index_.rules.at(q));
  index_.rules[q] = &r;
}

void Checker::replaceWith(const std::string& q, ast::OutcomeDecl& o, const ast::Module&) {
  index_.replaced.insert(index_.outcomes.at(q));
  index_.outcomes[q] = &o;
}

SymptomRole Checker::roleOf(const ast::SymptomDecl& s) {
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

void Checker::warnUnusedSymptoms() {
  for (auto& [q, info] : index_.symptoms) {
    if (info.role == SymptomRole::Cause || names_.isUsed(q) || info.decl->broken) continue;
    sink_.report(DiagKind::UnusedSymptom, info.decl->name.range,
                 fmt::format("{} symptom '{}' is never used: it cannot be a root cause, and no rule, filter, "
                             "outcome or test refers to it",
                             info.role == SymptomRole::Consequence ? "consequence" : "context", q));
  }
}
}  // namespace attrib::check_detail

namespace attrib {

std::string declaredName(const ast::Module& module, const ast::Declaration& decl) {
  return std::visit(
      [&](const auto& d) -> std::string {
        using D = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<D, ast::TestDecl> || std::is_same_v<D, ast::DisableDecl>) {
          return "";
        } else {
          if (d.overrides) return d.overrides->qualified;
          return ast::qualify(module.packageName(), d.name.text);
        }
      },
      decl);
}

ProgramIndex checkProgram(const std::vector<ast::Module*>& modules, const SourceManager& sources,
                          DiagnosticSink& diagnostics) {
  check_detail::Checker checker(sources, diagnostics);
  return checker.run(modules);
}

}  // namespace attrib
