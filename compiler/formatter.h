// `attribc fmt`: the canonical layout of a rule file.
//
// Formatting works on the token stream (with the layout hints the parser attached), not on
// the AST, so every comment survives exactly where it was relative to the tokens around it.
// The rules: one item per line, two-space indentation per block, one space between tokens
// except where the grammar glues them (a.b, gpu-0042, f(x), -1), at most one blank line kept
// where the source had one, and a blank line between top-level declarations.
// Invariant: format(format(x)) == format(x).
#pragma once

#include <optional>
#include <string>

#include "compiler/parser.h"

namespace attrib {

// The formatted text, or nullopt when the file has lexical or syntax errors (the caller
// reports them; nothing is reformatted on a guess).
std::optional<std::string> formatFile(const ParseResult& parsed);

}  // namespace attrib
