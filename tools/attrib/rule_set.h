// Where `attrib` gets its rules: the stdlib bundle embedded in the binary (the default), a
// bundle file built by `attribc build`, or .attr rule sets layered on the stdlib's sources
// (also embedded), compiled once and then cached.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/engine.h"

namespace attrib::tools {

struct RuleSetOptions {
  bool jit = true;            // compile predicates to native code (falls back to the interpreter)
  std::string jitCacheDir;    // where compiled predicates are cached; empty: no cache
  std::string rulesCacheDir;  // where bundles compiled from sources are cached; empty: no cache
};

// What `--rules` names, in the order given: nothing (the embedded stdlib bundle), one bundle
// file (that rule set alone), or .attr files and directories, each a layer on top of the
// stdlib and of the ones before it (docs/language.md, "Layers"). A bundle cannot be layered.
//
// Sources are compiled once: the bundle is cached under a key made of the sources' paths and
// content, the layering and the compiler's version and build, and a later load with the same
// key reads it (and replays the warnings of the first compile) instead of compiling.
//
// Returns nullptr with a one-line error; the rules' diagnostics, if any, are printed to stderr
// first. When the JIT cannot run, the engine interprets and its evaluator info says why.
std::shared_ptr<const runtime::Engine> loadRuleSet(const std::vector<std::string>& paths, const RuleSetOptions& options,
                                                   std::string* error);

// --rules when given, else ATTRIB_RULES (':'-separated), else nothing (the stdlib).
std::vector<std::string> rulePaths(const std::vector<std::string>& fromCommandLine);

// $ATTRIB_RULES_CACHE, else $XDG_CACHE_HOME/attrib/rules, else ~/.cache/attrib/rules.
std::string defaultRulesCacheDir();

}  // namespace attrib::tools
