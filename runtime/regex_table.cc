#include "runtime/regex_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "ir/ascii.h"

namespace attrib::runtime {

namespace {

// Whether `regex` may span a record's lines: it says so with `\n` (or `\R`, a newline written
// into it), or lets `.` take one (the dot-all flag, an inline (?s)). docs/language.md: "A pattern
// may span the record's lines with `\n`"; any other pattern matches within one line.
bool spansLines(std::string_view regex, std::string_view flags) {
  if (flags.find('s') != std::string_view::npos) return true;
  for (size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    if (c == '\n' || c == '\r') return true;
    if (c == '\\') {
      if (i + 1 >= regex.size()) return true;
      const char e = regex[++i];
      if (e == 'n' || e == 'R' || e == 'r') return true;
      continue;
    }
    if (c == '(' && i + 2 < regex.size() && regex[i + 1] == '?') {
      for (size_t k = i + 2; k < regex.size() && std::isalpha(static_cast<unsigned char>(regex[k])); ++k) {
        if (regex[k] == 's') return true;
      }
    }
  }
  return false;
}

}  // namespace

std::unique_ptr<Regex> Regex::compile(const ir::Pattern& pattern, std::string* error, bool lines) {
  uint32_t options = lines ? PCRE2_MULTILINE : 0;
  for (char f : pattern.flags) {
    if (f == 'i') options |= PCRE2_CASELESS;
    if (f == 's') options |= PCRE2_DOTALL;
    if (f == 'u') options |= PCRE2_UTF | PCRE2_UCP;
  }
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* compiled = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.regex.data()), pattern.regex.size(),
                                       options, &code, &offset, nullptr);
  if (!compiled) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(code, buffer, sizeof buffer);
    *error = fmt::format("PCRE2 cannot compile /{}/: {}", pattern.regex, reinterpret_cast<char*>(buffer));
    return nullptr;
  }
  std::unique_ptr<Regex> re(new Regex());
  re->code_ = compiled;
  re->required_ = ir::asciiLower(pattern.required);
  re->singleLine_ = !spansLines(pattern.regex, pattern.flags);
  uint32_t count = 0, entrySize = 0;
  PCRE2_SPTR table = nullptr;
  pcre2_pattern_info(compiled, PCRE2_INFO_NAMECOUNT, &count);
  pcre2_pattern_info(compiled, PCRE2_INFO_NAMEENTRYSIZE, &entrySize);
  pcre2_pattern_info(compiled, PCRE2_INFO_NAMETABLE, &table);
  for (uint32_t i = 0; i < count; ++i) {
    PCRE2_SPTR entry = table + i * entrySize;
    re->names_.emplace_back((entry[0] << 8) | entry[1], reinterpret_cast<const char*>(entry + 2));
  }
  std::sort(re->names_.begin(), re->names_.end());
  return re;
}

Regex::~Regex() { pcre2_code_free(code_); }

void Regex::jitOnce() const {
  // Best effort: where PCRE2 cannot JIT, pcre2_match interprets. call_once makes every thread
  // wait for the compile to finish, after which code_ is only read.
  std::call_once(jitted_, [this] { pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE); });
}

namespace {

// Whether `text` holds `literal` (lower case), compared without regard to ASCII case. The
// candidates are found with memchr (vectorised) for the first byte in each case, so a record is
// walked at memchr's speed, not a byte at a time: most records a pattern is confirmed on are
// several lines and lack its literal.
bool holdsCaseless(std::string_view text, std::string_view literal) {
  if (literal.empty()) return true;
  if (literal.size() > text.size()) return false;
  const char lower = literal[0];
  const char upper = lower >= 'a' && lower <= 'z' ? static_cast<char>(lower - 'a' + 'A') : lower;
  const char* p = text.data();
  const char* const last = text.data() + (text.size() - literal.size());  // the last possible start
  auto find = [&](const char* from, char c) -> const char* {
    if (from > last) return nullptr;
    return static_cast<const char*>(std::memchr(from, c, static_cast<size_t>(last - from) + 1));
  };
  const char* nextLower = find(p, lower);
  const char* nextUpper = upper == lower ? nullptr : find(p, upper);
  while (nextLower || nextUpper) {
    const char* at = !nextUpper || (nextLower && nextLower < nextUpper) ? nextLower : nextUpper;
    size_t n = 1;
    while (n < literal.size() && ir::asciiLower(at[n]) == literal[n]) ++n;
    if (n == literal.size()) return true;
    if (at == nextLower) nextLower = find(at + 1, lower);
    else nextUpper = find(at + 1, upper);
  }
  return false;
}

}  // namespace

bool Regex::match(std::string_view text, Captures* captures, bool* limited,
                  size_t* start) const {
  if (!holdsCaseless(text, required_)) return false;
  jitOnce();
  // Match data sized for this pattern, one per thread and pattern shape; allocated lazily.
  thread_local std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create(256, nullptr), pcre2_match_data_free);
  int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, data.get(), nullptr);
  if (rc < 0) {
    if (limited && (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
                    rc == PCRE2_ERROR_JIT_STACKLIMIT)) {
      *limited = true;
    }
    return false;
  }
  if (start) *start = pcre2_get_ovector_pointer(data.get())[0];
  if (captures) {
    PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
    uint32_t pairs = pcre2_get_ovector_count(data.get());
    thread_local Captures::Pairs found;  // views into `text`, copied into one block below
    found.clear();
    for (const auto& [group, name] : names_) {
      if (group >= pairs || ovector[2 * group] == PCRE2_UNSET) continue;
      found.emplace_back(name, text.substr(ovector[2 * group], ovector[2 * group + 1] - ovector[2 * group]));
    }
    captures->assign(found);
  }
  return true;
}

bool Regex::matchRecord(std::string_view messages, Captures* captures,
                        bool* limited, size_t* start) const {
  if (!singleLine_) return match(messages, captures, limited, start);
  // One line at a time, in order: the first line that matches gives the captures and the start.
  for (size_t from = 0;;) {
    const size_t end = std::min(messages.find('\n', from), messages.size());
    size_t at = 0;
    if (match(messages.substr(from, end - from), captures, limited, &at)) {
      if (start) *start = from + at;
      return true;
    }
    if (end >= messages.size()) return false;
    from = end + 1;
  }
}

std::vector<std::string> regexLimitNotes(const ir::Program& program, const RegexLimitHits& hits) {
  std::vector<std::string> notes;
  for (const auto& [symptom, lines] : hits) {
    const std::string& name = symptom >= 0 && static_cast<size_t>(symptom) < program.symptoms.size() ? program.symptoms[symptom].name : "?";
    notes.push_back(fmt::format("PCRE2 hit its match limit on {} line(s) for symptom {}'s pattern; they were not counted as matches",
                                lines, name));
  }
  return notes;
}

bool RegexTable::build(const ir::Program& program, std::string* error) {
  for (const auto& p : program.regexes) {
    auto re = Regex::compile(p, error);
    if (!re) return false;
    expressions_.push_back(std::move(re));
  }
  patterns_.resize(program.symptoms.size());
  std::map<std::pair<std::string, std::string>, const Regex*> compiled;  // (regex, flags) -> program
  for (size_t s = 0; s < program.symptoms.size(); ++s) {
    for (const auto& p : program.symptoms[s].patterns) {
      const Regex*& re = compiled[{p.regex, p.flags}];
      if (!re) {
        auto fresh = Regex::compile(p, error, /*lines=*/true);
        if (!fresh) return false;
        re = fresh.get();
        distinct_.push_back(std::move(fresh));
      }
      patterns_[s].push_back(re);
    }
  }
  return true;
}

}  // namespace attrib::runtime
