#include "compiler/types.h"

namespace attrib {

Type Type::listOf(const Type& element) {
  Type t(TypeKind::List);
  t.element_ = std::make_shared<const Type>(element);
  return t;
}

Type Type::rangeOf(const Type& element) {
  Type t(TypeKind::Range);
  t.element_ = std::make_shared<const Type>(element);
  return t;
}

const Type& Type::element() const {
  static const Type kError;
  return element_ ? *element_ : kError;
}

std::string Type::name() const {
  switch (kind_) {
    case TypeKind::Error: return "<error>";
    case TypeKind::Bool: return "bool";
    case TypeKind::Int: return "int";
    case TypeKind::Float: return "float";
    case TypeKind::String: return "string";
    case TypeKind::Time: return "time";
    case TypeKind::Duration: return "duration";
    case TypeKind::State: return "state";
    case TypeKind::Instance: return "symptom instance";
    case TypeKind::SymptomSet: return "symptom set";
    case TypeKind::Workload: return "workload";
    case TypeKind::List: return "list of " + element().name() + (element().is(TypeKind::None) ? "" : "s");
    case TypeKind::Range: return "range of " + element().name() + "s";
    case TypeKind::None: return "none";
  }
  return "<error>";
}

std::string Type::withArticle() const {
  std::string n = name();
  bool vowel = !n.empty() && std::string("aeiou").find(n[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + n;
}

bool Type::operator==(const Type& other) const {
  if (kind_ != other.kind_) return false;
  if (kind_ == TypeKind::List || kind_ == TypeKind::Range) return element() == other.element();
  return true;
}

}  // namespace attrib
