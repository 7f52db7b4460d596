// A plain log file mapped into memory, so that it is scanned where the page cache holds it
// rather than copied into a buffer by read(2) (docs/performance.md: the copy was about 30% of a
// scan).
//
// The danger of a mapping is SIGBUS: when another process truncates the file (logrotate's
// copytruncate, a job rewriting its log), touching a page past the new end kills the process.
// The guard against it is process-wide, so a library does not install it by itself: the program
// calls enableMappedReads() once, and until then LogReader reads every file through read(2).
// With the guard, a fault inside a live mapping maps a page of zeros over the lost page and
// marks the mapping as faulted; the access that faulted then goes on, reading zeros, and the
// reader, which looks at the file's size and that mark before each chunk, ends the file there
// with an error (evidence/log_reader.h). A SIGBUS anywhere else is handed to the handler that was
// installed before (or kills the process, as it would have without the guard).
//
// Contract:
// - data()[0, size()) are the file's bytes at the time of mapping; data()[size()] is one more
//   writable byte (zero), so a final line without '\n' can be completed in place. The mapping is
//   private and writable: writes change this copy only, never the file.
// - release(upTo) gives back the pages wholly below upTo (MADV_DONTNEED), so that a long file
//   does not stay resident behind the reader; they must not be read again.
// - faulted(): a page of the mapping was lost (the file shrank under it) since it was mapped.
// - At most kMaxMappings (256) mappings are live at once; map() fails past that and the caller
//   reads the file through read(2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace attrib::evidence {

// Installs the SIGBUS guard (once; later calls do nothing). False if it could not be installed,
// and then files are read through read(2).
bool enableMappedReads();
bool mappedReadsEnabled();

class MappedFile {
 public:
  static constexpr size_t kMaxMappings = 256;

  // Maps the first `size` bytes (size > 0) of the regular file open at `fd`; null (and errno
  // set) when it cannot, including when the guard is not enabled. Does not take `fd`.
  static std::unique_ptr<MappedFile> map(int fd, uint64_t size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  char* data() const { return data_; }
  size_t size() const { return size_; }
  void release(size_t upTo);
  // Maps the page tables of [from, to) (clipped to the file) in one call, ahead of the reader:
  // otherwise every 64 KiB of a 1 GB file is a page fault of its own (16,000 of them), which cost
  // the reader about as much as read(2)'s copy. Best effort: a kernel without
  // MADV_POPULATE_READ (before 5.14), or a file truncated since, leaves the pages to fault.
  void populate(size_t from, size_t to);
  bool faulted() const;

 private:
  MappedFile(char* data, size_t size, size_t length, size_t slot) : data_(data), size_(size), length_(length), slot_(slot) {}

  char* const data_;
  const size_t size_;
  const size_t length_;  // of the whole mapping: size + 1 rounded up to pages
  const size_t slot_;    // in the guard's table
  size_t released_ = 0;
};

}  // namespace attrib::evidence
