// The work-sharing soak at CI size (ATTRIB_SOAK_WORKLOADS, default 1,000; bench/soak runs
// 20,000): 3 `attrib serve --sessions postgres:` replicas behind a round-robin proxy and 2
// `attrib run --watch` workers on one PostgreSQL, one replica and one worker SIGKILLed half way
// (tests/pg/soak.h). Every workload is attributed exactly once, every attributing session holds
// all of its evidence, none is lost.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/pg/soak.h"

namespace attrib::testing {
namespace {

TEST(Soak, ThreeReplicasTwoWorkers_RoundRobinProxy) {
  std::string why;
  PostgresServer& server = sharedPostgres(&why);
  if (server.missing()) GTEST_SKIP() << why;
  ASSERT_EQ(why, "");
  std::string db = "soak";
  ASSERT_EQ(server.createDatabase(db), "");
  SoakOptions o;
  if (const char* n = std::getenv("ATTRIB_SOAK_WORKLOADS")) o.workloads = std::atoi(n);
  ASSERT_GE(o.workloads, 10);
  char tmpl[] = "/tmp/attrib-soak-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  std::filesystem::path dir = tmpl;
  SoakResult r = runSoak(server, db, dir, ATTRIB_PATH, ATTRIB_JIT_CACHE, o);
  ASSERT_EQ(r.failure, "") << readAll(dir / "worker1.log").substr(0, 4000);
  const int64_t n = o.workloads;
  EXPECT_NE(r.killedAt, "") << "the kill came half way";
  EXPECT_EQ(r.claimRows, n);
  EXPECT_EQ(r.done, n) << "every workload attributed";
  EXPECT_EQ(r.attributions, n) << "and each once";
  EXPECT_EQ(r.maxAttributions, 1);
  EXPECT_EQ(r.verdicts, n);
  EXPECT_EQ(r.rootCauses, n) << "every verdict found its evidence";
  EXPECT_EQ(r.printedTwice, 0u) << "no worker printed a workload twice";
  EXPECT_LE(r.printed, static_cast<size_t>(n));
  EXPECT_GE(r.printed + 8, static_cast<size_t>(n)) << "only the killed worker's last batch may be stored unprinted";
  EXPECT_EQ(r.workloadsWithSession, n) << "every workload went through a session";
  EXPECT_EQ(r.sessionsIncomplete, 0) << "every attributing session held all of its evidence";
  ASSERT_EQ(r.perReplica.size(), 3u);
  for (uint64_t c : r.perReplica) EXPECT_GT(c, 0u) << "every replica served";
  std::printf("soak: %lld workloads in %.1f s: %.1f attributions/s, p50 %.0f ms, p99 %.0f ms; killed at %s; %lld taken over or "
              "retried; %lld sessions attributed; replicas served %llu/%llu/%llu connections\n",
              static_cast<long long>(n), r.seconds, r.perSecond, r.p50ms, r.p99ms, r.killedAt.c_str(),
              static_cast<long long>(r.takenOver), static_cast<long long>(r.sessionsAttributed),
              static_cast<unsigned long long>(r.perReplica[0]), static_cast<unsigned long long>(r.perReplica[1]),
              static_cast<unsigned long long>(r.perReplica[2]));
  std::error_code ec;
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace attrib::testing
