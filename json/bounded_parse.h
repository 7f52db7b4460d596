// JSON text from outside (a request body, a workload.json, a line of a wire format) parsed
// without recursion and refused when it nests deeper than a limit. Everything that later walks
// the value recursively (nlohmann's dump, copy, comparison) is then bounded by that limit too,
// so no input can overflow the stack however it nests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace attrib::json {

// Arrays and objects nested in one another, at most; deeper is an error naming this number.
inline constexpr int kMaxDepth = 64;

// Parses `text` into `out` (untouched on failure). On failure returns false with a one-line
// `error`: "nests deeper than 64 levels of arrays and objects", or "is not JSON:
// ..." with where it stops being JSON. Never throws.
bool parse(std::string_view text, nlohmann::json* out, std::string* error, int maxDepth = kMaxDepth);

}  // namespace attrib::json
