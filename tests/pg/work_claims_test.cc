// Work claims in PostgreSQL (sinks/postgres_claims.h) against a real PostgreSQL 15: two workers
// attribute every workload once; a worker SIGKILLed while it holds claims keeps them while it
// lives (its lease is renewed) and loses them to another once its lease runs out; a holder whose
// claim was taken over is refused and stores nothing (fencing); an unreachable server, a wrong
// password and a newer claims schema are one-line errors without the password.
#include "sinks/postgres_claims.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "pg/connection.h"
#include "tests/connectors/loopback.h"
#include "tests/pg/postgres_fixture.h"
#include "tests/sinks/verdicts.h"

namespace attrib::sinks {
namespace {

using namespace std::chrono_literals;

constexpr const char* kDigest = "sha256:rules-a";

// testVerdict(i)'s workload id is slurm/<1000 + i>.
int indexOf(const std::string& id) { return std::stoi(id.substr(id.find('/') + 1)) - 1000; }

class WorkClaimsTest : public testing::PostgresTest {
 protected:
  WorkClaimsTest() : PostgresTest("claims") {}

  int64_t scalar(const std::string& sql) {
    pg::Error e;
    auto c = pg::Connection::open(url(), &e);
    EXPECT_TRUE(c) << e.message;
    if (!c) return -1;
    pg::Result r = c->exec(sql);
    EXPECT_TRUE(r.ok()) << r.error().message << ": " << sql;
    return r.ok() && r.rows() ? r.integer(0, 0) : -1;
  }

  struct Worker {
    std::unique_ptr<PostgresSink> sink;
    std::unique_ptr<PostgresClaims> claims;
  };
  Worker worker(const std::string& name, std::chrono::milliseconds lease = 60s, bool renew = true) {
    Worker w;
    std::string error;
    w.sink = PostgresSink::open(url(), &error);
    EXPECT_TRUE(w.sink) << error;
    if (!w.sink) return w;
    ClaimOptions o;
    o.worker = name;
    o.lease = lease;
    o.renew = renew;
    w.claims = PostgresClaims::open(url(), *w.sink, o, &error);
    EXPECT_TRUE(w.claims) << error;
    return w;
  }

  static std::vector<std::string> ids(int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back(testVerdict(i).workload.id);
    return out;
  }

};

// The runner's loop, reduced: pending, then claims of `batch` at a time, each completed.
size_t attributeAll(WorkClaims& claims, const std::vector<std::string>& all, size_t batch, std::string* error) {
  std::vector<std::string> todo;
  if (!claims.pending(all, kDigest, &todo, error)) return 0;
  size_t done = 0;
  for (size_t at = 0; at < todo.size(); at += batch) {
    std::vector<std::string> candidates(todo.begin() + at, todo.begin() + std::min(todo.size(), at + batch));
    std::vector<Claim> held;
    if (!claims.claim(candidates, kDigest, &held, error)) return done;
    for (const Claim& c : held) {
      if (!claims.complete(testVerdict(indexOf(c.workloadId)), c, error)) return done;
      ++done;
    }
  }
  return done;
}

TEST_F(WorkClaimsTest, TwoWorkersAttributeEveryWorkloadExactlyOnce) {
  constexpr int kN = 300;
  Worker a = worker("a"), b = worker("b");
  ASSERT_TRUE(a.claims && b.claims);
  std::atomic<size_t> doneA{0}, doneB{0};
  std::string errorA, errorB;
  std::thread ta([&] { doneA = attributeAll(*a.claims, ids(kN), 4, &errorA); });
  std::thread tb([&] { doneB = attributeAll(*b.claims, ids(kN), 4, &errorB); });
  ta.join();
  tb.join();
  EXPECT_EQ(errorA, "");
  EXPECT_EQ(errorB, "");
  EXPECT_EQ(doneA + doneB, static_cast<size_t>(kN));
  EXPECT_GT(doneA, 0u) << "both workers share the work";
  EXPECT_GT(doneB, 0u) << "both workers share the work";
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), kN);
  EXPECT_EQ(scalar("SELECT count(*) FROM work_claims WHERE state = 'done' AND attributions = 1 AND claims = 1"), kN);
  EXPECT_EQ(scalar("SELECT count(*) FROM work_claims WHERE owner = 'a'"), static_cast<int64_t>(doneA));
  // A second pass finds nothing to do.
  std::vector<std::string> todo;
  std::string error;
  ASSERT_TRUE(a.claims->pending(ids(kN), kDigest, &todo, &error)) << error;
  EXPECT_TRUE(todo.empty());
}

TEST_F(WorkClaimsTest, AKilledWorkersClaimsAreTakenOverAfterItsLease) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The doomed worker: claims 8 with a 1 s lease its thread renews, says so, and waits.
    ::close(ready[0]);
    std::string error;
    auto sink = PostgresSink::open(url(), &error);
    if (!sink) ::_exit(3);
    ClaimOptions o;
    o.worker = "doomed";
    o.lease = 1s;
    auto claims = PostgresClaims::open(url(), *sink, o, &error);
    std::vector<std::string> todo;
    std::vector<Claim> held;
    if (!claims || !claims->pending(ids(8), kDigest, &todo, &error) || !claims->claim(todo, kDigest, &held, &error) ||
        held.size() != 8) {
      ::_exit(4);
    }
    if (::write(ready[1], "c", 1) != 1) ::_exit(5);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1) << "the child claimed its batch";
  ::close(ready[0]);
  Worker b = worker("b", 1s);
  ASSERT_TRUE(b.claims);
  std::vector<Claim> held;
  std::string error;
  // Past its first lease: the live worker renewed it, nothing is free.
  std::this_thread::sleep_for(1800ms);
  ASSERT_TRUE(b.claims->claim(ids(8), kDigest, &held, &error)) << error;
  EXPECT_TRUE(held.empty()) << "a live worker's claims are renewed, never taken";
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_TRUE(b.claims->claim(ids(8), kDigest, &held, &error)) << error;
  EXPECT_TRUE(held.empty()) << "the dead worker's lease has not run out yet";
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (held.size() < 8 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
    std::vector<Claim> more;
    ASSERT_TRUE(b.claims->claim(ids(8), kDigest, &more, &error)) << error;
    held.insert(held.end(), more.begin(), more.end());
  }
  ASSERT_EQ(held.size(), 8u) << "every claim of the killed worker is taken over";
  for (const Claim& claim : held) ASSERT_TRUE(b.claims->complete(testVerdict(indexOf(claim.workloadId)), claim, &error)) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM work_claims WHERE state = 'done' AND owner = 'b' AND claims = 2 AND attributions = 1"), 8);
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 8);
}

TEST_F(WorkClaimsTest, AHolderWhoseClaimWasTakenOverIsRefusedAndStoresNothing) {
  Worker slow = worker("slow", 200ms, /*renew=*/false), fast = worker("fast", 60s);
  ASSERT_TRUE(slow.claims && fast.claims);
  std::vector<std::string> todo;
  std::vector<Claim> mine, theirs;
  std::string error;
  ASSERT_TRUE(slow.claims->pending(ids(1), kDigest, &todo, &error)) << error;
  ASSERT_TRUE(slow.claims->claim(todo, kDigest, &mine, &error)) << error;
  ASSERT_EQ(mine.size(), 1u);
  std::this_thread::sleep_for(300ms);  // the slow worker's lease runs out, unrenewed
  ASSERT_TRUE(fast.claims->claim(todo, kDigest, &theirs, &error)) << error;
  ASSERT_EQ(theirs.size(), 1u) << "an expired lease is taken over";
  EXPECT_NE(theirs[0].fence, mine[0].fence);

  EXPECT_FALSE(slow.claims->complete(testVerdict(0), mine[0], &error));
  EXPECT_NE(error.find("this worker's claim was taken over by another"), std::string::npos) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 0) << "the refused verdict is not stored, not even in part";
  EXPECT_EQ(scalar("SELECT count(*) FROM workloads"), 0);
  slow.claims->release(mine[0]);  // gives back nothing: the claim is not its own
  EXPECT_EQ(scalar("SELECT count(*) FROM work_claims WHERE state = 'claimed' AND owner = 'fast'"), 1);

  ASSERT_TRUE(fast.claims->complete(testVerdict(0), theirs[0], &error)) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM verdicts"), 1);
  EXPECT_EQ(scalar("SELECT attributions FROM work_claims"), 1);
  // Completed: a late completion of either claim is refused too.
  EXPECT_FALSE(fast.claims->complete(testVerdict(0), theirs[0], &error));
  EXPECT_EQ(scalar("SELECT attributions FROM work_claims"), 1);
}

TEST_F(WorkClaimsTest, AReleasedClaimIsFreeAtOnceAndStoredVerdictsAreNotPending) {
  Worker a = worker("a"), b = worker("b");
  ASSERT_TRUE(a.claims && b.claims);
  std::string error;
  ASSERT_TRUE(a.sink->write(testVerdict(1), &error)) << error;  // stored by a writer that takes no claims
  std::vector<std::string> todo;
  ASSERT_TRUE(a.claims->pending(ids(3), kDigest, &todo, &error)) << error;
  EXPECT_EQ(todo, (std::vector<std::string>{ids(3)[0], ids(3)[2]}));
  std::vector<Claim> held;
  ASSERT_TRUE(a.claims->claim(todo, kDigest, &held, &error)) << error;
  ASSERT_EQ(held.size(), 2u);
  a.claims->release(held[0]);
  std::vector<Claim> got;
  ASSERT_TRUE(b.claims->claim(todo, kDigest, &got, &error)) << error;
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].workloadId, held[0].workloadId);
  // Another rule set is other work.
  ASSERT_TRUE(b.claims->pending(ids(3), "sha256:rules-b", &todo, &error)) << error;
  EXPECT_EQ(todo.size(), 3u);
}

TEST_F(WorkClaimsTest, BadServersAndANewerSchemaAreOneLineErrorsWithoutThePassword) {
  std::string error;
  auto sink = PostgresSink::open(url(), &error);
  ASSERT_TRUE(sink) << error;
  std::string secret = server_->password();
  ClaimOptions o;
  o.worker = "w";
  std::string closed = "postgresql://attrib_admin:" + secret + "@127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/x";
  EXPECT_FALSE(PostgresClaims::open(closed, *sink, o, &error));
  EXPECT_NE(error.find("the work claims: "), std::string::npos) << error;
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;

  std::string wrong = "postgresql://attrib_admin:not-" + secret + "@127.0.0.1:" + std::to_string(server_->port()) + "/" + db_;
  EXPECT_FALSE(PostgresClaims::open(wrong, *sink, o, &error));
  EXPECT_NE(error.find("password authentication failed"), std::string::npos) << error;
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;

  o.worker = "";
  EXPECT_FALSE(PostgresClaims::open(url(), *sink, o, &error));
  EXPECT_EQ(error, "the work claims need a worker name");

  o.worker = "w";
  ASSERT_TRUE(PostgresClaims::open(url(), *sink, o, &error)) << error;
  scalar("INSERT INTO work_claims_version VALUES (99) RETURNING version");
  EXPECT_FALSE(PostgresClaims::open(url(), *sink, o, &error));
  EXPECT_NE(error.find("claims schema version 99 is newer than this attrib's 1; use a newer attrib"), std::string::npos) << error;
  EXPECT_EQ(error.find(secret), std::string::npos) << error;
  EXPECT_EQ(scalar("SELECT count(*) FROM work_claims_version"), 2) << "nothing was changed";
}

}  // namespace
}  // namespace attrib::sinks
