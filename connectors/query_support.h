// Pieces shared by the connectors that query servers by time and by node (Loki, Prometheus).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evidence/workload_evidence.h"

namespace attrib::connectors {

struct TimeWindow {
  int64_t start = 0, end = 0;  // ns since the epoch
};

// The workload's run padded on both sides; nullopt when it has neither a start nor an end, and
// then `report` is marked an error saying so.
std::optional<TimeWindow> paddedWindow(const evidence::Workload& workload, int64_t before, int64_t after,
                                       evidence::ConnectorReport* report);

// When `read` reached the cap `max`, marks `report` partial: "more than MAX UNIT; the rest were
// not read" (UNIT: "lines", "samples"). A cap overrides any other status: it is what a reader of
// the verdict must know first.
void noteCap(size_t read, size_t max, const char* unit, evidence::ConnectorReport* report);

// `values` as a regex alternation "a|b\\.c" for a double-quoted LogQL/PromQL string: regex
// metacharacters are escaped for the regex and the backslashes and quotes again for the string.
std::string regexAlternation(const std::vector<std::string>& values);

}  // namespace attrib::connectors
