// The stdlib's .attr sources and its tests' fixtures (*.jsonl), compiled into the binary
// (cmake/Stdlib.cmake lists them), so
// `attribc check site/` and `attrib diagnose --rules site/` resolve `import std.nccl` without a
// source tree. attrib's default rules are the bundle built from exactly these sources.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/compilation.h"

namespace attrib::tools {

struct StdlibFile {
  std::string_view name;  // path below stdlib-rules/: "gpu/xid.attr"
  std::string_view text;
};

// Every embedded file, sorted by name.
const std::vector<StdlibFile>& embeddedStdlib();

// What diagnostics call an embedded file: "<stdlib>/gpu/xid.attr" (never a real path).
inline constexpr std::string_view kStdlibPrefix = "<stdlib>/";
std::string stdlibPath(std::string_view name);

// Starts the layer "stdlib" in `compilation` and adds every embedded .attr file to it, and
// attaches the fixtures its tests read. Call it first: the stdlib is the lowest layer.
void addStdlibLayer(Compilation& compilation);

// Writes every embedded file below `dir` (created if needed; existing files of the same names
// are replaced). Returns false with a one-line reason.
bool exportStdlib(const std::string& dir, size_t* written, std::string* error);

}  // namespace attrib::tools
