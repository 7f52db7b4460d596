// The words that make a log line worth showing when no rule explains a failure.
//
// An "unknown" verdict still lists the few most telling lines of the evidence (docs/verdict.md,
// `candidates`). Which lines those are is decided by this table, not by rules: a line's weight is
// that of the strongest word it holds, plus every demotion it holds (a NCCL "INFO ... failed to
// find a plugin" line is chatter, not a fault). Lines of weight <= 0 are not candidates.
//
// The expressions are compiled into every bundle's log database after the channel markers
// (ir/log_channels.h), so the one pass over the bytes finds them; each matches within one line
// (HS_FLAG_MULTILINE | HS_FLAG_CASELESS). The marker digest covers this table too: a bundle built
// with other words is refused like one built with other markers.
#pragma once

#include <string_view>
#include <vector>

namespace attrib::ir {

struct TellingWord {
  std::string_view regex;  // Hyperscan syntax, caseless
  int weight;              // > 0: a severity word (the strongest one counts); < 0: a demotion (all count)
  std::string_view why;    // what it stands for, for docs and tests
};

const std::vector<TellingWord>& tellingWords();

}  // namespace attrib::ir
