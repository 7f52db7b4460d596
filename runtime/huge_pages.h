// Large buffers that are filled once, backed by transparent huge pages where the kernel allows it.
//
// Why: a buffer of tens of megabytes that is written once (the scan's merged instance list, 60 MB
// on bench/run's dense input) costs one page fault per 4 KiB page on first touch, and on a
// virtual machine a fault is dear (about 11 us each measured on an AMD EPYC guest with
// page-table isolation: 15,000 faults, 170 ms, for 60 MB). Asking for huge pages on the
// buffer's 2 MiB-aligned interior turns that into one fault per 2 MiB.
//
// Contract: adviseHugePages(data, bytes) is a hint (madvise(MADV_HUGEPAGE)); it never changes
// the buffer's contents and fails silently (a kernel with THP off, or "never", keeps 4 KiB
// pages). Only for buffers the caller is about to fill wholly: a huge page is backed whole on
// its first touch, so a half-used one would cost resident memory that 4 KiB pages would not.
// Buffers under 4 MiB are left alone (at most one huge page would fit their interior).
#pragma once

#include <cstddef>

namespace attrib::runtime {

void adviseHugePages(void* data, size_t bytes);

}  // namespace attrib::runtime
