#include "compiler/symbols.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <tuple>

namespace attrib {
namespace {

using ast::Expr;
using ast::ExprKind;

class Collector {
 public:
  explicit Collector(const Compilation& c) : c_(c), index_(c.index()) {}

  std::vector<SymbolRef> run() {
    for (const auto& p : c_.parsed()) {
      if (c_.isActive(p.module->file)) module(*p.module);
    }
    std::sort(out_.begin(), out_.end(), [](const SymbolRef& a, const SymbolRef& b) {
      return std::tie(a.range.file, a.range.begin, b.range.end) < std::tie(b.range.file, b.range.begin, a.range.end);
    });
    return std::move(out_);
  }

 private:
  void add(const SourceRange& range, const std::string& target, SymbolKind kind, bool declaration = false) {
    if (range.valid() && !target.empty()) out_.push_back({range, target, kind, declaration});
  }

  void module(const ast::Module& m) {
    module_ = &m;
    for (const auto& imp : m.imports) add(imp.package.range, imp.package.str(), SymbolKind::Package);
    if (m.package) add(m.package->range, m.package->str(), SymbolKind::Package, true);
    for (const auto& decl : m.declarations) {
      std::visit([&](const auto& d) { declaration(d); }, decl);
    }
  }

  template <typename D>
  void named(const D& d, SymbolKind kind) {
    if (d.overrides) add(d.overrides->target.range, d.overrides->qualified, kind, true);
    else add(d.name.range, ast::qualify(module_->packageName(), d.name.text), kind, true);
  }

  void declaration(const ast::SymptomDecl& s) {
    named(s, SymbolKind::Symptom);
    if (s.when) expr(*s.when);
    for (const auto& let : s.lets) {
      if (let.value) expr(*let.value);
    }
  }
  void declaration(const ast::FilterDecl& f) {
    named(f, SymbolKind::Filter);
    for (const auto& st : f.statements) {
      for (const auto& t : st.targets) {
        if (t.kind != ast::Selector::Kind::Name) continue;
        // The statement keeps the union of its targets' symptoms: find the one this names.
        std::string written = t.name.str(), found;
        int matches = 0;
        for (const auto& q : st.symptoms) {
          if (q == written || (q.size() > written.size() && q.compare(q.size() - written.size(), written.size(), written) == 0 &&
                               q[q.size() - written.size() - 1] == '.')) {
            found = q;
            ++matches;
          }
        }
        if (matches == 1) add(t.range, found, SymbolKind::Symptom);
      }
      if (st.where) expr(*st.where);
    }
  }
  void declaration(const ast::RuleDecl& r) {
    named(r, SymbolKind::Rule);
    for (const auto& b : r.bindings) {
      if (b.selector.kind == ast::Selector::Kind::Name && b.symptoms.size() == 1) {
        add(b.selector.range, b.symptoms[0], SymbolKind::Symptom);
      }
    }
    if (r.where) expr(*r.where);
  }
  void declaration(const ast::OutcomeDecl& o) {
    named(o, SymbolKind::Outcome);
    if (o.when) expr(*o.when);
  }
  void declaration(const ast::DisableDecl& d) {
    SymbolKind kind = d.kind == ast::DisableDecl::Kind::Symptom  ? SymbolKind::Symptom
                      : d.kind == ast::DisableDecl::Kind::Filter ? SymbolKind::Filter
                      : d.kind == ast::DisableDecl::Kind::Rule   ? SymbolKind::Rule
                                                                 : SymbolKind::Outcome;
    add(d.target.range, d.qualified, kind);
  }
  void declaration(const ast::TestDecl& t) {
    for (const auto& e : t.expectations) {
      const std::string& key = e.key.text;
      bool outcome = key == "outcome";
      if (!outcome && key != "root" && key != "downstream" && key != "symptom") continue;
      for (size_t i = 0; i < e.args.size() && (outcome || i == 0); ++i) {
        const auto& v = e.args[i].value;
        if (v.kind != ast::PropertyValue::Kind::Word) continue;
        std::string q = outcome ? resolve(v.text, index_.outcomes) : resolve(v.text, index_.symptoms);
        add(v.range, q, outcome ? SymbolKind::Outcome : SymbolKind::Symptom);
      }
    }
  }

  // A test names declarations as its run does (tools/attribc/rule_tests.cc): qualified, in the
  // test's package, through an import alias, or by a unique suffix.
  template <typename Map>
  std::string resolve(const std::string& name, const Map& known) const {
    if (known.count(name)) return name;
    if (std::string local = ast::qualify(module_->packageName(), name); known.count(local)) return local;
    for (const auto& imp : module_->imports) {
      std::string alias = imp.alias ? imp.alias->text : imp.package.parts.back().text;
      if (name.rfind(alias + ".", 0) == 0) {
        std::string q = imp.package.str() + name.substr(alias.size());
        if (known.count(q)) return q;
      }
    }
    std::string found;
    for (const auto& [q, _] : known) {
      if (q.size() > name.size() && q.compare(q.size() - name.size(), name.size(), name) == 0 &&
          q[q.size() - name.size() - 1] == '.') {
        if (!found.empty()) return "";
        found = q;
      }
    }
    return found;
  }

  void expr(const Expr& e) {
    if (e.kind == ExprKind::Name && e.ref == ast::NameRef::Symptom && e.symptoms.size() == 1) {
      add(e.range, e.symptoms[0], SymbolKind::Symptom);
    }
    if (e.kind == ExprKind::Is && e.selector && e.selector->kind == ast::Selector::Kind::Name && e.symptoms.size() == 1) {
      add(e.selector->range, e.symptoms[0], SymbolKind::Symptom);
    }
    for (const auto& op : e.operands) {
      if (op) expr(*op);
    }
    for (const auto& a : e.args) {
      if (a.value) expr(*a.value);
      if (a.where) expr(*a.where);
    }
  }

  const Compilation& c_;
  const ProgramIndex& index_;
  const ast::Module* module_ = nullptr;
  std::vector<SymbolRef> out_;
};

template <typename D>
SourceRange nameRange(const D& d) {
  return d.overrides ? d.overrides->target.range : d.name.range;
}

const std::vector<ast::Property>* propertiesOf(const ProgramIndex& index, SymbolKind kind, const std::string& q) {
  switch (kind) {
    case SymbolKind::Symptom:
      if (auto it = index.symptoms.find(q); it != index.symptoms.end()) return &it->second.decl->properties;
      break;
    case SymbolKind::Outcome:
      if (auto it = index.outcomes.find(q); it != index.outcomes.end()) return &it->second->properties;
      break;
    case SymbolKind::Rule:
      if (auto it = index.rules.find(q); it != index.rules.end()) return &it->second->properties;
      break;
    case SymbolKind::Filter:
      if (auto it = index.filters.find(q); it != index.filters.end()) return &it->second->properties;
      break;
    case SymbolKind::Package:
      break;
  }
  return nullptr;
}

std::vector<std::string> values(const std::vector<ast::Property>& props, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& p : props) {
    if (p.name.text != name) continue;
    for (const auto& v : p.values) out.push_back(v.kind == ast::PropertyValue::Kind::None ? "none" : v.text);
  }
  return out;
}

std::string first(const std::vector<ast::Property>& props, const std::string& name) {
  auto v = values(props, name);
  return v.empty() ? "" : v[0];
}

}  // namespace

std::vector<SymbolRef> collectSymbols(const Compilation& compilation) { return Collector(compilation).run(); }

std::optional<SymbolRef> symbolAt(const std::vector<SymbolRef>& symbols, FileId file, uint32_t offset) {
  std::optional<SymbolRef> best;
  for (const auto& s : symbols) {
    if (s.range.file != file || offset < s.range.begin || offset > s.range.end) continue;
    if (!best || s.range.end - s.range.begin < best->range.end - best->range.begin) best = s;
  }
  return best;
}

std::optional<SourceRange> definitionOf(const Compilation& c, SymbolKind kind, const std::string& q) {
  const ProgramIndex& index = c.index();
  switch (kind) {
    case SymbolKind::Symptom:
      if (auto it = index.symptoms.find(q); it != index.symptoms.end()) return nameRange(*it->second.decl);
      break;
    case SymbolKind::Outcome:
      if (auto it = index.outcomes.find(q); it != index.outcomes.end()) return nameRange(*it->second);
      break;
    case SymbolKind::Rule:
      if (auto it = index.rules.find(q); it != index.rules.end()) return nameRange(*it->second);
      break;
    case SymbolKind::Filter:
      if (auto it = index.filters.find(q); it != index.filters.end()) return nameRange(*it->second);
      break;
    case SymbolKind::Package: {
      const ast::Module* found = nullptr;
      for (const auto* m : c.declarationOrder()) {
        if (m->package && m->packageName() == q &&
            (!found || c.sources().file(m->file).path() < c.sources().file(found->file).path())) {
          found = m;
        }
      }
      if (found) return found->package->range;
      break;
    }
  }
  return std::nullopt;
}

std::string describeSymbol(const Compilation& c, SymbolKind kind, const std::string& q) {
  const ProgramIndex& index = c.index();
  if (kind == SymbolKind::Package) {
    size_t files = 0;
    for (const auto* m : c.declarationOrder()) files += m->packageName() == q ? 1 : 0;
    return files ? fmt::format("**package `{}`**: {} file{}", q, files, files == 1 ? "" : "s") : "";
  }
  const std::vector<ast::Property>* props = propertiesOf(index, kind, q);
  if (!props) return "";
  static const char* const kKinds[] = {"symptom", "filter", "rule", "outcome", "package"};
  std::optional<std::string> title;
  switch (kind) {
    case SymbolKind::Symptom: title = index.symptoms.at(q).decl->title; break;
    case SymbolKind::Outcome: title = index.outcomes.at(q)->title; break;
    case SymbolKind::Rule: title = index.rules.at(q)->title; break;
    case SymbolKind::Filter: title = index.filters.at(q)->title; break;
    case SymbolKind::Package: break;
  }
  if (!title && !first(*props, "title").empty()) title = first(*props, "title");
  std::string out = fmt::format("**{} `{}`**", kKinds[static_cast<int>(kind)], q);
  if (title) out += ": " + *title;
  if (std::string d = first(*props, "description"); !d.empty()) out += "\n\n" + d;
  std::vector<std::string> facts;
  if (kind == SymbolKind::Symptom) {
    const SymptomInfo& info = index.symptoms.at(q);
    static const char* const kRoles[] = {"cause", "consequence", "context"};
    facts.push_back("family " + first(*props, "family"));
    facts.push_back(std::string("role ") + kRoles[static_cast<int>(info.role)]);
    if (std::string s = first(*props, "severity"); !s.empty()) facts.push_back("severity " + s);
    if (std::string b = first(*props, "blame"); !b.empty()) facts.push_back("blame " + b);
  } else if (kind == SymbolKind::Outcome) {
    facts.push_back("family " + first(*props, "family"));
    if (std::string conf = first(*props, "confidence"); !conf.empty()) facts.push_back("confidence " + conf);
  } else if (kind == SymbolKind::Rule) {
    if (std::string phase = first(*props, "phase"); !phase.empty()) facts.push_back("phase " + phase);
  }
  if (auto actions = values(*props, "action"); !actions.empty()) {
    facts.push_back(fmt::format("action {}", fmt::join(actions, ", ")));
  }
  if (index.disabled.count(q)) facts.push_back("disabled by a higher layer");
  if (!facts.empty()) out += fmt::format("\n\n{}", fmt::join(facts, " · "));
  for (const auto& r : values(*props, "ref")) out += "\n\n" + r;
  if (auto it = index.files.find(q); it != index.files.end()) {
    const SourceFile& f = c.sources().file(it->second);
    out += fmt::format("\n\n*{}*", f.path());
  }
  return out;
}

}  // namespace attrib
