// A fleet of small workloads for the work-sharing tests and bench/soak: `n` workload.json files
// in DIR/workloads (ids static/w00000...) for a static context's `workloads:`, each with one log
// file DIR/logs/<job>/node-<k>/syslog.log of kLines lines, the last an Xid 79 (so every verdict
// has a root cause), and a blueprint over them.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace attrib::testing {

constexpr int kFleetLines = 24;

inline std::string fleetId(int i) { return fmt::format("static/w{:05d}", i); }

// The bytes of workload i's log file (its size is what a verdict's files report must say).
inline std::string fleetLog(int i) {
  std::string node = fmt::format("node-{}", i % 16);
  std::string out;
  for (int l = 0; l + 1 < kFleetLines; ++l) {
    out += fmt::format("Nov 29 10:{:02d}:{:02d} {} trainer[{}]: step {} loss {:.3f} workload {} ok\n", l / 60, l % 60, node,
                       1000 + i, l, 2.0 - l * 0.01, i);
  }
  out += fmt::format("Nov 29 10:30:00 {} kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid={}, GPU has fallen off the bus.\n", node,
                     1000 + i);
  return out;
}

inline void writeFleet(const std::filesystem::path& dir, int n) {
  namespace fs = std::filesystem;
  fs::create_directories(dir / "workloads");
  for (int i = 0; i < n; ++i) {
    std::string job = fmt::format("w{:05d}", i);
    std::string node = fmt::format("node-{}", i % 16);
    std::ofstream(dir / "workloads" / (job + ".json"))
        << fmt::format(R"({{"id": "{}", "state": "FAILED", "exit_code": 1, "start": "2026-11-29T09:58:00Z", )"
                       R"("end": "2026-11-29T10:31:00Z", "nodes": ["{}"]}})",
                       fleetId(i), node)
        << "\n";
    fs::create_directories(dir / "logs" / job / node);
    std::ofstream(dir / "logs" / job / node / "syslog.log") << fleetLog(i);
  }
}

// A blueprint over the fleet in `dir`: its workloads, its log files, `sinks` and `extra` (the
// service and watch blocks) as given.
inline std::filesystem::path writeFleetBlueprint(const std::filesystem::path& dir, const std::string& name, const std::string& sinks,
                                                 const std::string& extra = "") {
  std::string text = fmt::format(R"(context:
  static:
    workloads: {0}/workloads
sources:
  - files:
      roots: [{0}/logs]
      patterns:
        - glob: "{0}/logs/${{job}}/${{node}}/*.log"
sinks:
{1}{2})",
                                 dir.string(), sinks, extra);
  std::ofstream(dir / name) << text;
  return dir / name;
}

}  // namespace attrib::testing
