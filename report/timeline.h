// The report's timeline: an SVG with one lane per node, time running left to right.
//
// Lanes, top to bottom: the workload (its start and end, findings with no node), then the
// nodes in order of interest (the root's, the bad nodes, those of other causes, the
// interesting ones, then where the downstream groups appeared first), at most maxLanes of them;
// every other node of the workload is counted in one last lane. A workload with no more nodes
// than maxLanes shows all of them, the quiet ones last. Below the lanes, a band per
// downstream group (the largest maxBands) from its first to its last instance, with its count
// and an arrow to the cause that explains it. Marks carry a <title> (the hover text).
//
// Every time-placed element carries its time (data-t, milliseconds since the epoch) so the
// report's script can zoom and pan; without the script the SVG shows the incident window.
#pragma once

#include <cstddef>

#include "report/html.h"
#include "runtime/verdict.h"

namespace attrib::report {

struct TimelineOptions {
  size_t maxLanes = 40;
  size_t maxBands = 12;
};

void renderTimeline(html::Writer& w, const runtime::Verdict& v, const TimelineOptions& options);

}  // namespace attrib::report
