// Validation of regex literals with the engines that will run them: Hyperscan (which scans
// every log line) and PCRE2 (which extracts named captures from the lines Hyperscan matched).
// A pattern must satisfy both, so both compile it here and their own messages are reported.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attrib {

struct RegexProblem {
  enum class Engine { Flags, ScanForm, Hyperscan, Pcre2, DuplicateCapture };
  Engine engine;
  std::string message;            // the engine's own message, lightly edited
  std::optional<size_t> offset;   // byte offset inside the pattern, when the engine gave one
};

struct RegexInfo {
  std::vector<std::string> captures;       // named groups in pattern order
  std::vector<RegexProblem> problems;      // empty when the pattern is usable
  size_t longestLiteral = 0;               // longest run of literal bytes every match needs
};

// `forScanning`: the pattern runs in Hyperscan (symptom `match`); otherwise only PCRE2 evaluates
// it (`=~` in expressions). Flags: i (caseless), s (dot matches newline), u (UTF-8 / Unicode).
RegexInfo checkRegex(const std::string& pattern, const std::string& flags, bool forScanning);

}  // namespace attrib
