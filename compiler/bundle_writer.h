// `attribc build`: a checked compilation -> a bundle (ir/bundle_format.h): the IR, the rules
// digest, and the Hyperscan database of every log pattern, compiled here once so that loading
// costs only a deserialisation.
#pragma once

#include <string>

#include "compiler/compilation.h"
#include "compiler/lower.h"

namespace attrib {

struct BundleResult {
  bool ok = false;
  std::string bytes;   // the bundle
  std::string error;   // one line, when !ok
  std::string digest;  // "sha256:..." of the rule sources
  size_t symptoms = 0, patterns = 0, rules = 0, outcomes = 0;
  size_t expressions = 0;  // distinct patterns: the Hyperscan database's expressions
};

// The compilation must have been checked without errors.
BundleResult buildBundle(const Compilation& compilation, const LowerOptions& options,
                         const std::string& attribcVersion);

// The Hyperscan flags a pattern is scanned with: MULTILINE (a chunk of lines is one block, ^
// and $ mean line start and end), plus the pattern's own flags. Never SINGLEMATCH: a chunk
// holds many lines and every matching line counts.
unsigned scanFlags(const std::string& flags);

}  // namespace attrib
