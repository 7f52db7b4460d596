// Inline rule tests (`test "name" { ... }` blocks): each block becomes the evidence of a small
// workload, runs through the same engine `attrib diagnose` uses (Hyperscan, PCRE2, the phases),
// and its expectations are compared with the verdict.
#pragma once

#include <functional>
#include <set>
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
  size_t layer = 0;                   // of the test's file
  // Every declaration the verdict names (outcomes, the root's and every counted symptom,
  // explainers, the rules that explained) and every name the expectations resolve to: what an
  // override must touch to have changed the result.
  std::set<std::string> names;
};

// Which tests to run: by file path and test name.
using RuleTestFilter = std::function<bool(const std::string& file, const std::string& name)>;

// Runs the test blocks of `compilation` (checked, without errors) that `filter` accepts (all
// when empty) against `engine` (built from the same compilation), in path order.
std::vector<RuleTestResult> runRuleTests(const Compilation& compilation, const runtime::Engine& engine,
                                         const RuleTestFilter& filter = {});

}  // namespace attrib::tools
