// The module: generateModule's pass over the program's predicates (forEachPredicate's order,
// which gives each its id), one function per predicate, then the dispatcher that switches over
// the ids. Each predicate's function is generated from a fresh per-function state (function());
// the tables (codegen_tables.cc) are shared by the whole module. The rest of the generator is
// split by concern over jit/codegen_state.h.
#include "jit/codegen.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>

#include <fmt/format.h>

#include "jit/codegen_state.h"

namespace attrib::jit {

namespace detail {

Codegen::Codegen(const ir::Program& program, const DataLayout& layout, llvm::LLVMContext& context, llvm::Module& module)
    : program_(program), layout_(layout), ctx_(context), module_(module),
      b_(context, llvm::InstSimplifyFolder(module.getDataLayout())) {
  i1_ = llvm::Type::getInt1Ty(ctx_);
  i8_ = llvm::Type::getInt8Ty(ctx_);
  i32_ = llvm::Type::getInt32Ty(ctx_);
  i64_ = llvm::Type::getInt64Ty(ctx_);
  f64_ = llvm::Type::getDoubleTy(ctx_);
  i8p_ = llvm::Type::getInt8PtrTy(ctx_);
  dummy_ = global(llvm::ConstantAggregateZero::get(llvm::ArrayType::get(i8_, layout_.instanceSize)), "attrib_none");
}

bool Codegen::isCold(const PredicateRef& ref) const {
  if (ref.kind == PredicateRef::Kind::OutcomeWhen) return true;
  if (ref.kind != PredicateRef::Kind::SymptomWhen) return false;
  return ir::isDerived(program_.symptoms[ref.index].stream);
}

llvm::Function* Codegen::function(const PredicateRef& ref, const ir::Expr& e, int32_t bindings) {
  auto* type = llvm::FunctionType::get(i32_, {i8p_, i8p_}, false);
  fn_ = llvm::Function::Create(type, llvm::Function::InternalLinkage, predicateSymbol(ref), module_);
  // Optimised on its own (LLVM's passes stay linear in the function's size), inlined into the
  // dispatcher afterwards (markPredicatesInlinable) so the back end sees one function.
  fn_->addFnAttr(llvm::Attribute::NoInline);
  // Helpers never throw (jit/helpers.h), so neither do predicates: no unwind tables.
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  context_ = fn_->getArg(0);
  scratch_ = fn_->getArg(1);
  context_->setName("ctx");
  scratch_->setName("scratch");
  entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  auto* body = llvm::BasicBlock::Create(ctx_, "body", fn_);
  b_.SetInsertPoint(entry_);
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  bound_.fill(nullptr);
  preloaded_.fill(nullptr);
  nextMemo_ = 0;
  // Outcomes run once per attribution and derived symptoms once per candidate, not once per
  // line or binding: for them compile time, not run time, dominates. Their code is kept small
  // (captures and int() through the helpers) and is not optimised (markPredicatesInlinable
  // leaves them out of the dispatcher's inlining).
  compact_ = isCold(ref);
  if (compact_) fn_->addFnAttr(llvm::Attribute::OptimizeNone);
  bindings_ = bindings;
  nonNull_.clear();
  // What the runtime guarantees (runtime/compiled_predicates.h): a rule's bindings are all
  // bound, and symptom and filter clauses always see their instance in slot 0. Outcomes'
  // slot 0 (the root) may be empty.
  boundSlots_ = ref.kind == PredicateRef::Kind::RuleWhere ? bindings
                : ref.kind == PredicateRef::Kind::OutcomeWhen ? 0 : 1;
  CV v = gen(e);
  b_.CreateRet(b_.CreateZExt(truth(v), i32_));
  return fn_;
}

// After optimisation the dispatcher's calls are inlined: the back end's cost is mostly per
// function, and one function per module compiles in about two thirds of the time.
void Codegen::dispatcher(const std::string& name, const std::vector<std::pair<int32_t, llvm::Function*>>& cases) {
  auto* type = llvm::FunctionType::get(i32_, {i32_, i8p_, i8p_}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module_);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn);
  auto* none = llvm::BasicBlock::Create(ctx_, "none", fn);
  b_.SetInsertPoint(none);
  b_.CreateRet(b_.getInt32(0));
  b_.SetInsertPoint(entry);
  llvm::SwitchInst* sw = b_.CreateSwitch(fn->getArg(0), none, static_cast<unsigned>(cases.size()));
  for (const auto& [id, target] : cases) {
    auto* bb = llvm::BasicBlock::Create(ctx_, target->getName(), fn);
    b_.SetInsertPoint(bb);
    b_.CreateRet(b_.CreateCall(target, {fn->getArg(1), fn->getArg(2)}));
    sw->addCase(b_.getInt32(id), bb);
  }
}

}  // namespace detail

std::unique_ptr<llvm::Module> generateModule(const ir::Program& program, const DataLayout& layout,
                                             llvm::LLVMContext& context, const llvm::DataLayout& target,
                                             const std::string& dispatchName,
                                             const std::function<bool(const PredicateRef&)>& include) {
  auto module = std::make_unique<llvm::Module>("attrib_predicates", context);
  module->setDataLayout(target);
  detail::Codegen codegen(program, layout, context, *module);
  std::vector<std::pair<int32_t, llvm::Function*>> cases;
  int32_t id = 0;
  forEachPredicate(program, [&](const PredicateRef& ref, const ir::Expr& e, int32_t bindings) {
    if (!include || include(ref)) cases.push_back({id, codegen.function(ref, e, bindings)});
    ++id;
  });
  codegen.dispatcher(dispatchName, cases);
  return module;
}

void markPredicatesInlinable(llvm::Module& module) {
  for (auto& f : module) {
    if (f.hasInternalLinkage() && f.hasFnAttribute(llvm::Attribute::NoInline) &&
        !f.hasFnAttribute(llvm::Attribute::OptimizeNone)) {
      f.removeFnAttr(llvm::Attribute::NoInline);
      f.addFnAttr(llvm::Attribute::AlwaysInline);
    }
  }
}

}  // namespace attrib::jit
