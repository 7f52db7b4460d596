#include "compiler/regex_check.h"

#include "compiler/scan_form.h"

#include <fmt/format.h>
#include <hs/hs.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <tuple>

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

// The longest run of literal bytes that every match of a pattern must contain, from a small
// recursive reading of the pattern: a sequence keeps the best run of its items (adjacent
// literal characters join into one run), an alternation keeps the weakest of its branches,
// and anything optional (?, *, {0,...}) or not literal (classes, escapes such as \d) counts
// as 0; a repeated literal (x+, x{2,}) is required once but ends its run. Conservative by
// design: it may miss a literal, never invents one.
class RequiredLiteral {
 public:
  explicit RequiredLiteral(const std::string& pattern) : p_(pattern) {}

  size_t compute() { return alternation(0); }

 private:
  static constexpr int kMaxDepth = 64;

  size_t alternation(int depth) {
    size_t best = sequence(depth);
    while (pos_ < p_.size() && p_[pos_] == '|') {
      ++pos_;
      best = std::min(best, sequence(depth));
    }
    return best;
  }

  // How the item just read may repeat; consumes the quantifier.
  enum class Repeat { Once, Optional, Many };

  Repeat quantifier() {
    if (pos_ >= p_.size()) return Repeat::Once;
    char c = p_[pos_];
    if (c != '?' && c != '*' && c != '+' && c != '{') return Repeat::Once;
    size_t before = pos_;
    bool optional = optionalQuantifier();
    if (optional) return Repeat::Optional;
    // x{1} is just x; x+ and x{2,} repeat x, so x is required but cannot join what follows.
    std::string_view q(p_.data() + before, pos_ - before);
    return q == "{1}" ? Repeat::Once : Repeat::Many;
  }

  // Whether the item just read is followed by a quantifier that allows zero repetitions;
  // consumes the quantifier either way.
  bool optionalQuantifier() {
    if (pos_ >= p_.size()) return false;
    char c = p_[pos_];
    bool optional = false;
    if (c == '?' || c == '*') {
      optional = true;
      ++pos_;
    } else if (c == '+') {
      ++pos_;
    } else if (c == '{') {
      size_t close = p_.find('}', pos_);
      if (close == std::string::npos) return false;
      optional = pos_ + 1 < p_.size() && p_[pos_ + 1] == '0';
      pos_ = close + 1;
    } else {
      return false;
    }
    if (pos_ < p_.size() && (p_[pos_] == '?' || p_[pos_] == '+')) ++pos_;  // lazy / possessive
    return optional;
  }

  size_t sequence(int depth) {
    size_t best = 0, run = 0;
    auto endRun = [&] { best = std::max(best, run); run = 0; };
    while (pos_ < p_.size() && p_[pos_] != '|' && p_[pos_] != ')') {
      char c = p_[pos_];
      if (c == '(') {
        ++pos_;
        if (pos_ < p_.size() && p_[pos_] == '?') {  // (?:...), (?<name>...), (?i)
          ++pos_;
          if (pos_ < p_.size() && (p_[pos_] == '<' || p_[pos_] == 'P')) {
            size_t close = p_.find('>', pos_);
            pos_ = close == std::string::npos ? p_.size() : close + 1;
          } else {
            while (pos_ < p_.size() && p_[pos_] != ':' && p_[pos_] != ')') ++pos_;
            if (pos_ < p_.size() && p_[pos_] == ':') ++pos_;
          }
        }
        size_t inner = depth < kMaxDepth ? alternation(depth + 1) : 0;
        if (pos_ < p_.size() && p_[pos_] == ')') ++pos_;
        endRun();
        if (!optionalQuantifier()) best = std::max(best, inner);
        continue;
      }
      if (c == '[') {
        ++pos_;
        if (pos_ < p_.size() && p_[pos_] == '^') ++pos_;
        if (pos_ < p_.size() && p_[pos_] == ']') ++pos_;
        while (pos_ < p_.size() && p_[pos_] != ']') pos_ += p_[pos_] == '\\' ? 2 : 1;
        ++pos_;
        endRun();
        optionalQuantifier();
        continue;
      }
      bool literal;
      if (c == '\\') {
        if (pos_ + 1 >= p_.size()) { ++pos_; break; }
        char e = p_[pos_ + 1];
        pos_ += 2;
        if (e == 'x') {  // \xHH or \x{HHHH}: one literal character
          literal = true;
          if (pos_ < p_.size() && p_[pos_] == '{') {
            size_t close = p_.find('}', pos_);
            pos_ = close == std::string::npos ? p_.size() : close + 1;
          } else {
            for (int k = 0; k < 2 && pos_ < p_.size() && std::isxdigit(static_cast<unsigned char>(p_[pos_])); ++k) ++pos_;
          }
        } else {
          literal = !std::isalnum(static_cast<unsigned char>(e));
        }
      } else {
        literal = std::string_view(".^$").find(c) == std::string_view::npos;
        ++pos_;
      }
      Repeat repeat = quantifier();
      if (!literal || repeat == Repeat::Optional) {
        endRun();
      } else {
        ++run;
        if (repeat == Repeat::Many) endRun();
      }
    }
    endRun();
    return best;
  }

  const std::string& p_;
  size_t pos_ = 0;
};

RegexInfo analyse(const std::string& pattern, const std::string& flags, bool forScanning) {
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
    // hs_compile reads a C string: a NUL would silently cut the pattern.
    if (size_t nul = pattern.find('\0'); nul != std::string::npos) {
      info.problems.push_back({RegexProblem::Engine::Hyperscan, "patterns cannot contain NUL bytes", nul});
      return info;
    }
    // Hyperscan scans the pattern's scan form (compiler/scan_form.h); its offsets refer to the
    // pattern only when the two are the same.
    ScanForm form = scanForm(pattern);
    if (!form.error.empty()) {
      info.problems.push_back({RegexProblem::Engine::ScanForm, form.error, std::nullopt});
      return info;
    }
    hs_database_t* db = nullptr;
    hs_compile_error_t* raw = nullptr;
    hs_error_t status = hs_compile(form.expression.c_str(), hsFlags, HS_MODE_BLOCK, nullptr, &db, &raw);
    std::unique_ptr<hs_compile_error_t, decltype(&hs_free_compile_error)> error(raw, hs_free_compile_error);
    std::unique_ptr<hs_database_t, decltype(&hs_free_database)> database(db, hs_free_database);
    if (status != HS_SUCCESS) {
      std::string message = error && error->message ? error->message : "Hyperscan cannot compile this pattern";
      bool duplicateName = message.find("named subpatterns") != std::string::npos;
      info.problems.push_back({duplicateName ? RegexProblem::Engine::DuplicateCapture : RegexProblem::Engine::Hyperscan,
                               trimPeriod(message), form.expression == pattern ? indexInMessage(message) : std::nullopt});
      // PCRE2 would mostly repeat the same complaint; one message per mistake.
      return info;
    }
  }

  int code = 0;
  PCRE2_SIZE offset = 0;
  std::unique_ptr<pcre2_code, decltype(&pcre2_code_free)> re(
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), pcreFlags, &code, &offset, nullptr),
      pcre2_code_free);
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
  pcre2_pattern_info(re.get(), PCRE2_INFO_NAMECOUNT, &count);
  pcre2_pattern_info(re.get(), PCRE2_INFO_NAMEENTRYSIZE, &entrySize);
  pcre2_pattern_info(re.get(), PCRE2_INFO_NAMETABLE, &table);
  std::vector<std::pair<int, std::string>> named;
  for (uint32_t i = 0; i < count; ++i) {
    PCRE2_SPTR entry = table + i * entrySize;
    int group = (entry[0] << 8) | entry[1];
    named.emplace_back(group, reinterpret_cast<const char*>(entry + 2));
  }
  std::sort(named.begin(), named.end());
  for (auto& [group, name] : named) info.captures.push_back(name);
  info.longestLiteral = RequiredLiteral(pattern).compute();
  return info;
}

}  // namespace

RegexInfo checkRegex(const std::string& pattern, const std::string& flags, bool forScanning) {
  // Compiling with Hyperscan costs about a millisecond per pattern, and the same patterns are
  // checked again and again (declaration and use, many files, editors re-checking on every
  // keystroke), so results are kept in a small process-wide cache.
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, bool>, RegexInfo> cache;
  constexpr size_t kMaxCached = 4096;
  auto key = std::make_tuple(pattern, flags, forScanning);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  RegexInfo info = analyse(pattern, flags, forScanning);
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= kMaxCached) cache.clear();
  cache.emplace(std::move(key), info);
  return info;
}

}  // namespace attrib
