// The code generator's shared state and its members (internal to jit/; the contract is
// jit/codegen.h). One Codegen emits one module: its tables are shared by the module's
// predicates, the per-function state below is reset by `function` for each predicate. The
// members live in one file per concern:
//
//   codegen.cc          the module: generateModule's pass over the predicates, each predicate's
//                       function and the dispatcher; markPredicatesInlinable, predicateCost
//   codegen_tables.cc   module-level constants: strings, symptom-set and name tables, helpers
//   codegen_values.cc   function plumbing (entry allocas, slots, null checks, the loop helper)
//                       and values: CV constructors and the interpreter's conversions, truth
//   codegen_fields.cc   instance fields, captures and workload fields
//   codegen_arith.cc    comparisons, arithmetic, number conversions and scalar functions
//   codegen_expr.cc     gen (the dispatch over IR ops), constants, and/or, same
//   codegen_loops.cc    aggregates over symptom sets and metric windows, the memo
//
// Invariants every member keeps: code is emitted at b_'s insertion point in fn_, and a member
// that returns a value leaves the insertion point in an open block (no terminator) that every
// path through its code reaches; allocas go to the entry block (entryAlloca, variable), so
// mem2reg/SROA turn them into SSA values; a CV is fully populated for its type also when null
// (codegen_values.cc), so consumers never branch on nullness.
#pragma once

#include <llvm/Analysis/InstSimplifyFolder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <array>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "jit/codegen.h"
#include "jit/data_layout.h"

namespace attrib::jit::detail {

inline bool isIntLike(ir::Type t) {
  using ir::Type;
  return t == Type::Int || t == Type::Time || t == Type::Duration || t == Type::State || t == Type::Bool;
}

// An unboxed value of static type `type`. Every member the type uses is set, also when the
// value is null (then with an arbitrary but defined content), so consumers never branch on
// nullness just to read it.
struct CV {
  ir::Type type = ir::Type::Null;
  llvm::Value* null = nullptr;  // i1: the value is missing
  llvm::Value* bit = nullptr;   // i1: Bool
  llvm::Value* i = nullptr;     // i64: Int, Time, Duration, State (Bool: see intOf)
  llvm::Value* f = nullptr;     // double: Float
  llvm::Value* p = nullptr;     // i8*: String data, Instance
  llvm::Value* n = nullptr;     // i64: String size
};

// The loop being emitted, as its body sees it (Codegen::loop). Every path of the body ends
// with a branch to `next` (continue) or `exit` (break), or is left open and falls through to
// `next`.
struct Loop {
  llvm::BasicBlock* next = nullptr;  // the test of the next iteration
  llvm::BasicBlock* exit = nullptr;  // after the loop
  llvm::Value* index = nullptr;      // countedLoop: this iteration's index (i64)
};

class Codegen {
 public:
  Codegen(const ir::Program& program, const DataLayout& layout, llvm::LLVMContext& context, llvm::Module& module);

  // ---- the module (codegen.cc)
  // The function of one predicate, `i32 (i8* ctx, i8* scratch)` returning its truth.
  llvm::Function* function(const PredicateRef& ref, const ir::Expr& e, int32_t bindings);
  // `i32 name(i32 id, i8* ctx, i8* scratch)`: a switch over predicate ids.
  void dispatcher(const std::string& name, const std::vector<std::pair<int32_t, llvm::Function*>>& cases);

 private:
  bool isCold(const PredicateRef& ref) const;

  // ---- module-level constants (codegen_tables.cc)
  llvm::Value* global(llvm::Constant* init, const std::string& name);
  llvm::Constant* stringData(const std::string& s);
  CV constString(const std::string& s);
  llvm::Value* symptomTable(const std::vector<uint8_t>& bytes, const std::string& name);
  llvm::Value* setTable(int32_t set);
  llvm::Value* symptomIds(int32_t set);
  llvm::Value* metricTable();
  // The text a symptom field reads, as distinct {data, size} words and a word index per
  // symptom (null for names, whose index is the symptom id).
  struct WordTable {
    llvm::Value* words = nullptr;
    llvm::Value* indices = nullptr;
  };
  WordTable nameTable(ir::Field f);
  llvm::FunctionCallee helper(const char* name, llvm::Type* result, std::vector<llvm::Type*> args);
  llvm::Function* intrinsic(llvm::Intrinsic::ID id, llvm::Type* type);

  // ---- function plumbing and values (codegen_values.cc)
  llvm::BasicBlock* block(const char* name);
  llvm::Value* entryAlloca(llvm::Type* type, const char* name);
  llvm::Value* variable(llvm::Type* type, llvm::Value* init, const char* name);
  llvm::Value* load(llvm::Type* type, llvm::Value* base, uint64_t offset);
  llvm::Value* slot(int32_t s);
  llvm::Value* isNullPtr(llvm::Value* p);
  llvm::Value* safe(llvm::Value* inst);
  llvm::Value* extraFields(llvm::Value* safeInst);
  // The one loop shape of the generated code: `while (more()) body`.
  void loop(const std::string& name, const std::function<llvm::Value*()>& more,
            const std::function<void(const Loop&)>& body);
  // `for (i = from; more(i); ++i) body`, over loop().
  void countedLoop(const std::string& name, llvm::Value* from, const std::function<llvm::Value*(llvm::Value*)>& more,
                   const std::function<void(const Loop&)>& body);
  // Evaluates `e` with `inst` bound to `slot`, as aggregates and windows do for each element.
  CV genBound(const ir::Expr& e, int32_t slot, llvm::Value* inst);

  CV nullOf(ir::Type type);
  CV boolean(llvm::Value* bit, llvm::Value* null = nullptr);
  CV integer(ir::Type type, llvm::Value* i, llvm::Value* null);
  CV real(llvm::Value* f, llvm::Value* null);
  CV string(llvm::Value* p, llvm::Value* n, llvm::Value* null);
  // The string a runtime helper writes through (pointer, size) out-parameters: `call(p, n)`
  // emits the call, in a block entered only when `null` is false (the helpers allocate); null
  // when `null`. `name` names the blocks and slots ("fmt": fmt.p, fmt.n, fmt, fmt.end).
  CV stringFromHelper(const std::string& name, llvm::Value* null,
                      const std::function<void(llvm::Value* p, llvm::Value* n)>& call);
  CV instance(llvm::Value* p);
  llvm::Value* intOf(const CV& v);
  llvm::Value* doubleOf(const CV& v);
  llvm::Value* instanceOf(const CV& v);
  std::pair<llvm::Value*, llvm::Value*> stringOf(const CV& v);
  llvm::Value* truth(const CV& v);
  llvm::Value* any(llvm::Value* a, llvm::Value* b);

  // ---- instance fields and captures (codegen_fields.cc)
  CV stringField(llvm::Value* s, const StringField& f, llvm::Value* instNull, bool emptyIsNull);
  CV optionalInt(llvm::Value* s, const OptionalField& f, llvm::Value* instNull, ir::Type type, bool byte);
  llvm::Value* symptomId(llvm::Value* s);
  CV field(llvm::Value* inst, ir::Field f);
  CV capture(llvm::Value* inst, const std::string& name);
  CV workload(const ir::Expr& e);
  llvm::Value* earlier(llvm::Value* a, llvm::Value* b);

  // ---- comparisons, arithmetic and scalar functions (codegen_arith.cc)
  CV compare(ir::Op op, const CV& a, const CV& b);
  llvm::Value* intCompare(ir::Op op, llvm::Value* x, llvm::Value* y, bool isSigned);
  llvm::Value* bytesEqual(llvm::Value* a, llvm::Value* b, llvm::Value* n);
  llvm::Value* stringsEqual(llvm::Value* ap, llvm::Value* an, llvm::Value* bp, llvm::Value* bn);
  CV arithmetic(const ir::Expr& e);
  // The second operand of the binary `e`, whose first is `a`, into *b, and the null of either
  // into *null; false when either is the null literal (`e` is then null).
  bool secondOperand(const ir::Expr& e, const CV& a, CV* b, llvm::Value** null);
  std::pair<llvm::Value*, llvm::Value*> truncToInt(llvm::Value* d);
  std::pair<llvm::Value*, llvm::Value*> parseInt(llvm::Value* p, llvm::Value* n);
  CV call(const ir::Expr& e);

  // ---- expressions (codegen_expr.cc)
  CV gen(const ir::Expr& e);
  CV constant(const ir::Value& c);
  CV logical(const ir::Expr& e);
  CV same(const ir::Expr& e);

  // ---- loops over the runtime's arrays (codegen_loops.cc)
  CV memoized(const ir::Expr& e);
  CV aggregate(const ir::Expr& e);
  CV window(const ir::Expr& e);

  // The module.
  const ir::Program& program_;
  const DataLayout& layout_;
  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  // Simplifies as it builds (`and true, x` is x, ...): less IR for the optimiser to chew on.
  llvm::IRBuilder<llvm::InstSimplifyFolder> b_;
  llvm::Type *i1_, *i8_, *i32_, *i64_, *f64_;
  llvm::PointerType* i8p_;
  llvm::Value* dummy_ = nullptr;  // a zeroed stand-in instance, read through null pointers
  llvm::Value* metric_ = nullptr;
  std::map<ir::Field, WordTable> nameTables_;  // nameTable(), by field
  std::map<std::string, llvm::Constant*> strings_;
  std::map<int32_t, llvm::Value*> sets_;
  std::map<int32_t, llvm::Value*> idTables_;

  // The function being generated (reset by `function`).
  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::Value* context_ = nullptr;
  llvm::Value* scratch_ = nullptr;
  std::array<llvm::Value*, ir::kMaxSlots> bound_{};  // slots bound by an enclosing aggregate or window
  int32_t nextMemo_ = 0;  // ids of the slot-invariant aggregates of the current predicate
  bool compact_ = false;  // generating a cold predicate: favour small code
  std::array<llvm::Value*, ir::kMaxSlots> preloaded_{};  // the caller's slots, read at entry
  int32_t bindings_ = 0;
  int32_t boundSlots_ = 0;       // slots [0, boundSlots_) of the caller are never empty
  std::set<llvm::Value*> nonNull_;  // instances known to be there: no null checks
};

}  // namespace attrib::jit::detail
