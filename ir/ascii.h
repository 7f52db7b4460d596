// ASCII case folding for the bytes that logs and file names are: no locale and no Unicode rules,
// so a byte outside A-Z is left as it is and the result never depends on the machine.
#pragma once

#include <string>
#include <string_view>

namespace attrib::ir {

constexpr bool asciiDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool asciiUpper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool asciiLowerCase(char c) { return c >= 'a' && c <= 'z'; }
// A byte of a host name as logs print them (and of a user name in a shell prompt): [A-Za-z0-9_.-].
constexpr bool asciiHostChar(char c) {
  return asciiDigit(c) || asciiUpper(c) || asciiLowerCase(c) || c == '_' || c == '.' || c == '-';
}

inline char asciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string asciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = asciiLower(c);
  return out;
}

}  // namespace attrib::ir
