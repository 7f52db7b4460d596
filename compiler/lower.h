// Lowering: the checked AST of a whole compilation -> the rule-set IR (ir/ir.h).
//
// Runs only on a compilation without errors. Names are resolved to numbers (symptom ids in
// qualified-name order, symptom sets, regex table, instance slots), defaults are applied
// (severity error, blame node, derived roles), and declarations are ordered by layer (the
// highest first), then file path and position (Compilation::declarationOrder), so the same rule
// files give the same IR whatever order they were named in.
#pragma once

#include <string>

#include "compiler/compilation.h"
#include "ir/ir.h"

namespace attrib {

struct LowerOptions {
  std::string name = "rules";
  std::string version = "0.0.0";
};

ir::Program lower(const Compilation& compilation, const LowerOptions& options = {});

}  // namespace attrib
