// A compact, stable text form of AST expressions, e.g. `(and (> (call count xid48) 1) root)`.
// For tests and for `attribc` debugging output; not a source printer (see formatter.h).
#pragma once

#include <string>

#include "compiler/ast.h"

namespace attrib::ast {

std::string dump(const Expr& e);

}  // namespace attrib::ast
