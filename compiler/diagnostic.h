// Diagnostics: what the compiler reports about rule files.
//
// A Diagnostic is plain data (kind, message, primary range, notes); the renderers in
// diagnostic_render.h turn the same objects into clang-style text, JSON and SARIF. Libraries
// only collect diagnostics into a DiagnosticSink; the tools decide where they go.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/source.h"

namespace attrib {

enum class Severity { Error, Warning, Note };

enum class DiagKind {
#define DIAG(name, code, slug, severity, summary) name,
#include "compiler/diagnostic_kinds.def"
#undef DIAG
};

struct DiagKindInfo {
  DiagKind kind;
  std::string_view code;     // stable: "A102"
  std::string_view slug;     // stable: "unknown-name"
  Severity severity;         // default severity
  std::string_view summary;  // one line, for docs
};

const DiagKindInfo& info(DiagKind kind);
const std::vector<DiagKindInfo>& allDiagKinds();
// nullptr when no diagnostic has that slug.
const DiagKindInfo* findDiagKindBySlug(std::string_view slug);
std::string_view severityName(Severity severity);

struct DiagnosticNote {
  SourceRange range;  // may be invalid: a note without a place
  std::string message;
};

// A suggested edit: replace `range` with `replacement` (an empty range inserts there). A safe
// fix-it keeps what the author evidently meant and is applied by `attribc check --fix`; the
// others (a guessed unit, a renamed name) are only shown.
struct FixIt {
  SourceRange range;
  std::string replacement;
  bool safe = false;
};

struct Diagnostic {
  DiagKind kind;
  Severity severity;
  SourceRange range;  // may be invalid for whole-file problems
  FileId file = kNoFile;  // always set when range is; set alone for whole-file problems
  std::string message;
  std::vector<DiagnosticNote> notes;
  std::vector<FixIt> fixits;

  Diagnostic& note(SourceRange where, std::string text) {
    notes.push_back({where, std::move(text)});
    return *this;
  }
  Diagnostic& fix(SourceRange where, std::string replacement, bool safe) {
    fixits.push_back({where, std::move(replacement), safe});
    return *this;
  }
};

// Collects diagnostics. Warnings can be disabled by slug or promoted to errors (-Werror).
// A per-file cap stops cascades on garbage input: past `maxErrorsPerFile` errors one
// too-many-errors diagnostic is recorded and the rest of that file's errors are dropped.
class DiagnosticSink {
 public:
  static constexpr size_t kDefaultMaxErrorsPerFile = 50;

  // Returns the stored diagnostic so callers can attach notes, or a scratch object when the
  // diagnostic was suppressed (disabled warning, error cap reached).
  Diagnostic& report(DiagKind kind, SourceRange range, std::string message);
  Diagnostic& reportFile(DiagKind kind, FileId file, std::string message);

  void disableWarning(DiagKind kind);
  void setWarningsAsErrors(bool on) { warningsAsErrors_ = on; }
  void setMaxErrorsPerFile(size_t n) { maxErrorsPerFile_ = n; }

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  size_t errorCount() const;
  size_t warningCount() const;
  size_t errorCountIn(FileId file) const;
  // Orders diagnostics by file, then position, then severity; the order of reporting is kept
  // for ties, so output is deterministic whatever order the checks ran in.
  void sort();

 private:
  Diagnostic& add(DiagKind kind, FileId file, SourceRange range, std::string message);

  std::vector<Diagnostic> diagnostics_;
  std::vector<DiagKind> disabled_;
  std::vector<std::pair<FileId, size_t>> errorsPerFile_;
  bool warningsAsErrors_ = false;
  size_t maxErrorsPerFile_ = kDefaultMaxErrorsPerFile;
  Diagnostic scratch_{DiagKind::SyntaxError, Severity::Note, {}, kNoFile, {}, {}, {}};
};

}  // namespace attrib
