// What decides the machine code LLVM generates for this host, read without LLVM, so the JIT
// cache can be keyed (and a cached object loaded) before libLLVM is ever mapped.
#pragma once

#include <string>

namespace attrib::jit {

// On x86-64: the CPUID leaves LLVM reads to pick the host CPU and its features (vendor,
// family/model/stepping, feature bits, the OS's XSAVE state), with the per-core fields
// (APIC id, core counts) left out, so every core of a machine, and every machine of the same
// kind, gives the same string. Empty elsewhere: the caller then asks LLVM.
std::string hostCpuIdentity();

}  // namespace attrib::jit
