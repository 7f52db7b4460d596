#include "tests/runtime/workload_dirs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "evidence/intake.h"

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
  evidence::Intake intake;
  intake.addPath(dir.string());
  evidence::WorkloadEvidence ev;
  std::string error;
  EXPECT_TRUE(intake.finish(&ev, &error)) << dir << ": " << error;
  return ev;
}

}  // namespace attrib::testing
