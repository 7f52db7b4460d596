#include "history/duration.h"

namespace attrib::history {

std::optional<int64_t> parseDuration(std::string_view text) {
  if (text.size() < 2 || text.size() > 12) return std::nullopt;
  int64_t unit;
  switch (text.back()) {
    case 's': unit = 1'000'000'000LL; break;
    case 'm': unit = 60'000'000'000LL; break;
    case 'h': unit = 3'600'000'000'000LL; break;
    case 'd': unit = 86'400'000'000'000LL; break;
    case 'w': unit = 7 * 86'400'000'000'000LL; break;
    default: return std::nullopt;
  }
  int64_t n = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    n = n * 10 + (text[i] - '0');  // at most 11 digits: no overflow
  }
  if (n <= 0 || n > 36'500 * (86'400'000'000'000LL / unit)) return std::nullopt;
  return n * unit;
}

}  // namespace attrib::history
