// Decoding of literal spellings: durations, timestamps, times of day, strings, regexes.
// Each returns nullopt (or an error text) for a malformed spelling; callers report it with the
// literal's range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attrib {

inline constexpr int64_t kNanosPerSecond = 1'000'000'000;

// "30s", "1h30m", "250ms", "2d" -> nanoseconds. Rejects overflow.
std::optional<int64_t> parseDuration(std::string_view text);

// RFC 3339 "2026-01-01T10:00:00Z" (seconds, fraction and offset optional; no offset = UTC)
// -> nanoseconds since the Unix epoch. Rejects impossible dates and times.
std::optional<int64_t> parseTimestamp(std::string_view text);

// "10:42" or "10:42:00.5" -> nanoseconds since midnight.
std::optional<int64_t> parseTimeOfDay(std::string_view text);

struct DecodedString {
  std::string value;
  std::string error;        // empty when the literal is well formed
  size_t errorOffset = 0;   // byte offset of the problem inside the literal
};

// A double-quoted literal including its quotes. Escapes: \" \\ \n \t \r \/ and \u{XXXX}.
DecodedString decodeString(std::string_view literal);

// Whether a string/regex token ends with its closing delimiter (an unescaped quote or slash
// outside a character class); the lexer also emits unterminated literals.
bool stringIsTerminated(std::string_view literal);
// For a regex token, the offset of the closing '/' or npos when there is none.
size_t regexClosingSlash(std::string_view literal);
// The offsets of every '/' after the opening one that is neither escaped nor in a character
// class: the candidates for the closing slash. A well-formed regex token has exactly one.
std::vector<size_t> regexSlashes(std::string_view literal);

}  // namespace attrib
