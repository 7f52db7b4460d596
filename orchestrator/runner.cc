#include "orchestrator/runner.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "orchestrator/remote_service.h"

namespace attrib::orchestrator {

RunSummary runBlueprint(Blueprint& blueprint, const runtime::Engine& engine, std::vector<std::unique_ptr<sinks::Sink>>& sinks,
                        sinks::SqliteSink* state, const RunOptions& options, const RunEvents& events) {
  RunSummary summary;
  auto note = [&](const std::string& m) {
    if (events.note) events.note(m);
  };
  auto stopped = [&] { return options.stop && options.stop->load(); };
  std::unique_ptr<RemoteService> remote;
  if (!blueprint.service.url.empty()) remote = std::make_unique<RemoteService>(blueprint.service);
  while (!stopped()) {
    ++summary.cycles;
    if (remote) remote->forget();  // a Service may have reloaded its rules since the last poll
    evidence::ConnectorReport contextReport;
    auto contexts = blueprint.context->discover(&contextReport);
    if (contextReport.status == evidence::ConnectorReport::Status::Error) {
      note(fmt::format("{}: {}", blueprint.contextKind, contextReport.reason));
      if (!options.watch) ++summary.failed;
    } else if (contextReport.status == evidence::ConnectorReport::Status::Partial) {
      note(fmt::format("{}: {}", blueprint.contextKind, contextReport.reason));
    }
    summary.found += contexts.size();
    size_t done = 0;
    for (const auto& context : contexts) {
      if (stopped()) break;
      const std::string& id = context.workload.id;
      // The rule set that judges: ours, or the remote Service's (the watch state is keyed by it).
      std::string digest = engine.bundle().digest, error;
      RemoteRuleset rules;
      if (remote && !remote->ruleset(&rules, &error)) {
        // Recorded as this workload's failure; nothing is stored, so a watch retries it.
        note(fmt::format("{}: service: {}", id, error));
        ++summary.failed;
      } else if (state && state->contains(id, remote ? rules.digest : digest)) {
        ++summary.skipped;
      } else {
        connectors::SourceEvidence found;
        for (auto& source : blueprint.sources) source->collect(context, &found);
        found.reports.insert(found.reports.begin(), contextReport);
        runtime::Verdict verdict;
        if (!remote) {
          verdict = engine.diagnose(connectors::assembleEvidence(context, std::move(found)));
        } else if (!remote->attribute(context, found, &verdict, &error)) {
          note(fmt::format("{}: service: {}", id, error));
          ++summary.failed;
          if (events.progress) events.progress(++done, contexts.size());
          continue;
        }
        bool stored = true;
        for (auto& sink : sinks) {
          std::string error;
          if (!sink->write(verdict, &error)) {
            note(fmt::format("{}: {}", id, error));
            stored = false;
          }
        }
        if (stored) {
          ++summary.attributed;
          note(fmt::format("{}: {} [{}] {:.2f}", id, verdict.outcomes.empty() ? "unknown" : verdict.outcomes[0].name,
                           verdict.outcomes.empty() ? "unknown" : verdict.outcomes[0].family, verdict.confidence));
        } else {
          ++summary.failed;
        }
      }
      if (events.progress) events.progress(++done, contexts.size());
    }
    if (!options.watch || (options.maxCycles > 0 && static_cast<int>(summary.cycles) >= options.maxCycles)) break;
    for (int64_t waited = 0; waited < blueprint.intervalSeconds * 10 && !stopped(); ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return summary;
}

}  // namespace attrib::orchestrator
