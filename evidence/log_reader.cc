#include "evidence/log_reader.h"

#include "evidence/archive_reader.h"
#include "evidence/line_channel.h"
#include "evidence/mapped_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <new>
#include <system_error>
#include <utility>

namespace attrib::evidence {

std::string_view LogChunk::line(size_t i) const {
  const size_t begin = lineStarts[i];
  const size_t end = i + 1 < lineStarts.size() ? lineStarts[i + 1] : data.size();
  return data.substr(begin, end - begin - 1);
}

namespace {

// Finds the '\n' bytes of a buffer in increasing order, 64 bytes at a time: one SSE2 compare per
// 16 bytes builds a bit mask of the block, and each newline then costs a count-trailing-zeros
// rather than a memchr call. Log lines are about a hundred bytes long, so the fixed cost of one
// memchr call per line dominated indexing; this keeps it to a few instructions per line.
class NewlineFinder {
 public:
  explicit NewlineFinder(const char* base) : base_(base) {}

  // Forgets the cached block (after the buffer's contents past it changed).
  void reset() { blockEnd_ = 0; }

  // Whether a NUL byte was among the bytes looked at: binary data in a text log.
  bool sawNul() const { return sawNul_; }

  // The first '\n' in [from, to), or nullptr. Successive calls must not go backwards.
  const char* next(size_t from, size_t to) {
#if defined(__SSE2__)
    while (from + 64 <= to) {
      if (blockEnd_ == 0 || from >= blockEnd_ || from < blockEnd_ - 64) load(from);
      uint64_t bits = mask_ & (~uint64_t{0} << (from - (blockEnd_ - 64)));
      if (bits) {
        size_t at = blockEnd_ - 64 + static_cast<size_t>(__builtin_ctzll(bits));
        return at < to ? base_ + at : nullptr;
      }
      from = blockEnd_;
    }
#endif
    if (from >= to) return nullptr;
    const char* found = static_cast<const char*>(std::memchr(base_ + from, '\n', to - from));
    size_t upTo = found ? static_cast<size_t>(found - base_) : to;
    if (!sawNul_ && std::memchr(base_ + from, '\0', upTo - from)) sawNul_ = true;
    return found;
  }

 private:
#if defined(__SSE2__)
  void load(size_t from) {
    const __m128i newline = _mm_set1_epi8('\n');
    const __m128i zero = _mm_setzero_si128();
    uint64_t mask = 0;
    int nul = 0;
    for (int i = 0; i < 4; ++i) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base_ + from + 16 * i));
      mask |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)))) << (16 * i);
      nul |= _mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));
    }
    sawNul_ |= nul != 0;
    mask_ = mask;
    blockEnd_ = from + 64;
  }
#endif

  const char* base_;
  size_t blockEnd_ = 0;  // the cached block is [blockEnd_ - 64, blockEnd_); 0 = none
  uint64_t mask_ = 0;
  bool sawNul_ = false;
};

constexpr size_t kGzipInputBytes = 64 << 10;

}  // namespace

const char* fileTypeName(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a file";
}

namespace {

// std::generic_category() formats like strerror() but is thread-safe.
std::string errnoText(int err) { return std::generic_category().message(err); }

// An open file descriptor read with plain read(2), counting the bytes read.
class RawFile {
 public:
  RawFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {
    // A hint only: the file is read once, front to back.
    (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  // A file's bytes held in memory; `error`, when given, is reported once they are all read.
  RawFile(std::shared_ptr<const std::string> bytes, std::string error)
      : fd_(-1), memory_(std::move(bytes)), memoryError_(std::move(error)) {}
  // The current entry of an archive.
  explicit RawFile(ArchiveReader& archive) : fd_(-1), archive_(&archive) {}
  ~RawFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawFile(const RawFile&) = delete;
  RawFile& operator=(const RawFile&) = delete;

  // Up to `capacity` bytes; 0 at the end of the file or on error (then error() is set).
  size_t read(void* dst, size_t capacity) {
    if (archive_) {
      const long n = archive_->read(dst, capacity);
      if (n < 0) {
        error_ = archive_->error();
        return 0;
      }
      offset_ += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
    if (fd_ < 0) {
      const size_t size = memory_ ? memory_->size() : 0;
      const size_t n = std::min<size_t>(capacity, size - offset_);
      if (n > 0) std::memcpy(dst, memory_->data() + offset_, n);
      offset_ += n;
      if (n == 0) error_ = memoryError_;
      return n;
    }
    for (;;) {
      const ssize_t n = ::read(fd_, dst, capacity);
      if (n >= 0) {
        offset_ += static_cast<uint64_t>(n);
        return static_cast<size_t>(n);
      }
      if (errno != EINTR) {
        error_ = "cannot read '" + path_ + "': " + errnoText(errno);
        return 0;
      }
    }
  }

  // Reads until `capacity` bytes, the end of the file or an error.
  size_t readFully(unsigned char* dst, size_t capacity) {
    size_t total = 0;
    while (total < capacity) {
      const size_t n = read(dst + total, capacity - total);
      if (n == 0) break;
      total += n;
    }
    return total;
  }

  uint64_t offset() const { return offset_; }
  const std::string& error() const { return error_; }

 private:
  const int fd_;
  const std::string path_;
  const std::shared_ptr<const std::string> memory_;  // fd_ < 0: the bytes
  const std::string memoryError_;
  ArchiveReader* const archive_ = nullptr;  // an archive's current entry
  uint64_t offset_ = 0;
  std::string error_;
};

// The decompressed bytes of a file.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to `capacity` bytes (capacity > 0); 0 at the end of the data or after an error. An error
  // is reported only once the bytes decoded before it have been returned.
  virtual size_t read(char* dst, size_t capacity) = 0;
  const std::string& error() const { return error_; }

 protected:
  std::string error_;
};

// The magic bytes that open() read to recognise gzip, handed back before the rest of the file.
struct Peeked {
  unsigned char bytes[2] = {};
  size_t size = 0;
};

class PlainSource final : public ByteSource {
 public:
  PlainSource(std::unique_ptr<RawFile> file, Peeked peeked) : file_(std::move(file)), peeked_(peeked) {}

  size_t read(char* dst, size_t capacity) override {
    if (peekedPos_ < peeked_.size) {
      const size_t n = std::min(capacity, peeked_.size - peekedPos_);
      std::memcpy(dst, peeked_.bytes + peekedPos_, n);
      peekedPos_ += n;
      return n;
    }
    const size_t n = file_->read(dst, capacity);
    if (n == 0) error_ = file_->error();
    return n;
  }

 private:
  std::unique_ptr<RawFile> file_;
  Peeked peeked_;
  size_t peekedPos_ = 0;
};

// gzip (or zlib) data through zlib's inflate, one member after another: logrotate and
// `cat a.gz b.gz` produce files of several members, which decompress to the concatenation.
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<RawFile> file, Peeked peeked)
      : file_(std::move(file)), input_(new (std::nothrow) unsigned char[kGzipInputBytes]) {
    if (!input_ || inflateInit2(&z_, 15 + 32) != Z_OK) {  // 15 + 32: auto-detect gzip or zlib
      fail("cannot initialise zlib");
      return;
    }
    initialised_ = true;
    std::memcpy(input_.get(), peeked.bytes, peeked.size);
    z_.next_in = input_.get();
    z_.avail_in = static_cast<uInt>(peeked.size);
  }
  ~GzipSource() override {
    if (initialised_) inflateEnd(&z_);
  }

  size_t read(char* dst, size_t capacity) override {
    if (done_) return 0;
    const uInt outCapacity = static_cast<uInt>(std::min<size_t>(capacity, UINT_MAX));
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = outCapacity;
    while (z_.avail_out == outCapacity && !done_) step();
    return outCapacity - z_.avail_out;
  }

 private:
  // One step of decompression: refill the input, skip padding, or inflate.
  void step() {
    if (z_.avail_in == 0 && (needInput_ || !inMember_) && !refill()) {
      if (!file_->error().empty()) {
        fail(file_->error());
      } else if (inMember_) {
        fail("truncated gzip file");
      } else {
        done_ = true;  // the end of the last member, or an empty file
      }
      return;
    }
    if (!inMember_) {
      // gzip ignores zero bytes after a member (padding written by some tools); so do we. Not
      // before the first member: a file of zeros is not gzip.
      while (members_ > 0 && z_.avail_in > 0 && *z_.next_in == 0) {
        ++z_.next_in;
        --z_.avail_in;
      }
      if (z_.avail_in == 0) return;
      inMember_ = true;
    }
    const int rc = inflate(&z_, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      ++members_;
      inMember_ = false;
      inflateReset(&z_);
    } else if (rc == Z_OK || (rc == Z_BUF_ERROR && z_.avail_in == 0)) {
      // inflate stops early only when the output is full; then it may still hold output
      // decoded from input it has already taken, so it must be called again before refilling.
      needInput_ = z_.avail_in == 0 && z_.avail_out > 0;
    } else if (rc == Z_MEM_ERROR) {
      fail("out of memory while decompressing");
    } else {
      // Where zlib noticed the damage, as an offset in the compressed file (zlib may have
      // taken a few bytes more than the bad code).
      fail("corrupt gzip data at byte " + std::to_string(file_->offset() - z_.avail_in));
    }
  }

  bool refill() {
    const size_t n = file_->read(input_.get(), kGzipInputBytes);
    z_.next_in = input_.get();
    z_.avail_in = static_cast<uInt>(n);
    return n > 0;
  }

  void fail(std::string message) {
    error_ = std::move(message);
    done_ = true;
  }

  std::unique_ptr<RawFile> file_;
  std::unique_ptr<unsigned char[]> input_;
  z_stream z_{};
  bool initialised_ = false;
  bool inMember_ = false;   // bytes of the current member have been handed to inflate
  bool needInput_ = true;   // inflate has produced all it can from the input it holds
  bool done_ = false;
  uint64_t members_ = 0;
};

// Cuts the decompressed bytes into chunks of whole lines.
//
// The window holds window_[0, end_): bytes of the stream starting at offset_, the first of them
// not yet delivered. A chunk is window_[0, n) for some n; the next call drops it from the front.
// Read through a source, the window is a buffer that the next call moves the rest to the front
// of; its capacity is chunkBytes + maxLineBytes + 1, which is always enough: a chunk stops
// growing once it reaches chunkBytes, and the line after that is at most maxLineBytes long
// plus its '\n' (a longer one is cut first). Read from a mapped file, the window is the rest of
// the mapping (everything is read already) and dropping a chunk moves the window's start.
class ChunkedReader final : public LogReader {
 public:
  ChunkedReader(std::unique_ptr<ByteSource> source, const LogReaderOptions& options)
      : source_(std::move(source)),
        // Chunk offsets are uint32_t: keep the whole buffer below 4 GiB.
        chunkBytes_(std::clamp<size_t>(options.chunkBytes, 1, size_t{1} << 31)),
        maxLineBytes_(std::clamp<size_t>(options.maxLineBytes, 1, size_t{1} << 30)),
        capacity_(chunkBytes_ + maxLineBytes_ + 1) {}

  // A reader of a mapped file (`fd` stays open to watch its size).
  ChunkedReader(std::unique_ptr<MappedFile> map, int fd, std::string path, const LogReaderOptions& options)
      : ChunkedReader(std::unique_ptr<ByteSource>(), options) {
    map_ = std::move(map);
    fd_ = fd;
    path_ = std::move(path);
    window_ = map_->data();
    end_ = map_->size();
    sourceEnded_ = true;
  }

  // A reader that failed before reading anything: its first next() reports `error`.
  explicit ChunkedReader(std::string error)
      : chunkBytes_(1), maxLineBytes_(1), capacity_(3), openError_(std::move(error)) {}

  ~ChunkedReader() override {
    map_.reset();
    if (fd_ >= 0) ::close(fd_);
  }

  bool next(LogChunk& chunk) override {
    chunk.clearLines();
    chunk.data = {};
    if (done_) return false;
    if (map_) {
      discardFront(delivered_);
      delivered_ = 0;
      watchSize();
    } else {
      if (!source_ || (!buffer_ && !allocate())) return finish();
      discardFront(delivered_);
      delivered_ = 0;
    }
    if (skipping_ && !skipRestOfLine()) return finish();
    const size_t end = cutChunk(chunk);
    if (chunk.lineStarts.empty()) return finish();

    chunk.data = std::string_view(window_, end);
    chunk.offset = offset_;
    chunk.firstLine = line_;
    line_ += chunk.lineStarts.size();
    delivered_ = end;
    // A '\n' added to complete the final line is not part of the stream.
    bytesRead_ = offset_ + end - (completedFinalLine_ ? 1 : 0);
    return true;
  }

  const std::string& error() const override { return error_; }
  bool sawBinary() const override { return sawBinary_; }
  uint64_t bytesRead() const override { return bytesRead_; }
  uint64_t truncatedLines() const override { return truncatedLines_; }
  bool mapped() const override { return map_ != nullptr; }

 private:
  // A mapped file that shrank since it was mapped ends where it now ends (or, if the file
  // grew back over the pages it lost, where the reader is): touching its pages past that end
  // would read the zeros the SIGBUS guard put there.
  void watchSize() {
    // Pages wholly delivered are given back every 2 MiB (one madvise call, not one per chunk).
    if (offset_ >= released_ + (2u << 20)) {
      map_->release(offset_);
      released_ = offset_;
    }
    // The next 4 MiB's page tables, when the reader comes within 2 MiB of the last populated.
    if (offset_ + (2u << 20) >= populated_ && populated_ < map_->size()) {
      map_->populate(populated_, offset_ + (4u << 20));
      populated_ = offset_ + (4u << 20);
    }
    struct stat st;
    const uint64_t mapped = map_->size();
    uint64_t now = mapped;
    if (::fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) < mapped) now = static_cast<uint64_t>(st.st_size);
    if (map_->faulted()) now = std::min<uint64_t>(now, offset_);
 if (now < mapped && shrinkError_.empty()) {
      shrinkError_ = "'" + path_ + "' shrank while it was read (from " + std::to_string(mapped) + " to " +
               std::to_string(now) + " bytes); the rest is not read";
    }
    if (now < offset_ + end_) end_ = now > offset_ ? static_cast<size_t>(now - offset_) : 0;
  }

  bool allocate() {
    // No value-initialisation: pages the reader never fills (small files) are never touched.
    buffer_.reset(new (std::nothrow) char[capacity_]);
    if (!buffer_) error_ = "cannot allocate " + std::to_string(capacity_) + " bytes to read the file";
    window_ = buffer_.get();
    return buffer_ != nullptr;
  }

  // Ends the stream. The buffer is empty here: everything read was delivered or skipped.
  bool finish() {
    if (error_.empty()) error_ = source_ ? source_->error() : map_ ? shrinkError_ : openError_;
    bytesRead_ = offset_ - (completedFinalLine_ ? 1 : 0);  // counts the tail of a cut last line
    done_ = true;
    return false;
  }

  // Reads more into window_[end_, capacity_); false at the end of the data or on error.
  bool fill() {
    if (sourceEnded_ || end_ == capacity_) return false;
    // Read about one chunk at a time, not the whole buffer: what is read past the chunk's last
    // line is moved to the front afterwards, and moving a few KiB is cheaper than a megabyte.
    constexpr size_t kStep = 64 * 1024;
    const size_t want = std::min(capacity_, std::max(end_ + kStep, chunkBytes_ + kStep)) - end_;
    const size_t n = source_->read(window_ + end_, want);
    if (n == 0) sourceEnded_ = true;
    end_ += n;
    return n > 0;
  }

  // Drops the first n bytes of the buffer; they are no longer needed.
  void discardFront(size_t n) {
    if (map_) {
      window_ += n;
    } else {
      std::memmove(window_, window_ + n, end_ - n);
    }
    end_ -= n;
    offset_ += n;
  }

  // Drops the rest of a line that was cut, through its '\n'; false if the data ended first.
  bool skipRestOfLine() {
    for (;;) {
      const void* newline = std::memchr(window_, '\n', end_);
      if (newline != nullptr) {
        discardFront(static_cast<const char*>(newline) - window_ + 1);
        skipping_ = false;
        return true;
      }
      discardFront(end_);
      if (!fill()) return false;
    }
  }

  // Finds the lines of the next chunk, reading as needed, and returns the chunk's length.
  // window_[0, lineStart) is complete lines; window_[lineStart, scanned) has no '\n'.
  size_t cutChunk(LogChunk& chunk) {
    size_t lineStart = 0, scanned = 0;
    NewlineFinder finder(window_);
    struct NoteNul {  // carries what the finder saw to the reader, on every way out
      NewlineFinder& finder;
      bool& sawBinary;
      ~NoteNul() { sawBinary |= finder.sawNul(); }
    } note{finder, sawBinary_};
#if defined(__SSE2__)
    // Fast path over whole 64-byte blocks of data already read: every newline of a block is
    // indexed from its bit mask in one go. Lines longer than maxLineBytes_, the chunk's end and
    // the end of the data are left to the general loop below.
    if (!skipping_) {
      const __m128i newline = _mm_set1_epi8('\n');
      const __m128i zero = _mm_setzero_si128();
      const char* base = window_;
      int nul = 0;
      while (lineStart < chunkBytes_ && scanned + 64 <= end_) {
        // A page ahead: a mapped file's pages come from memory, and the hardware prefetchers
        // stop at every 4 KiB page edge (measured: the indexing pass over a mapping took 2.5x
        // the user time of the same pass over the copy read(2) leaves in L2; with this, 1.2x).
        // A prefetch never faults, past the end of the data either.
        __builtin_prefetch(base + scanned + 4096);
        uint64_t mask = 0;
        for (int i = 0; i < 4; ++i) {
          __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + scanned + 16 * i));
          mask |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)))) << (16 * i);
          nul |= _mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));
        }
        bool tooLong = false;
        while (mask && lineStart < chunkBytes_) {
          size_t at = scanned + static_cast<size_t>(__builtin_ctzll(mask));
          if (at - lineStart > maxLineBytes_) {
            tooLong = true;
            break;
          }
          chunk.addLine(base, lineStart, at);
          lineStart = at + 1;
          mask &= mask - 1;
        }
        if (tooLong || lineStart >= chunkBytes_) break;
        if (scanned + 64 - lineStart > maxLineBytes_) break;  // the open line may be too long
        scanned += 64;
      }
      sawBinary_ |= nul != 0;
      scanned = lineStart;  // the general loop goes on from the first line not yet indexed
    }
#endif
    while (lineStart < chunkBytes_) {
      // The current line may have at most maxLineBytes_ bytes before its '\n'.
      const size_t limit = std::min(end_, lineStart + maxLineBytes_ + 1);
      const char* newline = scanned < limit ? finder.next(scanned, limit) : nullptr;
      if (newline != nullptr) {
        chunk.addLine(window_, lineStart, static_cast<size_t>(newline - window_));
        lineStart = scanned = newline - window_ + 1;
        continue;
      }
      scanned = limit;
      if (end_ - lineStart > maxLineBytes_) {
        // Too long: keep the first maxLineBytes_ bytes as a line, overwriting the next byte of
        // the line (not a '\n', and dropped anyway) with the '\n'. Ending the chunk here keeps
        // chunk offsets exact: the skipped rest lies between this chunk and the next.
        window_[lineStart + maxLineBytes_] = '\n';
        chunk.addLine(window_, lineStart, lineStart + maxLineBytes_);
        ++truncatedLines_;
        skipping_ = true;
        return lineStart + maxLineBytes_ + 1;
      }
      if (fill()) {
        finder.reset();  // the buffer grew: the cached block may not cover the new bytes
        continue;
      }
      if (end_ > lineStart) {
        // A final line without '\n' is completed. end_ < capacity_ here: lineStart <
        // chunkBytes_ and the line is at most maxLineBytes_ long; a mapping has the byte after
        // the file's last (evidence/mapped_file.h).
        window_[end_] = '\n';
        chunk.addLine(window_, lineStart, end_++);
        completedFinalLine_ = true;
        return end_;
      }
      break;
    }
    return lineStart;
  }

  bool sawBinary_ = false;
  std::unique_ptr<ByteSource> source_;
  const size_t chunkBytes_, maxLineBytes_, capacity_;
  std::unique_ptr<char[]> buffer_;
  std::unique_ptr<MappedFile> map_;  // when reading a mapped file, instead of source_ and buffer_
  int fd_ = -1;                      // the mapped file's, to watch its size
  std::string path_;
  std::string shrinkError_;          // published by finish()
  uint64_t released_ = 0;            // the mapping's pages below this were given back
  uint64_t populated_ = 0;           // the mapping's page tables below this were populated
  char* window_ = nullptr;           // buffer_.get(), or the mapping from offset_ on
  size_t end_ = 0;
  size_t delivered_ = 0;    // length of the chunk last returned, still at the buffer's front
  uint64_t offset_ = 0;     // stream offset of window_[0]
  uint64_t line_ = 0;       // number of lines delivered
  uint64_t bytesRead_ = 0;
  uint64_t truncatedLines_ = 0;
  bool skipping_ = false;   // the last chunk ended with a cut line whose rest is still to skip
  bool sourceEnded_ = false;
  bool completedFinalLine_ = false;
  bool done_ = false;
  const std::string openError_;
  std::string error_;  // published by finish(), so it is set only once next() returns false
};

bool hasGzipName(const std::string& path) {
  return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

}  // namespace

namespace {

std::unique_ptr<LogReader> openRaw(std::unique_ptr<RawFile> file, const std::string& path, const LogReaderOptions& options) {
  Peeked peeked;
  peeked.size = file->readFully(peeked.bytes, sizeof peeked.bytes);
  if (!file->error().empty()) return std::make_unique<ChunkedReader>(file->error());
  const bool gzipMagic = peeked.size == 2 && peeked.bytes[0] == 0x1f && peeked.bytes[1] == 0x8b;
  std::unique_ptr<ByteSource> source;
  if (gzipMagic || hasGzipName(path)) {
    source = std::make_unique<GzipSource>(std::move(file), peeked);
  } else {
    source = std::make_unique<PlainSource>(std::move(file), peeked);
  }
  return std::make_unique<ChunkedReader>(std::move(source), options);
}

}  // namespace

std::unique_ptr<LogReader> LogReader::open(const std::string& path, const LogReaderOptions& options) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: a link swapped in after
  // the intake resolved the path is not followed. Only regular files (and directories, which
  // fail at the first read as they always did) are read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return std::make_unique<ChunkedReader>("cannot open '" + path + "': " + errnoText(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return std::make_unique<ChunkedReader>("cannot open '" + path + "': " + errnoText(err));
  }
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    ::close(fd);
    return std::make_unique<ChunkedReader>("'" + path + "' is not a regular file (" + fileTypeName(st.st_mode) +
                                           "); not read");
  }
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (options.mapFiles && S_ISREG(st.st_mode) && st.st_size > 0 && !hasGzipName(path) && mappedReadsEnabled()) {
    // gzip is recognised by its magic bytes too; those files go through zlib as before.
    unsigned char magic[2] = {};
    const ssize_t n = ::pread(fd, magic, sizeof magic, 0);
    if (n >= 0 && !(n == 2 && magic[0] == 0x1f && magic[1] == 0x8b)) {
      // A file the mapping fails for (too many mapped at once, no address space) is read.
      if (auto map = MappedFile::map(fd, static_cast<uint64_t>(st.st_size))) {
        return std::make_unique<ChunkedReader>(std::move(map), fd, path, options);
      }
    }
  }
  return openRaw(std::make_unique<RawFile>(fd, path), path, options);
}

std::unique_ptr<LogReader> LogReader::openArchiveEntry(ArchiveReader& archive, const std::string& name,
                                                       const LogReaderOptions& options) {
  return openRaw(std::make_unique<RawFile>(archive), name, options);
}

std::unique_ptr<LogReader> LogReader::openMemory(std::shared_ptr<const std::string> bytes, const std::string& name,
                                                 std::string error, const LogReaderOptions& options) {
  return openRaw(std::make_unique<RawFile>(std::move(bytes), std::move(error)), name, options);
}

}  // namespace attrib::evidence
