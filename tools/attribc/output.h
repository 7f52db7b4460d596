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

// Adds the layers of `rules` (the stdlib, the bases, the paths) to `compilation`. Returns
// kExitOk, or kExitUsage after printing the problem.
int readRules(Compilation& compilation, const RuleInputs& rules);
// The layer of `rules.paths`, or the stdlib's when there are none: the rules a command was
// asked about, as opposed to those they are compiled with.
size_t topLayer(const Compilation& compilation);

// readRules, then checks the rules and prints their diagnostics. Returns kExitOk when the rules
// can be used; otherwise the exit code, after saying that `consequence` ("no bundle was written").
int readAndCheck(Compilation& compilation, const RuleInputs& rules, ColorMode color, const std::string& consequence);

// Replaces `path` with `text` atomically (write a sibling, then rename), keeping its mode, so a
// crash or full disk never leaves a half-written rule file.
bool writeAtomically(const std::string& path, const std::string& text, std::string* error);

}  // namespace attrib::tools
