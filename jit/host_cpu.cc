#include "jit/host_cpu.h"

#include <fmt/format.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace attrib::jit {

std::string hostCpuIdentity() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  std::string out;
  auto add = [&](unsigned leaf, unsigned sub, bool ebx, bool ecx, bool edx, bool eax) {
    a = b = c = d = 0;
    __cpuid_count(leaf, sub, a, b, c, d);
    out += fmt::format("{:x}.{:x}:{:08x}:{:08x}:{:08x}:{:08x};", leaf, sub, eax ? a : 0, ebx ? b : 0, ecx ? c : 0,
                       edx ? d : 0);
  };
  __cpuid(0, a, b, c, d);
  unsigned maxLeaf = a;
  out += fmt::format("{:08x}{:08x}{:08x}/{:x};", b, d, c, maxLeaf);  // the vendor string
  // Leaf 1: signature in eax, features in ecx and edx; ebx holds the APIC id and is left out.
  add(1, 0, false, true, true, true);
  const bool osSavesExtendedState = (c & bit_OSXSAVE) != 0;
  if (maxLeaf >= 7) {
    add(7, 0, true, true, true, true);
    add(7, 1, true, true, true, true);
  }
  if (maxLeaf >= 0xd) add(0xd, 1, false, false, false, true);  // XSAVEOPT/XSAVEC/XSAVES
  if (maxLeaf >= 0x14) add(0x14, 0, true, false, false, false);
  if (maxLeaf >= 0x19) add(0x19, 0, true, false, false, false);
  __cpuid(0x80000000, a, b, c, d);
  unsigned maxExtended = a;
  if (maxExtended >= 0x80000001) add(0x80000001, 0, false, true, true, true);
  if (maxExtended >= 0x80000008) add(0x80000008, 0, true, false, false, false);
  // Whether the OS saves the AVX and AVX-512 registers (LLVM drops those features otherwise).
  if (osSavesExtendedState) {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    out += fmt::format("xcr0:{:08x}{:08x}", hi, lo);
  }
  return out;
#else
  return {};
#endif
}

}  // namespace attrib::jit
