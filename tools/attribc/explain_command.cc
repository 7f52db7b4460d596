// attribc explain: what a rule's predicates become, for people tuning rules and for us when the
// JIT and the interpreter disagree. `--ir NAME` prints the predicate IR (ir/ir.h), `--llvm NAME`
// the LLVM IR the JIT runs (optimised at O2; --unoptimised for what the code generator emits),
// and for a rule its join plan: which symptoms and time window each binding visits.
// NAME is a rule, outcome, symptom or filter, qualified or by its last component.
#include <fmt/format.h>

#include "compiler/compilation.h"
#include "compiler/lower.h"
#include "jit/predicates.h"
#include "jit/jit_compiler.h"
#include "runtime/join_plan.h"
#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"

namespace attrib::tools {
namespace {

struct Clause {
  std::string what;  // "rule gpu.dcgm.hot_before_fall_off (where)"
  jit::PredicateRef ref;
  const ir::Expr* expr;
  bool interpreted = false;  // a log symptom's when: the JIT compiles no code for it
};

bool nameMatches(const std::string& qualified, const std::string& name) {
  if (qualified == name) return true;
  return qualified.size() > name.size() && qualified.ends_with(name) && qualified[qualified.size() - name.size() - 1] == '.';
}

// Every clause of the declarations called `name`; `declarations` gets the names that matched.
std::vector<Clause> clausesNamed(const ir::Program& program, const std::string& name,
                                 std::vector<std::string>* declarations) {
  std::vector<Clause> out;
  using K = jit::PredicateRef::Kind;
  auto note = [&](const std::string& d) {
    if (declarations->empty() || declarations->back() != d) declarations->push_back(d);
  };
  for (size_t i = 0; i < program.symptoms.size(); ++i) {
    const ir::Symptom& s = program.symptoms[i];
    if (!s.hasWhen || jit::compiledByJit(s) || !nameMatches(s.name, name)) continue;
    note("symptom " + s.name);
    out.push_back({fmt::format("symptom {} (when)", s.name), {K::SymptomWhen, int32_t(i), 0}, &s.when, true});
  }
  jit::forEachPredicate(program, [&](const jit::PredicateRef& ref, const ir::Expr& e, int32_t bindings) {
    std::string kind, qualified, clause;
    switch (ref.kind) {
      case K::SymptomWhen: kind = "symptom", qualified = program.symptoms[ref.index].name, clause = "when"; break;
      case K::FilterWhere:
        kind = "filter", qualified = program.filters[ref.index].name;
        clause = fmt::format("statement {} where", ref.statement + 1);
        break;
      case K::RuleWhere:
        kind = "rule", qualified = program.rules[ref.index].name;
        clause = fmt::format("where, {} binding{}", bindings, bindings == 1 ? "" : "s");
        break;
      case K::OutcomeWhen: kind = "outcome", qualified = program.outcomes[ref.index].name, clause = "when"; break;
    }
    if (!nameMatches(qualified, name)) return;
    note(fmt::format("{} {}", kind, qualified));
    out.push_back({fmt::format("{} {} ({})", kind, qualified, clause), ref, &e});
  });
  return out;
}

}  // namespace

int runExplain(const ExplainOptions& options) {
  if (options.ir.empty() && options.llvm.empty()) {
    printError("say what to explain: --ir NAME, --llvm NAME, or both");
    return kExitUsage;
  }
  DiagnosticSink sink;
  Compilation compilation(sink);
  if (int status = readAndCheck(compilation, options.rules, options.color, "nothing was explained"); status != kExitOk) {
    return status;
  }
  ir::Program program = lower(compilation);
  for (const auto& [name, llvm] : {std::pair{options.ir, false}, std::pair{options.llvm, true}}) {
    if (name.empty()) continue;
    std::vector<std::string> declarations;
    std::vector<Clause> clauses = clausesNamed(program, name, &declarations);
    if (declarations.size() > 1) {
      std::string list;
      for (const auto& d : declarations) list += (list.empty() ? "" : ", ") + d;
      printError(fmt::format("'{}' names {} declarations ({}); give the qualified name", name, declarations.size(), list));
      return kExitUsage;
    }
    if (clauses.empty()) {
      printError(fmt::format("no rule, outcome, symptom or filter named '{}' has a where/when clause in {}", name,
                             options.rules.paths.empty() ? "the stdlib" : fmt::format("{}", fmt::join(options.rules.paths, ", "))));
      return kExitUsage;
    }
    for (const auto& c : clauses) {
      if (!llvm) {
        fmt::print("; {}\n{}\n", c.what, ir::dump(*c.expr));
        if (c.ref.kind == jit::PredicateRef::Kind::RuleWhere) {
          // How the runtime enumerates the rule's bindings (runtime/join_plan.h).
          const ir::Rule& rule = program.rules[c.ref.index];
          for (const auto& line : runtime::describePlan(program, rule, runtime::planJoin(program, rule))) {
            fmt::print("; plan: {}\n", line);
          }
        }
        continue;
      }
      if (c.interpreted) {
        printError(fmt::format("{} is a log symptom's condition: the interpreter evaluates it on the lines "
                               "Hyperscan matched, and the JIT compiles no code for it (use --ir)",
                               c.what));
        return kExitUsage;
      }
      std::string text, error;
      if (!jit::predicateLlvmIr(program, c.ref, !options.unoptimised, &text, &error)) {
        printError(error);
        return kExitProblems;
      }
      fmt::print("; {}: {} LLVM IR of {}\n{}", c.what, options.unoptimised ? "generated" : "O2-optimised",
                 jit::predicateSymbol(c.ref), text);
    }
  }
  return kExitOk;
}

}  // namespace attrib::tools
