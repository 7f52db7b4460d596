#include "compiler/regex_check.h"

#include <fmt/format.h>
#include <hs/hs.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <regex>

namespace attrib {
namespace {

// Hyperscan says "... at index 12." for most syntax errors; the index is a byte offset.
std::optional<size_t> indexInMessage(const std::string& message) {
  static const std::regex kIndex("index ([0-9]+)");
  std::smatch m;
  if (std::regex_search(message, m, kIndex)) return std::stoul(m[1]);
  return std::nullopt;
}

std::string trimPeriod(std::string s) {
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Longest run of bytes that every match must contain, ignoring anything inside groups and
// classes. Conservative: top-level alternation yields 0 (no single literal is required).
size_t longestRequiredLiteral(const std::string& p) {
  size_t best = 0, run = 0, depth = 0;
  auto endRun = [&] { best = std::max(best, run); run = 0; };
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    auto optionalNext = [&] {
      return i + 1 < p.size() && (p[i + 1] == '?' || p[i + 1] == '*' || (p[i + 1] == '{' && i + 2 < p.size() && p[i + 2] == '0'));
    };
    if (c == '\\') {
      if (i + 1 >= p.size()) break;
      char e = p[++i];
      bool literal = !std::isalnum(static_cast<unsigned char>(e));
      if (depth == 0 && literal && !optionalNext()) ++run;
      else endRun();
      continue;
    }
    if (c == '[') {
      endRun();
      ++i;
      if (i < p.size() && p[i] == '^') ++i;
      if (i < p.size() && p[i] == ']') ++i;
      while (i < p.size() && p[i] != ']') { if (p[i] == '\\') ++i; ++i; }
      continue;
    }
    if (c == '(') { endRun(); ++depth; continue; }
    if (c == ')') { endRun(); if (depth) --depth; continue; }
    if (c == '|' && depth == 0) return 0;
    if (depth > 0) continue;
    if (std::string_view(".^$*+?{}|").find(c) != std::string_view::npos) { endRun(); continue; }
    if (optionalNext()) { endRun(); continue; }
    // A quantifier after the run's last character makes that character repeatable but still
    // required once; a literal followed by '+' still counts.
    ++run;
  }
  endRun();
  return best;
}

}  // namespace

RegexInfo checkRegex(const std::string& pattern, const std::string& flags, bool forScanning) {
  RegexInfo info;
  unsigned hsFlags = HS_FLAG_SINGLEMATCH;
  uint32_t pcreFlags = 0;
  for (char f : flags) {
    switch (f) {
      case 'i': hsFlags |= HS_FLAG_CASELESS; pcreFlags |= PCRE2_CASELESS; break;
      case 's': hsFlags |= HS_FLAG_DOTALL; pcreFlags |= PCRE2_DOTALL; break;
      case 'u': hsFlags |= HS_FLAG_UTF8 | HS_FLAG_UCP; pcreFlags |= PCRE2_UTF | PCRE2_UCP; break;
      default:
        info.problems.push_back({RegexProblem::Engine::Flags,
                                 fmt::format("unknown regex flag '{}'; the flags are i (ignore case), "
                                             "s (dot matches newline) and u (Unicode)", f),
                                 std::nullopt});
    }
  }
  if (!info.problems.empty()) return info;

  if (forScanning) {
    hs_database_t* db = nullptr;
    hs_compile_error_t* error = nullptr;
    if (hs_compile(pattern.c_str(), hsFlags, HS_MODE_BLOCK, nullptr, &db, &error) != HS_SUCCESS) {
      std::string message = error && error->message ? error->message : "Hyperscan cannot compile this pattern";
      info.problems.push_back({RegexProblem::Engine::Hyperscan, trimPeriod(message), indexInMessage(message)});
      hs_free_compile_error(error);
    } else {
      hs_free_database(db);
    }
    // A NUL inside the pattern would be cut by hs_compile's C string.
    if (pattern.find('\0') != std::string::npos) {
      info.problems.push_back({RegexProblem::Engine::Hyperscan, "patterns cannot contain NUL bytes", pattern.find('\0')});
    }
  }

  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), pcreFlags, &code,
                                 &offset, nullptr);
  if (!re) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(code, buffer, sizeof buffer);
    std::string message(reinterpret_cast<char*>(buffer));
    bool duplicate = code == PCRE2_ERROR_DUPLICATE_SUBPATTERN_NAME;
    info.problems.push_back({duplicate ? RegexProblem::Engine::DuplicateCapture : RegexProblem::Engine::Pcre2,
                             message, static_cast<size_t>(offset)});
    return info;
  }
  uint32_t count = 0, entrySize = 0;
  PCRE2_SPTR table = nullptr;
  pcre2_pattern_info(re, PCRE2_INFO_NAMECOUNT, &count);
  pcre2_pattern_info(re, PCRE2_INFO_NAMEENTRYSIZE, &entrySize);
  pcre2_pattern_info(re, PCRE2_INFO_NAMETABLE, &table);
  std::vector<std::pair<int, std::string>> named;
  for (uint32_t i = 0; i < count; ++i) {
    PCRE2_SPTR entry = table + i * entrySize;
    int group = (entry[0] << 8) | entry[1];
    named.emplace_back(group, reinterpret_cast<const char*>(entry + 2));
  }
  std::sort(named.begin(), named.end());
  for (auto& [group, name] : named) info.captures.push_back(name);
  pcre2_code_free(re);
  info.longestLiteral = longestRequiredLiteral(pattern);
  return info;
}

}  // namespace attrib
