#include "service/recovery_adapter.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "ir/civil_time.h"
#include "wire/observations.h"

namespace attrib::service {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// What the sources of one session have delivered. `slots[i]` is source i's evidence once it
// has answered; `threads` run the sources still working.
struct RecoveryAdapter::Collection {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<std::optional<CollectedEvidence>> slots;
  std::vector<int64_t> elapsedMs;
  size_t pending = 0;
  Clock::time_point started = Clock::now();
  std::vector<std::thread> threads;

  void join() {
    for (auto& t : threads) {
      if (t.joinable()) t.join();
    }
  }
};

namespace {

constexpr int64_t kMinute = 60'000'000'000;
constexpr int64_t kDefaultLookback = 30 * kMinute;  // no scope.start_time: the window's opening

// Session ids are the store's: 32 hex digits.
bool looksLikeSession(const std::string& id) {
  return id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The context the sources narrow to and the rules read: the scope's nodes and window. Its end:
// scope.end_time, else the job's end, else when the failure was detected.
evidence::Workload workloadOf(const WorkloadAttributionRequest& r) {
  evidence::Workload w;
  w.id = r.workloadId;
  w.scheduler = "nvidia-recovery";
  w.user = r.userId;
  w.nodes = r.nodes;
  w.end = r.end ? *r.end : r.jobEndTime ? *r.jobEndTime : r.detectedAt;
  w.start = r.start ? *r.start : *w.end - kDefaultLookback;  // start <= end: parseRecoveryRequest checked
  return w;
}

// Keeps what belongs to a node of the scope (or to no node in particular); returns how much went.
size_t narrowToNodes(CollectedEvidence* e, const std::set<std::string>& nodes) {
  size_t before = e->files.size() + e->lines.size() + e->metrics.size();
  auto outside = [&](const std::string& node) { return !node.empty() && !nodes.count(node); };
  std::erase_if(e->files, [&](const evidence::LogFile& f) { return outside(f.node); });
  std::erase_if(e->lines, [&](const evidence::LogLine& l) { return outside(l.node); });
  std::erase_if(e->metrics, [&](const evidence::MetricSample& m) { return outside(m.node); });
  return before - (e->files.size() + e->lines.size() + e->metrics.size());
}

}  // namespace

RecoveryAdapter::RecoveryAdapter(RecoveryOptions options) : options_(std::move(options)) {}

RecoveryAdapter::~RecoveryAdapter() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, c] : collections_) c->join();
  for (auto& c : retired_) c->join();
}

// Collections of sessions the store has forgotten (expired) go; their threads are joined once
// they are done, so that reaping never waits for a source.
void RecoveryAdapter::reap() {
  for (auto it = collections_.begin(); it != collections_.end();) {
    std::string workloadId, verdict;
    SessionCounts counts;
    if (options_.store->describe(it->first, &workloadId, &counts, &verdict).status == 404) {
      retired_.push_back(it->second);
      it = collections_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(retired_, [](const std::shared_ptr<Collection>& c) {
    {
      std::lock_guard<std::mutex> lock(c->mu);
      if (c->pending > 0) return false;
    }
    c->join();
    return true;
  });
}

std::shared_ptr<RecoveryAdapter::Collection> RecoveryAdapter::collectionFor(const std::string& session, const evidence::Workload& workload) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = collections_.find(session); it != collections_.end()) return it->second;
  if (collections_.size() >= options_.maxCollections) reap();
  if (collections_.size() >= options_.maxCollections) {
    throw Failure(429, fmt::format("{} sessions are collecting evidence already; retry later", collections_.size()),
                  {{"Retry-After", "5"}});
  }
  auto c = std::make_shared<Collection>();
  size_t n = options_.collector ? options_.collector->sources() : 0;
  c->slots.resize(n);
  c->elapsedMs.resize(n, 0);
  c->pending = n;
  for (size_t i = 0; i < n; ++i) {
    c->threads.emplace_back([c, collector = options_.collector, i, workload] {
      CollectedEvidence found;
      auto began = Clock::now();
      try {
        collector->collect(i, workload, &found);
      } catch (...) {
        // The contract says never; a source that breaks it is an error report, not a crash.
        found = {};
        found.reports.push_back({collector->sourceName(i), "collect", evidence::ConnectorReport::Status::Error, 0, 0,
                                 "the source failed unexpectedly", 0, {}});
      }
      std::lock_guard<std::mutex> l(c->mu);
      c->elapsedMs[i] = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count();
      c->slots[i] = std::move(found);
      --c->pending;
      c->changed.notify_all();
    });
  }
  collections_[session] = c;
  return c;
}

httpd::Response RecoveryAdapter::attribution(const Call& call) {
  auto began = Clock::now();
  WorkloadAttributionRequest r = parseRecoveryRequest(call.request.body, options_.limits);
  evidence::Workload workload = workloadOf(r);
  json notes = json::array();
  if (r.timeoutClamped) notes.push_back(fmt::format("timeout_ms was clamped to {} ms", options_.limits.maxTimeoutMs));
  if (!r.ignoredFields.empty()) notes.push_back(fmt::format("not read (unknown to this Service): {}", fmt::join(r.ignoredFields, ", ")));
  if (!r.start) notes.push_back("no scope.start_time: the evidence window opens 30 minutes before its end");

  // The session: continued, or a new one.
  std::string session;
  if (r.continueSession) {
    session = *r.continueSession;
    std::string workloadId, verdict;
    SessionCounts counts;
    if (!looksLikeSession(session) || options_.store->describe(session, &workloadId, &counts, &verdict).status == 404) {
      throw Failure(404, "'continue_session' names no session (it may have expired); start again with a fast pass without it");
    }
  } else {
    StoreStatus s = options_.store->create(workload, &session);
    if (!s) throw Failure(s.status, s.message, s.status == 429 || s.status == 507 ? std::vector<httpd::Header>{{"Retry-After", "5"}}
                                                                                : std::vector<httpd::Header>{});
  }
  std::shared_ptr<Collection> collection = collectionFor(session, workload);

  // Wait for the sources until the deadline, keeping a reserve for attributing (a fifth of the
  // timeout, at most 250 ms), then take what has been delivered.
  auto timeout = std::chrono::milliseconds(r.timeoutMs);
  auto reserve = std::min<std::chrono::milliseconds>(timeout / 5, std::chrono::milliseconds(250));
  auto deadline = began + timeout - reserve;
  evidence::WorkloadEvidence evidence;
  json sources = json::array();
  size_t outside = 0;
  std::set<std::string> scopeNodes(r.nodes.begin(), r.nodes.end());
  bool complete = true;
  {
    std::unique_lock<std::mutex> lock(collection->mu);
    collection->changed.wait_until(lock, deadline, [&] { return collection->pending == 0; });
    for (size_t i = 0; i < collection->slots.size(); ++i) {
      std::string name = options_.collector->sourceName(i);
      if (!collection->slots[i]) {
        complete = false;
        int64_t waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - collection->started).count();
        evidence.reports.push_back({name, "collect", evidence::ConnectorReport::Status::Partial, 0, 0,
                                    fmt::format("no answer yet after {} ms (the pass's timeout_ms is {}); a pass that "
                                                "continues the session gets what it delivers",
                                                waited, r.timeoutMs),
                                    waited, {}});
        sources.push_back({{"name", name}, {"status", "pending"}, {"elapsed_ms", waited}});
        continue;
      }
      CollectedEvidence part = *collection->slots[i];  // a copy: the session keeps its own
      outside += narrowToNodes(&part, scopeNodes);
      sources.push_back({{"name", name}, {"status", "delivered"}, {"elapsed_ms", collection->elapsedMs[i]}});
      std::move(part.files.begin(), part.files.end(), std::back_inserter(evidence.logs));
      std::move(part.lines.begin(), part.lines.end(), std::back_inserter(evidence.lines));
      std::move(part.metrics.begin(), part.metrics.end(), std::back_inserter(evidence.metrics));
      std::move(part.reports.begin(), part.reports.end(), std::back_inserter(evidence.reports));
    }
  }
  if (!options_.collector) notes.push_back("no evidence sources are configured (attrib serve --sources): only evidence posted to the session is read");
  if (outside > 0) notes.push_back(fmt::format("{} files, lines or samples of nodes outside the scope were left out", outside));

  // What clients posted to the session joins what the sources found.
  evidence::Workload stored;
  wire::Observations posted;
  std::shared_ptr<void> hold;
  StoreStatus s = options_.store->snapshot(session, &stored, &posted, &hold);
  if (s.status == 404) throw Failure(404, "'continue_session' names no session (it may have expired)");
  if (!s) throw Failure(s.status, s.message);
  evidence.workload = r.continueSession ? stored : workload;
  for (auto& f : wire::logFiles(posted)) evidence.logs.push_back(std::move(f));
  std::move(posted.lines.begin(), posted.lines.end(), std::back_inserter(evidence.lines));
  std::move(posted.metrics.begin(), posted.metrics.end(), std::back_inserter(evidence.metrics));
  std::move(posted.reports.begin(), posted.reports.end(), std::back_inserter(evidence.reports));
  runtime::Verdict verdict = options_.diagnose(std::move(evidence));
  hold.reset();
  std::string verdictJson = runtime::toJson(verdict);
  options_.store->setVerdict(session, verdictJson);

  // A STRAGGLER signal: the straggler rules' findings, apart (every rule ran; see docs).
  json focus = nullptr;
  if (isStragglerSignal(r.detectionSignal)) {
    const std::string prefix = "perf.straggler.";
    json outcomes = json::array(), counts = json::object();
    for (const auto& o : verdict.outcomes) {
      if (o.name.rfind(prefix, 0) == 0) outcomes.push_back({{"name", o.name}, {"family", o.family}, {"title", o.title}, {"confidence", o.confidence}});
    }
    for (const auto& [name, n] : verdict.symptomCounts) {
      if (name.rfind(prefix, 0) == 0) counts[name] = n;
    }
    bool loaded = !options_.hasRules || options_.hasRules(prefix);
    focus = {{"rules", "perf.straggler"}, {"loaded", loaded}, {"found", !outcomes.empty()}, {"outcomes", outcomes}, {"symptom_counts", counts}};
    if (!loaded) notes.push_back("a STRAGGLER signal, but the loaded rule set has no perf.straggler rules");
  }

  json out = {{"schema_version", r.schemaVersion},
              {"workload_id", r.workloadId},
              {"phase", r.phase == WorkloadAttributionRequest::Phase::Fast ? "fast" : "slow"},
              {"session_id", session},
              {"complete", complete},
              {"timeout_ms", r.timeoutMs},
              {"detection_signal", r.detectionSignal},
              {"signal_focus", focus},
              {"evidence", {{"sources", sources}}},
              {"notes", notes},
              {"elapsed_ms", std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count()}};
  httpd::Response response;
  response.body = out.dump(-1, ' ', false, json::error_handler_t::replace);
  // The verdict is the Service's own JSON: spliced in as it is.
  response.body.pop_back();
  response.body += ",\"verdict\":" + verdictJson + "}";
  return response;
}

}  // namespace attrib::service
