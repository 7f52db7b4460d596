// The work-sharing soak at full size (bench/soak): tests/pg/soak.h with 20,000 workloads (or
// --workloads N) on a real PostgreSQL 15 it starts; prints attributions/s, p50 and p99 (claim
// to stored verdict), the time, and whether every check of the soak test held. --durable: the
// server with its own fsync settings (else fsync off, as in the tests).
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

#include "tests/pg/soak.h"

int main(int argc, char** argv) {
  attrib::testing::SoakOptions o;
  o.workloads = 20'000;
  o.budget = std::chrono::seconds(1800);
  std::string attrib = ATTRIB_PATH;
  bool durable = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--durable") == 0) durable = true;
    else if (i + 1 < argc && std::strcmp(argv[i], "--workloads") == 0) o.workloads = std::atoi(argv[++i]);
    else if (i + 1 < argc && std::strcmp(argv[i], "--attrib") == 0) attrib = argv[++i];
  }
  attrib::testing::PostgresServer server;
  if (std::string why = server.start(durable); !why.empty()) {
    fmt::print(stderr, "soak: {}\n", why);
    return 1;
  }
  std::string db = "soak";
  if (std::string why = server.createDatabase(db); !why.empty()) {
    fmt::print(stderr, "soak: {}\n", why);
    return 1;
  }
  char tmpl[] = "/tmp/attrib-soak-bench-XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  std::filesystem::path dir = tmpl;
  auto r = attrib::testing::runSoak(server, db, dir, attrib, ATTRIB_JIT_CACHE, o);
  const int64_t n = o.workloads;
  bool ok = r.failure.empty() && r.done == n && r.attributions == n && r.maxAttributions == 1 && r.verdicts == n &&
            r.rootCauses == n && r.printedTwice == 0 && r.workloadsWithSession == n && r.sessionsIncomplete == 0;
  fmt::print("soak: {} workloads, 3 replicas, 2 workers, one of each SIGKILLed at {}; PostgreSQL {}\n", n, r.killedAt,
             durable ? "durable (fsync on)" : "with fsync off (as the tests')");
  fmt::print("  {:.1f} s, {:.1f} attributions/s, claim to stored verdict p50 {:.0f} ms, p99 {:.0f} ms\n", r.seconds, r.perSecond,
             r.p50ms, r.p99ms);
  fmt::print("  done {} (attributions {}, most for one workload {}), verdicts {}, taken over or retried {}, printed twice {}\n",
             r.done, r.attributions, r.maxAttributions, r.verdicts, r.takenOver, r.printedTwice);
  fmt::print("  sessions attributed {}, incomplete {}, workloads with a session {}; replica connections {}\n",
             r.sessionsAttributed, r.sessionsIncomplete, r.workloadsWithSession, fmt::join(r.perReplica, "/"));
  fmt::print("  {}\n", ok ? "every check held" : "FAILED: " + (r.failure.empty() ? std::string("a check did not hold") : r.failure));
  std::error_code ec;
  if (ok) std::filesystem::remove_all(dir, ec);
  else fmt::print("  logs kept in {}\n", dir.string());
  return ok ? 0 : 1;
}
