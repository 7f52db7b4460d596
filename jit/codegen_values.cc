// Function plumbing and values. Plumbing: blocks, entry-block allocas (mutable state of the
// generated code is an alloca, which mem2reg/SROA turn into SSA values and phis), the caller's
// slots, null checks that vanish for instances known to be there, and the one loop shape every
// loop of the generated code has (loop, countedLoop). Values: CV constructors, which populate
// every member of a type also for a null value, and the interpreter's readings of a value as
// another type (intOf, doubleOf, ...), and a predicate's truth.
#include <llvm/IR/Constants.h>

#include <fmt/format.h>

#include "jit/codegen_state.h"

namespace attrib::jit::detail {

using ir::Op;
using ir::Type;

llvm::BasicBlock* Codegen::block(const char* name) { return llvm::BasicBlock::Create(ctx_, name, fn_); }

llvm::Value* Codegen::entryAlloca(llvm::Type* type, const char* name) {
  llvm::IRBuilder<> e(entry_->getTerminator());
  return e.CreateAlloca(type, nullptr, name);
}

CV Codegen::stringFromHelper(const std::string& name, llvm::Value* null,
                             const std::function<void(llvm::Value* p, llvm::Value* n)>& call) {
  llvm::Value* p = entryAlloca(i8p_, (name + ".p").c_str());
  llvm::Value* n = entryAlloca(i64_, (name + ".n").c_str());
  b_.CreateStore(llvm::ConstantPointerNull::get(i8p_), p);
  b_.CreateStore(b_.getInt64(0), n);
  auto* body = block(name.c_str());
  auto* after = block((name + ".end").c_str());
  b_.CreateCondBr(null, after, body);
  b_.SetInsertPoint(body);
  call(p, n);
  b_.CreateBr(after);
  b_.SetInsertPoint(after);
  return string(b_.CreateLoad(i8p_, p), b_.CreateLoad(i64_, n), null);
}

// An entry-block alloca holding `init` from here on: the accumulators and cursors of loops.
llvm::Value* Codegen::variable(llvm::Type* type, llvm::Value* init, const char* name) {
  llvm::Value* v = entryAlloca(type, name);
  b_.CreateStore(init, v);
  return v;
}

llvm::Value* Codegen::load(llvm::Type* type, llvm::Value* base, uint64_t offset) {
  llvm::Value* at = b_.CreateConstInBoundsGEP1_64(i8_, base, offset);
  return b_.CreateLoad(type, b_.CreateBitCast(at, type->getPointerTo()));
}

// The instance bound to slot `s`: by an enclosing aggregate or window, else the caller's.
// The caller's slots never change during a call, so they are read once, at entry.
llvm::Value* Codegen::slot(int32_t s) {
  if (bound_[s]) return bound_[s];
  if (!preloaded_[s]) {
    llvm::IRBuilder<> e(entry_->getTerminator());
    llvm::Value* at = e.CreateConstInBoundsGEP1_64(i8_, context_, layout_.contextSlots + 8ull * s);
    preloaded_[s] = e.CreateLoad(i8p_, e.CreateBitCast(at, i8p_->getPointerTo()), fmt::format("slot{}", s));
    if (s < boundSlots_) nonNull_.insert(preloaded_[s]);
  }
  return preloaded_[s];
}

// Instances known to be there (bound slots, aggregate and window iterations) need no null
// checks; knowing it early keeps the generated IR small.
llvm::Value* Codegen::isNullPtr(llvm::Value* p) {
  if (nonNull_.count(p)) return b_.getFalse();
  return b_.CreateICmpEQ(p, llvm::ConstantPointerNull::get(i8p_));
}

// Loads through a possibly null instance read a zeroed stand-in instead; the result is then
// flagged null by the caller.
llvm::Value* Codegen::safe(llvm::Value* inst) {
  if (nonNull_.count(inst)) return inst;
  return b_.CreateSelect(isNullPtr(inst), dummy_, inst);
}

// Blocks `NAME.head` (the test), `NAME.body` and `NAME.end`, entered from the current block at
// the head. `more` is emitted in the head, so what it computes is available to the body; the
// body starts in NAME.body and each of its paths ends by branching to loop.next or loop.exit, or
// falls through to loop.next. On return the insertion point is at the start of NAME.end.
// Aggregates, windows, capture lookups and int() all loop this way: one header, the only
// entry to the loop, whose test is the only way out but the body's explicit breaks.
void Codegen::loop(const std::string& name, const std::function<llvm::Value*()>& more,
                   const std::function<void(const Loop&)>& body) {
  Loop l;
  l.next = llvm::BasicBlock::Create(ctx_, name + ".head", fn_);
  auto* first = llvm::BasicBlock::Create(ctx_, name + ".body", fn_);
  l.exit = llvm::BasicBlock::Create(ctx_, name + ".end", fn_);
  b_.CreateBr(l.next);
  b_.SetInsertPoint(l.next);
  b_.CreateCondBr(more(), first, l.exit);
  b_.SetInsertPoint(first);
  body(l);
  if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(l.next);
  b_.SetInsertPoint(l.exit);
}

// The index lives in an entry alloca and is advanced first thing in the body, so a `continue`
// from anywhere in the body is a plain branch to loop.next.
void Codegen::countedLoop(const std::string& name, llvm::Value* from,
                          const std::function<llvm::Value*(llvm::Value*)>& more,
                          const std::function<void(const Loop&)>& body) {
  llvm::Value* counter = variable(i64_, from, (name + ".i").c_str());
  llvm::Value* index = nullptr;
  loop(name, [&] {
    index = b_.CreateLoad(i64_, counter);
    return more(index);
  }, [&](const Loop& l) {
    b_.CreateStore(b_.CreateAdd(index, b_.getInt64(1)), counter);
    Loop counted = l;
    counted.index = index;
    body(counted);
  });
}

// The slot is rebound only while `e` is generated; the instance is one of the runtime's
// arrays' elements, never null.
CV Codegen::genBound(const ir::Expr& e, int32_t slot, llvm::Value* inst) {
  llvm::Value* saved = bound_[slot];
  bound_[slot] = inst;
  nonNull_.insert(inst);
  CV v = gen(e);
  bound_[slot] = saved;
  return v;
}

// ---- values

CV Codegen::nullOf(Type type) {
  CV v;
  v.type = type;
  v.null = b_.getTrue();
  v.bit = b_.getFalse();
  v.i = b_.getInt64(0);
  v.f = llvm::ConstantFP::get(f64_, 0.0);
  v.p = llvm::ConstantPointerNull::get(i8p_);
  v.n = b_.getInt64(0);
  return v;
}

CV Codegen::boolean(llvm::Value* bit, llvm::Value* null) {
  CV v = nullOf(Type::Bool);
  v.null = null ? null : b_.getFalse();
  v.bit = bit;
  v.i = nullptr;  // widened only where an integer is needed (intOf)
  return v;
}

CV Codegen::integer(Type type, llvm::Value* i, llvm::Value* null) {
  CV v = nullOf(type);
  v.null = null;
  v.i = i;
  return v;
}

CV Codegen::real(llvm::Value* f, llvm::Value* null) {
  CV v = nullOf(Type::Float);
  v.null = null;
  v.f = f;
  return v;
}

CV Codegen::string(llvm::Value* p, llvm::Value* n, llvm::Value* null) {
  CV v = nullOf(Type::String);
  v.null = null;
  v.p = p;
  v.n = n;
  return v;
}

CV Codegen::instance(llvm::Value* p) {
  CV v = nullOf(Type::Instance);
  v.null = isNullPtr(p);
  v.p = p;
  return v;
}

// What the interpreter reads from a Value of another type: zero, 0.0, "", no instance.
llvm::Value* Codegen::intOf(const CV& v) {
  if (v.type == Type::Bool) return v.i ? v.i : b_.CreateZExt(v.bit, i64_);
  return isIntLike(v.type) ? v.i : b_.getInt64(0);
}
llvm::Value* Codegen::doubleOf(const CV& v) {
  return v.type == Type::Float ? v.f : b_.CreateSIToFP(intOf(v), f64_);
}
llvm::Value* Codegen::instanceOf(const CV& v) {
  return v.type == Type::Instance ? v.p : llvm::ConstantPointerNull::get(i8p_);
}
std::pair<llvm::Value*, llvm::Value*> Codegen::stringOf(const CV& v) {
  if (v.type == Type::String) return {v.p, v.n};
  return {llvm::ConstantPointerNull::get(i8p_), b_.getInt64(0)};
}

// A predicate's truth: a non-null true Bool.
llvm::Value* Codegen::truth(const CV& v) {
  if (v.type != Type::Bool) return b_.getFalse();
  return b_.CreateAnd(b_.CreateNot(v.null), v.bit);
}

llvm::Value* Codegen::any(llvm::Value* a, llvm::Value* b) { return b_.CreateOr(a, b); }

}  // namespace attrib::jit::detail
