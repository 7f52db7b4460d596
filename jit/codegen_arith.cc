// Comparisons, arithmetic and number conversions, with the interpreter's semantics (ir/ir.h,
// "Semantics"): a comparison with a null operand is null; integer arithmetic that overflows,
// divides by zero or truncates a float out of range is null rather than undefined, so the
// generated code never executes an instruction with undefined behaviour (sdiv by 0 or
// INT64_MIN / -1, fptosi out of range); float comparisons are ordered but `!=`, as in C++.
#include <llvm/IR/Constants.h>

#include "jit/codegen_state.h"

namespace attrib::jit::detail {

using ir::Op;
using ir::Type;

// Shared by ==, <, in, same and aggregates' keys.
CV Codegen::compare(Op op, const CV& a, const CV& b) {
  if (a.type == Type::Null || b.type == Type::Null) return nullOf(Type::Bool);
  llvm::Value* null = any(a.null, b.null);
  llvm::Value* r = nullptr;
  if (a.type == Type::Float || b.type == Type::Float) {
    llvm::Value* x = doubleOf(a);
    llvm::Value* y = doubleOf(b);
    switch (op) {
      case Op::Eq: r = b_.CreateFCmpOEQ(x, y); break;
      case Op::Ne: r = b_.CreateFCmpUNE(x, y); break;  // NaN != anything
      case Op::Lt: r = b_.CreateFCmpOLT(x, y); break;
      case Op::Le: r = b_.CreateFCmpOLE(x, y); break;
      case Op::Gt: r = b_.CreateFCmpOGT(x, y); break;
      default: r = b_.CreateFCmpOGE(x, y); break;
    }
    return boolean(r, null);
  }
  if (a.type == Type::String) {
    auto [ap, an] = stringOf(a);
    auto [bp, bn] = stringOf(b);
    if (op == Op::Eq || op == Op::Ne) {
      llvm::Value* same = stringsEqual(ap, an, bp, bn);
      return boolean(op == Op::Eq ? same : b_.CreateNot(same), null);
    }
    auto cmp = helper("attrib_jit_str_cmp", i32_, {i8p_, i64_, i8p_, i64_});
    llvm::Value* c = b_.CreateCall(cmp, {ap, an, bp, bn});
    return boolean(intCompare(op, c, b_.getInt32(0), true), null);
  }
  if (a.type == Type::Instance) {
    llvm::Value* x = b_.CreatePtrToInt(instanceOf(a), i64_);
    llvm::Value* y = b_.CreatePtrToInt(instanceOf(b), i64_);
    return boolean(intCompare(op, x, y, false), null);
  }
  return boolean(intCompare(op, intOf(a), intOf(b), true), null);
}

llvm::Value* Codegen::intCompare(Op op, llvm::Value* x, llvm::Value* y, bool isSigned) {
  switch (op) {
    case Op::Eq: return b_.CreateICmpEQ(x, y);
    case Op::Ne: return b_.CreateICmpNE(x, y);
    case Op::Lt: return isSigned ? b_.CreateICmpSLT(x, y) : b_.CreateICmpULT(x, y);
    case Op::Le: return isSigned ? b_.CreateICmpSLE(x, y) : b_.CreateICmpULE(x, y);
    case Op::Gt: return isSigned ? b_.CreateICmpSGT(x, y) : b_.CreateICmpUGT(x, y);
    default: return isSigned ? b_.CreateICmpSGE(x, y) : b_.CreateICmpUGE(x, y);
  }
}

// memcmp(a, b, n) == 0, for n > 0. With a constant n LLVM expands it into a few compares.
llvm::Value* Codegen::bytesEqual(llvm::Value* a, llvm::Value* b, llvm::Value* n) {
  auto memcmp = helper("memcmp", i32_, {i8p_, i8p_, i64_});
  return b_.CreateICmpEQ(b_.CreateCall(memcmp, {a, b, n}), b_.getInt32(0));
}

// Two strings are equal: same size, and the same bytes when there are any. memcmp is only
// called on non-empty strings, whose pointers are valid.
llvm::Value* Codegen::stringsEqual(llvm::Value* ap, llvm::Value* an, llvm::Value* bp, llvm::Value* bn) {
  llvm::BasicBlock* from = b_.GetInsertBlock();
  auto* compareBytes = block("streq.bytes");
  auto* done = block("streq.end");
  llvm::Value* sameSize = b_.CreateICmpEQ(an, bn);
  llvm::Value* empty = b_.CreateICmpEQ(an, b_.getInt64(0));
  llvm::Value* bothEmpty = b_.CreateAnd(sameSize, empty);
  b_.CreateCondBr(b_.CreateAnd(sameSize, b_.CreateNot(empty)), compareBytes, done);
  b_.SetInsertPoint(compareBytes);
  llvm::Value* equal = bytesEqual(ap, bp, an);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  llvm::PHINode* phi = b_.CreatePHI(i1_, 2);
  phi->addIncoming(bothEmpty, from);
  phi->addIncoming(equal, compareBytes);
  return phi;
}

bool Codegen::secondOperand(const ir::Expr& e, const CV& a, CV* b, llvm::Value** null) {
  *b = gen(e.operands[1]);
  if (a.type == Type::Null || b->type == Type::Null) return false;
  *null = any(a.null, b->null);
  return true;
}

CV Codegen::arithmetic(const ir::Expr& e) {
  CV a = gen(e.operands[0]);
  CV b;
  llvm::Value* null;
  if (!secondOperand(e, a, &b, &null)) return nullOf(e.type);
  if (e.type == Type::Float) {
    llvm::Value* x = doubleOf(a);
    llvm::Value* y = doubleOf(b);
    switch (e.op) {
      case Op::Add: return real(b_.CreateFAdd(x, y), null);
      case Op::Sub: return real(b_.CreateFSub(x, y), null);
      case Op::Mul: return real(b_.CreateFMul(x, y), null);
      case Op::Div:
        // duration / duration: both integers, so a zero divisor is a missing value, not inf.
        if (isIntLike(a.type) && isIntLike(b.type)) null = any(null, b_.CreateICmpEQ(intOf(b), b_.getInt64(0)));
        return real(b_.CreateFDiv(x, y), null);
      default: return nullOf(Type::Float);
    }
  }
  if (a.type == Type::Float || b.type == Type::Float) {
    if (e.op == Op::Mod) return nullOf(e.type);
    llvm::Value* x = doubleOf(a);
    llvm::Value* y = doubleOf(b);
    llvm::Value* r = e.op == Op::Mul ? b_.CreateFMul(x, y)
                     : e.op == Op::Div ? b_.CreateFDiv(x, y)
                     : e.op == Op::Add ? b_.CreateFAdd(x, y)
                                       : b_.CreateFSub(x, y);
    auto [i, bad] = truncToInt(r);
    return integer(e.type, i, any(null, bad));
  }
  llvm::Value* x = intOf(a);
  llvm::Value* y = intOf(b);
  auto overflowing = [&](llvm::Intrinsic::ID id) {
    llvm::Value* pair = b_.CreateCall(intrinsic(id, i64_), {x, y});
    return integer(e.type, b_.CreateExtractValue(pair, 0), any(null, b_.CreateExtractValue(pair, 1)));
  };
  llvm::Value* zero = b_.CreateICmpEQ(y, b_.getInt64(0));
  llvm::Value* minusOne = b_.CreateICmpEQ(y, b_.getInt64(-1));
  switch (e.op) {
    case Op::Add: return overflowing(llvm::Intrinsic::sadd_with_overflow);
    case Op::Sub: return overflowing(llvm::Intrinsic::ssub_with_overflow);
    case Op::Mul: return overflowing(llvm::Intrinsic::smul_with_overflow);
    case Op::Div: {
      llvm::Value* bad = any(zero, b_.CreateAnd(b_.CreateICmpEQ(x, b_.getInt64(INT64_MIN)), minusOne));
      llvm::Value* divisor = b_.CreateSelect(bad, b_.getInt64(1), y);
      return integer(e.type, b_.CreateSDiv(x, divisor), any(null, bad));
    }
    case Op::Mod: {
      llvm::Value* divisor = b_.CreateSelect(any(zero, minusOne), b_.getInt64(1), y);
      llvm::Value* r = b_.CreateSelect(minusOne, b_.getInt64(0), b_.CreateSRem(x, divisor));
      return integer(e.type, r, any(null, zero));
    }
    default: return nullOf(e.type);
  }
}

// `same(key)`: every rule binding has the key and all are equal. The binding count is fixed
// A double that fits an int64 after truncation toward zero.
std::pair<llvm::Value*, llvm::Value*> Codegen::truncToInt(llvm::Value* d) {
  llvm::Value* t = b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, d);
  llvm::Value* ok = b_.CreateAnd(b_.CreateFCmpOGE(t, llvm::ConstantFP::get(f64_, -9223372036854775808.0)),
                                 b_.CreateFCmpOLT(t, llvm::ConstantFP::get(f64_, 9223372036854775808.0)));
  llvm::Value* i = b_.CreateSelect(ok, b_.CreateFPToSI(b_.CreateSelect(ok, t, llvm::ConstantFP::get(f64_, 0.0)), i64_),
                                   b_.getInt64(0));
  return {i, b_.CreateNot(ok)};  // NaN and infinities fail both comparisons
}

// int(s): short runs of decimal digits (the common case: captured numbers) are parsed
// inline; anything else goes to the helper, which implements the full rule.
std::pair<llvm::Value*, llvm::Value*> Codegen::parseInt(llvm::Value* p, llvm::Value* n) {
  llvm::Value* value = entryAlloca(i64_, "int.v");
  llvm::Value* ok = entryAlloca(i1_, "int.ok");
  if (compact_) {
    b_.CreateStore(b_.getInt64(0), value);
    auto parse = helper("attrib_jit_parse_int", i32_, {i8p_, i64_, i64_->getPointerTo()});
    llvm::Value* parsed = b_.CreateICmpNE(b_.CreateCall(parse, {p, n, value}), b_.getInt32(0));
    return {b_.CreateLoad(i64_, value), parsed};
  }
  b_.CreateStore(b_.getInt64(0), value);
  auto* digits = block("int.digits");
  auto* slow = block("int.slow");
  auto* done = block("int.result");
  // At most 18 digits: the value cannot overflow.
  llvm::Value* shortRun = b_.CreateAnd(b_.CreateICmpUGE(n, b_.getInt64(1)), b_.CreateICmpULE(n, b_.getInt64(18)));
  b_.CreateCondBr(shortRun, digits, slow);
  b_.SetInsertPoint(digits);
  countedLoop("int", b_.getInt64(0), [&](llvm::Value* i) { return b_.CreateICmpULT(i, n); }, [&](const Loop& l) {
    llvm::Value* c = b_.CreateLoad(i8_, b_.CreateInBoundsGEP(i8_, p, l.index));
    llvm::Value* d = b_.CreateSub(b_.CreateZExt(c, i64_), b_.getInt64('0'));
    b_.CreateStore(b_.CreateAdd(b_.CreateMul(b_.CreateLoad(i64_, value), b_.getInt64(10)), d), value);
    b_.CreateCondBr(b_.CreateICmpULE(d, b_.getInt64(9)), l.next, slow);  // not a digit: the helper decides
  });
  b_.CreateStore(b_.getTrue(), ok);  // all digits
  b_.CreateBr(done);
  b_.SetInsertPoint(slow);
  b_.CreateStore(b_.getInt64(0), value);
  auto parse = helper("attrib_jit_parse_int", i32_, {i8p_, i64_, i64_->getPointerTo()});
  b_.CreateStore(b_.CreateICmpNE(b_.CreateCall(parse, {p, n, value}), b_.getInt32(0)), ok);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return {b_.CreateLoad(i64_, value), b_.CreateLoad(i1_, ok)};
}

}  // namespace attrib::jit::detail
