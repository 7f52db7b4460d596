// Terminal output shared by the subcommands: one-line errors and rendered diagnostics.
#pragma once

#include <string>
#include <vector>

#include "compiler/compilation.h"
#include "tools/attribc/commands.h"

namespace attrib::tools {

// `attribc: error: <message>` on stderr, for usage and I/O problems.
void printError(const std::string& message);
bool useColor(ColorMode mode);
// Every diagnostic of the compilation as text on stderr, then a summary line if any.
void printDiagnosticsText(Compilation& compilation, ColorMode color);

// Adds every path (files, or directories searched for *.attr) to `compilation`. Returns kExitOk,
// or kExitUsage after printing the I/O problem.
int readPaths(Compilation& compilation, const std::vector<std::string>& paths);

// readPaths, then checks the rules and prints their diagnostics. Returns kExitOk when the rules
// can be used; otherwise the exit code, after saying that `consequence` ("no bundle was written").
int readAndCheck(Compilation& compilation, const std::vector<std::string>& paths, ColorMode color,
                 const std::string& consequence);

}  // namespace attrib::tools
