// The family an unknown verdict's telling lines point at: a hint, never a cause.
//
// When no rule explains a failure, the verdict's candidates (runtime/telling_lines.h) are the
// few most telling lines of the evidence. Their words often name the layer that failed even when
// no rule reads their form ("NET/OFI Unable to insert remote address" names the network fabric;
// "Detected 1 oom-kill event" host memory). familyHint() reads that from a fixed table of family
// words (family_hint.cc), taken from the typical evidence of each family in docs/verdict.md.
//
// The choice, deterministic: the strongest family word (weight 3: the word names one layer's
// fault, "nvlink", "no space left", "oom-kill"; 2: it leans to one, "connection refused",
// "illegal memory access"; 1: it only says where the error surfaced, "nccl", "traceback",
// "slurmstepd") held by any candidate; among equals, the better candidate, then the word listed
// first. No hint when no candidate holds a family word, or when every candidate is a warning
// (a Python or glog warning, NCCL WARN): a log of warnings alone is no failure to point at. A
// family that blames hardware (a GPU, its fabric, the network, the host, its kernel, a lost node)
// is read only from a line that reports an error or a death (telling weight 2 or more) and is no
// Python or glog warning (NCCL's WARN is its error level), and is named only when the scheduler
// says the workload failed (a terminal state other than completed): words alone never point a
// person at hardware, and a log a healthy job printed can hold them. When such a family is the
// strongest and the state does not say failed, there is no hint, not the next family down.
//
// A completed workload gets no hint: its telling lines are what it survived.
//
// A hint is no outcome: the verdict's outcomes stay empty, its confidence 0, its root cause
// none. It only names the family, and the line and word it was read from, so a person knows
// where to start (docs/verdict.md, "Family hint").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "runtime/verdict.h"

namespace attrib::runtime {

// The family `candidates` (best first) of a workload in `state` point at, or none.
std::optional<FamilyHint> familyHint(const std::vector<Candidate>& candidates, ir::State state);

// Whether PCRE2 accepts every table of family words (a test's question; a rejected table never
// matches).
bool familyWordsCompile();

}  // namespace attrib::runtime
