// Where `attrib` gets its rules: the stdlib bundle embedded in the binary (the default), a
// bundle file built by `attribc build`, or .attr sources compiled on the spot.
#pragma once

#include <memory>
#include <string>

#include "runtime/engine.h"

namespace attrib::tools {

// `path` empty: the embedded stdlib. Returns nullptr with a one-line error (rule diagnostics,
// if any, are printed to stderr first).
std::shared_ptr<const runtime::Engine> loadRuleSet(const std::string& path, std::string* error);

}  // namespace attrib::tools
