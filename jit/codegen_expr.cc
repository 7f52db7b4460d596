// Expressions: gen, the one dispatch over IR ops, and the ops that are neither fields, loops
// nor arithmetic: constants, list and interval membership, regex matches, symptom-set tests,
// `and`/`or` (short-circuit, null is false), `same(key)` and the scalar functions. Operands are
// generated left to right; an operand of static type Null (a literal `null`) makes most ops a
// constant null of their result type, as the interpreter's Value arithmetic does.
#include <llvm/IR/Constants.h>

#include "jit/codegen_state.h"

namespace attrib::jit::detail {

using ir::Op;
using ir::Type;

CV Codegen::gen(const ir::Expr& e) {
  switch (e.op) {
    case Op::Const: return constant(e.constant);
    case Op::Slot: return instance(slot(e.slot));
    case Op::FieldOf: {
      CV of = gen(e.operands[0]);
      return field(instanceOf(of), e.field);
    }
    case Op::CaptureOf: return capture(instanceOf(gen(e.operands[0])), e.name);
    case Op::Workload: return workload(e);
    case Op::Neg: {
      CV a = gen(e.operands[0]);
      if (a.type == Type::Null) return a;
      if (a.type == Type::Float) return real(b_.CreateFNeg(a.f), a.null);
      llvm::Value* min = b_.CreateICmpEQ(a.i, b_.getInt64(INT64_MIN));
      return integer(e.type, b_.CreateSub(b_.getInt64(0), a.i), any(a.null, min));
    }
    case Op::Not: {
      CV a = gen(e.operands[0]);
      if (a.type == Type::Null) return nullOf(Type::Bool);
      if (a.type == Type::Bool) return boolean(b_.CreateNot(a.bit), a.null);
      return boolean(b_.CreateICmpEQ(intOf(a), b_.getInt64(0)), a.null);
    }
    case Op::And: case Op::Or: return logical(e);
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: {
      CV a = gen(e.operands[0]);
      CV b = gen(e.operands[1]);
      return compare(e.op, a, b);
    }
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: return arithmetic(e);
    case Op::InList: {
      CV v = gen(e.operands[0]);
      if (v.type == Type::Null) return nullOf(Type::Bool);
      llvm::Value* found = b_.getFalse();
      for (size_t k = 1; k < e.operands.size(); ++k) {
        CV eq = compare(Op::Eq, v, gen(e.operands[k]));
        found = any(found, truth(eq));
      }
      return boolean(found, v.null);
    }
    case Op::InInterval: case Op::InRange: {
      CV v = gen(e.operands[0]);
      CV lo = gen(e.operands[1]);
      CV hi = gen(e.operands[2]);
      CV a = compare(Op::Le, lo, v);
      CV b = compare(Op::Le, v, hi);
      return boolean(b_.CreateAnd(a.bit, b.bit), any(a.null, b.null));
    }
    case Op::InNodes: {
      CV v = gen(e.operands[0]);
      if (v.type == Type::Null) return nullOf(Type::Bool);
      auto [p, n] = stringOf(v);
      auto in = helper("attrib_jit_in_nodes", i32_, {i8p_, i8p_, i64_});
      llvm::Value* r = b_.CreateCall(in, {context_, p, n});
      return boolean(b_.CreateICmpSGT(r, b_.getInt32(0)), any(v.null, b_.CreateICmpSLT(r, b_.getInt32(0))));
    }
    case Op::Match: {
      CV v = gen(e.operands[0]);
      if (v.type == Type::Null) return nullOf(Type::Bool);
      auto [p, n] = stringOf(v);
      auto match = helper("attrib_jit_match", i32_, {i8p_, i32_, i8p_, i64_});
      llvm::Value* m = b_.CreateICmpNE(b_.CreateCall(match, {context_, b_.getInt32(e.regex), p, n}), b_.getInt32(0));
      return boolean(e.negated ? b_.CreateNot(m) : m, v.null);
    }
    case Op::IsSymptom: {
      CV v = gen(e.operands[0]);
      llvm::Value* p = instanceOf(v);
      llvm::Value* member = b_.CreateLoad(i8_, b_.CreateInBoundsGEP(i8_, setTable(e.set), symptomId(safe(p))));
      llvm::Value* is = b_.CreateAnd(b_.CreateNot(isNullPtr(p)), b_.CreateICmpNE(member, b_.getInt8(0)));
      return boolean(e.negated ? b_.CreateNot(is) : is);
    }
    case Op::IsNone: {
      CV v = gen(e.operands[0]);
      llvm::Value* none = isNullPtr(instanceOf(v));
      return boolean(e.negated ? b_.CreateNot(none) : none);
    }
    case Op::Same: return same(e);
    case Op::Count: case Op::Exists: case Op::First: case Op::Last: case Op::Distinct: case Op::MinBy:
    case Op::MaxBy: case Op::Percentile:
      return ir::isSlotInvariant(e) ? memoized(e) : aggregate(e);
    case Op::WindowAvg: case Op::WindowMin: case Op::WindowMax: case Op::WindowSum: case Op::WindowRate:
    case Op::WindowDelta:
      return window(e);
    default: return call(e);
  }
}

CV Codegen::constant(const ir::Value& c) {
  switch (c.type) {
    case Type::Null: return nullOf(Type::Null);
    case Type::Float: return real(llvm::ConstantFP::get(f64_, c.f), b_.getFalse());
    case Type::String: return constString(c.s);
    case Type::Bool: return boolean(b_.getInt1(c.i != 0));
    default: return integer(c.type, b_.getInt64(c.i), b_.getFalse());
  }
}

// `and`/`or` short-circuit and treat null as false; the result is never null.
CV Codegen::logical(const ir::Expr& e) {
  bool isAnd = e.op == Op::And;
  llvm::Value* first = truth(gen(e.operands[0]));
  llvm::BasicBlock* from = b_.GetInsertBlock();
  auto* second = llvm::BasicBlock::Create(ctx_, isAnd ? "and.rhs" : "or.rhs", fn_);
  auto* done = llvm::BasicBlock::Create(ctx_, isAnd ? "and.end" : "or.end", fn_);
  if (isAnd) b_.CreateCondBr(first, second, done);
  else b_.CreateCondBr(first, done, second);
  b_.SetInsertPoint(second);
  llvm::Value* rhs = truth(gen(e.operands[1]));
  llvm::BasicBlock* rhsEnd = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  llvm::PHINode* phi = b_.CreatePHI(i1_, 2);
  phi->addIncoming(isAnd ? b_.getFalse() : b_.getTrue(), from);
  phi->addIncoming(rhs, rhsEnd);
  return boolean(phi);
}

// `same(key)`: every rule binding has the key and all are equal. The binding count is fixed
// per rule, so the loop is unrolled.
CV Codegen::same(const ir::Expr& e) {
  llvm::Value* ok = b_.getTrue();
  CV first;
  for (int32_t k = 0; k < bindings_; ++k) {
    llvm::Value* inst = slot(k);
    CV key = field(inst, e.field);
    ok = b_.CreateAnd(ok, b_.CreateNot(any(isNullPtr(inst), key.null)));
    if (k == 0) first = key;
    else ok = b_.CreateAnd(ok, truth(compare(Op::Eq, first, key)));
  }
  return boolean(ok);
}

// A slot-invariant aggregate: its value from ctx->memo when an earlier call of this predicate
// Scalar functions.
CV Codegen::call(const ir::Expr& e) {
  CV a = gen(e.operands[0]);
  auto strings2 = [&](const char* name) {
    CV b = gen(e.operands[1]);
    auto [ap, an] = stringOf(a);
    auto [bp, bn] = stringOf(b);
    auto fn = helper(name, i32_, {i8p_, i64_, i8p_, i64_});
    llvm::Value* r = b_.CreateICmpNE(b_.CreateCall(fn, {ap, an, bp, bn}), b_.getInt32(0));
    return boolean(r, any(a.null, b.null));
  };
  switch (e.op) {
    case Op::Contains: return strings2("attrib_jit_contains");
    case Op::StartsWith: return strings2("attrib_jit_starts_with");
    case Op::EndsWith: return strings2("attrib_jit_ends_with");
    case Op::Min: case Op::Max: {
      CV b;
      llvm::Value* null;
      if (!secondOperand(e, a, &b, &null)) return nullOf(e.type);
      if (e.type == Type::Float) {
        llvm::Value* x = doubleOf(a);
        llvm::Value* y = doubleOf(b);
        llvm::Value* nan = b_.CreateFCmpUNO(x, y);
        // std::min(x, y) is (y < x) ? y : x; std::max(x, y) is (x < y) ? y : x.
        llvm::Value* pick = e.op == Op::Min ? b_.CreateSelect(b_.CreateFCmpOLT(y, x), y, x)
                                            : b_.CreateSelect(b_.CreateFCmpOLT(x, y), y, x);
        llvm::Value* qnan = llvm::ConstantFP::getNaN(f64_);
        return real(b_.CreateSelect(nan, qnan, pick), null);
      }
      llvm::Value* less = truth(compare(Op::Lt, a, b));
      llvm::Value* pick = e.op == Op::Min ? b_.CreateSelect(less, intOf(a), intOf(b))
                                          : b_.CreateSelect(less, intOf(b), intOf(a));
      return integer(e.type, pick, null);
    }
    default: break;
  }
  if (a.type == Type::Null) return nullOf(e.type);
  switch (e.op) {
    case Op::ToInt: {
      if (a.type == Type::Float) {
        auto [i, bad] = truncToInt(a.f);
        return integer(Type::Int, i, any(a.null, bad));
      }
      if (a.type != Type::String) return integer(Type::Int, intOf(a), a.null);
      auto [value, ok] = parseInt(a.p, a.n);
      return integer(Type::Int, value, any(a.null, b_.CreateNot(ok)));
    }
    case Op::ToFloat: {
      if (a.type != Type::String) return real(doubleOf(a), a.null);
      llvm::Value* out = entryAlloca(f64_, "tofloat");
      b_.CreateStore(llvm::ConstantFP::get(f64_, 0.0), out);
      auto parse = helper("attrib_jit_parse_float", i32_, {i8p_, i64_, f64_->getPointerTo()});
      llvm::Value* ok = b_.CreateCall(parse, {a.p, a.n, out});
      return real(b_.CreateLoad(f64_, out), any(a.null, b_.CreateICmpEQ(ok, b_.getInt32(0))));
    }
    case Op::ToString: {
      switch (a.type) {
        case Type::String: return a;
        case Type::Bool: {
          CV t = constString("true"), f = constString("false");
          llvm::Value* yes = a.bit;
          return string(b_.CreateSelect(yes, t.p, f.p), b_.CreateSelect(yes, t.n, f.n), a.null);
        }
        case Type::Int: case Type::Float: case Type::Duration: case Type::Time: case Type::State: {
          // Only formatted when present: formatting allocates.
          return stringFromHelper("fmt", a.null, [&](llvm::Value* p, llvm::Value* n) {
            auto fn = helper("attrib_jit_format", b_.getVoidTy(),
                             {i8p_, i32_, i64_, f64_, i8p_->getPointerTo(), i64_->getPointerTo()});
            llvm::Value* f = a.type == Type::Float ? a.f : llvm::ConstantFP::get(f64_, 0.0);
            llvm::Value* i = a.type == Type::Float ? b_.getInt64(0) : a.i;
            b_.CreateCall(fn, {scratch_, b_.getInt32(static_cast<int32_t>(a.type)), i, f, p, n});
          });
        }
        default: return nullOf(Type::String);
      }
    }
    case Op::Abs: {
      if (a.type == Type::Float) return real(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a.f), a.null);
      llvm::Value* x = intOf(a);
      llvm::Value* min = b_.CreateICmpEQ(x, b_.getInt64(INT64_MIN));
      llvm::Value* r = b_.CreateSelect(b_.CreateICmpSLT(x, b_.getInt64(0)), b_.CreateSub(b_.getInt64(0), x), x);
      return integer(e.type, r, any(a.null, min));
    }
    case Op::Len: return integer(Type::Int, stringOf(a).second, a.null);
    case Op::Lower: {
      return stringFromHelper("lower", a.null, [&](llvm::Value* p, llvm::Value* n) {
        auto [sp, sn] = stringOf(a);
        auto fn = helper("attrib_jit_lower", b_.getVoidTy(), {i8p_, i8p_, i64_, i8p_->getPointerTo(), i64_->getPointerTo()});
        b_.CreateCall(fn, {scratch_, sp, sn, p, n});
      });
    }
    default: return nullOf(e.type);
  }
}

}  // namespace attrib::jit::detail
