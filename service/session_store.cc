#include "service/session_store.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "service/random_id.h"

namespace attrib::service {
namespace {

using Clock = std::chrono::steady_clock;

// Heap bytes of a string beyond its inline buffer.
uint64_t heap(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; }
uint64_t provenance(const evidence::Provenance& p) { return heap(p.connector) + heap(p.location); }

class MemoryStore final : public SessionStore {
 public:
  explicit MemoryStore(SessionLimits limits) : limits_(limits) {}

  StoreStatus create(evidence::Workload workload, std::string* id) override {
    std::lock_guard<std::mutex> lock(mu_);
    expire();
    if (sessions_.size() >= limits_.maxSessions) {
      return {429, fmt::format("at most {} sessions; attribute or let old ones expire", limits_.maxSessions)};
    }
    uint64_t size = kSessionBytes + workloadBytes(workload);
    if (bytes_ + size > limits_.maxBytes) return full(size);
    std::string error;
    for (int attempt = 0;; ++attempt) {
      if (!randomId(id, &error)) return {500, error};
      if (!sessions_.count(*id)) break;  // 2^-128 per try; never twice
      if (attempt > 3) return {500, "no fresh session id"};
    }
    Session& s = sessions_[*id];
    s.workload = std::move(workload);
    s.bytes = size;
    s.used = Clock::now();
    bytes_ += size;
    return {};
  }

  StoreStatus append(const std::string& id, wire::Observations parsed, std::optional<evidence::Workload> context,
                     SessionCounts* counts, uint64_t* sequence) override {
    uint64_t added = footprint(parsed);  // outside the lock: it walks every record
    std::lock_guard<std::mutex> lock(mu_);
    Session* s = find(id);
    if (!s) return {404, "no such session (it may have expired)"};
    size_t total = s->observations.lines.size() + s->observations.metrics.size() + parsed.lines.size() + parsed.metrics.size();
    if (total > limits_.maxObservationsPerSession) {
      return {413, fmt::format("a session holds at most {} observations", limits_.maxObservationsPerSession)};
    }
    if (s->observations.fileBytes() + parsed.fileBytes() > limits_.maxSessionFileBytes) {
      return {413, fmt::format("a session holds at most {} bytes of files", limits_.maxSessionFileBytes)};
    }
    int64_t delta = static_cast<int64_t>(added) + (context ? static_cast<int64_t>(workloadBytes(*context)) -
                                                                 static_cast<int64_t>(workloadBytes(s->workload)) : 0);
    if (delta > 0 && bytes_ + static_cast<uint64_t>(delta) > limits_.maxBytes) return full(static_cast<uint64_t>(delta));
    std::string why;
    if (!wire::mergeObservations(&s->observations, std::move(parsed), &why)) return {400, why};
    if (context) {
      if (context->id.empty()) context->id = s->workload.id;
      s->workload = std::move(*context);
    }
    s->bytes = static_cast<uint64_t>(static_cast<int64_t>(s->bytes) + delta);
    bytes_ = static_cast<uint64_t>(static_cast<int64_t>(bytes_) + delta);
    s->used = Clock::now();
    *counts = countsOf(*s);
    *sequence = ++s->appends;
    return {};
  }

  StoreStatus snapshot(const std::string& id, evidence::Workload* workload, wire::Observations* observations,
                       std::shared_ptr<void>* hold) override {
    std::lock_guard<std::mutex> lock(mu_);
    Session* s = find(id);
    if (!s) return {404, "no such session (it may have expired)"};
    // The copy takes about what the session's evidence takes (file slices are shared, but the
    // scanner joins them into one buffer per file).
    uint64_t copy = s->bytes;
    if (bytes_ + copy > limits_.maxBytes) return full(copy);
    *workload = s->workload;
    *observations = s->observations;
    s->used = Clock::now();
    bytes_ += copy;
    // The hold gives the bytes back when the attribution is done; it shares the budget, so it
    // may outlive the store itself.
    auto budget = budget_;
    *hold = std::shared_ptr<void>(budget.get(), [budget, copy](void*) {
      std::lock_guard<std::mutex> l(budget->mu);
      budget->bytes -= copy;
    });
    return {};
  }

  void setVerdict(const std::string& id, std::string verdict) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    Session& s = it->second;
    bytes_ -= heap(s.verdict);
    s.bytes -= heap(s.verdict);
    s.verdict = std::move(verdict);
    bytes_ += heap(s.verdict);
    s.bytes += heap(s.verdict);
  }

  StoreStatus describe(const std::string& id, std::string* workloadId, SessionCounts* counts, std::string* verdict) override {
    std::lock_guard<std::mutex> lock(mu_);
    Session* s = find(id);
    if (!s) return {404, "no such session (it may have expired)"};
    *workloadId = s->workload.id;
    *counts = countsOf(*s);
    *verdict = s->verdict;
    return {};
  }

  size_t sessions() override {
    std::lock_guard<std::mutex> lock(mu_);
    expire();
    return sessions_.size();
  }

  uint64_t bytes() override {
    std::lock_guard<std::mutex> lock(mu_);
    return bytes_;
  }

 private:
  struct Session {
    evidence::Workload workload;
    wire::Observations observations;
    std::string verdict;
    Clock::time_point used;
    uint64_t appends = 0;
    uint64_t bytes = 0;  // what this session counts against maxBytes
  };
  static constexpr uint64_t kSessionBytes = sizeof(Session) + 64;  // the map node

  static uint64_t workloadBytes(const evidence::Workload& w) {
    uint64_t n = heap(w.id) + heap(w.scheduler) + heap(w.name) + heap(w.user) + heap(w.partition) + heap(w.reason);
    for (const auto& node : w.nodes) n += sizeof(std::string) + heap(node);
    return n;
  }
  static SessionCounts countsOf(const Session& s) {
    return {s.observations.lines.size(), s.observations.metrics.size(), s.observations.files.size(), s.observations.reports.size()};
  }
  StoreStatus full(uint64_t wanted) const {
    return {507, fmt::format("the sessions hold {} of the Service's {} bytes and this needs {} more; attribute and "
                             "let sessions expire, or retry later", bytes_, limits_.maxBytes, wanted)};
  }
  // With mu_ held.
  Session* find(const std::string& id) {
    expire();
    auto it = sessions_.find(id);
    return it == sessions_.end() ? nullptr : &it->second;
  }
  void expire() {
    auto now = Clock::now();
    if (now - lastExpiry_ < std::chrono::milliseconds(200)) return;  // a scan per request would be O(sessions)
    lastExpiry_ = now;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (now - it->second.used > limits_.ttl) {
        bytes_ -= it->second.bytes;
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }

  struct Budget {
    std::mutex mu;
    uint64_t bytes = 0;
  };
  SessionLimits limits_;
  std::shared_ptr<Budget> budget_ = std::make_shared<Budget>();
  std::mutex& mu_ = budget_->mu;
  uint64_t& bytes_ = budget_->bytes;  // guarded by mu_
  std::map<std::string, Session> sessions_;
  Clock::time_point lastExpiry_{};
};

}  // namespace

uint64_t footprint(const wire::Observations& o) {
  uint64_t n = 0;
  for (const auto& l : o.lines) n += sizeof(l) + heap(l.node) + heap(l.source) + heap(l.gpu) + heap(l.text) + provenance(l.where);
  for (const auto& m : o.metrics) {
    n += sizeof(m) + heap(m.name) + heap(m.node) + heap(m.gpu) + provenance(m.where);
    for (const auto& [k, v] : m.labels) n += sizeof(std::pair<std::string, std::string>) + heap(k) + heap(v);
  }
  for (const auto& f : o.files) n += sizeof(f) + f.size + heap(f.file.path) + heap(f.file.name) + heap(f.error);
  for (const auto& r : o.reports) n += sizeof(r) + heap(r.connector) + heap(r.source) + heap(r.reason);
  return n;
}

std::unique_ptr<SessionStore> memorySessionStore(SessionLimits limits) { return std::make_unique<MemoryStore>(limits); }

}  // namespace attrib::service
