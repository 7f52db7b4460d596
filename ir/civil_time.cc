#include "ir/civil_time.h"

#include <cstdint>

#include <fmt/format.h>

#include <cctype>
#include <cstdio>

namespace attrib {

bool validDate(int64_t y, int64_t m, int64_t d) {
  static constexpr int64_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= (m == 2 && leap ? 29 : kDays[m - 1]);
}

// Howard Hinnant's algorithms: the year starts in March, so the leap day ends it, and eras are
// the 400-year (146,097-day) cycles of the Gregorian calendar.
int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);             // [0, 399]
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civilFromDays(int64_t days, int64_t& y, unsigned& m, unsigned& d) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;  // March-based month: 10 and 11 are January, February
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

std::string formatTimestamp(int64_t nanos) {
  constexpr int64_t kNanosPerSecond = 1'000'000'000;
  int64_t secs = nanos / kNanosPerSecond, frac = nanos % kNanosPerSecond;
  if (frac < 0) {
    frac += kNanosPerSecond;
    --secs;
  }
  int64_t days = secs / 86400, rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  int64_t y;
  unsigned m, d;
  civilFromDays(days, y, m, d);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", y, m, d, rem / 3600, rem / 60 % 60, rem % 60);
  if (frac) {
    std::string f = fmt::format("{:09}", frac);
    while (f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out + "Z";
}

std::optional<int64_t> parseRfc3339(const std::string& text) {
  // 2024-11-29T20:28:31Z, optionally with a fraction or an offset.
  int y, mo, d, h, mi, s;
  if (text.size() < 20 || std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6) {
    return std::nullopt;
  }
  if (!validDate(y, mo, d) || h > 23 || mi > 59 || s > 60) return std::nullopt;
  int64_t seconds = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
  int64_t nanos = 0;
  size_t i = 19;
  if (i < text.size() && text[i] == '.') {
    int64_t scale = 100'000'000;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      nanos += (text[i] - '0') * scale;
      scale /= 10;
    }
  }
  if (i < text.size() && (text[i] == '+' || text[i] == '-') && i + 5 < text.size() + 1) {
    int oh = 0, om = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &oh, &om) == 2) {
      int64_t offset = oh * 3600 + om * 60;
      seconds += text[i] == '+' ? -offset : offset;
    }
  }
  // Nanoseconds since the epoch fit int64 only between 1677 and 2262: a later or earlier time
  // is no time (the request parsing fuzzer found the overflow).
  constexpr int64_t kMaxSeconds = INT64_MAX / 1'000'000'000LL - 1;
  if (seconds > kMaxSeconds || seconds < -kMaxSeconds) return std::nullopt;
  return seconds * 1'000'000'000LL + nanos;
}

}  // namespace attrib
