// Renders diagnostics for people (clang-style text) and for machines (JSON lines, SARIF 2.1.0).
// Pure functions of (diagnostics, sources): they return text and never print.
#pragma once

#include <string>
#include <vector>

#include "compiler/diagnostic.h"
#include "compiler/source.h"

namespace attrib {

struct TextRenderOptions {
  bool color = false;  // ANSI colours, for terminals only
};

// path:line:col: error: message [A102]
//   the source line
//   ^~~~~~~
// followed by `note:` lines in the same form, and no summary line (the tool adds one).
std::string renderText(const Diagnostic& d, const SourceManager& sources, const TextRenderOptions& options = {});

// One JSON object per line: file, line, column, end_line, end_column, severity, code, slug,
// message, notes[]. Lines and columns are 1-based; columns count bytes.
std::string renderJsonLines(const std::vector<Diagnostic>& diagnostics, const SourceManager& sources);

// A SARIF 2.1.0 log with one run of attribc: rules (every diagnostic kind) and results.
// Columns are Unicode code points (run.columnKind = unicodeCodePoints).
std::string renderSarif(const std::vector<Diagnostic>& diagnostics, const SourceManager& sources,
                        const std::string& toolVersion);

}  // namespace attrib
