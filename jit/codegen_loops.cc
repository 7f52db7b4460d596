// Loops over the runtime's arrays: aggregates (count, exists, first, last, distinct, min_by,
// max_by, percentile) over the live instances of a symptom set, metric windows over the current
// series, and the memo of slot-invariant aggregates. Both loops are countedLoop()s
// (codegen_values.cc) and visit exactly the elements the interpreter visits, in its order
// (runtime/interpreter.cc): aggregates per symptom of the set in the set's order, each
// symptom's instances in the index's (time) order, skipping filtered ones; windows the samples
// in (now - window, now], oldest first. An iteration binds its element to the aggregate's slot
// (genBound) only while its where/key/value expression is generated. Accumulators are entry
// allocas; results go through allocas too, joined after the loop's empty and non-empty paths.
#include <llvm/IR/Constants.h>

#include "jit/codegen_state.h"

namespace attrib::jit::detail {

using ir::Op;
using ir::Type;

// A slot-invariant aggregate: its value from ctx->memo when an earlier call of this predicate
// over the same instances computed it (runtime::AggregateMemo), else computed and recorded.
CV Codegen::memoized(const ir::Expr& e) {
  llvm::Value* id = b_.getInt32(nextMemo_++);
  llvm::Value* mi = entryAlloca(i64_, "memo.i");
  llvm::Value* mf = entryAlloca(f64_, "memo.f");
  llvm::Value* mp = entryAlloca(i8p_, "memo.p");
  llvm::Value* mn = entryAlloca(i32_, "memo.null");
  auto get = helper("attrib_jit_memo_get", i32_,
                    {i8p_, i32_, i64_->getPointerTo(), f64_->getPointerTo(), i8p_->getPointerTo(), i32_->getPointerTo()});
  llvm::Value* hit = b_.CreateCall(get, {context_, id, mi, mf, mp, mn});
  auto* miss = block("memo.miss");
  auto* done = block("memo.done");
  b_.CreateCondBr(b_.CreateICmpNE(hit, b_.getInt32(0)), done, miss);
  b_.SetInsertPoint(miss);
  CV v = aggregate(e);
  llvm::Value* f = e.op == Op::Percentile ? v.f : llvm::ConstantFP::get(f64_, 0.0);
  llvm::Value* p = e.type == Type::Instance ? v.p : llvm::ConstantPointerNull::get(i8p_);
  llvm::Value* i = e.type == Type::Instance || e.op == Op::Percentile ? b_.getInt64(0) : intOf(v);
  llvm::Value* null = b_.CreateZExt(v.null, i32_);
  b_.CreateStore(i, mi);
  b_.CreateStore(f, mf);
  b_.CreateStore(p, mp);
  b_.CreateStore(null, mn);
  auto put = helper("attrib_jit_memo_put", b_.getVoidTy(), {i8p_, i32_, i64_, f64_, i8p_, i32_});
  b_.CreateCall(put, {context_, id, i, f, p, null});
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  llvm::Value* ri = b_.CreateLoad(i64_, mi);
  switch (e.op) {
    case Op::Count: case Op::Distinct: return integer(Type::Int, ri, b_.getFalse());
    case Op::Exists: return boolean(b_.CreateICmpNE(ri, b_.getInt64(0)));
    case Op::Percentile:
      return real(b_.CreateLoad(f64_, mf), b_.CreateICmpNE(b_.CreateLoad(i32_, mn), b_.getInt32(0)));
    default: return instance(b_.CreateLoad(i8p_, mp));
  }
}

// In the index's order (per symptom, by time), exactly as the interpreter walks them.
CV Codegen::aggregate(const ir::Expr& e) {
  Op op = e.op;
  bool keyed = op == Op::MinBy || op == Op::MaxBy || op == Op::Percentile;
  auto emptyResult = [&]() -> CV {
    if (op == Op::Count || op == Op::Distinct) return integer(Type::Int, b_.getInt64(0), b_.getFalse());
    if (op == Op::Exists) return boolean(b_.getFalse());
    if (op == Op::Percentile) return nullOf(Type::Float);
    return instance(llvm::ConstantPointerNull::get(i8p_));
  };
  llvm::Value* resI = entryAlloca(i64_, "agg.i");
  llvm::Value* resP = entryAlloca(i8p_, "agg.p");
  llvm::Value* resF = entryAlloca(f64_, "agg.f");
  llvm::Value* resNull = entryAlloca(i1_, "agg.null");
  auto store = [&](const CV& v) {
    b_.CreateStore(intOf(v), resI);
    b_.CreateStore(v.p, resP);
    if (op == Op::Percentile) {
      b_.CreateStore(v.f, resF);
      b_.CreateStore(v.null, resNull);
    }
  };
  auto* merge = block("agg.end");
  auto* empty = block("agg.empty");
  auto* start = block("agg.start");

  llvm::Value* base = b_.CreateCall(helper("attrib_jit_instances", i8p_, {i8p_}), {context_});
  llvm::Value* skip = isNullPtr(base);
  CV refKey;
  if (e.sameKey) {
    llvm::Value* reference = slot(0);
    refKey = field(reference, e.field);
    skip = any(skip, any(isNullPtr(reference), refKey.null));
  }
  b_.CreateCondBr(skip, empty, start);

  b_.SetInsertPoint(empty);
  store(emptyResult());
  b_.CreateBr(merge);

  b_.SetInsertPoint(start);
  llvm::Type* listType = llvm::Type::getInt32PtrTy(ctx_);
  llvm::Value* null = llvm::ConstantPointerNull::get(i8p_);
  llvm::Value* count = variable(i64_, b_.getInt64(0), "agg.count");
  llvm::Value* first = variable(i8p_, null, "agg.first");
  llvm::Value* last = variable(i8p_, null, "agg.last");
  llvm::Value* listSlot = entryAlloca(listType, "agg.list");
  if (op == Op::Distinct) b_.CreateCall(helper("attrib_jit_distinct_begin", b_.getVoidTy(), {i8p_}), {scratch_});
  // min_by / max_by: the best instance so far and its key; percentile: its p, read before
  // the loop binds the aggregate's slot (as the interpreter does), and the keys collected.
  llvm::Value* best = variable(i8p_, null, "agg.best");
  llvm::Value* bestI = entryAlloca(i64_, "agg.besti");
  llvm::Value* bestF = entryAlloca(f64_, "agg.bestf");
  CV percentile;
  if (op == Op::Percentile) {
    percentile = gen(e.operands.back());
    b_.CreateCall(helper("attrib_jit_values_begin", b_.getVoidTy(), {i8p_}), {scratch_});
  }
  // Outer loop over the set's symptom ids (a constant array), inner loop over each
  // symptom's instances in the index; one copy of the where-clause however large the set.
  bool keyedList = e.sameKey && (e.field == ir::Field::Node || e.field == ir::Field::Rank || e.field == ir::Field::Gpu);
  auto setSize = b_.getInt64(static_cast<int64_t>(program_.symptomSets[e.set].size()));
  llvm::Value* idTable = b_.CreateBitCast(symptomIds(e.set), i32_->getPointerTo());
  countedLoop("agg.symptoms", b_.getInt64(0), [&](llvm::Value* s) { return b_.CreateICmpSLT(s, setSize); },
              [&](const Loop& symptoms) {
    llvm::Value* symptom = b_.CreateLoad(i32_, b_.CreateInBoundsGEP(i32_, idTable, symptoms.index));
    llvm::Value* n = nullptr;
    if (keyedList) {
      // Only the instances sharing the key with the reference (InstanceIndex::withKey).
      auto list = helper("attrib_jit_symptom_list_keyed", i64_,
                         {i8p_, i32_, i32_, i64_, i8p_, i64_, listType->getPointerTo()});
      llvm::Value* rank = e.field == ir::Field::Rank ? intOf(refKey) : b_.getInt64(0);
      auto [p, len] = e.field == ir::Field::Rank ? std::pair<llvm::Value*, llvm::Value*>{null, b_.getInt64(0)}
                                                 : stringOf(refKey);
      n = b_.CreateCall(list, {context_, symptom, b_.getInt32(static_cast<int32_t>(e.field)), rank, p, len, listSlot});
    } else {
      auto list = helper("attrib_jit_symptom_list", i64_, {i8p_, i32_, listType->getPointerTo()});
      n = b_.CreateCall(list, {context_, symptom, listSlot});
    }
    countedLoop("agg.instances", b_.getInt64(0), [&](llvm::Value* k) { return b_.CreateICmpSLT(k, n); },
                [&](const Loop& instances) {
      llvm::Value* listPtr = b_.CreateLoad(listType, listSlot);
      llvm::Value* idx = b_.CreateLoad(i32_, b_.CreateInBoundsGEP(i32_, listPtr, instances.index));
      llvm::Value* offset = b_.CreateMul(b_.CreateSExt(idx, i64_), b_.getInt64(layout_.instanceSize));
      llvm::Value* inst = b_.CreateInBoundsGEP(i8_, base, offset);
      nonNull_.insert(inst);
      llvm::Value* keep = b_.CreateICmpEQ(load(i8_, inst, layout_.filtered), b_.getInt8(0));
      if (e.sameKey) keep = b_.CreateAnd(keep, truth(compare(Op::Eq, field(inst, e.field), refKey)));
      if (e.hasWhere) {
        auto* where = block("agg.where");
        b_.CreateCondBr(keep, where, instances.next);
        b_.SetInsertPoint(where);
        keep = truth(genBound(e.operands[0], e.slot, inst));
      }
      auto* accept = block("agg.accept");
      b_.CreateCondBr(keep, accept, instances.next);

      b_.SetInsertPoint(accept);
      b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64_, count), b_.getInt64(1)), count);
      if (keyed) {
        CV key = genBound(e.operands[e.hasWhere ? 1 : 0], e.slot, inst);
        bool isFloat = key.type == Type::Float;
        llvm::Value* skipKey = isFloat ? any(key.null, b_.CreateFCmpUNO(key.f, key.f)) : key.null;
        auto* use = block("agg.key");
        b_.CreateCondBr(skipKey, instances.next, use);
        b_.SetInsertPoint(use);
        if (op == Op::Percentile) {
          b_.CreateCall(helper("attrib_jit_values_add", b_.getVoidTy(), {i8p_, f64_}), {scratch_, doubleOf(key)});
          return;
        }
        llvm::Value* cur = b_.CreateLoad(i8p_, best);
        llvm::Value *less, *greater;
        if (isFloat) {
          llvm::Value* bf = b_.CreateLoad(f64_, bestF);
          less = b_.CreateFCmpOLT(key.f, bf);
          greater = b_.CreateFCmpOGT(key.f, bf);
        } else {
          llvm::Value* bi = b_.CreateLoad(i64_, bestI);
          less = b_.CreateICmpSLT(intOf(key), bi);
          greater = b_.CreateICmpSGT(intOf(key), bi);
        }
        llvm::Value* better = op == Op::MinBy ? less : greater;
        llvm::Value* tie = b_.CreateAnd(b_.CreateNot(less), b_.CreateNot(greater));
        llvm::Value* take = any(isNullPtr(cur), any(better, b_.CreateAnd(tie, earlier(inst, safe(cur)))));
        b_.CreateStore(b_.CreateSelect(take, inst, cur), best);
        if (isFloat) b_.CreateStore(b_.CreateSelect(take, key.f, b_.CreateLoad(f64_, bestF)), bestF);
        else b_.CreateStore(b_.CreateSelect(take, intOf(key), b_.CreateLoad(i64_, bestI)), bestI);
        return;
      }
      if (op == Op::Exists) {
        b_.CreateBr(symptoms.exit);  // the first accepted instance decides
        return;
      }
      if (op == Op::First || op == Op::Last) {
        llvm::Value* cur = b_.CreateLoad(i8p_, op == Op::First ? first : last);
        llvm::Value* better = op == Op::First ? earlier(inst, safe(cur)) : earlier(safe(cur), inst);
        b_.CreateStore(b_.CreateSelect(any(isNullPtr(cur), better), inst, cur), op == Op::First ? first : last);
      }
      if (op == Op::Distinct) {
        CV v = e.name.empty() ? field(inst, e.counted) : capture(inst, e.name);
        auto* add = block("agg.distinct");
        b_.CreateCondBr(v.null, instances.next, add);
        b_.SetInsertPoint(add);
        if (v.type == Type::String) {
          auto addStr = helper("attrib_jit_distinct_add_str", b_.getVoidTy(), {i8p_, i8p_, i64_});
          b_.CreateCall(addStr, {scratch_, v.p, v.n});
        } else {
          b_.CreateCall(helper("attrib_jit_distinct_add_int", b_.getVoidTy(), {i8p_, i64_}), {scratch_, intOf(v)});
        }
      }
    });
  });

  llvm::Value* total = b_.CreateLoad(i64_, count);
  switch (op) {
    case Op::Count: store(integer(Type::Int, total, b_.getFalse())); break;
    case Op::Exists: store(boolean(b_.CreateICmpSGT(total, b_.getInt64(0)))); break;
    case Op::First: store(instance(b_.CreateLoad(i8p_, first))); break;
    case Op::Last: store(instance(b_.CreateLoad(i8p_, last))); break;
    case Op::MinBy: case Op::MaxBy: store(instance(b_.CreateLoad(i8p_, best))); break;
    case Op::Percentile: {
      llvm::Value* out = entryAlloca(f64_, "agg.pct");
      auto fn = helper("attrib_jit_values_percentile", i32_, {i8p_, f64_, f64_->getPointerTo()});
      llvm::Value* ok = b_.CreateCall(fn, {scratch_, doubleOf(percentile), out});
      llvm::Value* pctNull = any(percentile.null, b_.CreateICmpEQ(ok, b_.getInt32(0)));
      store(real(b_.CreateLoad(f64_, out), pctNull));
      break;
    }
    default: {
      llvm::Value* distinct = b_.CreateCall(helper("attrib_jit_distinct_end", i64_, {i8p_}), {scratch_});
      store(integer(Type::Int, distinct, b_.getFalse()));
    }
  }
  b_.CreateBr(merge);

  b_.SetInsertPoint(merge);
  if (op == Op::First || op == Op::Last || op == Op::MinBy || op == Op::MaxBy) {
    return instance(b_.CreateLoad(i8p_, resP));
  }
  if (op == Op::Percentile) return real(b_.CreateLoad(f64_, resF), b_.CreateLoad(i1_, resNull));
  llvm::Value* i = b_.CreateLoad(i64_, resI);
  if (op == Op::Exists) return boolean(b_.CreateTrunc(i, i1_));
  return integer(Type::Int, i, b_.getFalse());
}

// avg / min / max / sum / rate / delta of operands[0] over the samples of the current series
// in (now - window, now], oldest first.
CV Codegen::window(const ir::Expr& e) {
  llvm::Value* dataSlot = entryAlloca(i8p_->getPointerTo(), "win.data");
  llvm::Value* resF = variable(f64_, llvm::ConstantFP::get(f64_, 0.0), "win.f");
  llvm::Value* resNull = variable(i1_, b_.getTrue(), "win.null");
  auto* merge = block("win.end");
  auto* start = block("win.start");
  llvm::Value* size = b_.CreateCall(helper("attrib_jit_series", i64_, {i8p_, i8p_->getPointerTo()->getPointerTo()}),
                                    {context_, dataSlot});
  llvm::Value* pos = load(i64_, context_, layout_.contextSeriesPos);
  b_.CreateCondBr(b_.CreateICmpULT(pos, size), start, merge);

  b_.SetInsertPoint(start);
  llvm::Value* data = b_.CreateLoad(i8p_->getPointerTo(), dataSlot);
  auto sample = [&](llvm::Value* at) { return b_.CreateLoad(i8p_, b_.CreateInBoundsGEP(i8p_, data, at)); };
  llvm::Value* end = load(i64_, sample(pos), layout_.time);
  llvm::Value* diff = b_.CreateCall(intrinsic(llvm::Intrinsic::ssub_with_overflow, i64_), {end, b_.getInt64(e.window)});
  llvm::Value* from0 = b_.CreateSelect(b_.CreateExtractValue(diff, 1), b_.getInt64(INT64_MIN),
                                       b_.CreateExtractValue(diff, 0));
  // The oldest sample inside the window: the series is in time order (EvalContext's
  // contract), so a binary search over [0, pos] finds where the interpreter's backward walk
  // stops: the first index whose time is after the window's start.
  llvm::Value* lo = variable(i64_, b_.getInt64(0), "win.lo");
  llvm::Value* hi = variable(i64_, pos, "win.hi");
  llvm::Value *l = nullptr, *h = nullptr;
  loop("win.search", [&] {
    l = b_.CreateLoad(i64_, lo);
    h = b_.CreateLoad(i64_, hi);
    return b_.CreateICmpULT(l, h);
  }, [&](const Loop&) {
    llvm::Value* mid = b_.CreateLShr(b_.CreateAdd(l, h), 1);
    llvm::Value* after = b_.CreateICmpSGT(load(i64_, sample(mid), layout_.time), from0);
    b_.CreateStore(b_.CreateSelect(after, l, b_.CreateAdd(mid, b_.getInt64(1))), lo);
    b_.CreateStore(b_.CreateSelect(after, mid, h), hi);
  });

  llvm::Value* zero = llvm::ConstantFP::get(f64_, 0.0);
  llvm::Value* n = variable(i64_, b_.getInt64(0), "win.n");
  llvm::Value* sum = variable(f64_, zero, "win.sum");
  llvm::Value* mn = variable(f64_, zero, "win.min");
  llvm::Value* mx = variable(f64_, zero, "win.max");
  llvm::Value* firstV = variable(f64_, zero, "win.firstv");
  llvm::Value* lastV = variable(f64_, zero, "win.lastv");
  llvm::Value* increase = variable(f64_, zero, "win.increase");
  llvm::Value* firstT = variable(i64_, b_.getInt64(0), "win.firstt");
  llvm::Value* lastT = variable(i64_, b_.getInt64(0), "win.lastt");
  countedLoop("win.samples", b_.CreateLoad(i64_, lo), [&](llvm::Value* i) { return b_.CreateICmpULE(i, pos); },
              [&](const Loop& samples) {
    llvm::Value* inst = sample(samples.index);
    CV v = genBound(e.operands[0], 0, inst);
    if (v.type != Type::Float && v.type != Type::Int) return;  // never a number: no sample counts
    auto* use = block("win.use");
    b_.CreateCondBr(v.null, samples.next, use);
    b_.SetInsertPoint(use);
    llvm::Value* x = doubleOf(v);
    llvm::Value* t = load(i64_, inst, layout_.time);
    llvm::Value* count = b_.CreateLoad(i64_, n);
    llvm::Value* isFirst = b_.CreateICmpEQ(count, b_.getInt64(0));
    llvm::Value* prev = b_.CreateLoad(f64_, lastV);
    // A counter that went down was reset: the new value is all increase.
    llvm::Value* step = b_.CreateSelect(b_.CreateFCmpOGE(x, prev), b_.CreateFSub(x, prev), x);
    llvm::Value* inc = b_.CreateLoad(f64_, increase);
    b_.CreateStore(b_.CreateSelect(isFirst, inc, b_.CreateFAdd(inc, step)), increase);
    llvm::Value* curMin = b_.CreateSelect(isFirst, x, b_.CreateLoad(f64_, mn));
    llvm::Value* curMax = b_.CreateSelect(isFirst, x, b_.CreateLoad(f64_, mx));
    b_.CreateStore(b_.CreateSelect(isFirst, x, b_.CreateLoad(f64_, firstV)), firstV);
    b_.CreateStore(b_.CreateSelect(isFirst, t, b_.CreateLoad(i64_, firstT)), firstT);
    b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(f64_, sum), x), sum);
    b_.CreateStore(b_.CreateSelect(b_.CreateFCmpOLT(x, curMin), x, curMin), mn);  // std::min(mn, x)
    b_.CreateStore(b_.CreateSelect(b_.CreateFCmpOLT(curMax, x), x, curMax), mx);  // std::max(mx, x)
    b_.CreateStore(x, lastV);
    b_.CreateStore(t, lastT);
    b_.CreateStore(b_.CreateAdd(count, b_.getInt64(1)), n);
  });

  llvm::Value* count = b_.CreateLoad(i64_, n);
  llvm::Value* none = b_.CreateICmpEQ(count, b_.getInt64(0));
  llvm::Value* fewer2 = b_.CreateICmpULT(count, b_.getInt64(2));
  llvm::Value* result = nullptr;
  llvm::Value* null = none;
  switch (e.op) {
    case Op::WindowAvg: result = b_.CreateFDiv(b_.CreateLoad(f64_, sum), b_.CreateUIToFP(count, f64_)); break;
    case Op::WindowMin: result = b_.CreateLoad(f64_, mn); break;
    case Op::WindowMax: result = b_.CreateLoad(f64_, mx); break;
    case Op::WindowSum: result = b_.CreateLoad(f64_, sum); break;
    case Op::WindowDelta:
      result = b_.CreateFSub(b_.CreateLoad(f64_, lastV), b_.CreateLoad(f64_, firstV));
      null = any(null, fewer2);
      break;
    default: {
      llvm::Value* t0 = b_.CreateLoad(i64_, firstT);
      llvm::Value* t1 = b_.CreateLoad(i64_, lastT);
      llvm::Value* seconds = b_.CreateFDiv(b_.CreateSIToFP(b_.CreateSub(t1, t0), f64_), llvm::ConstantFP::get(f64_, 1e9));
      result = b_.CreateFDiv(b_.CreateLoad(f64_, increase), seconds);
      null = any(null, any(fewer2, b_.CreateICmpEQ(t0, t1)));
    }
  }
  b_.CreateStore(result, resF);
  b_.CreateStore(null, resNull);
  b_.CreateBr(merge);

  b_.SetInsertPoint(merge);
  return real(b_.CreateLoad(f64_, resF), b_.CreateLoad(i1_, resNull));
}

}  // namespace attrib::jit::detail
