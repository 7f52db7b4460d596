// Where `attrib` gets its rules: the stdlib bundle embedded in the binary (the default), a
// bundle file built by `attribc build`, or .attr sources compiled on the spot.
#pragma once

#include <memory>
#include <string>

#include "runtime/engine.h"

namespace attrib::tools {

struct RuleSetOptions {
  bool jit = true;          // compile predicates to native code (falls back to the interpreter)
  std::string jitCacheDir;  // where compiled predicates are cached; empty: no cache
};

// `path` empty: the embedded stdlib. Returns nullptr with a one-line error (rule diagnostics,
// if any, are printed to stderr first). When the JIT cannot run, the engine interprets and its
// evaluator info says why.
std::shared_ptr<const runtime::Engine> loadRuleSet(const std::string& path, const RuleSetOptions& options,
                                                   std::string* error);

}  // namespace attrib::tools
