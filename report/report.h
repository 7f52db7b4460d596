// The report of one verdict: a single self-contained HTML file for people (docs/report.md).
// No network and nothing outside the file: the style, the script and the timeline (SVG) are
// inline, and a Content-Security-Policy forbids every fetch, so it works from a file:// URL, as
// an e-mail attachment and behind a proxy alike. Without its script (mail readers) it still
// shows everything; the script only adds zooming and panning of the timeline.
//
// In order: the answer (outcome, family, root cause with its evidence lines and place, bad
// nodes, each recommended action explained with the command a site would run, confidence and
// its notes), the timeline (a lane per node, collapsed to the interesting ones with a count of
// the rest; the root marked; downstream groups as bands with their counts and an arrow to what
// explains them; the workload's start and end), the evidence per symptom (lines with
// file:line, each symptom's title, description and references, the rule that linked each
// downstream group), an unknown verdict's candidate lines, the coverage (connector reports),
// and what the failure families mean.
//
// Every byte of evidence is escaped (report/html.h); rule references become links only when
// they are http(s) URLs. Deterministic: the same verdict and options give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "runtime/verdict.h"

namespace attrib::report {

struct ReportOptions {
  std::string generator = "attrib";  // who wrote it, for the footer ("attrib 0.5.0")
  size_t maxLanes = 40;              // node lanes in the timeline; the other nodes share one lane
  size_t maxBands = 12;              // downstream groups drawn as bands (the tables have them all)
};

std::string renderReport(const runtime::Verdict& verdict, const ReportOptions& options = {});

}  // namespace attrib::report
