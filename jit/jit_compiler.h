// Compiles a program's predicates to native code, the fast path of the runtime's attribution
// phases; runtime::Interpreter stays the reference and the fallback.
//
// Pipeline: predicate IR -> LLVM IR (codegen.h) -> O2 (new pass manager) -> object code (in
// the LLVM module, llvm_backend.h) -> loaded by the own loader (object_loader.h), or by LLVM
// ORC when the loader refuses it. With a cache directory the objects are stored, and a later
// start with the same key (the program's IR, the host CPU as CPUID reports it, LLVM's version,
// the runtime's data layout) loads them without LLVM: libLLVM is then never mapped.
#pragma once

#include <memory>
#include <string>

#include "ir/ir.h"
#include "jit/predicates.h"
#include "runtime/compiled_predicates.h"

namespace attrib::jit {

struct JitOptions {
  std::string cacheDir;  // empty: no object cache
  // Link with LLVM ORC even where the own loader could (to compare the two; it loads libLLVM).
  bool llvmLinker = false;
};

// What one compilation did and how long each step took.
struct JitReport {
  bool cacheHit = false;
  std::string cacheNote;  // a cache entry that could not be read or written, and why
  size_t predicates = 0;
  size_t objectBytes = 0;
  size_t threads = 0;  // compiled in parallel on this many threads (0: nothing compiled)
  bool linkedByLlvm = false;  // the own loader refused an object (why: loaderNote); LLVM linked it
  std::string loaderNote;
  // Wall-clock times; generate/optimise/codegen are those of the slowest thread.
  double generateMs = 0, optimiseMs = 0, codegenMs = 0, linkMs = 0, totalMs = 0;
};

// The compiled predicates of `program`, or nullptr with `error` (one line) when this machine
// or build cannot JIT; callers then interpret.
std::shared_ptr<const runtime::CompiledPredicates> compilePredicates(const ir::Program& program,
                                                                     const JitOptions& options, JitReport* report,
                                                                     std::string* error);

// The LLVM IR of one predicate, optimised (O2) or as generated, for `attribc explain`.
bool predicateLlvmIr(const ir::Program& program, const PredicateRef& ref, bool optimised, std::string* out,
                     std::string* error);

// The default cache directory: $ATTRIB_JIT_CACHE, else $XDG_CACHE_HOME/attrib/jit, else
// $HOME/.cache/attrib/jit; empty when none of them is set.
std::string defaultCacheDir();

}  // namespace attrib::jit
