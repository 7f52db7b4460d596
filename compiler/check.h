// Semantic checks: the AST of every file of a compilation -> the checked AST.
//
// Runs after parsing, over all modules at once (names resolve across packages):
//   1. declare: every declaration's qualified name, packages, imports;
//   2. check each declaration: properties, regexes (Hyperscan and PCRE2), name resolution,
//      types of every expression (annotating Expr::type/ref/symptoms/field in place);
//   3. whole-program warnings: unused symptoms and imports, unreachable outcomes, shadowed
//      rules and outcomes.
// Every problem is reported; none stops the check. Declarations marked `broken` by the parser
// are declared (so other files do not see unknown names) but their bodies are not checked.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ast.h"
#include "compiler/diagnostic.h"

namespace attrib {

// What a symptom's role is once defaults are applied: explicit `role`, else `context` for
// `severity info` or `blame none`, else `cause`.
enum class SymptomRole { Cause, Consequence, Context };

struct SymptomInfo {
  const ast::SymptomDecl* decl = nullptr;  // the declaration in effect (an override, if any)
  const ast::Module* module = nullptr;     // the file of `decl`
  std::string qualifiedName;
  std::string package;                     // of the name (an override keeps the original's)
  SymptomRole role = SymptomRole::Cause;
  std::set<std::string> captures;  // union over the symptom's match patterns
};

// An `override` or `disable` that took effect: what changed the declarations of a lower layer.
struct LayerChange {
  std::string name;   // qualified name of what it changes
  std::string kind;   // symptom, filter, rule, outcome
  bool disable = false;
  FileId file = kNoFile;
  SourceRange range;  // the override's name, or the whole disable
  size_t layer = 0;
};

// The symbol table of a checked program: qualified name -> the declaration in effect, after
// the overrides of higher layers.
struct ProgramIndex {
  std::map<std::string, SymptomInfo> symptoms;
  std::map<std::string, const ast::OutcomeDecl*> outcomes;
  std::map<std::string, const ast::RuleDecl*> rules;
  std::map<std::string, const ast::FilterDecl*> filters;
  std::set<std::string> packages;
  // Where each name's declaration in effect is (its file): definitions, documentation.
  std::map<std::string, FileId> files;
  // Names a `disable` took out: a symptom that never fires, a filter, rule or outcome left out.
  std::set<std::string> disabled;
  // Declarations an override replaced (the original, or a lower layer's override): they are
  // neither checked nor lowered; the override stands in the original's place.
  std::set<const void*> replaced;
  std::vector<LayerChange> changes;  // in layer order
};

// The qualified name a declaration defines (an override's resolved target), or "" for tests,
// disables and overrides that did not resolve.
std::string declaredName(const ast::Module& module, const ast::Declaration& decl);

// Checks `modules` (owned by the caller, annotated in place) and returns their index.
ProgramIndex checkProgram(const std::vector<ast::Module*>& modules, const SourceManager& sources,
                          DiagnosticSink& diagnostics);

}  // namespace attrib
