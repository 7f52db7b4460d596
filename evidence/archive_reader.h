// The entries of an archive (tar, compressed tar, zip), read in place with libarchive: nothing
// is extracted to disk. Entries are read in archive order, each once; a reader for the current
// entry (LogReader::openArchiveEntry) is valid until next() moves on.
//
// Entries are data, not paths to follow: names are checked (an absolute name or one with a
// ".." component is refused by the intake, never resolved), and links are reported, not read.
// Errors: "cannot open archive 'P': ...", "truncated or corrupt archive 'P' after entry N: ...".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct archive;

namespace attrib::evidence {

class ArchiveReader {
 public:
  struct Entry {
    enum class Type { File, Directory, Link, Other };
    std::string name;        // as stored ("./logs/n1/syslog.log", "job/dmesg")
    Type type = Type::Other;
    int64_t size = -1;       // -1 when the archive does not say
    std::optional<int64_t> modified;  // ns since the epoch
  };

  // Opens `path` (nullptr and `error` when it is no archive libarchive can read).
  static std::unique_ptr<ArchiveReader> open(const std::string& path, std::string* error);
  // An archive held in memory (standard input); `name` names it in errors.
  static std::unique_ptr<ArchiveReader> openMemory(std::shared_ptr<const std::string> bytes, const std::string& name,
                                                   std::string* error);
  ~ArchiveReader();
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  // The next entry; false at the end or on an error (then error() is set).
  bool next(Entry* entry);
  // Up to `capacity` bytes of the current entry; 0 at its end; -1 on an error (error() says).
  long read(void* dst, size_t capacity);
  const std::string& error() const { return error_; }
  const std::string& name() const { return name_; }
  // Entries returned by next() so far.
  uint64_t entries() const { return entries_; }

 private:
  ArchiveReader() = default;
  struct archive* a_ = nullptr;
  std::shared_ptr<const std::string> memory_;
  std::string name_;
  std::string error_;
  uint64_t entries_ = 0;
};

// Whether a file name is an archive's (.tar, .tar.gz, .tgz, .tar.xz, .txz, .tar.bz2, .tbz2,
// .tar.zst, .zip; case-insensitive).
bool hasArchiveName(std::string_view name);
// Whether bytes start like an archive libarchive reads (a tar header, gzip/xz/bzip2/zstd data
// holding one, a zip): for standard input, which has no name.
bool looksLikeArchive(const std::string& bytes);

}  // namespace attrib::evidence
