#include "evidence/mapped_file.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>

namespace attrib::evidence {
namespace {

// The live mappings, read by the signal handler: lock-free atomics only.
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<uintptr_t> begin{0}, end{0};  // end == 0: not yet (or no longer) a mapping
  std::atomic<bool> faulted{false};
};
Slot gSlots[MappedFile::kMaxMappings];

std::atomic<bool> gEnabled{false};
struct sigaction gPrevious;
uintptr_t gPageSize = 4096;

void onSigbus(int sig, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  if (info->si_code > 0) {  // raised by a fault, not sent by kill()
    for (Slot& slot : gSlots) {
      const uintptr_t end = slot.end.load(std::memory_order_acquire);
      if (end == 0 || address < slot.begin.load(std::memory_order_acquire) || address >= end) continue;
      // The page the file lost: zeros in its place, and the access that faulted goes on.
      void* page = reinterpret_cast<void*>(address & ~(gPageSize - 1));
      if (::mmap(page, gPageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
        slot.faulted.store(true, std::memory_order_release);
        return;
      }
      break;
    }
  }
  // Not one of ours: what would have happened without the guard.
  if (gPrevious.sa_flags & SA_SIGINFO) {
    gPrevious.sa_sigaction(sig, info, context);
    return;
  }
  if (gPrevious.sa_handler != SIG_DFL && gPrevious.sa_handler != SIG_IGN) {
    gPrevious.sa_handler(sig);
    return;
  }
  ::signal(SIGBUS, SIG_DFL);
  // A fault comes back when the access is retried; a signal that was sent does not.
  if (info->si_code <= 0) ::raise(SIGBUS);
}

}  // namespace

bool enableMappedReads() {
  static std::once_flag once;
  std::call_once(once, [] {
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page <= 0) return;
    gPageSize = static_cast<uintptr_t>(page);
    struct sigaction action {};
    action.sa_sigaction = onSigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    if (::sigaction(SIGBUS, &action, &gPrevious) == 0) gEnabled.store(true);
  });
  return gEnabled.load();
}

bool mappedReadsEnabled() { return gEnabled.load(); }

std::unique_ptr<MappedFile> MappedFile::map(int fd, uint64_t size) {
  if (!gEnabled.load() || size == 0 || size >= SIZE_MAX / 2) {
    errno = EINVAL;
    return nullptr;
  }
  size_t slot = 0;
  for (; slot < kMaxMappings; ++slot) {
    bool expected = false;
    if (gSlots[slot].used.compare_exchange_strong(expected, true)) break;
  }
  if (slot == kMaxMappings) {
    errno = ENOMEM;
    return nullptr;
  }
  // Anonymous pages first, then the file over them: the byte after the file's last is then
  // always writable, in the file's last page or in the anonymous page after it.
  const size_t length = (static_cast<size_t>(size) + 1 + gPageSize - 1) & ~(gPageSize - 1);
  void* reserved = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) {
    gSlots[slot].used.store(false);
    return nullptr;
  }
  if (::mmap(reserved, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
    const int err = errno;
    ::munmap(reserved, length);
    gSlots[slot].used.store(false);
    errno = err;
    return nullptr;
  }
  // Read once, front to back; pages behind the reader are released as it goes.
  (void)::madvise(reserved, static_cast<size_t>(size), MADV_SEQUENTIAL);
  Slot& s = gSlots[slot];
  s.faulted.store(false);
  s.begin.store(reinterpret_cast<uintptr_t>(reserved), std::memory_order_release);
  s.end.store(reinterpret_cast<uintptr_t>(reserved) + length, std::memory_order_release);
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<char*>(reserved), static_cast<size_t>(size), length, slot));
}

MappedFile::~MappedFile() {
  Slot& s = gSlots[slot_];
  s.end.store(0, std::memory_order_release);
  ::munmap(data_, length_);
  s.begin.store(0);
  s.used.store(false, std::memory_order_release);
}

void MappedFile::release(size_t upTo) {
  const size_t end = upTo & ~static_cast<size_t>(gPageSize - 1);
  if (end <= released_) return;
  (void)::madvise(data_ + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

void MappedFile::populate(size_t from, size_t to) {
#if defined(MADV_POPULATE_READ)
  from &= ~static_cast<size_t>(gPageSize - 1);
  to = std::min(to, size_);
  if (from >= to) return;
  (void)::madvise(data_ + from, to - from, MADV_POPULATE_READ);
#else
  (void)from;
  (void)to;
#endif
}

bool MappedFile::faulted() const { return gSlots[slot_].faulted.load(std::memory_order_acquire); }

}  // namespace attrib::evidence
