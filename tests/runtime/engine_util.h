// Test helpers: compile .attr text into a loaded engine, and build evidence by hand.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "runtime/bundle.h"
#include "runtime/engine.h"
#include "runtime/verdict.h"

namespace attrib::testing {

// Compiles `rules` (one file) into a bundle and loads it; fails the test on any error.
std::shared_ptr<const runtime::Engine> engineFor(const std::string& rules, std::string* bundleBytes = nullptr);

// A rule set that never matches: every verdict is unknown.
std::shared_ptr<const runtime::Engine> unknownEngine();

// The stdlib's sources: ATTRIB_SOURCE_DIR/stdlib-rules and the Xid/SXid symptoms generated from
// its catalogues into the build tree (ATTRIB_STDLIB_GENERATED_DIR).
std::vector<std::string> stdlibPaths();

// The stdlib as attrib ships it: the bundle the build compiles from stdlibPaths() (the stdlib_bundle
// target), loaded once per process, and its engine; fail the test on any error (and give null).
std::shared_ptr<const runtime::Bundle> stdlibBundle();
std::shared_ptr<const runtime::Engine> stdlibEngine();

// A log line at `time` (RFC 3339) on `node`/`source`.
evidence::LogLine line(const std::string& node, const std::string& source, const std::string& time,
                      const std::string& text);

int64_t at(const std::string& rfc3339);

// Diagnoses evidence made of `lines` (and `metrics`) for `workload`.
runtime::Verdict diagnose(const runtime::Engine& engine, std::vector<evidence::LogLine> lines,
                          evidence::Workload workload = {}, std::vector<evidence::MetricSample> metrics = {});

// How many live instances of `symptom` the verdict counted (0 when none).
uint64_t countOf(const runtime::Verdict& v, const std::string& symptom);

// A log file to scan, read from `path`.
evidence::LogFile logFile(const std::string& path, const std::string& node, const std::string& source,
                         const std::string& name = "", std::optional<int64_t> rank = std::nullopt);

}  // namespace attrib::testing
