// The report's cost at 1,024 nodes (bench/report drives it; docs/performance.md reports it):
// reads a verdict JSON, then renders its HTML report and, as the baseline, its JSON verdict
// (toJson) the same number of times; prints sizes and median times side by side with the
// targets (2 MB, 200 ms) as ratios. Exits 1 only when the verdict cannot be read.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <vector>

#include "report/report.h"
#include "runtime/verdict_json.h"

namespace {

template <typename F>
double medianMs(int reps, F&& f) {
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: report_bench VERDICT.json [REPS]\n");
    return 2;
  }
  int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 21;
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  std::string error;
  auto verdict = attrib::runtime::parseVerdictJson(s.str(), &error);
  if (!verdict) {
    fmt::print(stderr, "report_bench: {}: {}\n", argv[1], error);
    return 1;
  }
  size_t htmlBytes = 0, jsonBytes = 0;
  double html = medianMs(reps, [&] { htmlBytes = attrib::report::renderReport(*verdict).size(); });
  double json = medianMs(reps, [&] { jsonBytes = attrib::runtime::toJson(*verdict).size(); });
  constexpr double kMaxBytes = 2 << 20, kMaxMs = 200;
  fmt::print("workload: {} nodes, {} downstream groups, {} connector reports; median of {} runs\n",
             verdict->workload.nodes.size(), verdict->downstream.size(), verdict->reports.size(), reps);
  fmt::print("{:<22} {:>12} {:>10} {:>14} {:>12}\n", "", "bytes", "ms", "bytes/target", "ms/target");
  fmt::print("{:<22} {:>12} {:>10.2f} {:>14.3f} {:>12.3f}\n", "HTML report", htmlBytes, html, htmlBytes / kMaxBytes, html / kMaxMs);
  fmt::print("{:<22} {:>12} {:>10.2f} {:>14} {:>12}\n", "JSON verdict (baseline)", jsonBytes, json, "", "");
  fmt::print("report/JSON: {:.2f}x the bytes, {:.2f}x the time; targets 2 MB and 200 ms: {}\n",
             static_cast<double>(htmlBytes) / static_cast<double>(jsonBytes), html / json,
             htmlBytes < kMaxBytes && html < kMaxMs ? "PASS" : "MISS");
  return 0;
}
