// The orchestrator's loop (`attrib run`): ask the execution context for finished workloads,
// collect each one's evidence from the sources, diagnose it and hand the verdict to every sink.
// Batch mode does this once; watch mode polls until stopped and never attributes a workload
// twice for the same rule set. The state is the work claims of the first database sink
// (sinks/work_claims.h): a SQLite sink for one worker, a PostgreSQL sink for any number of
// workers on the same context, each workload attributed by one of them (docs/orchestrator.md,
// "Work sharing"); a restart resumes. A failing workload, source or sink is recorded and the run
// goes on.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/blueprint.h"
#include "runtime/engine.h"
#include "sinks/work_claims.h"

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
  size_t elsewhere = 0;  // held by another worker when this one came to them
};

RunSummary runBlueprint(Blueprint& blueprint, const runtime::Engine& engine, std::vector<std::unique_ptr<sinks::Sink>>& sinks,
                        sinks::WorkClaims* claims, const RunOptions& options, const RunEvents& events);

}  // namespace attrib::orchestrator
