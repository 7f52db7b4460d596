// Which symptoms' instances may keep a compact text: the routine context symptoms no predicate
// reads the text of.
//
// At high match densities most instances are of routine context symptoms (a link that came
// up, on every node of a healthy fleet), and what memory they take is their text: the whole
// record the pattern confirmed on, up to LogScanOptions::maxTextBytes (a burst of sixteen
// dmesg lines that share one ring-buffer time is one record of 1 KB or more). An instance of a
// compact symptom keeps instead the one line of its record the pattern's match starts on, cut
// at kCompactTextBytes (with "..."): what the evidence shows of it is still the line that
// matched, and nothing a rule decides can differ, because no where-clause, filter, outcome or
// derived symptom of the program can read its text (docs/language.md, "The text of context
// instances"). Its own `when` clause is evaluated before the text is cut and sees the record.
//
// A symptom is compact when its role is context (explicit, or by default from severity info or
// blame none), it reads logs, and no expression of the program reads `.text` of an instance
// that may be one of its instances: a binding, an aggregate's or a filter's symptom set that
// holds it, or an instance the analysis cannot tell (a First/Last/MinBy/MaxBy of an unknown set:
// every symptom). `distinct(text)` over a set counts as reading it. A rule's binding counts
// only the symptoms its top-level conjuncts leave it (its join plan's `is` narrowing, and
// `x.role != "context"`): for the others the where-clause is false whatever the text.
#pragma once

#include <cstddef>
#include <vector>

#include "ir/ir.h"

namespace attrib::runtime {

inline constexpr size_t kCompactTextBytes = 256;

// Per symptom id: whether some expression of `program` may read the text of its instances.
std::vector<bool> symptomsWhoseTextIsRead(const ir::Program& program);

// Per symptom id: whether its log instances keep the compact text (see above).
std::vector<bool> compactTextSymptoms(const ir::Program& program);

}  // namespace attrib::runtime
