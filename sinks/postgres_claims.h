// Work claims in PostgreSQL: several `attrib run --watch` workers on one context share the work
// through the database their PostgreSQL sink writes (docs/orchestrator.md, "Work sharing";
// docs/sinks.md has the table).
//
// - One row per (workload id, ruleset digest) in `work_claims`: state open | claimed | done, the
//   owner, its lease (the server's clock, so workers' clocks do not matter) and the fence, a
//   generation that grows at every claim.
// - claim(): `SELECT ... FOR UPDATE SKIP LOCKED` among the candidates that are open or whose
//   lease ran out, so two workers never wait for each other and never get the same row.
// - While this object lives, a thread renews the leases of everything its worker holds (every
//   third of the lease, on its own connection): a live worker keeps its claims however long an
//   attribution takes; a dead one (SIGKILL, a lost machine) stops renewing and its claims are
//   taken over once the lease ends.
// - complete(): the claim is marked done in the verdict's own transaction (PostgresSink::Guard),
//   only if the row still has this worker's owner and fence and is claimed; otherwise the whole
//   write is refused and nothing is stored. `attributions` counts completions: 1 per done row,
//   and anything more would be a double attribution.
// - Versioned apart from the sink's schema (`work_claims_version`, its own advisory lock): the
//   sink's history needs no claims, and a newer claims schema is refused.
// - Worker names must be unique among live workers (the default, host:pid, is).
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "sinks/postgres_sink.h"
#include "sinks/work_claims.h"

namespace attrib::sinks {

struct ClaimOptions {
  std::string worker;                        // this worker's name (required)
  std::chrono::milliseconds lease{60'000};   // how long a claim outlives its worker
  bool renew = true;                         // false: leases are not renewed (tests of expiry)
  int connectTimeoutSeconds = 5;
};

class PostgresClaims : public WorkClaims {
 public:
  // Connects (the sink's conninfo: the same database) and creates or migrates the claims table;
  // nullptr with a one-line `error` (never the password).
  static std::unique_ptr<PostgresClaims> open(const std::string& conninfo, PostgresSink& sink, const ClaimOptions& options,
                                              std::string* error);
  ~PostgresClaims() override;

  const Sink* sink() const override { return &sink_; }
  bool pending(const std::vector<std::string>& ids, const std::string& digest, std::vector<std::string>* out,
               std::string* error) override;
  bool claim(const std::vector<std::string>& candidates, const std::string& digest, std::vector<Claim>* out,
             std::string* error) override;
  bool complete(const runtime::Verdict& verdict, const Claim& claim, std::string* error) override;
  void release(const Claim& claim) override;

  static constexpr int kSchemaVersion = 1;

 private:
  PostgresClaims(std::unique_ptr<pg::Connection> db, std::unique_ptr<pg::Connection> renewer, PostgresSink& sink,
                 ClaimOptions options);
  bool ready(std::string* error);  // reconnects when the connection broke
  void renewLoop();

  std::unique_ptr<pg::Connection> db_, renewer_;
  PostgresSink& sink_;
  ClaimOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace attrib::sinks
