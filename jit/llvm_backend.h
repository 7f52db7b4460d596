// The half of the JIT that needs LLVM, built as its own shared module (libattrib_jit_llvm.so)
// and loaded with dlopen only when it is needed: to compile predicates the cache does not hold,
// to link an object the own loader (object_loader.h) refuses, and for `attribc explain`.
// A diagnosis whose predicates are cached never maps libLLVM.
//
// The module and the programs that load it are built from the same tree in the same build, so
// the interface is plain C++; `abi` guards against loading a module of another build.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "jit/data_layout.h"
#include "jit/helpers.h"
#include "jit/predicates.h"

namespace attrib::jit {

// Bump with any change to LlvmBackend or to the types it passes.
constexpr int kLlvmBackendAbi = 2;

struct CompileTimes {
  double generateMs = 0, optimiseMs = 0, codegenMs = 0;
};

struct LlvmBackend {
  int abi = kLlvmBackendAbi;

  // What LLVM targets on this host: triple, CPU and features, one per line.
  bool (*describeHost)(std::string* out, std::string* error);

  // One object file whose dispatch function `dispatchName` evaluates the predicates of
  // `program` for which `include` holds. Thread-safe: each call owns its LLVM context.
  bool (*compileObject)(const ir::Program& program, const DataLayout& layout, const std::string& dispatchName,
                        const std::function<bool(const PredicateRef&)>& include, std::string* object,
                        CompileTimes* times, std::string* error);

  // Links `objects` with LLVM's own linker (ORC), binding `helpers` and the process's symbols,
  // and returns the addresses of `symbols`. `owner` keeps the code alive.
  bool (*linkObjects)(const std::vector<std::string>& objects, const std::vector<HelperSymbol>& helpers,
                      const std::vector<std::string>& symbols, std::vector<void*>* addresses,
                      std::shared_ptr<const void>* owner, std::string* error);

  // The LLVM IR of one predicate, optimised (O2) or as generated.
  bool (*predicateIr)(const ir::Program& program, const DataLayout& layout, const PredicateRef& ref, bool optimised,
                      std::string* out, std::string* error);
};

// The loaded module's backend, loading it on first use; nullptr with `error` when it cannot be
// loaded. The module's path is $ATTRIB_JIT_LLVM_MODULE, else the one the build wrote it to.
const LlvmBackend* llvmBackend(std::string* error);

// Whether the module has been loaded into this process (for tests and benchmarks).
bool llvmBackendLoaded();

}  // namespace attrib::jit

extern "C" const attrib::jit::LlvmBackend* attrib_jit_llvm_backend();
