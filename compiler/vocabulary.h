// The closed vocabularies of the .attr language (families, sources, states, actions, ...) and
// the "did you mean" matching used by diagnostics. docs/language.md lists the same values.
#pragma once

#include <string>
#include <vector>

namespace attrib {

const std::vector<std::string>& failureFamilies();
// The words `on log(source ...)` accepts: the log channels and the legacy source words
// (ir/log_channels.h).
const std::vector<std::string>& logSources();
const std::vector<std::string>& terminalStates();
const std::vector<std::string>& knownActions();
const std::vector<std::string>& severities();
const std::vector<std::string>& blames();
const std::vector<std::string>& roles();
const std::vector<std::string>& ruleStatuses();
const std::vector<std::string>& rulePhases();

// The closest candidate within a small edit distance (edits and adjacent transpositions), for
// "did you mean" hints; "" if none is close enough.
std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates);
// "; did you mean 'x'?" or "".
std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates);
bool contains(const std::vector<std::string>& values, const std::string& value);

}  // namespace attrib
