#include "jit/codegen.h"

#include <llvm/Analysis/InstSimplifyFolder.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <map>
#include <set>

#include "runtime/instance.h"

namespace attrib::jit {

std::string predicateSymbol(const PredicateRef& ref) {
  switch (ref.kind) {
    case PredicateRef::Kind::SymptomWhen: return fmt::format("attrib_symptom_{}", ref.index);
    case PredicateRef::Kind::FilterWhere: return fmt::format("attrib_filter_{}_{}", ref.index, ref.statement);
    case PredicateRef::Kind::RuleWhere: return fmt::format("attrib_rule_{}", ref.index);
    case PredicateRef::Kind::OutcomeWhen: return fmt::format("attrib_outcome_{}", ref.index);
  }
  return "attrib_unknown";
}

namespace {

using ir::Op;
using ir::Type;

bool isIntLike(Type t) {
  return t == Type::Int || t == Type::Time || t == Type::Duration || t == Type::State || t == Type::Bool;
}

// An unboxed value of static type `type`. Every member the type uses is set, also when the
// value is null (then with an arbitrary but defined content), so consumers never branch on
// nullness just to read it.
struct CV {
  Type type = Type::Null;
  llvm::Value* null = nullptr;  // i1: the value is missing
  llvm::Value* bit = nullptr;   // i1: Bool
  llvm::Value* i = nullptr;     // i64: Int, Time, Duration, State (Bool: see intOf)
  llvm::Value* f = nullptr;     // double: Float
  llvm::Value* p = nullptr;     // i8*: String data, Instance
  llvm::Value* n = nullptr;     // i64: String size
};

class Codegen {
 public:
  Codegen(const ir::Program& program, const DataLayout& layout, llvm::LLVMContext& context, llvm::Module& module)
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

  bool isCold(const PredicateRef& ref) const {
    if (ref.kind == PredicateRef::Kind::OutcomeWhen) return true;
    if (ref.kind != PredicateRef::Kind::SymptomWhen) return false;
    return ir::isDerived(program_.symptoms[ref.index].stream);
  }

  llvm::Function* function(const PredicateRef& ref, const ir::Expr& e, int32_t bindings) {
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

  // `i32 name(i32 id, i8* ctx, i8* scratch)`: a switch over predicate ids, each case a call of
  // the predicate. After optimisation the calls are inlined: the back end's cost is mostly per
  // function, and one function per module compiles in about two thirds of the time.
  void dispatcher(const std::string& name, const std::vector<std::pair<int32_t, llvm::Function*>>& cases) {
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

 private:
  // ---- module-level constants

  llvm::Value* global(llvm::Constant* init, const std::string& name) {
    auto* g = new llvm::GlobalVariable(module_, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, name);
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    g->setAlignment(llvm::Align(16));
    return llvm::ConstantExpr::getBitCast(g, i8p_);
  }

  llvm::Constant* stringData(const std::string& s) {
    auto it = strings_.find(s);
    if (it != strings_.end()) return it->second;
    auto* init = llvm::ConstantDataArray::getString(ctx_, s, false);
    auto* g = new llvm::GlobalVariable(module_, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, "str");
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    g->setAlignment(llvm::Align(1));
    llvm::Constant* p = llvm::ConstantExpr::getBitCast(g, i8p_);
    strings_.emplace(s, p);
    return p;
  }

  CV constString(const std::string& s) {
    CV v;
    v.type = Type::String;
    v.null = b_.getFalse();
    v.p = stringData(s);
    v.n = b_.getInt64(s.size());
    return v;
  }

  // A byte per symptom id: 1 when `member(id)`.
  llvm::Value* symptomTable(const std::vector<uint8_t>& bytes, const std::string& name) {
    std::vector<uint8_t> padded = bytes;
    if (padded.empty()) padded.push_back(0);  // the zeroed stand-in instance reads id 0
    return global(llvm::ConstantDataArray::get(ctx_, padded), name);
  }

  llvm::Value* setTable(int32_t set) {
    auto it = sets_.find(set);
    if (it != sets_.end()) return it->second;
    std::vector<uint8_t> bytes(program_.symptoms.size(), 0);
    for (int32_t s : program_.symptomSets[set]) bytes[s] = 1;
    return sets_[set] = symptomTable(bytes, fmt::format("set{}", set));
  }

  // The set's symptom ids, in the order the interpreter visits them.
  llvm::Value* symptomIds(int32_t set) {
    auto it = idTables_.find(set);
    if (it != idTables_.end()) return it->second;
    std::vector<uint32_t> ids(program_.symptomSets[set].begin(), program_.symptomSets[set].end());
    if (ids.empty()) ids.push_back(0);  // never read: the loop bound is the real size
    return idTables_[set] = global(llvm::ConstantDataArray::get(ctx_, ids), fmt::format("ids{}", set));
  }

  llvm::Value* metricTable() {
    if (!metric_) {
      std::vector<uint8_t> bytes;
      for (const auto& s : program_.symptoms) bytes.push_back(s.stream == ir::StreamKind::Metric);
      metric_ = symptomTable(bytes, "is_metric");
    }
    return metric_;
  }

  // The text a symptom field reads (the symptom's name, family, severity, blame or role) as a
  // table of distinct {data, size} words and, by symptom id, a word's index: a byte per symptom
  // for the few words of a property, where a pointer pair per symptom (and its relocation) would
  // multiply the object code by the number of symptoms. Names are all distinct: their index is
  // the symptom id and `indices` is null.
  struct WordTable {
    llvm::Value* words = nullptr;
    llvm::Value* indices = nullptr;
  };
  WordTable nameTable(ir::Field f) {
    auto it = nameTables_.find(f);
    if (it != nameTables_.end()) return it->second;
    auto text = [f](const ir::Symptom& s) -> std::string {
      switch (f) {
        case ir::Field::Family: return s.family;
        case ir::Field::Severity: return ir::severityName(s.severity);
        case ir::Field::Blame: return ir::blameName(s.blame);
        case ir::Field::Role: return ir::roleName(s.role);
        default: return s.name;
      }
    };
    std::vector<std::string> words;
    std::vector<uint8_t> indices;
    for (const auto& s : program_.symptoms) {
      std::string t = text(s);
      if (f == ir::Field::Symptom) {
        words.push_back(t);
        continue;
      }
      auto at = std::find(words.begin(), words.end(), t);
      if (at == words.end()) at = words.insert(words.end(), t);
      indices.push_back(static_cast<uint8_t>(at - words.begin()));  // at most 19 families
    }
    auto* pair = llvm::StructType::get(ctx_, {i8p_, i64_});
    std::vector<llvm::Constant*> items;
    for (const auto& w : words) items.push_back(llvm::ConstantStruct::get(pair, {stringData(w), b_.getInt64(w.size())}));
    if (items.empty()) items.push_back(llvm::ConstantStruct::get(pair, {stringData(""), b_.getInt64(0)}));
    WordTable t;
    t.words = global(llvm::ConstantArray::get(llvm::ArrayType::get(pair, items.size()), items),
                     std::string(ir::fieldName(f)) + "_words");
    if (f != ir::Field::Symptom) t.indices = symptomTable(indices, std::string(ir::fieldName(f)) + "_index");
    return nameTables_[f] = t;
  }

  llvm::FunctionCallee helper(const char* name, llvm::Type* result, std::vector<llvm::Type*> args) {
    llvm::FunctionCallee callee = module_.getOrInsertFunction(name, llvm::FunctionType::get(result, args, false));
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) f->addFnAttr(llvm::Attribute::NoUnwind);
    return callee;
  }

  llvm::Function* intrinsic(llvm::Intrinsic::ID id, llvm::Type* type) {
    return llvm::Intrinsic::getDeclaration(&module_, id, {type});
  }

  // ---- function-level plumbing

  llvm::Value* entryAlloca(llvm::Type* type, const char* name) {
    llvm::IRBuilder<> e(entry_->getTerminator());
    return e.CreateAlloca(type, nullptr, name);
  }

  llvm::Value* load(llvm::Type* type, llvm::Value* base, uint64_t offset) {
    llvm::Value* at = b_.CreateConstInBoundsGEP1_64(i8_, base, offset);
    return b_.CreateLoad(type, b_.CreateBitCast(at, type->getPointerTo()));
  }

  // The instance bound to slot `s`: by an enclosing aggregate or window, else the caller's.
  // The caller's slots never change during a call, so they are read once, at entry.
  llvm::Value* slot(int32_t s) {
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
  llvm::Value* isNullPtr(llvm::Value* p) {
    if (nonNull_.count(p)) return b_.getFalse();
    return b_.CreateICmpEQ(p, llvm::ConstantPointerNull::get(i8p_));
  }

  // Loads through a possibly null instance read a zeroed stand-in instead; the result is then
  // flagged null by the caller.
  llvm::Value* safe(llvm::Value* inst) {
    if (nonNull_.count(inst)) return inst;
    return b_.CreateSelect(isNullPtr(inst), dummy_, inst);
  }

  // ---- values

  CV nullOf(Type type) {
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

  CV boolean(llvm::Value* bit, llvm::Value* null = nullptr) {
    CV v = nullOf(Type::Bool);
    v.null = null ? null : b_.getFalse();
    v.bit = bit;
    v.i = nullptr;  // widened only where an integer is needed (intOf)
    return v;
  }

  CV integer(Type type, llvm::Value* i, llvm::Value* null) {
    CV v = nullOf(type);
    v.null = null;
    v.i = i;
    return v;
  }

  CV real(llvm::Value* f, llvm::Value* null) {
    CV v = nullOf(Type::Float);
    v.null = null;
    v.f = f;
    return v;
  }

  CV string(llvm::Value* p, llvm::Value* n, llvm::Value* null) {
    CV v = nullOf(Type::String);
    v.null = null;
    v.p = p;
    v.n = n;
    return v;
  }

  CV instance(llvm::Value* p) {
    CV v = nullOf(Type::Instance);
    v.null = isNullPtr(p);
    v.p = p;
    return v;
  }

  // What the interpreter reads from a Value of another type: zero, 0.0, "", no instance.
  llvm::Value* intOf(const CV& v) {
    if (v.type == Type::Bool) return v.i ? v.i : b_.CreateZExt(v.bit, i64_);
    return isIntLike(v.type) ? v.i : b_.getInt64(0);
  }
  llvm::Value* doubleOf(const CV& v) {
    return v.type == Type::Float ? v.f : b_.CreateSIToFP(intOf(v), f64_);
  }
  llvm::Value* instanceOf(const CV& v) {
    return v.type == Type::Instance ? v.p : llvm::ConstantPointerNull::get(i8p_);
  }
  std::pair<llvm::Value*, llvm::Value*> stringOf(const CV& v) {
    if (v.type == Type::String) return {v.p, v.n};
    return {llvm::ConstantPointerNull::get(i8p_), b_.getInt64(0)};
  }

  // A predicate's truth: a non-null true Bool.
  llvm::Value* truth(const CV& v) {
    if (v.type != Type::Bool) return b_.getFalse();
    return b_.CreateAnd(b_.CreateNot(v.null), v.bit);
  }

  llvm::Value* any(llvm::Value* a, llvm::Value* b) { return b_.CreateOr(a, b); }

  // A double that fits an int64 after truncation toward zero.
  std::pair<llvm::Value*, llvm::Value*> truncToInt(llvm::Value* d) {
    llvm::Value* t = b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, d);
    llvm::Value* ok = b_.CreateAnd(b_.CreateFCmpOGE(t, llvm::ConstantFP::get(f64_, -9223372036854775808.0)),
                                   b_.CreateFCmpOLT(t, llvm::ConstantFP::get(f64_, 9223372036854775808.0)));
    llvm::Value* i = b_.CreateSelect(ok, b_.CreateFPToSI(b_.CreateSelect(ok, t, llvm::ConstantFP::get(f64_, 0.0)), i64_),
                                     b_.getInt64(0));
    return {i, b_.CreateNot(ok)};  // NaN and infinities fail both comparisons
  }

  // ---- instance fields

  CV stringField(llvm::Value* s, const StringField& f, llvm::Value* instNull, bool emptyIsNull) {
    llvm::Value* p = load(i8p_, s, f.offset);
    llvm::Value* n = load(i64_, s, f.offset + 8);
    llvm::Value* null = instNull;
    if (emptyIsNull) null = any(null, b_.CreateICmpEQ(n, b_.getInt64(0)));
    return string(p, n, null);
  }

  CV optionalInt(llvm::Value* s, const OptionalField& f, llvm::Value* instNull, Type type, bool byte) {
    llvm::Value* v = byte ? b_.CreateZExt(load(i8_, s, f.value), i64_) : load(i64_, s, f.value);
    llvm::Value* engaged = b_.CreateICmpNE(load(i8_, s, f.engaged), b_.getInt8(0));
    return integer(type, v, any(instNull, b_.CreateNot(engaged)));
  }

  llvm::Value* symptomId(llvm::Value* s) { return b_.CreateSExt(load(i32_, s, layout_.symptom), i64_); }

  CV field(llvm::Value* inst, ir::Field f) {
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
      case F::Metric: return stringField(s, layout_.metric, instNull, true);
      case F::Reason: return stringField(s, layout_.reason, instNull, true);
      case F::Rank: return optionalInt(s, layout_.rank, instNull, Type::Int, false);
      case F::ExitCode: return optionalInt(s, layout_.exitCode, instNull, Type::Int, false);
      case F::Signal: return optionalInt(s, layout_.signal, instNull, Type::Int, false);
      case F::State: return optionalInt(s, layout_.state, instNull, Type::State, true);
      case F::Value: {
        llvm::Value* isMetric = b_.CreateLoad(i8_, b_.CreateInBoundsGEP(i8_, metricTable(), symptomId(s)));
        return real(load(f64_, s, layout_.value), any(instNull, b_.CreateICmpEQ(isMetric, b_.getInt8(0))));
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

  // ---- comparison, shared by ==, <, in, same and aggregates' keys

  CV compare(Op op, const CV& a, const CV& b) {
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

  llvm::Value* intCompare(Op op, llvm::Value* x, llvm::Value* y, bool isSigned) {
    switch (op) {
      case Op::Eq: return b_.CreateICmpEQ(x, y);
      case Op::Ne: return b_.CreateICmpNE(x, y);
      case Op::Lt: return isSigned ? b_.CreateICmpSLT(x, y) : b_.CreateICmpULT(x, y);
      case Op::Le: return isSigned ? b_.CreateICmpSLE(x, y) : b_.CreateICmpULE(x, y);
      case Op::Gt: return isSigned ? b_.CreateICmpSGT(x, y) : b_.CreateICmpUGT(x, y);
      default: return isSigned ? b_.CreateICmpSGE(x, y) : b_.CreateICmpUGE(x, y);
    }
  }

  // ---- expressions

  CV gen(const ir::Expr& e) {
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

  // memcmp(a, b, n) == 0, for n > 0. With a constant n LLVM expands it into a few compares.
  llvm::Value* bytesEqual(llvm::Value* a, llvm::Value* b, llvm::Value* n) {
    auto memcmp = helper("memcmp", i32_, {i8p_, i8p_, i64_});
    return b_.CreateICmpEQ(b_.CreateCall(memcmp, {a, b, n}), b_.getInt32(0));
  }

  // Two strings are equal: same size, and the same bytes when there are any. memcmp is only
  // called on non-empty strings, whose pointers are valid.
  llvm::Value* stringsEqual(llvm::Value* ap, llvm::Value* an, llvm::Value* bp, llvm::Value* bn) {
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

  // inst.capture `name`: a walk over the instance's (name, value) pairs, inline.
  CV capture(llvm::Value* inst, const std::string& name) {
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
    llvm::Value* cursor = entryAlloca(i8p_, "cap.at");
    llvm::Value* valueP = entryAlloca(i8p_, "cap.p");
    llvm::Value* valueN = entryAlloca(i64_, "cap.n");
    llvm::Value* found = entryAlloca(i1_, "cap.found");
    b_.CreateStore(begin, cursor);
    b_.CreateStore(llvm::ConstantPointerNull::get(i8p_), valueP);
    b_.CreateStore(b_.getInt64(0), valueN);
    b_.CreateStore(b_.getFalse(), found);
    auto* head = block("cap.head");
    auto* check = block("cap.check");
    auto* next = block("cap.next");
    auto* hit = block("cap.hit");
    auto* done = block("cap.end");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::Value* at = b_.CreateLoad(i8p_, cursor);
    b_.CreateCondBr(b_.CreateICmpEQ(at, end), done, check);
    b_.SetInsertPoint(check);
    llvm::Value* keyN = load(i64_, at, 8);
    if (name.empty()) {
      b_.CreateCondBr(b_.CreateICmpEQ(keyN, b_.getInt64(0)), hit, next);
    } else {
      auto* compareBytes = block("cap.bytes");
      b_.CreateCondBr(b_.CreateICmpEQ(keyN, key.n), compareBytes, next);
      b_.SetInsertPoint(compareBytes);
      b_.CreateCondBr(bytesEqual(load(i8p_, at, 0), key.p, key.n), hit, next);
    }
    b_.SetInsertPoint(next);
    b_.CreateStore(b_.CreateConstInBoundsGEP1_64(i8_, at, layout_.captureSize), cursor);
    b_.CreateBr(head);
    b_.SetInsertPoint(hit);
    b_.CreateStore(load(i8p_, at, layout_.captureValue), valueP);
    b_.CreateStore(load(i64_, at, layout_.captureValue + 8), valueN);
    b_.CreateStore(b_.getTrue(), found);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    return string(b_.CreateLoad(i8p_, valueP), b_.CreateLoad(i64_, valueN), b_.CreateNot(b_.CreateLoad(i1_, found)));
  }

  // int(s): short runs of decimal digits (the common case: captured numbers) are parsed
  // inline; anything else goes to the helper, which implements the full rule.
  std::pair<llvm::Value*, llvm::Value*> parseInt(llvm::Value* p, llvm::Value* n) {
    llvm::Value* value = entryAlloca(i64_, "int.v");
    llvm::Value* ok = entryAlloca(i1_, "int.ok");
    if (compact_) {
      b_.CreateStore(b_.getInt64(0), value);
      auto parse = helper("attrib_jit_parse_int", i32_, {i8p_, i64_, i64_->getPointerTo()});
      llvm::Value* parsed = b_.CreateICmpNE(b_.CreateCall(parse, {p, n, value}), b_.getInt32(0));
      return {b_.CreateLoad(i64_, value), parsed};
    }
    llvm::Value* i = entryAlloca(i64_, "int.i");
    b_.CreateStore(b_.getInt64(0), value);
    b_.CreateStore(b_.getInt64(0), i);
    auto* head = block("int.head");
    auto* digit = block("int.digit");
    auto* fast = block("int.fast");
    auto* slow = block("int.slow");
    auto* done = block("int.end");
    llvm::Value* shortRun = b_.CreateAnd(b_.CreateICmpUGE(n, b_.getInt64(1)), b_.CreateICmpULE(n, b_.getInt64(18)));
    b_.CreateCondBr(shortRun, head, slow);
    b_.SetInsertPoint(head);
    llvm::Value* iv = b_.CreateLoad(i64_, i);
    b_.CreateCondBr(b_.CreateICmpULT(iv, n), digit, fast);
    b_.SetInsertPoint(digit);
    llvm::Value* c = b_.CreateLoad(i8_, b_.CreateInBoundsGEP(i8_, p, iv));
    llvm::Value* d = b_.CreateSub(b_.CreateZExt(c, i64_), b_.getInt64('0'));
    b_.CreateStore(b_.CreateAdd(b_.CreateMul(b_.CreateLoad(i64_, value), b_.getInt64(10)), d), value);
    b_.CreateStore(b_.CreateAdd(iv, b_.getInt64(1)), i);
    b_.CreateCondBr(b_.CreateICmpULE(d, b_.getInt64(9)), head, slow);
    b_.SetInsertPoint(fast);
    b_.CreateStore(b_.getTrue(), ok);
    b_.CreateBr(done);
    b_.SetInsertPoint(slow);
    b_.CreateStore(b_.getInt64(0), value);
    auto parse = helper("attrib_jit_parse_int", i32_, {i8p_, i64_, i64_->getPointerTo()});
    b_.CreateStore(b_.CreateICmpNE(b_.CreateCall(parse, {p, n, value}), b_.getInt32(0)), ok);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    return {b_.CreateLoad(i64_, value), b_.CreateLoad(i1_, ok)};
  }

  CV constant(const ir::Value& c) {
    switch (c.type) {
      case Type::Null: return nullOf(Type::Null);
      case Type::Float: return real(llvm::ConstantFP::get(f64_, c.f), b_.getFalse());
      case Type::String: return constString(c.s);
      case Type::Bool: return boolean(b_.getInt1(c.i != 0));
      default: return integer(c.type, b_.getInt64(c.i), b_.getFalse());
    }
  }

  CV workload(const ir::Expr& e) {
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

  // `and`/`or` short-circuit and treat null as false; the result is never null.
  CV logical(const ir::Expr& e) {
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

  CV arithmetic(const ir::Expr& e) {
    CV a = gen(e.operands[0]);
    CV b = gen(e.operands[1]);
    if (a.type == Type::Null || b.type == Type::Null) return nullOf(e.type);
    llvm::Value* null = any(a.null, b.null);
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
  // per rule, so the loop is unrolled.
  CV same(const ir::Expr& e) {
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
  // over the same instances computed it (runtime::AggregateMemo), else computed and recorded.
  CV memoized(const ir::Expr& e) {
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

  // (a.time, a.sequence) < (b.time, b.sequence); both pointers non-null.
  llvm::Value* earlier(llvm::Value* a, llvm::Value* b) {
    llvm::Value* at = load(i64_, a, layout_.time);
    llvm::Value* bt = load(i64_, b, layout_.time);
    llvm::Value* as = load(i64_, a, layout_.sequence);
    llvm::Value* bs = load(i64_, b, layout_.sequence);
    return b_.CreateSelect(b_.CreateICmpNE(at, bt), b_.CreateICmpSLT(at, bt), b_.CreateICmpULT(as, bs));
  }

  llvm::BasicBlock* block(const char* name) { return llvm::BasicBlock::Create(ctx_, name, fn_); }

  // count / exists / first / last / distinct / min_by / max_by / percentile over the live
  // instances of a symptom set, in the index's order (per symptom, by time), exactly as the
  // interpreter walks them.
  CV aggregate(const ir::Expr& e) {
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
    llvm::Value* count = entryAlloca(i64_, "agg.count");
    llvm::Value* first = entryAlloca(i8p_, "agg.first");
    llvm::Value* last = entryAlloca(i8p_, "agg.last");
    llvm::Value* k = entryAlloca(i64_, "agg.k");
    llvm::Value* listSlot = entryAlloca(llvm::Type::getInt32PtrTy(ctx_), "agg.list");
    b_.CreateStore(b_.getInt64(0), count);
    b_.CreateStore(llvm::ConstantPointerNull::get(i8p_), first);
    b_.CreateStore(llvm::ConstantPointerNull::get(i8p_), last);
    if (op == Op::Distinct) b_.CreateCall(helper("attrib_jit_distinct_begin", b_.getVoidTy(), {i8p_}), {scratch_});
    // min_by / max_by: the best instance so far and its key; percentile: its p, read before
    // the loop binds the aggregate's slot (as the interpreter does), and the keys collected.
    llvm::Value* best = entryAlloca(i8p_, "agg.best");
    llvm::Value* bestI = entryAlloca(i64_, "agg.besti");
    llvm::Value* bestF = entryAlloca(f64_, "agg.bestf");
    b_.CreateStore(llvm::ConstantPointerNull::get(i8p_), best);
    CV percentile;
    if (op == Op::Percentile) {
      percentile = gen(e.operands.back());
      b_.CreateCall(helper("attrib_jit_values_begin", b_.getVoidTy(), {i8p_}), {scratch_});
    }
    auto* finished = block("agg.finished");
    // Outer loop over the set's symptom ids (a constant array), inner loop over each
    // symptom's instances in the index; one copy of the where-clause however large the set.
    const auto& ids = program_.symptomSets[e.set];
    llvm::Value* idTable = symptomIds(e.set);
    llvm::Value* si = entryAlloca(i64_, "agg.s");
    llvm::Value* n = entryAlloca(i64_, "agg.n");
    b_.CreateStore(b_.getInt64(0), si);
    auto* outer = block("agg.outer");
    auto* fetch = block("agg.fetch");
    auto* head = block("agg.head");
    auto* body = block("agg.body");
    b_.CreateBr(outer);

    b_.SetInsertPoint(outer);
    llvm::Value* sv = b_.CreateLoad(i64_, si);
    b_.CreateCondBr(b_.CreateICmpSLT(sv, b_.getInt64(static_cast<int64_t>(ids.size()))), fetch, finished);

    b_.SetInsertPoint(fetch);
    b_.CreateStore(b_.CreateAdd(sv, b_.getInt64(1)), si);
    llvm::Value* symptom = b_.CreateLoad(i32_, b_.CreateInBoundsGEP(i32_, b_.CreateBitCast(idTable, i32_->getPointerTo()), sv));
    bool keyedList = e.sameKey && (e.field == ir::Field::Node || e.field == ir::Field::Rank || e.field == ir::Field::Gpu);
    if (keyedList) {
      // Only the instances sharing the key with the reference (InstanceIndex::withKey).
      auto list = helper("attrib_jit_symptom_list_keyed", i64_,
                         {i8p_, i32_, i32_, i64_, i8p_, i64_, llvm::Type::getInt32PtrTy(ctx_)->getPointerTo()});
      llvm::Value* rank = e.field == ir::Field::Rank ? intOf(refKey) : b_.getInt64(0);
      auto [p, len] = e.field == ir::Field::Rank ? std::pair<llvm::Value*, llvm::Value*>{llvm::ConstantPointerNull::get(i8p_), b_.getInt64(0)}
                                                 : stringOf(refKey);
      b_.CreateStore(b_.CreateCall(list, {context_, symptom, b_.getInt32(static_cast<int32_t>(e.field)), rank, p, len, listSlot}), n);
    } else {
      auto list = helper("attrib_jit_symptom_list", i64_, {i8p_, i32_, llvm::Type::getInt32PtrTy(ctx_)->getPointerTo()});
      b_.CreateStore(b_.CreateCall(list, {context_, symptom, listSlot}), n);
    }
    b_.CreateStore(b_.getInt64(0), k);
    b_.CreateBr(head);

    b_.SetInsertPoint(head);
    llvm::Value* kv = b_.CreateLoad(i64_, k);
    b_.CreateCondBr(b_.CreateICmpSLT(kv, b_.CreateLoad(i64_, n)), body, outer);

    b_.SetInsertPoint(body);
    b_.CreateStore(b_.CreateAdd(kv, b_.getInt64(1)), k);
    llvm::Value* listPtr = b_.CreateLoad(llvm::Type::getInt32PtrTy(ctx_), listSlot);
    llvm::Value* idx = b_.CreateLoad(i32_, b_.CreateInBoundsGEP(i32_, listPtr, kv));
    llvm::Value* offset = b_.CreateMul(b_.CreateSExt(idx, i64_), b_.getInt64(layout_.instanceSize));
    llvm::Value* inst = b_.CreateInBoundsGEP(i8_, base, offset);
    nonNull_.insert(inst);
    llvm::Value* keep = b_.CreateICmpEQ(load(i8_, inst, layout_.filtered), b_.getInt8(0));
    if (e.sameKey) keep = b_.CreateAnd(keep, truth(compare(Op::Eq, field(inst, e.field), refKey)));
    if (e.hasWhere) {
      auto* where = block("agg.where");
      b_.CreateCondBr(keep, where, head);
      b_.SetInsertPoint(where);
      llvm::Value* saved = bound_[e.slot];
      bound_[e.slot] = inst;
      nonNull_.insert(inst);
      keep = truth(gen(e.operands[0]));
      bound_[e.slot] = saved;
    }
    auto* accept = block("agg.accept");
    b_.CreateCondBr(keep, accept, head);

    b_.SetInsertPoint(accept);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64_, count), b_.getInt64(1)), count);
    if (keyed) {
      llvm::Value* saved = bound_[e.slot];
      bound_[e.slot] = inst;
      CV key = gen(e.operands[e.hasWhere ? 1 : 0]);
      bound_[e.slot] = saved;
      bool isFloat = key.type == Type::Float;
      llvm::Value* skipKey = isFloat ? any(key.null, b_.CreateFCmpUNO(key.f, key.f)) : key.null;
      auto* use = block("agg.key");
      b_.CreateCondBr(skipKey, head, use);
      b_.SetInsertPoint(use);
      if (op == Op::Percentile) {
        b_.CreateCall(helper("attrib_jit_values_add", b_.getVoidTy(), {i8p_, f64_}), {scratch_, doubleOf(key)});
      } else {
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
      }
      b_.CreateBr(head);
    } else if (op == Op::Exists) {
      b_.CreateBr(finished);
    } else {
      if (op == Op::First || op == Op::Last) {
        llvm::Value* cur = b_.CreateLoad(i8p_, op == Op::First ? first : last);
        llvm::Value* better = op == Op::First ? earlier(inst, safe(cur)) : earlier(safe(cur), inst);
        b_.CreateStore(b_.CreateSelect(any(isNullPtr(cur), better), inst, cur), op == Op::First ? first : last);
      }
      if (op == Op::Distinct) {
        CV v = e.name.empty() ? field(inst, e.counted) : capture(inst, e.name);
        auto* add = block("agg.distinct");
        b_.CreateCondBr(v.null, head, add);
        b_.SetInsertPoint(add);
        if (v.type == Type::String) {
          b_.CreateCall(helper("attrib_jit_distinct_add_str", b_.getVoidTy(), {i8p_, i8p_, i64_}), {scratch_, v.p, v.n});
        } else {
          b_.CreateCall(helper("attrib_jit_distinct_add_int", b_.getVoidTy(), {i8p_, i64_}), {scratch_, intOf(v)});
        }
      }
      b_.CreateBr(head);
    }

    b_.SetInsertPoint(finished);
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
        llvm::Value* null = any(percentile.null, b_.CreateICmpEQ(ok, b_.getInt32(0)));
        store(real(b_.CreateLoad(f64_, out), null));
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
  CV window(const ir::Expr& e) {
    llvm::Value* dataSlot = entryAlloca(i8p_->getPointerTo(), "win.data");
    llvm::Value* resF = entryAlloca(f64_, "win.f");
    llvm::Value* resNull = entryAlloca(i1_, "win.null");
    b_.CreateStore(llvm::ConstantFP::get(f64_, 0.0), resF);
    b_.CreateStore(b_.getTrue(), resNull);
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
    llvm::Value* lo = entryAlloca(i64_, "win.lo");
    llvm::Value* hi = entryAlloca(i64_, "win.hi");
    b_.CreateStore(b_.getInt64(0), lo);
    b_.CreateStore(pos, hi);
    auto* search = block("win.search");
    auto* probe = block("win.probe");
    auto* forward = block("win.forward");
    b_.CreateBr(search);
    b_.SetInsertPoint(search);
    llvm::Value* l = b_.CreateLoad(i64_, lo);
    llvm::Value* h = b_.CreateLoad(i64_, hi);
    b_.CreateCondBr(b_.CreateICmpULT(l, h), probe, forward);
    b_.SetInsertPoint(probe);
    llvm::Value* mid = b_.CreateLShr(b_.CreateAdd(l, h), 1);
    llvm::Value* after = b_.CreateICmpSGT(load(i64_, sample(mid), layout_.time), from0);
    b_.CreateStore(b_.CreateSelect(after, l, b_.CreateAdd(mid, b_.getInt64(1))), lo);
    b_.CreateStore(b_.CreateSelect(after, mid, h), hi);
    b_.CreateBr(search);

    b_.SetInsertPoint(forward);
    auto zero = [&]() { return llvm::ConstantFP::get(f64_, 0.0); };
    llvm::Value* n = entryAlloca(i64_, "win.n");
    llvm::Value* sum = entryAlloca(f64_, "win.sum");
    llvm::Value* mn = entryAlloca(f64_, "win.min");
    llvm::Value* mx = entryAlloca(f64_, "win.max");
    llvm::Value* firstV = entryAlloca(f64_, "win.firstv");
    llvm::Value* lastV = entryAlloca(f64_, "win.lastv");
    llvm::Value* increase = entryAlloca(f64_, "win.increase");
    llvm::Value* firstT = entryAlloca(i64_, "win.firstt");
    llvm::Value* lastT = entryAlloca(i64_, "win.lastt");
    llvm::Value* i = entryAlloca(i64_, "win.i");
    b_.CreateStore(b_.getInt64(0), n);
    for (llvm::Value* v : {sum, mn, mx, firstV, lastV, increase}) b_.CreateStore(zero(), v);
    b_.CreateStore(b_.getInt64(0), firstT);
    b_.CreateStore(b_.getInt64(0), lastT);
    b_.CreateStore(b_.CreateLoad(i64_, lo), i);
    auto* head = block("win.head");
    auto* body = block("win.body");
    auto* done = block("win.done");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::Value* iv = b_.CreateLoad(i64_, i);
    b_.CreateCondBr(b_.CreateICmpULE(iv, pos), body, done);

    b_.SetInsertPoint(body);
    b_.CreateStore(b_.CreateAdd(iv, b_.getInt64(1)), i);
    llvm::Value* inst = sample(iv);
    nonNull_.insert(inst);
    llvm::Value* saved = bound_[0];
    bound_[0] = inst;
    nonNull_.insert(inst);
    CV v = gen(e.operands[0]);
    bound_[0] = saved;
    if (v.type == Type::Float || v.type == Type::Int) {
      auto* use = block("win.use");
      b_.CreateCondBr(v.null, head, use);
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
    }
    b_.CreateBr(head);

    b_.SetInsertPoint(done);
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

  // Scalar functions.
  CV call(const ir::Expr& e) {
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
        CV b = gen(e.operands[1]);
        if (a.type == Type::Null || b.type == Type::Null) return nullOf(e.type);
        llvm::Value* null = any(a.null, b.null);
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
            llvm::Value* p = entryAlloca(i8p_, "fmt.p");
            llvm::Value* n = entryAlloca(i64_, "fmt.n");
            b_.CreateStore(llvm::ConstantPointerNull::get(i8p_), p);
            b_.CreateStore(b_.getInt64(0), n);
            auto* format = block("fmt");
            auto* after = block("fmt.end");
            b_.CreateCondBr(a.null, after, format);
            b_.SetInsertPoint(format);
            auto fn = helper("attrib_jit_format", b_.getVoidTy(),
                             {i8p_, i32_, i64_, f64_, i8p_->getPointerTo(), i64_->getPointerTo()});
            llvm::Value* f = a.type == Type::Float ? a.f : llvm::ConstantFP::get(f64_, 0.0);
            llvm::Value* i = a.type == Type::Float ? b_.getInt64(0) : a.i;
            b_.CreateCall(fn, {scratch_, b_.getInt32(static_cast<int32_t>(a.type)), i, f, p, n});
            b_.CreateBr(after);
            b_.SetInsertPoint(after);
            return string(b_.CreateLoad(i8p_, p), b_.CreateLoad(i64_, n), a.null);
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
        llvm::Value* p = entryAlloca(i8p_, "lower.p");
        llvm::Value* n = entryAlloca(i64_, "lower.n");
        b_.CreateStore(llvm::ConstantPointerNull::get(i8p_), p);
        b_.CreateStore(b_.getInt64(0), n);
        auto* lower = block("lower");
        auto* after = block("lower.end");
        b_.CreateCondBr(a.null, after, lower);
        b_.SetInsertPoint(lower);
        auto [sp, sn] = stringOf(a);
        auto fn = helper("attrib_jit_lower", b_.getVoidTy(), {i8p_, i8p_, i64_, i8p_->getPointerTo(), i64_->getPointerTo()});
        b_.CreateCall(fn, {scratch_, sp, sn, p, n});
        b_.CreateBr(after);
        b_.SetInsertPoint(after);
        return string(b_.CreateLoad(i8p_, p), b_.CreateLoad(i64_, n), a.null);
      }
      default: return nullOf(e.type);
    }
  }

  const ir::Program& program_;
  const DataLayout& layout_;
  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  // Simplifies as it builds (`and true, x` is x, ...): less IR for the optimiser to chew on.
  llvm::IRBuilder<llvm::InstSimplifyFolder> b_;
  llvm::Type *i1_, *i8_, *i32_, *i64_, *f64_;
  llvm::PointerType* i8p_;
  llvm::Value* dummy_ = nullptr;
  llvm::Value* metric_ = nullptr;
  std::map<ir::Field, WordTable> nameTables_;  // nameTable(), by field
  std::map<std::string, llvm::Constant*> strings_;
  std::map<int32_t, llvm::Value*> sets_;
  std::map<int32_t, llvm::Value*> idTables_;
  // The function being generated.
  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::Value* context_ = nullptr;
  llvm::Value* scratch_ = nullptr;
  std::array<llvm::Value*, ir::kMaxSlots> bound_{};
  int32_t nextMemo_ = 0;  // ids of the slot-invariant aggregates of the current predicate
  bool compact_ = false;  // generating a derived symptom's predicate: favour small code
  std::array<llvm::Value*, ir::kMaxSlots> preloaded_{};
  int32_t bindings_ = 0;
  int32_t boundSlots_ = 0;
  std::set<llvm::Value*> nonNull_;
};

}  // namespace

std::unique_ptr<llvm::Module> generateModule(const ir::Program& program, const DataLayout& layout,
                                             llvm::LLVMContext& context, const llvm::DataLayout& target,
                                             const std::string& dispatchName,
                                             const std::function<bool(const PredicateRef&)>& include) {
  auto module = std::make_unique<llvm::Module>("attrib_predicates", context);
  module->setDataLayout(target);
  Codegen codegen(program, layout, context, *module);
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

size_t predicateCost(const ir::Expr& e) {
  size_t cost = 1;
  switch (e.op) {
    case Op::Count: case Op::Exists: case Op::First: case Op::Last: case Op::Distinct: case Op::MinBy:
    case Op::MaxBy: case Op::Percentile:
      cost += 30;
      break;
    case Op::WindowAvg: case Op::WindowMin: case Op::WindowMax: case Op::WindowSum: case Op::WindowRate:
    case Op::WindowDelta:
      cost += 50;
      break;
    case Op::CaptureOf: cost += 12; break;
    case Op::ToInt: cost += 10; break;
    case Op::Eq: case Op::Ne: cost += 4; break;
    default: break;
  }
  for (const auto& o : e.operands) cost += predicateCost(o);
  return cost;
}

}  // namespace attrib::jit
