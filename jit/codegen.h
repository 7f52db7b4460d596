// Predicate IR (ir/ir.h) -> LLVM IR. Each where/when clause of a program has an id, its position
// in forEachPredicate's order; a module holds one dispatch function with the signature of
// runtime::PredicateFn that evaluates the predicate with the id it is given (0 for ids the
// module does not hold). The predicates' code implements the
// interpreter's semantics exactly (ir/ir.h, "Semantics"); values are unboxed SSA values with a
// separate null flag, aggregates and metric windows are loops over the runtime's own arrays.
//
// The module is self-contained apart from calls to jit/helpers.h symbols: it embeds no
// addresses of this process, so its object code can be cached and linked into another one.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "ir/ir.h"
#include "jit/data_layout.h"
#include "jit/predicates.h"

namespace llvm {
class DataLayout;
class LLVMContext;
class Module;
}  // namespace llvm


namespace attrib::jit {

// After optimisation: lets the always-inliner put every predicate into its module's dispatcher
// (see generateModule).
void markPredicatesInlinable(llvm::Module& module);

// A module whose dispatch function, named `dispatchName`, evaluates the predicates of
// `program` for which `include` holds (all of them when `include` is empty).
std::unique_ptr<llvm::Module> generateModule(const ir::Program& program, const DataLayout& layout,
                                             llvm::LLVMContext& context, const llvm::DataLayout& target,
                                             const std::string& dispatchName,
                                             const std::function<bool(const PredicateRef&)>& include = {});

}  // namespace attrib::jit
