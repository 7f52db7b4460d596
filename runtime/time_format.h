// RFC 3339 formatting of evidence times (UTC, shortest exact fraction): 2026-01-01T10:42:00.25Z.
#pragma once

#include <cstdint>
#include <string>

namespace attrib::runtime {

std::string formatTime(int64_t nanosSinceEpoch);

}  // namespace attrib::runtime
