#include "compiler/ast_dump.h"

#include <fmt/format.h>

namespace attrib::ast {

std::string dump(const Expr& e) {
  auto operands = [&] {
    std::string out;
    for (const auto& op : e.operands) out += " " + (op ? dump(*op) : "<null>");
    return out;
  };
  switch (e.kind) {
    case ExprKind::Int: return std::to_string(e.intValue);
    case ExprKind::Float: return fmt::format("{}", e.floatValue);
    case ExprKind::String: return fmt::format("\"{}\"", e.text);
    case ExprKind::Duration: return fmt::format("{}ns", e.intValue);
    case ExprKind::Time: return fmt::format("@{}", e.intValue);
    case ExprKind::Bool: return e.boolValue ? "true" : "false";
    case ExprKind::None: return "none";
    case ExprKind::Name: return e.name.str();
    case ExprKind::Member: return fmt::format("(. {}{})", e.name.str(), operands());
    case ExprKind::Negate: return fmt::format("(neg{})", operands());
    case ExprKind::Not: return fmt::format("(not{})", operands());
    case ExprKind::Binary: return fmt::format("({}{})", spelling(e.op), operands());
    case ExprKind::In: return fmt::format("({}{})", e.negated ? "not-in" : "in", operands());
    case ExprKind::RegexMatch:
      return fmt::format("({}{} /{}/{})", e.negated ? "!~" : "=~", operands(), e.regex->pattern, e.regex->flags);
    case ExprKind::Is:
      return fmt::format("({}{} {})", e.negated ? "is-not" : "is", operands(), e.isNone ? "none" : e.selector->str());
    case ExprKind::List: return fmt::format("(list{})", operands());
    case ExprKind::Range: return fmt::format("(range{})", operands());
    case ExprKind::Same: return fmt::format("(same {})", e.name.str());
    case ExprKind::Call: {
      std::string out = "(call " + e.name.str();
      for (const auto& a : e.args) {
        out += " ";
        std::string arg = a.selector ? a.selector->str() : (a.value ? dump(*a.value) : "<null>");
        if (a.alias || a.sameKey || a.where) {
          arg = "[" + arg;
          if (a.alias) arg += " as " + a.alias->text;
          if (a.sameKey) arg += " same " + a.sameKey->text;
          if (a.where) arg += " where " + dump(*a.where);
          arg += "]";
        }
        out += arg;
      }
      if (e.over) out += fmt::format(" over {}ns", *e.over);
      return out + ")";
    }
  }
  return "?";
}

}  // namespace attrib::ast
