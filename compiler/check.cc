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
  for (auto* m : modules) {
    names_.setModule(m);
    for (auto& decl : m->declarations) {
      std::visit(
          [&](auto& d) {
            if (!d.broken) checkDecl(d);
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

void Checker::declare(ast::Module& m) {
  std::string pkg = m.packageName();
  index_.packages.insert(pkg);
  std::map<std::string, SourceRange> testNames;
  for (auto& decl : m.declarations) {
    if (auto* s = std::get_if<ast::SymptomDecl>(&decl)) {
      std::string q = ast::qualify(pkg, s->name.text);
      declareName(q, s->name);
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
        // A derived symptom's lets are the captures of its instances.
        for (auto& let : s->lets) info.captures.insert(let.name.text);
        index_.symptoms.emplace(q, std::move(info));
      }
    } else if (auto* f = std::get_if<ast::FilterDecl>(&decl)) {
      std::string q = ast::qualify(pkg, f->name.text);
      declareName(q, f->name);
      index_.filters.emplace(q, f);
    } else if (auto* r = std::get_if<ast::RuleDecl>(&decl)) {
      std::string q = ast::qualify(pkg, r->name.text);
      declareName(q, r->name);
      index_.rules.emplace(q, r);
    } else if (auto* o = std::get_if<ast::OutcomeDecl>(&decl)) {
      std::string q = ast::qualify(pkg, o->name.text);
      declareName(q, o->name);
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

ProgramIndex checkProgram(const std::vector<ast::Module*>& modules, const SourceManager& sources,
                          DiagnosticSink& diagnostics) {
  check_detail::Checker checker(sources, diagnostics);
  return checker.run(modules);
}

}  // namespace attrib
