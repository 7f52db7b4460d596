#include "compiler/ast.h"

namespace attrib::ast {

std::string QualifiedName::str() const {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += '.';
    out += p.text;
  }
  return out;
}

std::string Selector::str() const {
  switch (kind) {
    case Kind::All: return "*";
    case Kind::Prefix: return name.str() + ".*";
    case Kind::Name: return name.str();
  }
  return {};
}

const char* spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::And: return "and";
    case BinaryOp::Or: return "or";
  }
  return "?";
}

const char* kindName(DisableDecl::Kind kind) {
  switch (kind) {
    case DisableDecl::Kind::Symptom: return "symptom";
    case DisableDecl::Kind::Filter: return "filter";
    case DisableDecl::Kind::Rule: return "rule";
    case DisableDecl::Kind::Outcome: return "outcome";
  }
  return "?";
}

std::string qualify(const std::string& package, const std::string& name) {
  return package.empty() ? name : package + "." + name;
}

}  // namespace attrib::ast
