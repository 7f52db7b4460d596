#include "compiler/builtins.h"

namespace attrib {

const std::vector<Builtin>& builtins() {
  using A = BuiltinArg;
  using R = BuiltinResult;
  static const std::vector<Builtin> table = {
      {"int", 1, {A::NumberOrString, A::NumberOrString}, R::Int, ir::Op::ToInt},
      {"float", 1, {A::NumberOrString, A::NumberOrString}, R::Float, ir::Op::ToFloat},
      {"string", 1, {A::Scalar, A::Scalar}, R::String, ir::Op::ToString},
      {"abs", 1, {A::NumberOrDuration, A::NumberOrDuration}, R::SameAsArgument, ir::Op::Abs},
      {"len", 1, {A::String, A::String}, R::Int, ir::Op::Len},
      {"lower", 1, {A::String, A::String}, R::String, ir::Op::Lower},
      {"contains", 2, {A::String, A::String}, R::Bool, ir::Op::Contains},
      {"starts_with", 2, {A::String, A::String}, R::Bool, ir::Op::StartsWith},
      {"ends_with", 2, {A::String, A::String}, R::Bool, ir::Op::EndsWith},
      {"min", 2, {A::Ordered, A::Ordered}, R::Ordered, ir::Op::Min},
      {"max", 2, {A::Ordered, A::Ordered}, R::Ordered, ir::Op::Max},
  };
  return table;
}

const Builtin* findBuiltin(std::string_view name) {
  for (const auto& b : builtins()) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

const char* builtinArgText(BuiltinArg kind) {
  switch (kind) {
    case BuiltinArg::NumberOrString: return "a number or a string";
    case BuiltinArg::Scalar: return "a scalar value";
    case BuiltinArg::NumberOrDuration: return "a number or a duration";
    case BuiltinArg::String: return "a string";
    case BuiltinArg::Ordered: return "numbers, times or durations";
  }
  return "?";
}

}  // namespace attrib
