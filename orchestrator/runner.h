// The orchestrator's loop (`attrib run`): ask the execution context for finished workloads,
// collect each one's evidence from the sources, diagnose it and hand the verdict to every sink.
// Batch mode does this once; watch mode polls until stopped and never attributes a workload
// twice for the same rule set (the state is the SQLite sink, so a restart resumes). A failing
// workload, source or sink is recorded and the run goes on.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/blueprint.h"
#include "runtime/engine.h"
#include "sinks/sqlite_sink.h"

namespace attrib::orchestrator {

struct RunOptions {
  bool watch = false;
  int maxCycles = 0;                       // watch mode: stop after this many polls (0: never)
  const std::atomic<bool>* stop = nullptr;  // set (by a signal handler) to stop between workloads
};

// What the run tells its caller as it goes (the library never prints).
struct RunEvents {
  std::function<void(const std::string& message)> note;           // one line: a workload done, a problem
  std::function<void(size_t done, size_t total)> progress;        // after each workload of a poll
};

struct RunSummary {
  size_t found = 0, attributed = 0, skipped = 0, failed = 0, cycles = 0;
};

RunSummary runBlueprint(Blueprint& blueprint, const runtime::Engine& engine, std::vector<std::unique_ptr<sinks::Sink>>& sinks,
                        sinks::SqliteSink* state, const RunOptions& options, const RunEvents& events);

}  // namespace attrib::orchestrator
