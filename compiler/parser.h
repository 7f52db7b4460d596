// The parser boundary: .attr text in, attrib's AST out. This is the only place that sees
// ANTLR; nothing it returns holds ANTLR types.
//
// Parsing never stops at the first problem: lexical errors are reported and skipped, the
// parser recovers from syntax errors, and the AST holds every declaration that could be
// read. Inputs that could exhaust the stack (deep nesting) are rejected before parsing with
// a nesting-too-deep diagnostic.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/ast.h"
#include "compiler/diagnostic.h"
#include "compiler/source.h"

namespace attrib {

// Limits that keep hostile input from exhausting the stack; see docs/diagnostics.md (A008).
inline constexpr size_t kMaxNestingDepth = 128;

// A token as the formatter needs it: every token of the file including comments, with
// layout hints the parser derived from the tree.
struct LayoutToken {
  enum class Kind { Word, Literal, Regex, String, Punct, Operator, LineComment, BlockComment };
  Kind kind = Kind::Word;
  std::string text;        // exact source bytes
  uint32_t line = 0;       // 1-based line of its first byte
  uint32_t endLine = 0;    // line of its last byte
  bool startsItem = false; // begins a declaration or a body item: goes on a new line
  bool startsDecl = false; // begins a top-level declaration (not package or import)
  bool glued = false;      // written with no space before it (a.b, gpu-0042, f(x), -1)
  bool openBrace = false;  // a block's '{'
  bool closeBrace = false; // a block's '}'
};

struct ParseResult {
  std::unique_ptr<ast::Module> module;  // always set; may hold fewer declarations on error
  std::vector<LayoutToken> layout;      // empty when the file could not be tokenised
  bool syntaxOk = false;                // no lexical or syntax errors in this file
};

ParseResult parseFile(const SourceManager& sources, FileId file, DiagnosticSink& diagnostics);

}  // namespace attrib
