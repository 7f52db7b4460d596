// Terminal output shared by the subcommands: one-line errors and rendered diagnostics.
#pragma once

#include <string>

#include "compiler/compilation.h"
#include "tools/attribc/commands.h"

namespace attrib::tools {

// `attribc: error: <message>` on stderr, for usage and I/O problems.
void printError(const std::string& message);
bool useColor(ColorMode mode);
// Every diagnostic of the compilation as text on stderr, then a summary line if any.
void printDiagnosticsText(Compilation& compilation, ColorMode color);

}  // namespace attrib::tools
