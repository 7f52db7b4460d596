#include "compiler/literals.h"

#include "ir/civil_time.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>

namespace attrib {
namespace {

bool mulAdd(int64_t& acc, int64_t mul, int64_t add) {
  if (__builtin_mul_overflow(acc, mul, &acc)) return false;
  return !__builtin_add_overflow(acc, add, &acc);
}

bool digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

// Parses "HH:MM[:SS[.fff]]" at pos; advances pos.
std::optional<int64_t> clock(std::string_view s, size_t& pos) {
  int h, m, sec = 0;
  if (!digits(s, pos, 2, h) || pos + 2 >= s.size() || s[pos + 2] != ':' || !digits(s, pos + 3, 2, m)) return std::nullopt;
  pos += 5;
  int64_t frac = 0;
  if (pos < s.size() && s[pos] == ':') {
    if (!digits(s, pos + 1, 2, sec)) return std::nullopt;
    pos += 3;
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      int64_t scale = 100'000'000;
      size_t start = pos;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        if (scale > 0) frac += (s[pos] - '0') * scale;
        scale /= 10;
        ++pos;
      }
      if (pos == start) return std::nullopt;
    }
  }
  // Leap seconds (60) are not accepted: evidence timestamps never carry them.
  if (h > 23 || m > 59 || sec > 59) return std::nullopt;
  return ((h * 60 + m) * 60 + sec) * kNanosPerSecond + frac;
}

}  // namespace

std::optional<int64_t> parseDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int64_t total = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t start = pos;
    int64_t n = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (!mulAdd(n, 10, text[pos] - '0')) return std::nullopt;
      ++pos;
    }
    if (pos == start) return std::nullopt;
    int64_t unit;
    if (text.substr(pos, 2) == "ms") { unit = 1'000'000; pos += 2; }
    else if (text.substr(pos, 2) == "us") { unit = 1'000; pos += 2; }
    else if (pos < text.size() && text[pos] == 's') { unit = kNanosPerSecond; ++pos; }
    else if (pos < text.size() && text[pos] == 'm') { unit = 60 * kNanosPerSecond; ++pos; }
    else if (pos < text.size() && text[pos] == 'h') { unit = 3600 * kNanosPerSecond; ++pos; }
    else if (pos < text.size() && text[pos] == 'd') { unit = 86400 * kNanosPerSecond; ++pos; }
    else return std::nullopt;
    if (__builtin_mul_overflow(n, unit, &n) || __builtin_add_overflow(total, n, &total)) return std::nullopt;
  }
  return total;
}

std::optional<int64_t> parseTimestamp(std::string_view s) {
  int y, mo, d;
  if (!digits(s, 0, 4, y) || s.size() < 11 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ')) {
    return std::nullopt;
  }
  if (!validDate(y, mo, d)) return std::nullopt;
  size_t pos = 11;
  auto tod = clock(s, pos);
  if (!tod) return std::nullopt;
  int64_t offset = 0;
  if (pos < s.size()) {
    if (s[pos] == 'Z' || s[pos] == 'z') {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      int oh, om;
      if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !digits(s, pos + 4, 2, om) ||
          oh > 23 || om > 59) {
        return std::nullopt;
      }
      offset = (oh * 60 + om) * 60 * kNanosPerSecond * (s[pos] == '-' ? -1 : 1);
      pos += 6;
    }
  }
  if (pos != s.size()) return std::nullopt;
  // Nanoseconds since the epoch fit years 1677 to 2262; anything else is out of range.
  int64_t nanos;
  if (__builtin_mul_overflow(daysFromCivil(y, mo, d), 86400 * kNanosPerSecond, &nanos) ||
      __builtin_add_overflow(nanos, *tod, &nanos) || __builtin_sub_overflow(nanos, offset, &nanos)) {
    return std::nullopt;
  }
  return nanos;
}

std::optional<int64_t> parseTimeOfDay(std::string_view text) {
  size_t pos = 0;
  auto t = clock(text, pos);
  if (!t || pos != text.size()) return std::nullopt;
  return t;
}

DecodedString decodeString(std::string_view lit) {
  DecodedString out;
  if (lit.size() < 2 || lit.front() != '"' || !stringIsTerminated(lit)) {
    out.error = "unterminated string";
    return out;
  }
  for (size_t i = 1; i + 1 < lit.size(); ++i) {
    char c = lit[i];
    if (c != '\\') { out.value += c; continue; }
    char e = lit[++i];
    switch (e) {
      case '"': out.value += '"'; break;
      case '\\': out.value += '\\'; break;
      case '/': out.value += '/'; break;
      case 'n': out.value += '\n'; break;
      case 't': out.value += '\t'; break;
      case 'r': out.value += '\r'; break;
      case 'u': {
        size_t close = lit.find('}', i);
        uint32_t cp = 0;
        if (i + 1 >= lit.size() || lit[i + 1] != '{' || close == std::string_view::npos || close == i + 2 ||
            close - i - 2 > 6 ||
            std::from_chars(lit.data() + i + 2, lit.data() + close, cp, 16).ptr != lit.data() + close ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          out.error = "invalid \\u escape: write \\u{XXXX} with 1 to 6 hex digits naming a Unicode scalar value";
          out.errorOffset = i - 1;
          return out;
        }
        if (cp < 0x80) out.value += static_cast<char>(cp);
        else if (cp < 0x800) { out.value += static_cast<char>(0xC0 | cp >> 6); out.value += static_cast<char>(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) { out.value += static_cast<char>(0xE0 | cp >> 12); out.value += static_cast<char>(0x80 | (cp >> 6 & 0x3F)); out.value += static_cast<char>(0x80 | (cp & 0x3F)); }
        else { out.value += static_cast<char>(0xF0 | cp >> 18); out.value += static_cast<char>(0x80 | (cp >> 12 & 0x3F)); out.value += static_cast<char>(0x80 | (cp >> 6 & 0x3F)); out.value += static_cast<char>(0x80 | (cp & 0x3F)); }
        i = close;
        break;
      }
      default:
        out.error = fmt::format("unknown escape sequence '\\{}' (known: \\\" \\\\ \\n \\t \\r \\/ \\u{{XXXX}})",
                                std::string_view(&lit[i], 1));
        out.errorOffset = i - 1;
        return out;
    }
  }
  return out;
}

bool stringIsTerminated(std::string_view lit) {
  if (lit.size() < 2 || lit.back() != '"') return false;
  size_t backslashes = 0;
  for (size_t i = lit.size() - 1; i-- > 1 && lit[i] == '\\';) ++backslashes;
  return backslashes % 2 == 0;
}

std::vector<size_t> regexSlashes(std::string_view lit) {
  std::vector<size_t> out;
  bool inClass = false;
  for (size_t i = 1; i < lit.size(); ++i) {
    char c = lit[i];
    if (c == '\\') { ++i; continue; }
    if (inClass) { if (c == ']') inClass = false; continue; }
    if (c == '[') inClass = true;
    else if (c == '/') out.push_back(i);
  }
  return out;
}

size_t regexClosingSlash(std::string_view lit) {
  bool inClass = false;
  for (size_t i = 1; i < lit.size(); ++i) {
    char c = lit[i];
    if (c == '\\') { ++i; continue; }
    if (inClass) { if (c == ']') inClass = false; continue; }
    if (c == '[') inClass = true;
    else if (c == '/') return i;
  }
  return std::string_view::npos;
}

}  // namespace attrib
