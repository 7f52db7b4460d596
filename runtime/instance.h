// A symptom instance: one piece of evidence that matched one symptom, with everything the
// predicates, the phases and the verdict read from it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/captures.h"
#include "runtime/evidence_types.h"

namespace attrib::runtime {

inline constexpr int64_t kTimeUnknown = INT64_MAX;

// Where an instance's record is: its source (connector and location) and its place in it. The
// source is shared by every instance of one file or stream: a dense file gives 10^5-10^6
// instances, and a copy of its path in each was tens of MB at refinement's peak
// (docs/performance.md). A source is never changed once made, so sharing it is safe across threads.
struct Place {
  struct Source {
    std::string connector;  // "files", "loki", ...
    std::string location;   // a file path, or a stream selector
  };
  std::shared_ptr<const Source> source;  // null: no source known (connector and location "")
  uint64_t offset = 0;  // byte offset in the (decompressed) file, or index in the stream
  uint64_t line = 0;    // 1-based line number, 0 when not line-based

  const std::string& connector() const;
  const std::string& location() const;
  // A place with a source of its own (a caller that makes many places of one source shares one).
  static Place make(std::string connector, std::string location, uint64_t offset = 0, uint64_t line = 0);
  static Place of(const evidence::Provenance& p);
};

// What metric and scheduler evidence add to an instance. Log evidence, nearly every instance of
// a dense log, has none of it, and these fields were more than a quarter of every instance
// (docs/performance.md, "Captures in one block, metric and scheduler fields apart"): an instance
// points to them instead. They are set once, when the instance is made, so copies share them.
struct MetricOrSchedulerFields {
  // Scheduler evidence
  std::optional<ir::State> state;
  std::optional<int64_t> exitCode, signal;
  std::string reason;
  // Metric evidence
  double value = 0;
  std::string metric;
};

// Field order packs the small fields together (an instance is ~250 bytes and a dense log has
// 10^5-10^6 of them, held twice while the scanner merges its files' lists); the JIT measures
// every offset it reads at start-up (jit/data_layout.h), so the order is free.
struct Instance {
  int32_t symptom = -1;   // id in the program
  bool timeKnown = false;    // the evidence itself carried the time
  bool timeUnknown = false;  // no time at all: `time` is kTimeUnknown
  // Nanoseconds since the epoch: the evidence's own time (timeKnown), or estimated from the
  // lines before it; kTimeUnknown (after every real time, so unknown times sort last) when
  // nothing gave one, and then predicates read `time` as null.
  int64_t time = 0;
  std::optional<int64_t> monotonic;  // kernel time since boot, when the line carried it
  std::string node;
  std::optional<int64_t> rank;
  std::string gpu;
  std::string source;     // a log line's channel (kernel, application, ...), scheduler, metric, derived
  std::string text;       // the log line (or a description for metric/scheduler evidence)
  Captures captures;      // named groups, pattern order
  std::shared_ptr<const MetricOrSchedulerFields> extraFields;  // null for log and derived evidence
  Place where;
  // A total order for instances at the same time: the order evidence was read in, made
  // deterministic by sorting sources by name.
  uint64_t sequence = 0;

  // Attribution state, set by the phases.
  int32_t explainedBy = -1;   // index of the explaining instance
  int32_t explainRule = -1;   // index of the rule that explained it
  bool filtered = false;      // removed by a filter or a `drop` action
  bool markedBad = false, markedInteresting = false;

  // The metric and scheduler fields, empty ones when the evidence has none.
  const MetricOrSchedulerFields& extra() const;

  // The first capture called `name`.
  std::optional<std::string_view> capture(std::string_view name) const { return captures.find(name); }
};

// Instances ordered by time, then sequence.
inline bool earlier(const Instance& a, const Instance& b) {
  return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
}

// Puts `instances` in `earlier` order, instances that tie keeping their order: the result of
// std::stable_sort(..., earlier), without its buffer of half the instances (tens of MB at high
// match densities) and with each instance moved at most once (an index is sorted instead).
void sortEarlierFirst(std::vector<Instance>& instances);

}  // namespace attrib::runtime
