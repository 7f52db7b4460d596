// Source files of a compilation and positions inside them.
//
// Every position the compiler reports is a byte range in a file owned by a SourceManager.
// Lines and columns are computed on demand (1-based; columns count bytes, as clang's do),
// so AST nodes stay small and any range can be rendered with its source line.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attrib {

using FileId = uint32_t;
inline constexpr FileId kNoFile = UINT32_MAX;

// A half-open byte range [begin, end) in one file. A default range points nowhere.
struct SourceRange {
  FileId file = kNoFile;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file != kNoFile; }
  // The smallest range covering both; both must be in the same file.
  static SourceRange cover(const SourceRange& a, const SourceRange& b);
};

struct LineColumn {
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in bytes
};

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  LineColumn lineColumn(uint32_t offset) const;
  // The text of a 1-based line without its line terminator.
  std::string_view line(uint32_t line) const;
  uint32_t lineCount() const { return static_cast<uint32_t>(lineStarts_.size()); }

 private:
  std::string path_;
  std::string text_;
  std::vector<uint32_t> lineStarts_;  // byte offset of each line's first byte
};

// Owns every file of a compilation. Files are never removed, so FileIds and references to
// SourceFile stay valid for the manager's lifetime.
class SourceManager {
 public:
  FileId add(std::string path, std::string text);
  const SourceFile& file(FileId id) const { return *files_.at(id); }
  size_t size() const { return files_.size(); }

  // Files a compilation does not compile but its tests read (a test's `from "fixture"`), whose
  // path is its rule file's directory joined with the name the test gives. The embedded stdlib
  // attaches its fixtures under "<stdlib>/...", where no disk holds them; every other path is
  // read from disk.
  void attach(std::string path, std::string text);
  // The attached file of `path` (compared after lexical normalisation), else the regular file on
  // disk; nullopt when neither exists or the file cannot be read.
  std::optional<std::string> readAuxiliary(const std::string& path) const;
  // Whether readAuxiliary(path) would find a file (without reading it: the checker only needs to
  // know, and a fixture may be megabytes).
  bool hasAuxiliary(const std::string& path) const;
  const std::map<std::string, std::string>& attached() const { return attached_; }

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
  std::map<std::string, std::string> attached_;  // by lexically normal path
};

}  // namespace attrib
