// Inline rule tests (`test "name" { ... }` blocks): each block becomes the evidence of a small
// workload, runs through the same engine `attrib diagnose` uses (Hyperscan, PCRE2, the phases),
// and its expectations are compared with the verdict.
#pragma once

#include <string>
#include <vector>

#include "compiler/compilation.h"
#include "runtime/engine.h"

namespace attrib::tools {

struct RuleTestResult {
  std::string file;
  uint32_t line = 0;
  std::string name;
  bool passed = false;
  std::vector<std::string> failures;  // one line each: "expected root xid79 on n1, got ..."
};

// Runs every test block of `compilation` (checked, without errors) against `engine` (built from
// the same compilation).
std::vector<RuleTestResult> runRuleTests(const Compilation& compilation, const runtime::Engine& engine);

}  // namespace attrib::tools
