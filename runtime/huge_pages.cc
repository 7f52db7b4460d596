#include "runtime/huge_pages.h"

#include <cstdint>

#include <sys/mman.h>

namespace attrib::runtime {

void adviseHugePages(void* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (data == nullptr || bytes < 2 * kHuge) return;
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t from = (begin + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t to = (begin + bytes) & ~(kHuge - 1);
  if (to <= from) return;
  (void)::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
}

}  // namespace attrib::runtime
