// The words that make a log line worth showing when no rule explains a failure.
//
// An "unknown" verdict still lists the few most telling lines of the evidence (docs/verdict.md,
// `candidates`). Which lines those are is decided by these tables, not by rules: a line's weight
// is that of the strongest word it holds, plus every demotion it holds (a NCCL "INFO ... failed
// to find a plugin" line is chatter, not a fault). Lines of weight <= 0 are not candidates.
//
// The words are compiled into every bundle's log database after the channel markers
// (ir/log_channels.h), so the one pass over the bytes finds them; each matches within one line
// (HS_FLAG_MULTILINE | HS_FLAG_CASELESS). The demotions are not: log levels such as INFO are on
// most lines of a training log, and a database match per line would cost the scan more than the
// rest of classification. They are looked for in the few lines a word matched. The marker
// digest covers both tables: a bundle built with other words is refused like one built with
// other markers.
#pragma once

#include <string_view>
#include <vector>

namespace attrib::ir {

struct TellingWord {
  std::string_view regex;  // Hyperscan syntax, caseless
  int weight;              // > 0; the strongest word of a line counts
  std::string_view why;    // what it stands for, for docs and tests
};

const std::vector<TellingWord>& tellingWords();

// A phrase that lowers a line's weight wherever it stands as whole words (ASCII letters and
// digits do not continue it on either side), compared without regard to case. Every one a line
// holds counts. A phrase begins with a letter or digit: it is looked for at the starts of words.
struct TellingDemotion {
  std::string_view phrase;
  int weight;  // < 0
  std::string_view why;
};

const std::vector<TellingDemotion>& tellingDemotions();

}  // namespace attrib::ir
