#include "compiler/formatter.h"

namespace attrib {
namespace {

using Kind = LayoutToken::Kind;

bool noSpaceBetween(const LayoutToken& prev, const LayoutToken& cur) {
  if (cur.glued) return true;
  if (prev.text == "(" || prev.text == "[") return true;
  if (cur.text == ")" || cur.text == "]" || cur.text == ",") return true;
  return false;
}

}  // namespace

std::optional<std::string> formatFile(const ParseResult& parsed) {
  if (!parsed.syntaxOk) return std::nullopt;
  const auto& tokens = parsed.layout;
  std::string out;
  int depth = 0;
  bool lineStart = true;  // nothing written on the current output line yet
  const LayoutToken* prev = nullptr;

  auto newline = [&](bool blank) {
    if (!out.empty()) {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += '\n';
      if (blank) out += '\n';
    }
    lineStart = true;
  };

  for (size_t i = 0; i < tokens.size(); ++i) {
    const LayoutToken& t = tokens[i];
    bool isComment = t.kind == Kind::LineComment || t.kind == Kind::BlockComment;
    if (t.closeBrace) --depth;
    if (depth < 0) depth = 0;

    bool sameSourceLine = prev && t.line == prev->endLine;
    bool blankInSource = prev && t.line > prev->endLine + 1;
    bool emptyBlock = t.closeBrace && prev && prev->openBrace;
    bool breakBefore = false;
    if (prev && !emptyBlock) {
      if (prev->kind == Kind::LineComment) breakBefore = true;
      else if (isComment) breakBefore = !sameSourceLine;
      else if (t.startsItem || prev->openBrace) breakBefore = true;
      else if (t.closeBrace) breakBefore = true;
      else if (prev->kind == Kind::BlockComment && !sameSourceLine) breakBefore = true;
    }
    if (prev && breakBefore) {
      // A blank line between top-level declarations always; elsewhere only where the source
      // had one (and never right after an opening brace or before a closing one).
      bool prevIsComment = prev->kind == Kind::LineComment || prev->kind == Kind::BlockComment;
      bool topLevelDecl = depth == 0 && t.startsDecl && !prevIsComment;
      bool keepBlank = blankInSource && !prev->openBrace && !t.closeBrace;
      newline(topLevelDecl || keepBlank);
    } else if (emptyBlock) {
      // `{}`: an empty block stays on one line.
    } else if (prev && !lineStart) {
      if (isComment && t.kind == Kind::LineComment) out += "  ";
      else if (!noSpaceBetween(*prev, t)) out += ' ';
    }
    if (lineStart) {
      out.append(static_cast<size_t>(depth) * 2, ' ');
      lineStart = false;
    }
    out += t.text;
    if (t.openBrace) ++depth;
    prev = &t;
  }
  newline(false);
  return out;
}

}  // namespace attrib
