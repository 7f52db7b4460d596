// PCRE2 programs for every regex of a rule set: the capture patterns of log symptoms (run on
// the lines Hyperscan matched, to confirm the match on that line alone and extract named
// groups) and the `=~` regexes of predicates. Compiled once per bundle with the JIT when
// available; matching needs per-thread match data (MatchScratch).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "runtime/captures.h"

struct pcre2_real_code_8;
struct pcre2_real_match_data_8;

namespace attrib::runtime {

class Regex {
 public:
  // Returns nullptr and sets `error` when PCRE2 rejects the pattern (a bundle from another
  // PCRE2 build could); never for bundles attribc checked with this library. With `lines`, `^`
  // and `$` match at the start and end of every line of the text (a log pattern runs on a
  // record's messages, one per line).
  static std::unique_ptr<Regex> compile(const ir::Pattern& pattern, std::string* error, bool lines = false);
  ~Regex();

  // Whether `text` matches; when it does and `captures` is given, they become the named groups
  // that participated in the match, in pattern order. When PCRE2 gives up instead of deciding
  // (its match, depth or heap limit: catastrophic backtracking), the answer is false and
  // `limited`, when given, is set: the caller must say so, a line it did not decide is not a
  // line that did not match. `start`, when given, is set to the offset in `text` at which the
  // match begins. A pattern with a required literal (ir::Pattern::required) answers false at
  // once for a text that lacks it.
  bool match(std::string_view text, Captures* captures = nullptr,
             bool* limited = nullptr, size_t* start = nullptr) const;

  // A symptom pattern on a record's messages (one per line, joined by '\n'). A pattern that does
  // not span lines (no `\n`, `\R` or dot-all: docs/language.md, "Records") is matched against
  // each line in turn, so that a `[^ ]+` or `\s` in it never runs into the next line; the first
  // line that matches gives the captures, and `start` is its match's offset in `messages`.
  bool matchRecord(std::string_view messages, Captures* captures = nullptr,
                   bool* limited = nullptr, size_t* start = nullptr) const;
  // Whether matchRecord matches line by line (the pattern does not span lines).
  bool singleLine() const { return singleLine_; }

 private:
  Regex() = default;
  // Compiles code_ to machine code once, on the first match: a bundle holds hundreds of patterns
  // and a workload's lines reach few of them, so JIT-compiling them all held up the start of
  // every run (5 ms of attrib's ~40 ms start-up, for 510 patterns). PCRE2 syntax errors are still
  // found by compile(), at load.
  void jitOnce() const;
  pcre2_real_code_8* code_ = nullptr;
  mutable std::once_flag jitted_;
  std::string required_;  // in lower case; "" for none
  bool singleLine_ = false;
  std::vector<std::pair<uint32_t, std::string>> names_;  // group number, name
};

// Every regex of a program, indexed like Program::regexes, and per (symptom, pattern). Patterns
// that are the same (regex and flags) share one compiled program: many symptoms may use one.
class RegexTable {
 public:
  bool build(const ir::Program& program, std::string* error);
  const Regex& expression(int32_t index) const { return *expressions_[index]; }
  const Regex& pattern(int32_t symptom, int32_t pattern) const { return *patterns_[symptom][pattern]; }

 private:
  std::vector<std::unique_ptr<Regex>> expressions_;
  std::vector<std::unique_ptr<Regex>> distinct_;       // the compiled symptom patterns
  std::vector<std::vector<const Regex*>> patterns_;   // into distinct_
};

// Lines on which PCRE2 gave up, by symptom index.
using RegexLimitHits = std::map<int32_t, uint64_t>;
// One note per symptom for a connector report: "PCRE2 hit its match limit on 3 line(s) for
// symptom gpu.x's pattern; they were not counted as matches".
std::vector<std::string> regexLimitNotes(const ir::Program& program, const RegexLimitHits& hits);

}  // namespace attrib::runtime
