// Pieces of the checker shared by its translation units: name resolution (name_resolver.cc)
// and expression typing (expr_checker.cc), driven by check.cc. Not a public interface.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/ast.h"
#include "compiler/check.h"
#include "compiler/diagnostic.h"
#include "compiler/vocabulary.h"

namespace attrib::check_detail {

using ast::Expr;

// Where an expression is evaluated decides which names it can see.
struct Scope {
  // Derived: the `when` and `let`s of an `on ranks`/`on nodes` symptom: an implicit instance
  // (the candidate rank or node) that aggregates can relate to other instances.
  enum class Kind { SymptomClause, Filter, Rule, Outcome, Derived };
  Kind kind = Kind::Outcome;
  ast::StreamSpec::Kind stream = ast::StreamSpec::Kind::Log;  // SymptomClause
  // The implicit instance whose fields bare names read (symptom clauses, filters, aggregate
  // where-clauses without an alias): the symptoms it may be, and their captures.
  bool hasImplicit = false;
  std::vector<std::string> implicitSymptoms;
  // Named instances: rule bindings and aggregate aliases, innermost last.
  std::vector<std::pair<std::string, std::vector<std::string>>> aliases;
  bool hasReference = false;  // an instance `on same node` compares against
  // Derived symptoms: the lets declared so far, by name, with their types.
  std::vector<std::pair<std::string, Type>> lets;
};

struct ImportState {
  const ast::Import* import;
  std::string alias;
  bool used = false;
};

// Resolves names as seen from one module at a time: its package, its imports (with aliases),
// qualified names and wildcards. Records which symptoms and imports are used, for warnings.
class NameResolver {
 public:
  NameResolver(const ProgramIndex& index, DiagnosticSink& sink) : index_(index), sink_(sink) {}

  void setModule(const ast::Module* module) { module_ = module; }
  const ast::Module& module() const { return *module_; }
  void markUsed(const std::string& qualified) { used_.insert(qualified); }
  bool isUsed(const std::string& qualified) const { return used_.count(qualified) > 0; }
  // Reports every import of `modules` that nothing used.
  void reportUnusedImports(const std::vector<ast::Module*>& modules);

  void checkImports(ast::Module& m);
  // Resolves a reference to a package-level name in the current module: `x` (own package),
  // `alias.x` (through an import), or a fully qualified name of an imported package.
  // Returns the candidate qualified name and whether its package is visible.
  struct Lookup {
    std::string qualified;
    bool visible = false;
    std::string package;  // the package the name would be in
  };
  Lookup lookup(const ast::QualifiedName& name);
  // Whether the current module sees `package`: its own package, an imported one, or a
  // package below either. Marks the import that makes it visible as used.
  bool visiblePackage(const std::string& package);
  bool exists(const std::string& q) const;
  std::vector<std::string> symptomNamesVisible() const;
  // Resolves a symptom name; reports and returns nullopt when it is not a visible symptom.
  std::optional<std::string> resolveSymptom(const ast::QualifiedName& name, bool report = true);
  void reportUnknown(const ast::QualifiedName& name, const Lookup& l, const char* what,
                     const std::vector<std::string>& candidates);
  // Expands a selector to the symptoms it denotes; reports unknown or empty selectors.
  std::optional<std::vector<std::string>> expand(const ast::Selector& sel);

 private:
  const ProgramIndex& index_;
  DiagnosticSink& sink_;
  std::map<const ast::Module*, std::vector<ImportState>> imports_;
  std::set<std::string> used_;
  const ast::Module* module_ = nullptr;
};

// Types every expression in place (Expr::type, ref, symptoms, field) and checks regex literals.
class ExprChecker {
 public:
  ExprChecker(NameResolver& names, const ProgramIndex& index, DiagnosticSink& sink)
      : names_(names), index_(index), sink_(sink) {}

  // Checks a regex literal with the engines that will run it and records its captures.
  // `forScanning`: a symptom's `match` (Hyperscan and PCRE2); otherwise an `=~` (PCRE2 only).
  void checkRegexLiteral(ast::Regex& re, bool forScanning);
  // Types `e` and reports unless it is a bool (or a symptom set, which tests non-emptiness).
  // Aliases read by `e` are added to `usedAliases` when given. False if `e` has an error.
  bool expectBool(Expr& e, Scope& scope, const char* what, std::set<std::string>* usedAliases = nullptr);
  // Types `e` and reports unless it is a scalar (a number, string, bool, time, duration or
  // state): what a `let` may hold. Returns the type (an error type after a report).
  Type checkValue(Expr& e, Scope& scope, const char* what);
  // A canonical text of an expression, for detecting identical conditions.
  static std::string canonical(const Expr& e);

 private:
  Type mismatch(const Expr& e, std::string message);
  // The diagnostic mismatch() reported last (a scratch one when it was suppressed).
  Diagnostic& lastDiagnostic() { return *last_; }
  static bool truthy(const Type& t) { return t.is(TypeKind::Bool) || t.is(TypeKind::SymptomSet); }
  // A value string() can print and a let can hold.
  static bool scalar(const Type& t) {
    return t.isNumeric() || t.is(TypeKind::String) || t.is(TypeKind::Bool) || t.is(TypeKind::Time) ||
           t.is(TypeKind::Duration) || t.is(TypeKind::State);
  }
  Type typeOf(Expr& e, Scope& scope);
  // The captures any of `symptoms` may carry.
  std::set<std::string> capturesOf(const std::vector<std::string>& symptoms);
  // The fields of an instance of one of `symptoms`, in display order: the common fields, those
  // of metric and scheduler evidence when some symptom reads it, then named captures (a capture
  // named like a built-in field is that field).
  std::vector<std::pair<std::string, Type>> fieldsOf(const std::vector<std::string>& symptoms);
  std::optional<Type> instanceField(const std::string& name, const std::vector<std::string>& symptoms);
  std::vector<std::string> instanceFieldNames(const std::vector<std::string>& symptoms);
  // Every symptom of the program: what `root` may be.
  std::vector<std::string> allSymptoms() const;
  std::optional<Type> workloadField(const std::string& name);
  Type fieldOfInstance(Expr& e, const ast::Ident& field, const std::vector<std::string>& symptoms,
                       const std::string& owner);
  Type nameType(Expr& e, Scope& scope);
  // Type of a symptom-selecting aggregate argument; pushes its alias/implicit frame for `where`.
  std::optional<std::vector<std::string>> selectorArg(ast::CallArg& a, Scope& scope);
  Type callType(Expr& e, Scope& scope);
  // Derived symptoms are evaluated together, after filtering: their conditions may not read
  // one another. Reports and returns false when `symptoms` holds one and `scope` is derived.
  bool isDerived(const std::string& qualified) const;
  bool derivedMayRead(const std::vector<std::string>& symptoms, const Scope& scope, const SourceRange& where);
  static bool comparable(const Type& a, const Type& b);
  Type computeType(Expr& e, Scope& scope);
  Type binaryType(Expr& e, Scope& scope);
  Type inType(Expr& e, Scope& scope);

  NameResolver& names_;
  const ProgramIndex& index_;
  DiagnosticSink& sink_;
  std::set<std::string>* usedAliases_ = nullptr;
  Diagnostic* last_ = nullptr;
};

// Checks every declaration of a compilation: declarations and imports first (check.cc), then
// each declaration's properties, clauses and expressions (check_declarations.cc) and test blocks
// (check_tests.cc), then whole-program warnings (check.cc).
class Checker {
 public:
  Checker(const SourceManager& sources, DiagnosticSink& sink) : sources_(sources), sink_(sink) {}

  ProgramIndex run(const std::vector<ast::Module*>& modules);

 private:
  // An override or disable, waiting for every name to be declared.
  struct PendingChange {
    ast::Module* module;
    ast::Declaration* decl;
  };
  template <typename D>
  static bool changesLowerLayer(const D& d) {
    if constexpr (std::is_same_v<D, ast::DisableDecl>) return true;
    else if constexpr (std::is_same_v<D, ast::TestDecl>) return false;
    else return d.overrides.has_value();
  }
  template <typename D>
  static ast::OverrideOf* overrideOf(D& d) {
    if constexpr (std::is_same_v<D, ast::DisableDecl> || std::is_same_v<D, ast::TestDecl>) return nullptr;
    else return d.overrides ? &*d.overrides : nullptr;
  }
  // Not checked: replaced by a higher layer's override, or an override of nothing (reported).
  template <typename D>
  bool skipped(D& d) const {
    if (index_.replaced.count(&d)) return true;
    const ast::OverrideOf* o = overrideOf(d);
    return o && o->qualified.empty();
  }

  void declareName(const std::string& qualified, const ast::Ident& name);
  void declare(ast::Module& m);
  SymptomInfo symptomInfo(const ast::SymptomDecl& s, const ast::Module& m, const std::string& q,
                          const std::string& package);
  // "symptom", "filter", "rule", "outcome" for a declared name, else "".
  std::string kindOfName(const std::string& q) const;
  void resolveChanges(const std::vector<ast::Module*>& modules);
  void replaceWith(const std::string& q, ast::SymptomDecl& s, const ast::Module& m);
  void replaceWith(const std::string& q, ast::FilterDecl& f, const ast::Module& m);
  void replaceWith(const std::string& q, ast::RuleDecl& r, const ast::Module& m);
  void replaceWith(const std::string& q, ast::OutcomeDecl& o, const ast::Module& m);
  void replaceWith(const std::string&, ast::TestDecl&, const ast::Module&) {}
  void replaceWith(const std::string&, ast::DisableDecl&, const ast::Module&) {}
  static SymptomRole roleOf(const ast::SymptomDecl& s);
  void warnUnusedSymptoms();

  struct PropertySpec {
    std::string name;
    enum class Shape { String, Strings, Word, Words, Number, Int, Timestamp, WordList, Any } shape;
    const std::vector<std::string>* allowed = nullptr;
    bool repeatable = false;
  };
  const std::vector<PropertySpec>& metadataSpecs();
  static std::string valueSpelling(const ast::PropertyValue& v);
  bool isWordLike(const ast::PropertyValue& v);
  std::string_view sourceText(const SourceRange& r) const;
  void checkWordValue(const ast::PropertyValue& v, const PropertySpec& spec, const std::string& owner);
  // Checks properties against their specs; returns the first occurrence of each by name.
  std::map<std::string, const ast::Property*> checkProperties(const std::vector<ast::Property>& props,
                                                              const std::vector<PropertySpec>& specs,
                                                              const std::string& owner);
  // Whether some property looks like a misspelling of `name` (already reported as unknown), so
  // that "missing property" would only repeat the same mistake.
  static bool misspelled(const std::string& name, const std::vector<ast::Property>& props);
  // A title after the name and a `title` property would be two titles.
  void titleConflict(const std::optional<std::string>& title, const std::map<std::string, const ast::Property*>& seen,
                     const ast::Ident& name);
  void checkDecl(ast::SymptomDecl& s);
  void checkMessage(const ast::SymptomDecl& s, const Scope& scope);
  // Captures named node, rank and gpu set those fields of the instance (documented); a capture
  // with another built-in field's name could never be read (wherever the name may also denote
  // a metric or scheduler symptom, as through `root`, the field wins).
  void warnShadowedCaptures(const ast::Regex& re);
  void checkSource(const ast::PropertyValue& v);
  void checkDecl(ast::FilterDecl& f);
  void checkDecl(ast::RuleDecl& r);
  static std::string phaseOf(const ast::RuleDecl& r);
  static bool containsSame(const Expr& e);
  void checkDecl(ast::OutcomeDecl& o);
  // A reason the condition is always false, looking through `and`: the literal false, or
  // `root is S` where no symptom of S can be a root cause.
  std::optional<std::string> neverHolds(const Expr& e);

  void checkDecl(ast::TestDecl& t);
  void checkExpectation(ast::Expectation& e);
  void checkDecl(ast::DisableDecl&) {}  // resolved with the overrides (resolveChanges)
  // The qualified name a declaration of the current module defines.
  template <typename D>
  std::string selfName(const D& d) const {
    const ast::OverrideOf* o = overrideOf(const_cast<D&>(d));
    return o ? o->qualified : ast::qualify(names_.module().packageName(), d.name.text);
  }

  const SourceManager& sources_;
  DiagnosticSink& sink_;
  ProgramIndex index_;
  NameResolver names_{index_, sink_};
  ExprChecker exprs_{names_, index_, sink_};
  std::map<std::string, SourceRange> firstDefinition_;
  std::map<std::string, const ast::Module*> modules_;  // the module of each name's first declaration
  std::map<std::string, SourceRange> originals_;       // and the place of its name
  std::vector<PendingChange> changes_;
  std::map<std::string, const ast::RuleDecl*> ruleKeys_;
  std::map<std::string, const ast::OutcomeDecl*> outcomeKeys_;
};

}  // namespace attrib::check_detail
