// What the names of a checked compilation refer to, by place: for editors (attribc lsp: go to
// definition, hover) and anything else that needs to map a position to a declaration.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/compilation.h"

namespace attrib {

enum class SymbolKind { Symptom, Filter, Rule, Outcome, Package };

struct SymbolRef {
  SourceRange range;   // the name as written
  std::string target;  // qualified name of what it refers to (a package's name for Package)
  SymbolKind kind = SymbolKind::Symptom;
  bool declaration = false;  // the name of the declaration itself
};

// Every reference of the active files, and every declaration's own name, in file and position
// order. Only what the checker resolved is there: a name in error refers to nothing.
std::vector<SymbolRef> collectSymbols(const Compilation& compilation);

// The innermost reference containing `offset` of `file`, if any.
std::optional<SymbolRef> symbolAt(const std::vector<SymbolRef>& symbols, FileId file, uint32_t offset);

// Where `target` is declared: the name of its declaration in effect (an override's, when one
// replaced it), or the package line of the first file of a package.
std::optional<SourceRange> definitionOf(const Compilation& compilation, SymbolKind kind, const std::string& target);

// What an editor shows for `target`: title, description, references and the properties that
// decide its part in a verdict, as Markdown; empty when there is nothing to say.
std::string describeSymbol(const Compilation& compilation, SymbolKind kind, const std::string& target);

}  // namespace attrib
