#include <fmt/format.h>

#include <algorithm>

#include "compiler/check_internal.h"
#include "compiler/vocabulary.h"

namespace attrib::check_detail {

void NameResolver::reportUnusedImports(const std::vector<ast::Module*>& modules) {
  for (auto* m : modules) {
    for (auto& imp : imports_[m]) {
      if (!imp.used) {
        sink_.report(DiagKind::UnusedImport, imp.import->range,
                     fmt::format("package '{}' is imported but never used", imp.import->package.str()));
      }
    }
  }
}

void NameResolver::checkImports(ast::Module& m) {
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
        sink_
            .report(DiagKind::DuplicateImport, imp.range,
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

namespace {

// Whether package `p` is `base` or below it (`std.nccl` is under `std`).
bool under(const std::string& p, const std::string& base) {
  return p == base || (p.size() > base.size() && p.compare(0, base.size(), base) == 0 && p[base.size()] == '.');
}

}  // namespace

bool NameResolver::visiblePackage(const std::string& package) {
  const std::string own = module_->packageName();
  if (own.empty() ? package.empty() : under(package, own)) return true;
  for (auto& imp : imports_[module_]) {
    if (under(package, imp.import->package.str())) {
      imp.used = true;
      return true;
    }
  }
  return false;
}

NameResolver::Lookup NameResolver::lookup(const ast::QualifiedName& name) {
  std::string own = module_->packageName();
  if (name.parts.size() == 1) return {ast::qualify(own, name.parts[0].text), true, own};
  std::string last = name.parts.back().text;
  // Through an import alias: `nccl.watchdog_timeout` with `import std.nccl`.
  for (auto& imp : imports_[module_]) {
    if (name.parts[0].text != imp.alias) continue;
    std::string pkg = imp.import->package.str();
    for (size_t i = 1; i + 1 < name.parts.size(); ++i) pkg += "." + name.parts[i].text;
    std::string q = pkg + "." + last;
    // Written through the alias, the import is used, even when the name is misspelt (which is
    // reported as unknown; "unused import" on top would send the author the wrong way).
    imp.used = true;
    if (exists(q)) return {q, true, pkg};
  }
  std::string prefix;
  for (size_t i = 0; i + 1 < name.parts.size(); ++i) prefix += (i ? "." : "") + name.parts[i].text;
  return {prefix + "." + last, visiblePackage(prefix), prefix};
}

bool NameResolver::exists(const std::string& q) const {
  return index_.symptoms.count(q) || index_.outcomes.count(q) || index_.rules.count(q) || index_.filters.count(q);
}

std::vector<std::string> NameResolver::symptomNamesVisible() const {
  std::vector<std::string> out;
  std::string own = module_->packageName();
  for (auto& [q, info] : index_.symptoms) {
    out.push_back(q);
    if (info.package == own) out.push_back(info.decl->name.text);
  }
  return out;
}

std::optional<std::string> NameResolver::resolveSymptom(const ast::QualifiedName& name, bool report) {
  Lookup l = lookup(name);
  if (!index_.symptoms.count(l.qualified)) {
    if (report) reportUnknown(name, l, "symptom", symptomNamesVisible());
    return std::nullopt;
  }
  if (!l.visible) {
    if (report) {
      sink_
          .report(DiagKind::PackageNotImported, name.range,
                  fmt::format("'{}' is in package '{}', which this file does not import", name.str(), l.package))
          .note({}, fmt::format("add 'import {}' after the package line", l.package));
    }
    return std::nullopt;
  }
  used_.insert(l.qualified);
  return l.qualified;
}

void NameResolver::reportUnknown(const ast::QualifiedName& name, const Lookup& l, const char* what,
                                 const std::vector<std::string>& candidates) {
  if (exists(l.qualified) && !l.visible) {
    sink_.report(DiagKind::PackageNotImported, name.range,
                 fmt::format("'{}' is in package '{}', which this file does not import", name.str(), l.package));
    return;
  }
  sink_.report(DiagKind::UnknownName, name.range,
               fmt::format("unknown {} '{}'{}", what, name.str(), didYouMean(name.str(), candidates)));
}

std::optional<std::vector<std::string>> NameResolver::expand(const ast::Selector& sel) {
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
  // Prefix: `pkg.*` or `alias.*`. A visible package selects every symptom below it; a parent
  // of imported packages (`std.*` with `import std.nccl`) selects those of the imported ones.
  std::string prefix = sel.name.str();
  for (auto& imp : imports_[module_]) {
    if (sel.name.parts[0].text == imp.alias) {
      std::string substituted = imp.import->package.str() + prefix.substr(imp.alias.size());
      if (std::any_of(index_.packages.begin(), index_.packages.end(), [&](auto& p) { return under(p, substituted); })) {
        prefix = substituted;
        imp.used = true;
        break;
      }
    }
  }
  std::vector<std::string> roots;
  if (visiblePackage(prefix)) {
    roots.push_back(prefix);
  } else {
    const std::string own = module_->packageName();
    if (!own.empty() && under(own, prefix)) roots.push_back(own);
    for (auto& imp : imports_[module_]) {
      std::string pkg = imp.import->package.str();
      if (under(pkg, prefix)) {
        roots.push_back(pkg);
        imp.used = true;
      }
    }
  }
  if (roots.empty()) {
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
  for (auto& [q, info] : index_.symptoms) {
    const std::string& pkg = info.package;
    if (std::any_of(roots.begin(), roots.end(), [&](auto& r) { return under(pkg, r); })) {
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

}  // namespace attrib::check_detail
