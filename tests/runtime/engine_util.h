// Test helpers: compile .attr text into a loaded engine, and build evidence by hand.
#pragma once

#include <memory>
#include <string>

#include "runtime/engine.h"

namespace attrib::testing {

// Compiles `rules` (one file) into a bundle and loads it; fails the test on any error.
std::shared_ptr<const runtime::Engine> engineFor(const std::string& rules, std::string* bundleBytes = nullptr);

// A log line at `time` (RFC 3339) on `node`/`source`.
runtime::LogLine line(const std::string& node, const std::string& source, const std::string& time,
                      const std::string& text);

int64_t at(const std::string& rfc3339);

}  // namespace attrib::testing
