// Durations as people write them on command lines and in query strings: "14d", "36h", "90m",
// "600s", "2w" (a positive whole number and one unit, at most 100 years).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace attrib::history {

// Nanoseconds, or nullopt when `text` is not such a duration.
std::optional<int64_t> parseDuration(std::string_view text);

}  // namespace attrib::history
