// The scalar built-in functions (`int(x)`, `contains(s, t)`, ...: docs/language.md, "Functions"):
// one table that the checker (expr_checker.cc: arity, argument kinds, result type) and lowering
// (lower.cc: the IR op) both read, so a function cannot be allowed by one and unknown to the
// other. The symptom and window aggregates are not here: their arguments are selectors and
// clauses, checked and lowered by their own code.
#pragma once

#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace attrib {

// What an argument may be.
enum class BuiltinArg {
  NumberOrString,    // int, float or string
  Scalar,            // number, string, bool, time, duration or state
  NumberOrDuration,  // int, float or duration
  String,
  Ordered,           // min/max: two numbers, or two times, or two durations (checked together)
};

// What the call gives.
enum class BuiltinResult {
  Int,
  Float,
  String,
  Bool,
  SameAsArgument,  // the first argument's type (abs)
  Ordered,         // min/max: float if either number is, else int; or the time/duration given
};

struct Builtin {
  std::string_view name;
  size_t arity;
  BuiltinArg args[2];  // the first `arity` are used
  BuiltinResult result;
  ir::Op op;
};

// Every scalar built-in, in the order the documentation lists them.
const std::vector<Builtin>& builtins();
// The built-in called `name`, or null.
const Builtin* findBuiltin(std::string_view name);
// How a diagnostic names what `kind` accepts: "a number or a string".
const char* builtinArgText(BuiltinArg kind);

}  // namespace attrib
