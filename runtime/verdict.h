// The verdict: what attrib answers for one workload (schema "attrib.verdict/v1", VERDICT.md).
// Plain data produced by the attribution phases; rendered as JSON for machines and as a short
// text summary for people. Rendering is deterministic: the same verdict gives the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/evidence_types.h"

namespace attrib::runtime {

struct EvidenceLine {
  std::string source, connector, node;
  std::optional<int64_t> time;  // absent when the evidence carried no time of its own
  std::string line;
  std::string location;         // file path or stream
  uint64_t offset = 0, lineNumber = 0;
};

struct Instance;
// The line of an instance as the verdict shows it (its time only when the evidence carried one).
EvidenceLine evidenceLineOf(const Instance& inst);

struct SymptomFinding {
  std::string symptom, title, family;
  std::string node, gpu;
  std::optional<int64_t> rank;
  int64_t time = 0;
  bool timeKnown = false;    // the evidence carried the time
  bool timeUnknown = false;  // no time at all (`time` is meaningless)
  std::vector<EvidenceLine> evidence;
};

struct NodeFinding {
  std::string node;
  std::vector<std::string> symptoms;  // sorted, unique
  // The node's earlier failures in the verdict history (docs/history.md), only when one was
  // read (attrib diagnose --history-db); absent, the verdict is as without a history.
  struct History {
    uint64_t failures = 0;    // earlier failures in the window
    uint64_t nodeFaults = 0;  // of which node faults (hardware or infrastructure families)
    std::vector<std::string> families;  // of the failures, sorted, unique
    std::optional<int64_t> last;        // the latest one
    std::vector<std::string> workloads; // their workloads, oldest first (at most 10)
  };
  std::optional<History> history = std::nullopt;
};

struct DownstreamGroup {
  std::string symptom;
  uint64_t count = 0, nodes = 0, ranks = 0;
  std::optional<int64_t> first;  // the earliest known time of the group's instances
  std::string explainedBy;  // "symptom@node"
  std::string rule;
  std::optional<int64_t> last;  // the latest known time (first <= last)
  // Where it appeared first: up to kEarliestNodes nodes in the order the group reached them
  // (time of their first instance, then name), each with its first time and its count there.
  struct NodeSpread {
    std::string node;
    std::optional<int64_t> first;  // the earliest known time there
    uint64_t count = 0;
  };
  std::vector<NodeSpread> earliestNodes;
  std::vector<EvidenceLine> evidence;  // the line of its first instance (one; empty if none)
  static constexpr size_t kEarliestNodes = 16;
};

// What a symptom named in the verdict means, from its rule: for people reading the verdict.
struct SymptomInfo {
  std::string title, family, description;
  std::vector<std::string> refs;  // the rule's `ref` values (URLs, document references)
};

// A telling line of an unknown verdict (runtime/telling_lines.h): where to look, not a cause.
struct Candidate {
  EvidenceLine evidence;  // the first line of its form
  std::optional<int64_t> rank;
  int weight = 0;         // from its words (ir/telling_words.h)
  uint64_t count = 0;     // lines of the same form
  uint64_t writers = 0;   // distinct hosts, ranks or tasks that printed them
};

// The family an unknown verdict's candidates point at (runtime/family_hint.h): a hint, no outcome.
struct FamilyHint {
  std::string family;
  std::string word;      // the family word as the line holds it
  int weight = 0;        // 3 names one layer's fault, 2 leans to one, 1 where an error surfaced
  size_t candidate = 0;  // index into Verdict::candidates of the line that holds it
  size_t table = 0;      // which table of family words (runtime/family_hint.cc) matched
};

struct OutcomeFinding {
  std::string name, family, title;
  std::vector<std::string> actions;
  double confidence = 0;
};

struct Verdict {
  Workload workload;
  std::vector<OutcomeFinding> outcomes;  // empty: unknown
  std::optional<SymptomFinding> root;
  std::vector<SymptomFinding> otherCauses;  // unexplained causes besides the root
  std::vector<NodeFinding> badNodes, interestingNodes;
  std::vector<DownstreamGroup> downstream;
  std::vector<std::string> actions, actionNodes;
  double confidence = 0;
  std::vector<std::string> confidenceNotes;
  // Only when no outcome holds: the most telling lines, best first (at most five).
  std::vector<Candidate> candidates;
  // Only when no outcome holds and the workload is not known to have completed: the family the
  // candidates point at. The outcomes stay empty and the confidence 0.
  std::optional<FamilyHint> familyHint;
  // Empty when evidence that the rules read was read; otherwise why not ("no evidence was
  // read", "no rule reads the 120 lines read"), also the last confidence note. A verdict on no
  // evidence says nothing about the workload, and tools say so (attrib diagnose exits 3).
  std::string nothingRead;
  std::vector<ConnectorReport> reports;
  // How many live instances each symptom had (after filtering), by qualified name.
  std::vector<std::pair<std::string, uint64_t>> symptomCounts;
  // What each symptom of symptomCounts means (the same names, in the same order).
  std::vector<std::pair<std::string, SymptomInfo>> symptoms;
  std::string rulesetName, rulesetVersion, rulesetDigest;
  struct Stats {
    uint64_t linesScanned = 0, bytesScanned = 0, metricSamples = 0, symptoms = 0;
    int64_t collectMs = 0, scanMs = 0, refineMs = 0;
    std::string evaluator = "interpreter";  // how predicates ran: "jit" or "interpreter"
    std::string evaluatorNote;              // why not the JIT, when it was asked for and failed
  } stats;
  // Stats that vary between runs (timings) are left out of `deterministic` renderings.
};

// The verdict's family: its primary outcome's; else its family hint's; else "unknown".
std::string verdictFamily(const Verdict& v);

struct RenderOptions {
  bool timings = true;  // false: elapsed times are rendered as 0 (byte-identical output)
};

std::string toJson(const Verdict& v, const RenderOptions& options = {});
std::string toText(const Verdict& v);

}  // namespace attrib::runtime
