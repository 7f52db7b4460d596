// Test helpers over the bundled workload directories: the examples and the accuracy scenarios.
#pragma once

#include <filesystem>
#include <vector>

#include "runtime/engine.h"

namespace attrib::testing {

// Every directory with a workload.json under examples/ and tests/scenarios/ (ATTRIB_SOURCE_DIR),
// sorted.
std::vector<std::filesystem::path> workloadDirs();

// The evidence of workload directory `dir`, as `attrib diagnose DIR` reads it; fails the test
// when the directory cannot be read.
evidence::WorkloadEvidence evidenceOf(const std::filesystem::path& dir);

}  // namespace attrib::testing
