#include "tests/runtime/workload_dirs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "connectors/local/workload_dir.h"

namespace attrib::testing {

namespace fs = std::filesystem;

std::vector<fs::path> workloadDirs() {
  std::vector<fs::path> dirs;
  for (const char* parent : {"examples", "tests/scenarios"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(ATTRIB_SOURCE_DIR) / parent)) {
      if (entry.is_directory() && fs::exists(entry.path() / "workload.json")) dirs.push_back(entry.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

evidence::WorkloadEvidence evidenceOf(const fs::path& dir) {
  connectors::WorkloadDir wd;
  std::string error;
  EXPECT_TRUE(connectors::readWorkloadDir(dir.string(), &wd, &error)) << dir << ": " << error;
  evidence::WorkloadEvidence ev;
  ev.workload = std::move(wd.workload);
  ev.logs = std::move(wd.logs);
  ev.metrics = std::move(wd.metrics);
  ev.reports = std::move(wd.reports);
  return ev;
}

}  // namespace attrib::testing
