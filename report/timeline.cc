#include "report/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "ir/civil_time.h"

namespace attrib::report {
namespace {

using html::Attr;
using html::num;
using html::Writer;
using runtime::DownstreamGroup;
using runtime::SymptomFinding;
using runtime::Verdict;

constexpr double kWidth = 1120, kLeft = 200, kRight = kWidth - 16;
constexpr double kAxis = 24, kLane = 18, kBand = 20;
constexpr const char* kPalette[] = {"#2456a6", "#8a4fbf", "#0f8a8a", "#b26a00", "#5a7d1a", "#c2417a", "#4b6584", "#9a6b3c"};

double ms(int64_t ns) { return static_cast<double>(ns / 1'000'000) + static_cast<double>(ns % 1'000'000) / 1e6; }

std::string hhmmss(int64_t ns, bool seconds) {
  std::string t = formatTimestamp(ns);  // 2026-11-29T10:42:00(.fff)Z
  return t.size() >= 19 ? t.substr(11, seconds ? 8 : 5) : t;
}

std::string shorten(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t cut = n - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return s.substr(0, cut) + "…";
}

struct Layout {
  double t0 = 0, t1 = 1;  // the incident window, ms
  double x(double t) const { return kLeft + (t - t0) / (t1 - t0) * (kRight - kLeft); }
};

const SymptomFinding* explainer(const Verdict& v, const std::string& explainedBy) {
  size_t at = explainedBy.rfind('@');
  std::string symptom = at == std::string::npos ? explainedBy : explainedBy.substr(0, at);
  std::string node = at == std::string::npos ? "" : explainedBy.substr(at + 1);
  auto matches = [&](const SymptomFinding& f) { return f.symptom == symptom && f.node == node; };
  if (v.root && matches(*v.root)) return &*v.root;
  for (const auto& f : v.otherCauses) {
    if (matches(f)) return &f;
  }
  return nullptr;
}

void ticks(Writer& w, const Layout& l, double height) {
  static const double steps[] = {1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5};
  double step = steps[std::size(steps) - 1];
  for (double s : steps) {
    if ((l.t1 - l.t0) / s <= 8) {
      step = s;
      break;
    }
  }
  w.open("g", {{"class", "axis grid"}});
  bool first = true;
  for (double t = std::ceil(l.t0 / step) * step; t <= l.t1; t += step) {
    std::string x = num(l.x(t));
    w.empty("line", {{"x1", x}, {"x2", x}, {"y1", "18"}, {"y2", num(height)}});
    int64_t ns = static_cast<int64_t>(t) * 1'000'000;
    std::string label = hhmmss(ns, step < 6e4);
    if (first) label = formatTimestamp(ns).substr(0, 10) + " " + label;
    w.element("text", {{"x", x}, {"y", "13"}, {"text-anchor", "middle"}}, label);
    first = false;
  }
  w.close();
}

// A label placed beside time t: on the right half of the plot it reads leftwards, so none is cut
// off at the edge (the script does the same when zooming).
std::vector<Attr> labelAt(const Layout& l, double t, double y, const std::string& cls) {
  double x = l.x(t);
  bool right = x > (kLeft + kRight) / 2;
  return {{"class", cls}, {"data-t", num(t)}, {"x", num(right ? x - 6 : x + 6)}, {"y", num(y)}, {"text-anchor", right ? "end" : "start"}};
}

// A mark at time t on row y: a group the script moves, with its shape and hover text.
void mark(Writer& w, const Layout& l, double t, double y, const std::string& cls, const std::string& shape,
          const std::string& tip, const std::string& label = "") {
  w.open("g", {{"class", "mark " + cls}, {"data-t", num(t)}, {"data-y", num(y)},
               {"transform", fmt::format("translate({},{})", num(l.x(t)), num(y))}});
  w.raw(shape);
  if (!label.empty()) w.element("text", {{"x", "10"}, {"y", "4"}, {"class", "mark-label"}}, label);
  w.element("title", tip);
  w.close();
}

}  // namespace

void renderTimeline(Writer& w, const Verdict& v, const TimelineOptions& options) {
  // The incident window: every time the findings name.
  std::vector<int64_t> times;
  // Findings whose time is unknown are in the tables, not on the timeline.
  if (v.root && !v.root->timeUnknown) times.push_back(v.root->time);
  for (const auto& f : v.otherCauses) {
    if (!f.timeUnknown) times.push_back(f.time);
  }
  for (const auto& d : v.downstream) {
    if (d.first) times.push_back(*d.first);
    if (d.last) times.push_back(*d.last);
  }
  std::optional<int64_t> start = v.workload.start, end = v.workload.end;
  if (times.empty()) {
    if (start) times.push_back(*start);
    if (end) times.push_back(*end);
  }
  w.open("section", {{"id", "timeline"}});
  w.element("h2", "Timeline");
  if (times.empty()) {
    w.element("p", {{"class", "muted"}}, "Nothing in the verdict has a time: no timeline.");
    w.close();
    return;
  }
  auto [lo, hi] = std::minmax_element(times.begin(), times.end());
  Layout l;
  l.t0 = ms(*lo);
  l.t1 = ms(*hi);
  if (end && ms(*end) > l.t1 && ms(*end) - l.t0 < 4 * std::max(l.t1 - l.t0, 60e3)) l.t1 = ms(*end);
  double pad = std::max((l.t1 - l.t0) * 0.06, 15e3);
  l.t0 -= pad;
  l.t1 += pad;
  double j0 = std::min(l.t0, start ? ms(*start) : l.t0), j1 = std::max(l.t1, end ? ms(*end) : l.t1);

  // Lanes in order of interest.
  std::vector<std::string> lanes;
  std::set<std::string> seen;
  std::set<std::string> bad;
  for (const auto& n : v.badNodes) bad.insert(n.node);
  auto add = [&](const std::string& node) {
    if (!node.empty() && lanes.size() < options.maxLanes && seen.insert(node).second) lanes.push_back(node);
  };
  if (v.root) add(v.root->node);
  for (const auto& n : v.badNodes) add(n.node);
  for (const auto& f : v.otherCauses) add(f.node);
  for (const auto& n : v.interestingNodes) add(n.node);
  for (size_t k = 0; k < DownstreamGroup::kEarliestNodes; ++k) {
    for (const auto& d : v.downstream) {
      if (k < d.earliestNodes.size()) add(d.earliestNodes[k].node);
    }
  }
  std::set<std::string> all(v.workload.nodes.begin(), v.workload.nodes.end());
  for (const auto& n : v.badNodes) all.insert(n.node);
  for (const auto& n : v.interestingNodes) all.insert(n.node);
  // A workload small enough gets a lane for every node, the quiet ones last.
  if (all.size() <= options.maxLanes) {
    for (const auto& n : v.workload.nodes) add(n);
  }
  uint64_t mostNodes = 0;
  for (const auto& d : v.downstream) mostNodes = std::max(mostNodes, d.nodes);
  size_t rest = all.size() > lanes.size() ? all.size() - lanes.size() : 0;
  if (rest == 0 && mostNodes > lanes.size()) rest = mostNodes - lanes.size();
  // Nodes the evidence names but the workload does not list get lanes too (or go to the rest).
  for (const auto& n : lanes) all.insert(n);

  std::map<std::string, double> laneY;
  double y = kAxis + kLane;  // row 0: the workload
  for (const auto& n : lanes) laneY[n] = (y += kLane);
  double restY = rest ? (y += kLane) : 0;
  size_t bands = std::min(v.downstream.size(), options.maxBands);
  double bandTop = y + kLane;
  double height = bandTop + bands * kBand + 10;
  double workloadY = kAxis + kLane;

  w.open("div", {{"class", "tl-tools"}});
  w.element("button", {{"type", "button"}, {"data-zoom", "in"}}, "zoom in");
  w.element("button", {{"type", "button"}, {"data-zoom", "out"}}, "zoom out");
  w.element("button", {{"type", "button"}, {"data-zoom", "incident"}}, "the incident");
  w.element("button", {{"type", "button"}, {"data-zoom", "job"}}, "the whole job");
  w.element("span", {{"class", "muted"}},
            fmt::format(" {} node lane(s){}; Ctrl+scroll to zoom, drag to pan. Times are UTC.", lanes.size(),
                        rest ? fmt::format(", {} other node(s) in one lane", rest) : ""));
  w.close();

  w.open("svg", {{"id", "timeline-svg"}, {"class", "tl"}, {"xmlns", "http://www.w3.org/2000/svg"},
                 {"viewBox", fmt::format("0 0 {} {}", num(kWidth), num(height))}, {"role", "img"},
                 {"aria-label", "timeline of the failure"}, {"data-left", num(kLeft)}, {"data-right", num(kRight)},
                 {"data-height", num(height)}, {"data-t0", num(l.t0)}, {"data-t1", num(l.t1)}, {"data-j0", num(j0)},
                 {"data-j1", num(j1)}, {"data-lanes", std::to_string(lanes.size())}, {"data-rest", std::to_string(rest)}});
  w.raw("<defs><clipPath id=\"plot\"><rect x=\"" + num(kLeft) + "\" y=\"0\" width=\"" + num(kRight - kLeft) +
        "\" height=\"" + num(height) + "\"></rect></clipPath><marker id=\"arrowhead\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" "
        "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#6b7687\"></path></marker></defs>");

  // Lanes: a background and a label each.
  auto laneRow = [&](double rowY, const std::string& label, const std::string& cls, const std::string& node, size_t index) {
    w.open("g", {{"class", "lane " + cls}, {"data-node", node}});
    if (index % 2 == 0) {
      w.empty("rect", {{"x", "0"}, {"y", num(rowY - kLane / 2)}, {"width", num(kWidth)}, {"height", num(kLane)}, {"fill", "#f7f8fa"}});
    }
    w.element("text", {{"class", "lbl " + cls}, {"x", num(kLeft - 8)}, {"y", num(rowY + 4)}, {"text-anchor", "end"}},
              shorten(label, 26));
    w.close();
  };
  laneRow(workloadY, v.workload.id.empty() ? "workload" : "workload " + v.workload.id, "workload", "", 1);
  for (size_t i = 0; i < lanes.size(); ++i) laneRow(laneY[lanes[i]], lanes[i], bad.count(lanes[i]) ? "bad" : "", lanes[i], i);
  if (rest) laneRow(restY, fmt::format("+ {} other node(s)", rest), "rest", "", lanes.size());
  for (size_t i = 0; i < bands; ++i) {
    const DownstreamGroup& d = v.downstream[i];
    w.element("text", {{"class", "lbl band-label"}, {"x", num(kLeft - 8)}, {"y", num(bandTop + i * kBand + 4)}, {"text-anchor", "end"}},
              shorten("↳ " + d.symptom, 28));
  }

  ticks(w, l, height);

  w.open("g", {{"clip-path", "url(#plot)"}, {"class", "marks"}});
  // The workload's start and end (the scheduler's record).
  auto schedulerEvent = [&](int64_t t, const std::string& label) {
    w.empty("line", {{"class", "sched"}, {"data-t", num(ms(t))}, {"x1", num(l.x(ms(t)))}, {"x2", num(l.x(ms(t)))},
                     {"y1", "18"}, {"y2", num(height)}});
    w.open("text", labelAt(l, ms(t), workloadY + 4, "sched-label")).text(label).close();
  };
  if (start) schedulerEvent(*start, "start");
  if (end) {
    std::string label = fmt::format("end: {}", ir::stateName(v.workload.state));
    if (v.workload.exitCode) label += fmt::format(" (exit {})", *v.workload.exitCode);
    schedulerEvent(*end, label);
  }

  // Downstream: a dot per node where the group appeared first; the rest of the nodes as a bar.
  for (size_t i = 0; i < v.downstream.size(); ++i) {
    const DownstreamGroup& d = v.downstream[i];
    std::string color = kPalette[i % std::size(kPalette)];
    size_t shown = 0;
    for (const auto& n : d.earliestNodes) {
      auto lane = laneY.find(n.node);
      if (lane == laneY.end() || !n.first) continue;
      ++shown;
      mark(w, l, ms(*n.first), lane->second, "downstream",
           fmt::format("<circle r=\"3.5\" fill=\"{}\"></circle>", color),
           fmt::format("{} ×{} on {}, first at {}", d.symptom, n.count, n.node, formatTimestamp(*n.first)));
    }
    if (rest && d.nodes > shown && d.first && d.last) {
      w.open("rect", {{"class", "band rest-band"}, {"data-t", num(ms(*d.first))}, {"data-t2", num(ms(*d.last))},
                      {"x", num(l.x(ms(*d.first)))}, {"y", num(restY - 3)}, {"width", num(std::max(3.0, l.x(ms(*d.last)) - l.x(ms(*d.first))))},
                      {"height", "6"}, {"fill", color}});
      w.element("title", fmt::format("{} on {} more node(s)", d.symptom, d.nodes - shown));
      w.close();
    }
  }
  // Other causes, then the root on top.
  for (const auto& f : v.otherCauses) {
    if (f.timeUnknown) continue;
    double rowY = laneY.count(f.node) ? laneY[f.node] : workloadY;
    mark(w, l, ms(f.time), rowY, "cause", "<path d=\"M0,-5 L5,0 L0,5 L-5,0 Z\" fill=\"#b26a00\"></path>",
         fmt::format("other cause: {} ({}) {}{}", f.title.empty() ? f.symptom : f.title, f.symptom,
                     f.node.empty() ? "" : "on " + f.node + " ", formatTimestamp(f.time)));
  }
  if (v.root && !v.root->timeUnknown) {
    const SymptomFinding& r = *v.root;
    double rowY = laneY.count(r.node) ? laneY[r.node] : workloadY;
    mark(w, l, ms(r.time), rowY, "root",
         "<path d=\"M0,-8 L8,0 L0,8 L-8,0 Z\" fill=\"#b3261e\" stroke=\"#fff\" stroke-width=\"1.5\"></path>",
         fmt::format("root cause: {} ({}) {}at {}{}", r.title.empty() ? r.symptom : r.title, r.symptom,
                     r.node.empty() ? "" : "on " + r.node + " ", formatTimestamp(r.time), r.timeKnown ? "" : " (estimated)"),
         "root cause: " + shorten(r.title.empty() ? r.symptom : r.title, 48));
  }
  // Bands, with an arrow from each to what explains it.
  for (size_t i = 0; i < bands; ++i) {
    const DownstreamGroup& d = v.downstream[i];
    if (!d.first || !d.last) continue;  // no known time: in the tables only
    std::string color = kPalette[i % std::size(kPalette)];
    double rowY = bandTop + i * kBand;
    double x0 = l.x(ms(*d.first)), x1 = l.x(ms(*d.last));
    w.open("g", {{"class", "downstream-band"}, {"data-symptom", d.symptom}, {"data-count", std::to_string(d.count)},
                 {"data-explained-by", d.explainedBy}});
    w.open("rect", {{"class", "band"}, {"data-t", num(ms(*d.first))}, {"data-t2", num(ms(*d.last))}, {"x", num(x0)},
                    {"y", num(rowY - 6)}, {"width", num(std::max(3.0, x1 - x0))}, {"height", "12"}, {"fill", color}});
    w.element("title", fmt::format("{}: {} instance(s) on {} node(s), {} rank(s), {} to {}; explained by {} (rule {})", d.symptom,
                                   d.count, d.nodes, d.ranks, formatTimestamp(*d.first), formatTimestamp(*d.last),
                                   d.explainedBy, d.rule));
    w.close();
    w.open("text", labelAt(l, ms(*d.first), rowY + 4, "band-count"))
        .text(fmt::format("×{} on {} node(s), explained by {}", d.count, d.nodes, d.explainedBy))
        .close();
    if (const SymptomFinding* cause = explainer(v, d.explainedBy); cause && !cause->timeUnknown) {
      double causeY = laneY.count(cause->node) ? laneY[cause->node] : workloadY;
      double cx = l.x(ms(cause->time));
      w.empty("path", {{"class", "arrow"}, {"marker-end", "url(#arrowhead)"}, {"data-t", num(ms(*d.first))},
                       {"data-y", num(rowY)}, {"data-t2", num(ms(cause->time))}, {"data-y2", num(causeY + 8)},
                       {"d", fmt::format("M{},{} C{},{} {},{} {},{}", num(x0), num(rowY), num(x0 - 40), num(rowY), num(cx - 40),
                                         num(causeY + 8), num(cx), num(causeY + 8))}});
    }
    w.close();
  }
  w.close();  // marks
  w.close();  // svg
  if (v.downstream.size() > bands) {
    w.element("p", {{"class", "muted"}},
              fmt::format("{} more downstream group(s) are in the evidence tables.", v.downstream.size() - bands));
  }
  w.close();  // section
}

}  // namespace attrib::report
