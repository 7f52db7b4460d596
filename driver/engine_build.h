// Rules -> a runtime::Engine, with its predicates compiled by the JIT when asked: the one way
// the command lines (tools/), the tests and the benches turn a bundle or checked sources into
// an engine, so that they cannot differ on how (which regexes, which evaluator, what a JIT
// failure means). Never prints or exits; errors are one line.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "compiler/compilation.h"
#include "compiler/lower.h"
#include "jit/jit_compiler.h"
#include "runtime/bundle.h"
#include "runtime/engine.h"

namespace attrib::driver {

struct EngineOptions {
  // Compile the predicates to native code. When the JIT cannot run here, the engine interprets
  // and its evaluator() says why (fallbackReason), unless `requireJit`: then it is an error.
  bool jit = false;
  bool requireJit = false;
  std::string jitCacheDir;               // empty: no object cache
  jit::JitReport* jitReport = nullptr;   // filled in when the JIT runs
};

// The engine of a loaded bundle, or nullptr with `error`.
std::shared_ptr<const runtime::Engine> engineFromBundle(std::shared_ptr<const runtime::Bundle> bundle,
                                                        const EngineOptions& options, std::string* error);

// The engine of a bundle's bytes (checked by runtime::loadBundle), or nullptr with `error`.
std::shared_ptr<const runtime::Engine> engineFromBytes(std::string_view bytes, const EngineOptions& options,
                                                       std::string* error);

// The engine of a compilation checked without errors, built into a bundle named by `name` (its
// bytes in *bundleBytes when given), or nullptr with `error`.
std::shared_ptr<const runtime::Engine> engineFromCompilation(const Compilation& compilation, const LowerOptions& name,
                                                             const std::string& compilerVersion,
                                                             const EngineOptions& options, std::string* error,
                                                             std::string* bundleBytes = nullptr);

}  // namespace attrib::driver
