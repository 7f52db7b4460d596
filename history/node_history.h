// Node history: the earlier failures of each node, read from the verdict history a sink stores
// (docs/history.md). The question a drain decision needs: has this node failed before, how
// often, of what, and when?
//
// A HistoryReader is the one query over a verdict store (SQLite today, sinks/sqlite_history.h;
// PostgreSQL, with the same schema, can implement it too). It returns plain events; grouping,
// counting and policy (repeat_offender.h) are pure code over them.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attrib::history {

// One node blamed by one stored verdict: a row of bad_nodes with its verdict's fields.
struct NodeEvent {
  std::string node;
  std::string workloadId;
  std::string family;       // the verdict's family (its primary outcome's; "unknown" when none)
  std::string outcome;      // the primary outcome's qualified name; empty: unknown
  std::string rootSymptom;  // empty: no root cause
  std::vector<std::string> symptoms;  // the symptoms that blame this node
  double confidence = 0;
  // When it failed: the root cause's time, else the workload's end, else when it was stored.
  int64_t time = 0;
  std::string rulesetDigest;
};

struct HistoryQuery {
  std::optional<std::string> node;  // one node; nullopt: every node
  int64_t since = std::numeric_limits<int64_t>::min();  // event times in [since, until]
  int64_t until = std::numeric_limits<int64_t>::max();
  size_t limit = 100'000;  // at most this many events, the latest first; more is an error
};

class HistoryReader {
 public:
  virtual ~HistoryReader() = default;
  // The events the query selects, ordered by node, then time, then workload id; false with a
  // one-line `error` when the store cannot be read or holds more than query.limit of them.
  // Safe to call from several threads at once.
  virtual bool events(const HistoryQuery& query, std::vector<NodeEvent>* out, std::string* error) = 0;
};

// The failures of one node, oldest first; `byFamily` counts them per family.
struct NodeHistory {
  std::string node;
  std::vector<NodeEvent> events;
  std::map<std::string, uint64_t> byFamily;
};

// Groups events by node (sorted by name), each node's events oldest first. The same workload
// diagnosed by several rule sets is one failure: the event of the latest verdict-ordering
// (by time, then ruleset digest) is kept, the others dropped.
std::vector<NodeHistory> groupByNode(std::vector<NodeEvent> events);

}  // namespace attrib::history
