#include "runtime/context_text.h"

#include <algorithm>
#include <array>
#include <string>

#include "runtime/join_plan.h"

namespace attrib::runtime {
namespace {

// What a slot may hold while an expression is walked: no instance whose text could be cut
// (`none`: the candidate of a when-clause, read before its text is cut), the instances of one
// symptom set, or any instance (`all`).
struct SlotSet {
  enum class Kind { None, Set, All } kind = Kind::All;
  const std::vector<int32_t>* set = nullptr;
};

class TextReads {
 public:
  explicit TextReads(const ir::Program& program) : program_(program), read_(program.symptoms.size(), false) {}

  void walk(const ir::Expr& e, std::array<SlotSet, ir::kMaxSlots>& slots) {
    using ir::Op;
    if (e.op == Op::FieldOf && e.field == ir::Field::Text && !e.operands.empty()) {
      const ir::Expr& of = e.operands[0];
      if (of.op == Op::Slot && of.slot >= 0 && of.slot < ir::kMaxSlots) {
        mark(slots[static_cast<size_t>(of.slot)]);
      } else if ((of.op == Op::First || of.op == Op::Last || of.op == Op::MinBy || of.op == Op::MaxBy) && of.set >= 0) {
        markSet(of.set);
      } else {
        markAll();
      }
    }
    if (ir::isAggregate(e.op) && e.set >= 0) {
      if (e.op == Op::Distinct && e.counted == ir::Field::Text && e.name.empty()) markSet(e.set);
      if (e.sameKey && e.field == ir::Field::Text) {
        markSet(e.set);
        mark(slots[0]);
      }
      // The aggregate's where-clause and key read its instances through its slot.
      if (e.slot >= 0 && e.slot < ir::kMaxSlots) {
        SlotSet saved = slots[static_cast<size_t>(e.slot)];
        slots[static_cast<size_t>(e.slot)] = {SlotSet::Kind::Set, &program_.symptomSets[static_cast<size_t>(e.set)]};
        for (const auto& o : e.operands) walk(o, slots);
        slots[static_cast<size_t>(e.slot)] = saved;
        return;
      }
    }
    for (const auto& o : e.operands) walk(o, slots);
  }

  std::vector<bool> take() { return std::move(read_); }

 private:
  void mark(const SlotSet& s) {
    if (s.kind == SlotSet::Kind::All) markAll();
    if (s.kind == SlotSet::Kind::Set) {
      for (int32_t id : *s.set) read_[static_cast<size_t>(id)] = true;
    }
  }
  void markSet(int32_t set) {
    if (set < 0 || static_cast<size_t>(set) >= program_.symptomSets.size()) return markAll();
    for (int32_t id : program_.symptomSets[static_cast<size_t>(set)]) read_[static_cast<size_t>(id)] = true;
  }
  void markAll() { read_.assign(read_.size(), true); }

  const ir::Program& program_;
  std::vector<bool> read_;
};

std::array<SlotSet, ir::kMaxSlots> unknownSlots() { return {}; }  // every slot: any instance

// A top-level conjunct `x.role != "R"` or `x.role == "R"` (either side): the slot, the role
// and whether it must equal it; -1 otherwise.
int32_t roleTest(const ir::Expr& e, std::string* role, bool* equal) {
  if ((e.op != ir::Op::Eq && e.op != ir::Op::Ne) || e.operands.size() != 2) return -1;
  for (int side = 0; side < 2; ++side) {
    const ir::Expr& f = e.operands[static_cast<size_t>(side)];
    const ir::Expr& c = e.operands[static_cast<size_t>(1 - side)];
    if (f.op == ir::Op::FieldOf && f.field == ir::Field::Role && f.operands.size() == 1 &&
        f.operands[0].op == ir::Op::Slot && c.op == ir::Op::Const && c.constant.type == ir::Type::String) {
      *role = c.constant.s;
      *equal = e.op == ir::Op::Eq;
      return f.operands[0].slot;
    }
  }
  return -1;
}

}  // namespace

std::vector<bool> symptomsWhoseTextIsRead(const ir::Program& program) {
  TextReads reads(program);
  // A when-clause's candidate (slot 0) is read before its text could be cut.
  for (const auto& s : program.symptoms) {
    auto slots = unknownSlots();
    slots[0] = {SlotSet::Kind::None, nullptr};
    if (s.hasWhen) reads.walk(s.when, slots);
    for (const auto& let : s.lets) reads.walk(let.value, slots);
  }
  for (const auto& f : program.filters) {
    for (const auto& st : f.statements) {
      if (!st.hasWhere) continue;
      auto slots = unknownSlots();
      if (st.set >= 0 && static_cast<size_t>(st.set) < program.symptomSets.size()) {
        slots[0] = {SlotSet::Kind::Set, &program.symptomSets[static_cast<size_t>(st.set)]};
      }
      reads.walk(st.where, slots);
    }
  }
  // A rule's bindings, narrowed as its join plan narrows them (`x is A or x is B`, `x is not C`)
  // and by `x.role != "context"`: the where-clause is false for an instance a top-level conjunct
  // rules out, whatever its text.
  for (const auto& r : program.rules) {
    if (!r.hasWhere) continue;
    JoinPlan plan = planJoin(program, r);
    std::vector<const ir::Expr*> parts;
    conjuncts(r.where, &parts);
    for (const ir::Expr* c : parts) {
      std::string role;
      bool equal = false;
      const int32_t b = roleTest(*c, &role, &equal);
      if (b < 0 || static_cast<size_t>(b) >= plan.bindings.size()) continue;
      auto& syms = plan.bindings[static_cast<size_t>(b)].symptoms;
      syms.erase(std::remove_if(syms.begin(), syms.end(),
                                [&](int32_t id) {
                                  return (ir::roleName(program.symptoms[static_cast<size_t>(id)].role) == role) != equal;
                                }),
                 syms.end());
    }
    auto slots = unknownSlots();
    for (size_t b = 0; b < plan.bindings.size() && b < slots.size(); ++b) {
      slots[b] = {SlotSet::Kind::Set, &plan.bindings[b].symptoms};
    }
    reads.walk(r.where, slots);
  }
  // An outcome's slot 0 is the root cause, always an instance of a symptom whose role is cause.
  std::vector<int32_t> causes;
  for (size_t s = 0; s < program.symptoms.size(); ++s) {
    if (program.symptoms[s].role == ir::Role::Cause) causes.push_back(static_cast<int32_t>(s));
  }
  for (const auto& o : program.outcomes) {
    auto slots = unknownSlots();
    slots[0] = {SlotSet::Kind::Set, &causes};
    reads.walk(o.when, slots);
  }
  return reads.take();
}

std::vector<bool> compactTextSymptoms(const ir::Program& program) {
  std::vector<bool> compact = symptomsWhoseTextIsRead(program);
  for (size_t s = 0; s < compact.size(); ++s) {
    const ir::Symptom& symptom = program.symptoms[s];
    compact[s] = !compact[s] && symptom.role == ir::Role::Context && symptom.stream == ir::StreamKind::Log;
  }
  return compact;
}

}  // namespace attrib::runtime
