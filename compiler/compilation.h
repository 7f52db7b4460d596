// A compilation: the set of rule files checked together, and the pipeline over them:
// read -> parse (parser.h) -> check (check.h). Names resolve across every file added, so a
// file's imports can only be satisfied by files of the same compilation.
#pragma once

#include <string>
#include <vector>

#include "compiler/check.h"
#include "compiler/diagnostic.h"
#include "compiler/parser.h"
#include "compiler/source.h"

namespace attrib {

// Rule files larger than this are refused as an I/O error rather than read.
inline constexpr size_t kMaxRuleFileBytes = 64u << 20;

class Compilation {
 public:
  explicit Compilation(DiagnosticSink& diagnostics) : diagnostics_(diagnostics) {}

  // Adds a file, or every *.attr file below a directory (recursively, in sorted order).
  // Returns false with a one-line reason for problems that are not about rule text: a
  // missing path, an unreadable file, a directory without rule files.
  bool addPath(const std::string& path, std::string* error);
  // Adds text that did not come from the file system (tests, stdin, the fuzzer).
  FileId addSource(std::string path, std::string text);

  // Parses every file not parsed yet, then checks all of them together.
  void check();

  const SourceManager& sources() const { return sources_; }
  const std::vector<ParseResult>& parsed() const { return parsed_; }
  const ProgramIndex& index() const { return index_; }
  DiagnosticSink& diagnostics() { return diagnostics_; }

 private:
  bool addFile(const std::string& path, std::string* error);

  DiagnosticSink& diagnostics_;
  SourceManager sources_;
  std::vector<ParseResult> parsed_;  // parsed_[i] is file i
  ProgramIndex index_;
};

}  // namespace attrib
