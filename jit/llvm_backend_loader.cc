// Finds and loads libattrib_jit_llvm.so (llvm_backend.h) on first use. Lives in attrib_jit,
// which never links LLVM.
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "jit/llvm_backend.h"

namespace attrib::jit {
namespace {

std::atomic<bool> loaded{false};

}  // namespace

const LlvmBackend* llvmBackend(std::string* error) {
  static std::once_flag once;
  static const LlvmBackend* backend = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    const char* override = std::getenv("ATTRIB_JIT_LLVM_MODULE");
    std::string path = override && *override ? override : ATTRIB_JIT_LLVM_MODULE;
    // RTLD_LOCAL: LLVM's symbols stay out of the global namespace the own loader resolves in.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      failure = "cannot load the JIT's LLVM module (set ATTRIB_JIT_LLVM_MODULE to its path): " +
                std::string(why ? why : path);
      return;
    }
    auto entry = reinterpret_cast<const LlvmBackend* (*)()>(dlsym(handle, "attrib_jit_llvm_backend"));
    if (!entry) {
      failure = "the JIT's LLVM module " + path + " has no entry point attrib_jit_llvm_backend";
      return;
    }
    const LlvmBackend* candidate = entry();
    if (!candidate || candidate->abi != kLlvmBackendAbi) {
      failure = "the JIT's LLVM module " + path + " is of another build";
      return;
    }
    backend = candidate;  // the handle is never closed: code it compiled may run until exit
    loaded = true;
  });
  if (!backend && error) *error = failure;
  return backend;
}

bool llvmBackendLoaded() { return loaded; }

}  // namespace attrib::jit
