#include "compiler/diagnostic.h"

#include <algorithm>
#include <tuple>

namespace attrib {

const std::vector<DiagKindInfo>& allDiagKinds() {
  static const std::vector<DiagKindInfo> kinds = {
#define DIAG(name, code, slug, severity, summary) {DiagKind::name, code, slug, Severity::severity, summary},
#include "compiler/diagnostic_kinds.def"
#undef DIAG
  };
  return kinds;
}

const DiagKindInfo& info(DiagKind kind) { return allDiagKinds()[static_cast<size_t>(kind)]; }

const DiagKindInfo* findDiagKindBySlug(std::string_view slug) {
  for (const auto& k : allDiagKinds()) {
    if (k.slug == slug) return &k;
  }
  return nullptr;
}

std::string_view severityName(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

Diagnostic& DiagnosticSink::report(DiagKind kind, SourceRange range, std::string message) {
  return add(kind, range.file, range, std::move(message));
}

Diagnostic& DiagnosticSink::reportFile(DiagKind kind, FileId file, std::string message) {
  return add(kind, file, SourceRange{}, std::move(message));
}

Diagnostic& DiagnosticSink::add(DiagKind kind, FileId file, SourceRange range, std::string message) {
  const DiagKindInfo& k = info(kind);
  Severity severity = k.severity;
  if (severity == Severity::Warning) {
    if (std::find(disabled_.begin(), disabled_.end(), kind) != disabled_.end()) {
      scratch_ = Diagnostic{kind, Severity::Note, {}, kNoFile, {}, {}, {}};
      return scratch_;
    }
    if (warningsAsErrors_) severity = Severity::Error;
  }
  if (severity == Severity::Error) {
    auto it = std::find_if(errorsPerFile_.begin(), errorsPerFile_.end(),
                           [&](const auto& p) { return p.first == file; });
    if (it == errorsPerFile_.end()) it = errorsPerFile_.insert(errorsPerFile_.end(), {file, 0});
    if (it->second >= maxErrorsPerFile_) {
      scratch_ = Diagnostic{kind, Severity::Note, {}, kNoFile, {}, {}, {}};
      return scratch_;
    }
    if (++it->second == maxErrorsPerFile_ && kind != DiagKind::TooManyErrors) {
      diagnostics_.push_back({kind, severity, range, file, std::move(message), {}, {}});
      diagnostics_.push_back({DiagKind::TooManyErrors, Severity::Error, range, file,
                              "too many errors in this file; further errors are not reported", {}, {}});
      return diagnostics_[diagnostics_.size() - 2];
    }
  }
  diagnostics_.push_back({kind, severity, range, file, std::move(message), {}, {}});
  return diagnostics_.back();
}

void DiagnosticSink::disableWarning(DiagKind kind) { disabled_.push_back(kind); }

size_t DiagnosticSink::errorCount() const {
  return std::count_if(diagnostics_.begin(), diagnostics_.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

size_t DiagnosticSink::warningCount() const {
  return std::count_if(diagnostics_.begin(), diagnostics_.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::Warning; });
}

size_t DiagnosticSink::errorCountIn(FileId file) const {
  return std::count_if(diagnostics_.begin(), diagnostics_.end(), [&](const Diagnostic& d) {
    return d.severity == Severity::Error && d.file == file;
  });
}

void DiagnosticSink::sort() {
  std::stable_sort(diagnostics_.begin(), diagnostics_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    // The too-many-errors marker stays last in its file.
    bool aCap = a.kind == DiagKind::TooManyErrors, bCap = b.kind == DiagKind::TooManyErrors;
    return std::tuple(a.file, aCap, a.range.begin, a.severity) <
           std::tuple(b.file, bCap, b.range.begin, b.severity);
  });
}

}  // namespace attrib
