#include "orchestrator/runner.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>
#include <unordered_map>

#include "orchestrator/remote_service.h"

namespace attrib::orchestrator {

RunSummary runBlueprint(Blueprint& blueprint, const runtime::Engine& engine, std::vector<std::unique_ptr<sinks::Sink>>& sinks,
                        sinks::WorkClaims* claims, const RunOptions& options, const RunEvents& events) {
  RunSummary summary;
  auto note = [&](const std::string& m) {
    if (events.note) events.note(m);
  };
  auto stopped = [&] { return options.stop && options.stop->load(); };
  std::unique_ptr<RemoteService> remote;
  if (!blueprint.service.url.empty()) remote = std::make_unique<RemoteService>(blueprint.service);
  const size_t batch = std::max<size_t>(1, blueprint.watch.batch);
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
    auto progress = [&](size_t n) {
      done += n;
      if (events.progress && n > 0) events.progress(done, contexts.size());
    };
    // The rule set that judges: ours, or the remote Service's (the claims are keyed by it).
    std::string digest = engine.bundle().digest, error;
    RemoteRuleset rules;
    if (remote && !contexts.empty()) {
      if (!remote->ruleset(&rules, &error)) {
        // Every workload of this poll fails; nothing is claimed, so a watch retries them.
        for (const auto& context : contexts) note(fmt::format("{}: service: {}", context.workload.id, error));
        summary.failed += contexts.size();
        contexts.clear();
      } else {
        digest = rules.digest;
      }
    }
    std::unordered_map<std::string, size_t> byId;
    std::vector<std::string> ids;
    for (size_t i = 0; i < contexts.size(); ++i) {
      if (byId.emplace(contexts[i].workload.id, i).second) ids.push_back(contexts[i].workload.id);
    }
    std::vector<std::string> todo = ids;
    if (claims && !ids.empty()) {
      if (!claims->pending(ids, digest, &todo, &error)) {
        note(error);
        summary.failed += ids.size();
        todo.clear();
      } else {
        summary.skipped += ids.size() - todo.size();
        progress(ids.size() - todo.size());
      }
    }
    for (size_t at = 0; at < todo.size() && !stopped(); at += batch) {
      std::vector<std::string> candidates(todo.begin() + static_cast<std::ptrdiff_t>(at),
                                          todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), at + batch)));
      std::vector<sinks::Claim> held;
      if (!claims) {
        for (const auto& id : candidates) held.push_back({id, digest, 0});
      } else if (!claims->claim(candidates, digest, &held, &error)) {
        note(error);
        summary.failed += candidates.size();
        progress(candidates.size());
        continue;
      }
      summary.elsewhere += candidates.size() - held.size();
      progress(candidates.size() - held.size());
      for (size_t h = 0; h < held.size(); ++h) {
        const sinks::Claim& claim = held[h];
        if (stopped()) {  // what is held and not begun goes back at once
          for (size_t rest = h; rest < held.size() && claims; ++rest) claims->release(held[rest]);
          break;
        }
        const auto& context = contexts[byId.at(claim.workloadId)];
        const std::string& id = claim.workloadId;
        connectors::SourceEvidence found;
        for (auto& source : blueprint.sources) source->collect(context, &found);
        found.reports.insert(found.reports.begin(), contextReport);
        runtime::Verdict verdict;
        if (!remote) {
          verdict = engine.diagnose(connectors::assembleEvidence(context, std::move(found)));
        } else if (!remote->attribute(context, found, &verdict, &error)) {
          note(fmt::format("{}: service: {}", id, error));
          ++summary.failed;
          if (claims) claims->release(claim);  // the next poll (of any worker) retries it
          progress(1);
          continue;
        }
        // The state first: when it refuses (another worker holds the claim now), no other sink
        // sees the verdict either, so every sink has each attribution once.
        bool stored = true;
        if (claims && !claims->complete(verdict, claim, &error)) {
          note(fmt::format("{}: {}", id, error));
          claims->release(claim);
          stored = false;
        }
        for (auto& sink : sinks) {
          if (!stored) break;
          if (claims && sink.get() == claims->sink()) continue;
          if (!sink->write(verdict, &error)) {
            note(fmt::format("{}: {}", id, error));
            stored = false;
          }
        }
        if (stored) {
          ++summary.attributed;
          note(fmt::format("{}: {} [{}] {:.2f}", id, verdict.outcomes.empty() ? "unknown" : verdict.outcomes[0].name,
                           runtime::verdictFamily(verdict), verdict.confidence));
        } else {
          ++summary.failed;
        }
        progress(1);
      }
    }
    if (!options.watch || (options.maxCycles > 0 && static_cast<int>(summary.cycles) >= options.maxCycles)) break;
    for (int64_t waited = 0; waited < blueprint.intervalSeconds * 10 && !stopped(); ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return summary;
}

}  // namespace attrib::orchestrator
