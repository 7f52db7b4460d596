// postgres_bench: PostgreSQL against its baselines, side by side as ratios, on a real
// PostgreSQL 15 started for the run (tests/pg/postgres_server.h, with PostgreSQL's own durable
// settings: fsync on, synchronous_commit on).
//
//   verdict writes/s   the PostgreSQL sink (one writer, and four at once) against the SQLite sink
//                      (one writer, WAL, synchronous=NORMAL: SQLite does not fsync each commit,
//                      PostgreSQL does), on the sinks' test verdicts
//   session requests/s through Service::call (no HTTP): create, append four log lines, describe,
//                      attribute, with the PostgreSQL store against the memory store
//
//   postgres_bench [--verdicts N] [--sessions N]
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "service/postgres_session_store.h"
#include "service/service.h"
#include "sinks/postgres_sink.h"
#include "sinks/sqlite_sink.h"
#include "tests/pg/postgres_server.h"
#include "tests/runtime/engine_util.h"
#include "tests/sinks/verdicts.h"

namespace {

using namespace attrib;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

void row(const char* what, double value, double baseline, const char* baselineName) {
  std::printf("%-34s %10.0f /s   %-22s %10.0f /s   ratio %.2fx\n", what, value, baselineName, baseline, value / baseline);
}

template <typename Sink>
double writes(Sink& sink, int n, int offset) {
  std::string error;
  auto start = Clock::now();
  for (int i = 0; i < n; ++i) {
    if (!sink.write(sinks::testVerdict(offset + i), &error)) {
      std::fprintf(stderr, "postgres_bench: %s\n", error.c_str());
      std::exit(1);
    }
  }
  return n / seconds(start);
}

const char* kWorkload = R"({"id": "slurm/77", "scheduler": "slurm", "state": "FAILED", "exit_code": 1,
  "start": "2026-11-29T10:00:00Z", "end": "2026-11-29T11:00:00Z", "nodes": ["gpu-01", "gpu-02", "gpu-07"]})";

std::string lines(int i) {
  std::string out;
  for (int rank = 0; rank < 4; ++rank) {
    out += nlohmann::json{{"node", rank < 2 ? "gpu-01" : "gpu-02"}, {"rank", rank}, {"time", "2026-11-29T10:52:00Z"},
                          {"text", "[rank" + std::to_string(rank) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" +
                                       std::to_string(i) + ", OpType=ALLREDUCE) ran for 600250 milliseconds before timing out."}}
               .dump() +
           "\n";
  }
  return out;
}

struct Rates {
  double create = 0, append = 0, describe = 0, attribute = 0;
};

Rates sessionRates(service::Service& s, int n) {
  Rates r;
  std::vector<std::string> ids;
  auto t = Clock::now();
  for (int i = 0; i < n; ++i) {
    httpd::Response c = s.call("POST", "/v1/sessions", kWorkload);
    if (c.status != 201) std::fprintf(stderr, "postgres_bench: create: %s\n", c.body.c_str()), std::exit(1);
    ids.push_back(nlohmann::json::parse(c.body)["id"]);
  }
  r.create = n / seconds(t);
  t = Clock::now();
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < n; ++i) {
      if (s.call("POST", "/v1/sessions/" + ids[i] + "/observations", lines(k)).status != 200) std::exit(1);
    }
  }
  r.append = 4 * n / seconds(t);
  t = Clock::now();
  for (int i = 0; i < n; ++i) {
    if (s.call("GET", "/v1/sessions/" + ids[i], "").status != 200) std::exit(1);
  }
  r.describe = n / seconds(t);
  t = Clock::now();
  for (int i = 0; i < n; ++i) {
    if (s.call("POST", "/v1/sessions/" + ids[i] + "/attribute", "").status != 200) std::exit(1);
  }
  r.attribute = n / seconds(t);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int verdicts = 500, sessions = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--verdicts")) verdicts = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--sessions")) sessions = std::atoi(argv[i + 1]);
  }
  attrib::testing::PostgresServer server;
  std::string why = server.start(/*durable=*/true);
  if (!why.empty()) {
    std::fprintf(stderr, "postgres_bench: %s\n", why.c_str());
    return 1;
  }
  std::string db = "bench";
  if (!(why = server.createDatabase(db)).empty()) return std::fprintf(stderr, "postgres_bench: %s\n", why.c_str()), 1;
  std::string error;

  auto dir = std::filesystem::temp_directory_path() / ("attrib-pg-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto sqlite = sinks::SqliteSink::open((dir / "verdicts.db").string(), &error);
  auto pg = sinks::PostgresSink::open(server.url(db), &error);
  if (!sqlite || !pg) return std::fprintf(stderr, "postgres_bench: %s\n", error.c_str()), 1;
  writes(*sqlite, 50, 1'000'000);  // warm both
  writes(*pg, 50, 1'000'000);
  double sqliteRate = writes(*sqlite, verdicts, 0);
  double pgRate = writes(*pg, verdicts, 0);
  double rewrite = writes(*pg, verdicts, 0);  // the same keys again: replace
  std::vector<std::thread> writers;
  std::vector<double> each(4);
  auto t = Clock::now();
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      std::string e;
      auto sink = sinks::PostgresSink::open(server.url(db), &e);
      each[w] = writes(*sink, verdicts, 10'000 * (w + 1));
    });
  }
  for (auto& th : writers) th.join();
  double four = 4 * verdicts / seconds(t);
  std::filesystem::remove_all(dir);
  std::printf("verdict writes (%d verdicts each)\n", verdicts);
  row("postgres sink, 1 writer", pgRate, sqliteRate, "sqlite sink");
  row("postgres sink, 1 writer, replacing", rewrite, sqliteRate, "sqlite sink");
  row("postgres sink, 4 writers at once", four, sqliteRate, "sqlite sink");

  auto engine = attrib::testing::stdlibEngine();
  service::ServiceOptions memoryOptions;
  service::Service memory(engine, memoryOptions);
  service::ServiceOptions pgOptions;
  pgOptions.store = service::PostgresSessionStore::open(server.url(db), {}, &error, 2);
  if (!pgOptions.store) return std::fprintf(stderr, "postgres_bench: %s\n", error.c_str()), 1;
  service::Service shared(engine, pgOptions);
  sessionRates(memory, 10);  // warm
  sessionRates(shared, 10);
  Rates m = sessionRates(memory, sessions), p = sessionRates(shared, sessions);
  std::printf("session requests (%d sessions, one client, Service::call)\n", sessions);
  row("postgres store: create", p.create, m.create, "memory store");
  row("postgres store: append 4 lines", p.append, m.append, "memory store");
  row("postgres store: describe", p.describe, m.describe, "memory store");
  row("postgres store: attribute", p.attribute, m.attribute, "memory store");
  return 0;
}
