#include "evidence/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cstring>

#include "ir/ascii.h"

namespace attrib::evidence {
namespace {

struct archive* newReader() {
  struct archive* a = archive_read_new();
  if (!a) return nullptr;
  // Every filter (gzip, xz, bzip2, zstd, ...) and the formats that hold logs; not "raw", which
  // would take any file for an archive of one entry.
  archive_read_support_filter_all(a);
  archive_read_support_format_tar(a);
  archive_read_support_format_gnutar(a);
  archive_read_support_format_zip(a);
  archive_read_support_format_cpio(a);
  return a;
}

std::string libarchiveError(struct archive* a) {
  const char* e = archive_error_string(a);
  return e ? e : "unknown error";
}

}  // namespace

std::unique_ptr<ArchiveReader> ArchiveReader::open(const std::string& path, std::string* error) {
  std::unique_ptr<ArchiveReader> r(new ArchiveReader());
  r->name_ = path;
  r->a_ = newReader();
  if (!r->a_) {
    *error = "cannot allocate an archive reader";
    return nullptr;
  }
  if (archive_read_open_filename(r->a_, path.c_str(), 64 << 10) != ARCHIVE_OK) {
    *error = "cannot open archive '" + path + "': " + libarchiveError(r->a_);
    return nullptr;
  }
  return r;
}

std::unique_ptr<ArchiveReader> ArchiveReader::openMemory(std::shared_ptr<const std::string> bytes, const std::string& name,
                                                         std::string* error) {
  std::unique_ptr<ArchiveReader> r(new ArchiveReader());
  r->name_ = name;
  r->memory_ = std::move(bytes);
  r->a_ = newReader();
  if (!r->a_) {
    *error = "cannot allocate an archive reader";
    return nullptr;
  }
  if (archive_read_open_memory(r->a_, r->memory_->data(), r->memory_->size()) != ARCHIVE_OK) {
    *error = "cannot open archive '" + name + "': " + libarchiveError(r->a_);
    return nullptr;
  }
  return r;
}

ArchiveReader::~ArchiveReader() {
  if (a_) archive_read_free(a_);
}

bool ArchiveReader::next(Entry* entry) {
  if (!error_.empty()) return false;
  struct archive_entry* e = nullptr;
  const int rc = archive_read_next_header(a_, &e);
  if (rc == ARCHIVE_EOF) return false;
  if (rc < ARCHIVE_WARN) {
    error_ = "truncated or corrupt archive '" + name_ + "' after entry " + std::to_string(entries_) + ": " +
             libarchiveError(a_);
    return false;
  }
  ++entries_;
  const char* name = archive_entry_pathname(e);
  entry->name = name ? name : "";
  entry->size = archive_entry_size_is_set(e) ? archive_entry_size(e) : -1;
  entry->modified.reset();
  if (archive_entry_mtime_is_set(e)) {
    entry->modified = static_cast<int64_t>(archive_entry_mtime(e)) * 1'000'000'000 + archive_entry_mtime_nsec(e);
  }
  const bool link = archive_entry_hardlink(e) != nullptr || archive_entry_symlink(e) != nullptr;
  switch (archive_entry_filetype(e)) {
    case AE_IFREG: entry->type = link ? Entry::Type::Link : Entry::Type::File; break;
    case AE_IFDIR: entry->type = Entry::Type::Directory; break;
    case AE_IFLNK: entry->type = Entry::Type::Link; break;
    default: entry->type = Entry::Type::Other; break;
  }
  return true;
}

long ArchiveReader::read(void* dst, size_t capacity) {
  const la_ssize_t n = archive_read_data(a_, dst, capacity);
  if (n < 0) {
    error_ = "truncated or corrupt archive '" + name_ + "' in entry " + std::to_string(entries_) + ": " +
             libarchiveError(a_);
    return -1;
  }
  return static_cast<long>(n);
}

bool hasArchiveName(std::string_view name) {
  const std::string n = ir::asciiLower(name);
  for (const char* suffix : {".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tar.zst", ".zip"}) {
    if (n.ends_with(suffix)) return true;
  }
  return false;
}

bool looksLikeArchive(const std::string& bytes) {
  // A tar header ("ustar" at 257), a zip ("PK\3\4"), or compressed data that may hold either:
  // libarchive tells, reading the first header only.
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "PK\3\4", 4) == 0) return true;
  if (bytes.size() >= 262 && std::memcmp(bytes.data() + 257, "ustar", 5) == 0) return true;
  auto starts = [&](const char* magic, size_t n) { return bytes.size() >= n && std::memcmp(bytes.data(), magic, n) == 0; };
  const bool compressed = starts("\x1f\x8b", 2) || starts("\xfd" "7zXZ", 5) || starts("BZh", 3) || starts("\x28\xb5\x2f\xfd", 4);
  if (!compressed) return false;
  struct archive* a = newReader();
  if (!a) return false;
  bool ok = archive_read_open_memory(a, bytes.data(), bytes.size()) == ARCHIVE_OK;
  struct archive_entry* e = nullptr;
  ok = ok && archive_read_next_header(a, &e) == ARCHIVE_OK;
  archive_read_free(a);
  return ok;
}

}  // namespace attrib::evidence
