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
  const ast::SymptomDecl* decl = nullptr;
  const ast::Module* module = nullptr;
  std::string qualifiedName;
  SymptomRole role = SymptomRole::Cause;
  std::set<std::string> captures;  // union over the symptom's match patterns
};

// The symbol table of a checked program: qualified name -> declaration.
struct ProgramIndex {
  std::map<std::string, SymptomInfo> symptoms;
  std::map<std::string, const ast::OutcomeDecl*> outcomes;
  std::map<std::string, const ast::RuleDecl*> rules;
  std::map<std::string, const ast::FilterDecl*> filters;
  std::set<std::string> packages;
};

// Checks `modules` (owned by the caller, annotated in place) and returns their index.
ProgramIndex checkProgram(const std::vector<ast::Module*>& modules, const SourceManager& sources,
                          DiagnosticSink& diagnostics);

}  // namespace attrib
