// The most telling lines of the evidence, for a verdict that no rule explains.
//
// When no outcome holds, the verdict still shows where to look: a few error-like lines, ranked
// deterministically, as candidates (never as a root cause). A line's weight comes from the words
// it holds (ir/telling_words.h). Lines of one form (the message with its numbers blanked, so the
// same error on 512 ranks is one form) are counted together, with the distinct writers (host,
// rank or srun task as the line's prefix names them, else its file's node) that printed it.
//
// Ranking, best first: weight; fewer writers (a line one rank printed says more than one every
// rank printed); earlier time (unknown times last); then the order the evidence was read in.
//
// Memory is bounded whatever the input: at most kMaxForms forms per file and kMaxWriters writers
// per form are kept; later new forms of a file are counted in `dropped` only.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/instance.h"
#include "runtime/verdict.h"

namespace attrib::runtime {

// The form of a message: digit runs and hex numbers as '#', blanks collapsed, at most 160 bytes.
std::string messageForm(std::string_view message);
// The same into `form` (cleared first; its capacity is kept, for a caller that forms many lines).
void messageForm(std::string_view message, std::string* form);

// The weight of `line` from the telling words it matched (indices into ir::tellingWords()): the
// strongest word, plus every demotion the line holds (ir::tellingDemotions()). <= 0: not a
// candidate.
int tellingWeight(const std::vector<uint32_t>& words, std::string_view line);

struct TellingLine {
  std::string form;
  int weight = 0;
  Instance first;  // node, rank, time, text and place of the form's first line (symptom -1)
  uint64_t count = 0;
  std::set<std::string> writers;
};

class TellingLines {
 public:
  static constexpr size_t kMaxForms = 2048;
  static constexpr size_t kMaxWriters = 1024;

  // True when `form` is new and will be kept: the caller then builds its first line and calls
  // add(); otherwise the line is counted under its form here (or dropped past kMaxForms).
  bool wantsFirst(const std::string& form, const std::string& writer);
  void add(TellingLine line);
  // The forms of `other` (read after these) joined in: counts and writers add up, the earlier
  // first line is kept.
  void merge(TellingLines&& other);
  // The best `n`, as the verdict shows them.
  std::vector<Candidate> best(size_t n) const;
  size_t forms() const { return lines_.size(); }
  uint64_t dropped() const { return dropped_; }
  // Every kept line's instance, for fixing up node and sequence once the file is read.
  std::vector<TellingLine>& lines() { return lines_; }

 private:
  std::vector<TellingLine> lines_;
  std::unordered_map<std::string, size_t> index_;
  uint64_t dropped_ = 0;
};

}  // namespace attrib::runtime
