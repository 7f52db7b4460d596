// Loads the relocatable object files the JIT caches (ELF64, x86-64) into executable memory
// without LLVM, so a diagnosis whose predicates are cached never maps libLLVM (45 MB of its peak
// RSS and 11-22 ms of its start: docs/performance.md).
//
// It handles exactly what LLVM's code generator emits for predicates and nothing more:
// allocatable PROGBITS/NOBITS sections (code, constants, data), RELA relocations of types
// 64, PC32, PLT32, PC64, GOTPCREL, GOTPCRELX and REX_GOTPCRELX, and undefined symbols resolved
// through `resolve`. Anything else (unwind tables, TLS, constructors, COMDAT groups, another
// machine) is refused with a reason, and the caller links the object with LLVM instead: the
// loader is an optimisation, never the only way.
//
// Calls to symbols out of a 32-bit reach go through a stub in the loaded code; GOT entries live
// in the constants' pages. After relocation code pages are read-execute, constants read-only,
// data read-write; nothing is ever writable and executable.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace attrib::jit {

class LoadedObject {
 public:
  // The address of an undefined symbol, or nullptr when it is unknown.
  using Resolver = std::function<void*(std::string_view name)>;

  // Loads `object` (copied; the buffer need not outlive the call). nullptr with `error` set to
  // one line when the object is malformed or uses something the loader does not handle.
  static std::unique_ptr<LoadedObject> load(std::string_view object, const Resolver& resolve, std::string* error);

  ~LoadedObject();
  LoadedObject(const LoadedObject&) = delete;
  LoadedObject& operator=(const LoadedObject&) = delete;

  // The address of a global symbol the object defines, or nullptr.
  void* symbol(std::string_view name) const;

 private:
  LoadedObject() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attrib::jit
