// Module-level constants: the strings, tables and declarations that the module's predicates
// share. Each is created once per module, on first use, and cached (strings_, sets_, idTables_,
// nameTables_, metric_): a module holds one copy however many predicates read it. Tables are
// private, unnamed-address constants, indexed by symptom id; none is ever empty (an empty one
// gets a zero element), since the zeroed stand-in instance (dummy_) reads index 0. Nothing
// embeds an address of this process, so the object code can be cached (jit/codegen.h).
#include <llvm/IR/Constants.h>

#include <algorithm>
#include <fmt/format.h>

#include "jit/codegen_state.h"

namespace attrib::jit::detail {

using ir::Op;
using ir::Type;

llvm::Value* Codegen::global(llvm::Constant* init, const std::string& name) {
  auto* g = new llvm::GlobalVariable(module_, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, name);
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  g->setAlignment(llvm::Align(16));
  return llvm::ConstantExpr::getBitCast(g, i8p_);
}

llvm::Constant* Codegen::stringData(const std::string& s) {
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

CV Codegen::constString(const std::string& s) {
  CV v;
  v.type = Type::String;
  v.null = b_.getFalse();
  v.p = stringData(s);
  v.n = b_.getInt64(s.size());
  return v;
}

// A byte per symptom id: 1 when `member(id)`.
llvm::Value* Codegen::symptomTable(const std::vector<uint8_t>& bytes, const std::string& name) {
  std::vector<uint8_t> padded = bytes;
  if (padded.empty()) padded.push_back(0);  // the zeroed stand-in instance reads id 0
  return global(llvm::ConstantDataArray::get(ctx_, padded), name);
}

llvm::Value* Codegen::setTable(int32_t set) {
  auto it = sets_.find(set);
  if (it != sets_.end()) return it->second;
  std::vector<uint8_t> bytes(program_.symptoms.size(), 0);
  for (int32_t s : program_.symptomSets[set]) bytes[s] = 1;
  return sets_[set] = symptomTable(bytes, fmt::format("set{}", set));
}

// The set's symptom ids, in the order the interpreter visits them.
llvm::Value* Codegen::symptomIds(int32_t set) {
  auto it = idTables_.find(set);
  if (it != idTables_.end()) return it->second;
  std::vector<uint32_t> ids(program_.symptomSets[set].begin(), program_.symptomSets[set].end());
  if (ids.empty()) ids.push_back(0);  // never read: the loop bound is the real size
  return idTables_[set] = global(llvm::ConstantDataArray::get(ctx_, ids), fmt::format("ids{}", set));
}

llvm::Value* Codegen::metricTable() {
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
Codegen::WordTable Codegen::nameTable(ir::Field f) {
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

llvm::FunctionCallee Codegen::helper(const char* name, llvm::Type* result, std::vector<llvm::Type*> args) {
  llvm::FunctionCallee callee = module_.getOrInsertFunction(name, llvm::FunctionType::get(result, args, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) f->addFnAttr(llvm::Attribute::NoUnwind);
  return callee;
}

llvm::Function* Codegen::intrinsic(llvm::Intrinsic::ID id, llvm::Type* type) {
  return llvm::Intrinsic::getDeclaration(&module_, id, {type});
}

}  // namespace attrib::jit::detail
