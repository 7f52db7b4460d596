// Instance fields, captures and workload fields: plain loads from the runtime's Instance and
// EvalContext at the offsets of jit/data_layout.h. Invariants: a load through an instance that
// may be absent reads the zeroed stand-in (safe()) and the result carries the instance's null
// flag, so no field read branches; empty node/gpu/source/metric/reason strings and disengaged
// optionals are null, as the interpreter reads them (runtime/interpreter.h's fieldValue).
#include <llvm/IR/Constants.h>

#include "jit/codegen_state.h"

namespace attrib::jit::detail {

using ir::Op;
using ir::Type;

CV Codegen::stringField(llvm::Value* s, const StringField& f, llvm::Value* instNull, bool emptyIsNull) {
  llvm::Value* p = load(i8p_, s, f.offset);
  llvm::Value* n = load(i64_, s, f.offset + 8);
  llvm::Value* null = instNull;
  if (emptyIsNull) null = any(null, b_.CreateICmpEQ(n, b_.getInt64(0)));
  return string(p, n, null);
}

CV Codegen::optionalInt(llvm::Value* s, const OptionalField& f, llvm::Value* instNull, Type type, bool byte) {
  llvm::Value* v = byte ? b_.CreateZExt(load(i8_, s, f.value), i64_) : load(i64_, s, f.value);
  llvm::Value* engaged = b_.CreateICmpNE(load(i8_, s, f.engaged), b_.getInt8(0));
  return integer(type, v, any(instNull, b_.CreateNot(engaged)));
}

llvm::Value* Codegen::symptomId(llvm::Value* s) { return b_.CreateSExt(load(i32_, s, layout_.symptom), i64_); }

// The instance's metric and scheduler fields: through its pointer, or the zeroed stand-in when
// it has none (log evidence), which reads as null as a default struct does.
llvm::Value* Codegen::extraFields(llvm::Value* s) {
  llvm::Value* p = load(i8p_, s, layout_.extra);
  return b_.CreateSelect(b_.CreateICmpEQ(p, llvm::ConstantPointerNull::get(i8p_)), dummy_, p);
}

CV Codegen::field(llvm::Value* inst, ir::Field f) {
  using F = ir::Field;
  llvm::Value* instNull = isNullPtr(inst);
  llvm::Value* s = safe(inst);
  switch (f) {
    case F::Time: {
      llvm::Value* unknown = b_.CreateICmpNE(load(i8_, s, layout_.timeUnknown), b_.getInt8(0));
      return integer(Type::Time, load(i64_, s, layout_.time), any(instNull, unknown));
    }
    case F::Node: return stringField(s, layout_.node, instNull, true);
    case F::Gpu: return stringField(s, layout_.gpu, instNull, true);
    case F::Source: return stringField(s, layout_.source, instNull, true);
    case F::Text: return stringField(s, layout_.text, instNull, false);
    case F::Metric: return stringField(extraFields(s), layout_.metric, instNull, true);
    case F::Reason: return stringField(extraFields(s), layout_.reason, instNull, true);
    case F::Rank: return optionalInt(s, layout_.rank, instNull, Type::Int, false);
    case F::ExitCode: return optionalInt(extraFields(s), layout_.exitCode, instNull, Type::Int, false);
    case F::Signal: return optionalInt(extraFields(s), layout_.signal, instNull, Type::Int, false);
    case F::State: return optionalInt(extraFields(s), layout_.state, instNull, Type::State, true);
    case F::Value: {
      llvm::Value* isMetric = b_.CreateLoad(i8_, b_.CreateInBoundsGEP(i8_, metricTable(), symptomId(s)));
      return real(load(f64_, extraFields(s), layout_.value), any(instNull, b_.CreateICmpEQ(isMetric, b_.getInt8(0))));
    }
    case F::Symptom: case F::Family: case F::Severity: case F::Blame: case F::Role: {
      auto* pair = llvm::StructType::get(ctx_, {i8p_, i64_});
      WordTable words = nameTable(f);
      llvm::Value* table = b_.CreateBitCast(words.words, pair->getPointerTo());
      llvm::Value* index = symptomId(s);
      if (words.indices) index = b_.CreateZExt(b_.CreateLoad(i8_, b_.CreateInBoundsGEP(i8_, words.indices, index)), i64_);
      llvm::Value* at = b_.CreateInBoundsGEP(pair, table, index);
      llvm::Value* p = b_.CreateLoad(i8p_, b_.CreateStructGEP(pair, at, 0));
      llvm::Value* n = b_.CreateLoad(i64_, b_.CreateStructGEP(pair, at, 1));
      return string(p, n, instNull);
    }
  }
  return nullOf(Type::Null);
}

// inst.capture `name`: a walk over the instance's (name, value) pairs, inline; the first pair
// with the name wins, as in Instance::capture.
CV Codegen::capture(llvm::Value* inst, const std::string& name) {
  if (compact_) {
    llvm::Value* p = entryAlloca(i8p_, "cap.p");
    llvm::Value* n = entryAlloca(i64_, "cap.n");
    CV key = constString(name);
    b_.CreateStore(llvm::ConstantPointerNull::get(i8p_), p);
    b_.CreateStore(b_.getInt64(0), n);
    auto fn = helper("attrib_jit_capture", i32_, {i8p_, i8p_, i64_, i8p_->getPointerTo(), i64_->getPointerTo()});
    llvm::Value* found = b_.CreateCall(fn, {inst, key.p, key.n, p, n});
    return string(b_.CreateLoad(i8p_, p), b_.CreateLoad(i64_, n), b_.CreateICmpEQ(found, b_.getInt32(0)));
  }
  llvm::Value* s = safe(inst);
  llvm::Value* begin = load(i8p_, s, layout_.captures);
  llvm::Value* end = load(i8p_, s, layout_.captures + 8);
  CV key = constString(name);
  llvm::Value* cursor = variable(i8p_, begin, "cap.at");
  llvm::Value* valueP = variable(i8p_, llvm::ConstantPointerNull::get(i8p_), "cap.p");
  llvm::Value* valueN = variable(i64_, b_.getInt64(0), "cap.n");
  llvm::Value* found = variable(i1_, b_.getFalse(), "cap.found");
  llvm::Value* at = nullptr;
  loop("cap", [&] {
    at = b_.CreateLoad(i8p_, cursor);
    return b_.CreateICmpNE(at, end);
  }, [&](const Loop& l) {
    auto* hit = block("cap.hit");
    auto* advance = block("cap.next");
    llvm::Value* keyN = load(i64_, at, 8);
    if (name.empty()) {
      b_.CreateCondBr(b_.CreateICmpEQ(keyN, b_.getInt64(0)), hit, advance);
    } else {
      auto* compareBytes = block("cap.bytes");
      b_.CreateCondBr(b_.CreateICmpEQ(keyN, key.n), compareBytes, advance);
      b_.SetInsertPoint(compareBytes);
      b_.CreateCondBr(bytesEqual(load(i8p_, at, 0), key.p, key.n), hit, advance);
    }
    b_.SetInsertPoint(hit);
    b_.CreateStore(load(i8p_, at, layout_.captureValue), valueP);
    b_.CreateStore(load(i64_, at, layout_.captureValue + 8), valueN);
    b_.CreateStore(b_.getTrue(), found);
    b_.CreateBr(l.exit);
    b_.SetInsertPoint(advance);
    b_.CreateStore(b_.CreateConstInBoundsGEP1_64(i8_, at, layout_.captureSize), cursor);
  });
  return string(b_.CreateLoad(i8p_, valueP), b_.CreateLoad(i64_, valueN), b_.CreateNot(b_.CreateLoad(i1_, found)));
}

CV Codegen::workload(const ir::Expr& e) {
  if (e.type == Type::String) {
    llvm::Value* p = entryAlloca(i8p_, "wl.p");
    llvm::Value* n = entryAlloca(i64_, "wl.n");
    b_.CreateStore(llvm::ConstantPointerNull::get(i8p_), p);  // read even when absent
    b_.CreateStore(b_.getInt64(0), n);
    auto get = helper("attrib_jit_workload_str", i32_, {i8p_, i32_, i8p_->getPointerTo(), i64_->getPointerTo()});
    llvm::Value* found = b_.CreateCall(get, {context_, b_.getInt32(static_cast<int32_t>(e.wfield)), p, n});
    return string(b_.CreateLoad(i8p_, p), b_.CreateLoad(i64_, n), b_.CreateICmpEQ(found, b_.getInt32(0)));
  }
  if (!isIntLike(e.type)) return nullOf(e.type);
  llvm::Value* out = entryAlloca(i64_, "wl.i");
  b_.CreateStore(b_.getInt64(0), out);
  auto get = helper("attrib_jit_workload_int", i32_, {i8p_, i32_, i64_->getPointerTo()});
  llvm::Value* found = b_.CreateCall(get, {context_, b_.getInt32(static_cast<int32_t>(e.wfield)), out});
  return integer(e.type, b_.CreateLoad(i64_, out), b_.CreateICmpEQ(found, b_.getInt32(0)));
}

// (a.time, a.sequence) < (b.time, b.sequence); both pointers non-null.
llvm::Value* Codegen::earlier(llvm::Value* a, llvm::Value* b) {
  llvm::Value* at = load(i64_, a, layout_.time);
  llvm::Value* bt = load(i64_, b, layout_.time);
  llvm::Value* as = load(i64_, a, layout_.sequence);
  llvm::Value* bs = load(i64_, b, layout_.sequence);
  return b_.CreateSelect(b_.CreateICmpNE(at, bt), b_.CreateICmpSLT(at, bt), b_.CreateICmpULT(as, bs));
}

}  // namespace attrib::jit::detail
