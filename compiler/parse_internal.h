// The parser component's internal pieces, shared by parser.cc (tokens, lexical checks, the
// ANTLR parse) and ast_builder.cc (parse tree -> AST). ANTLR types appear here and nowhere
// outside these two files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "AttrParser.h"
#include "compiler/ast.h"
#include "compiler/diagnostic.h"
#include "compiler/parser.h"

namespace attrib::parse_detail {

// Bytes for a message: printable ASCII and UTF-8 as is, control bytes as \xNN, cut at `max`.
std::string printable(std::string_view bytes, size_t max = 40);

// Converts a parse tree (possibly partial after error recovery) to the AST, reporting
// malformed literals. Declarations containing one of `errorOffsets` are marked broken.
// Marks `layout` (indexed like the token stream) with the item and glue hints of the tree.
std::unique_ptr<ast::Module> buildModule(attrib_antlr::AttrParser::FileContext* tree, const SourceFile& file,
                                         FileId id, DiagnosticSink& sink, const std::vector<uint32_t>& errorOffsets,
                                         std::vector<LayoutToken>& layout);

}  // namespace attrib::parse_detail
