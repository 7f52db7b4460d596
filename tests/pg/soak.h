// The work-sharing soak (issue 20 item 2), shared by tests/pg/soak_test.cc (CI size) and
// bench/soak (20,000 workloads): `replicas` real `attrib serve --sessions postgres:` processes
// behind a round-robin proxy, `workers` real `attrib run --watch` processes with a postgres sink
// on the same PostgreSQL, a fleet of small workloads whose evidence exceeds the body limit (so
// each goes through a session, its requests spread over the replicas), and one replica and one
// worker SIGKILLed when half the workloads are attributed. What it measures is what the test
// asserts: every workload done once, every attributing session complete, none lost.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pg/connection.h"
#include "tests/connectors/loopback.h"
#include "tests/pg/fleet.h"
#include "tests/pg/postgres_server.h"
#include "tests/pg/round_robin_proxy.h"

namespace attrib::testing {

struct SoakOptions {
  int workloads = 1000;
  int replicas = 3, workers = 2;
  uint64_t maxBody = 1024;                       // the workers' body limit: a few requests a session
  std::chrono::milliseconds lease{3000};         // a killed worker's claims are free this long after
  std::chrono::seconds budget{150};              // the whole soak, kill included
  bool kill = true;                              // one replica and one worker at half way
};

struct SoakResult {
  std::string failure;  // "" when it ran to the end (then the figures below are to be checked)
  double seconds = 0, perSecond = 0, p50ms = 0, p99ms = 0;
  int64_t verdicts = 0, rootCauses = 0;            // verdicts stored; with the Xid 79 root cause
  int64_t claimRows = 0, done = 0, attributions = 0, maxAttributions = 0, takenOver = 0;
  int64_t sessionsAttributed = 0, sessionsIncomplete = 0, workloadsWithSession = 0;
  size_t printed = 0, printedTwice = 0;            // the workers' "attrib run: ID: ..." lines
  std::vector<uint64_t> perReplica;                // connections the proxy gave each replica
  std::string killedAt;                            // what was done when the kill came
};

class SoakProcess {
 public:
  SoakProcess(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
              const std::filesystem::path& log) {
    pid_ = ::fork();
    if (pid_ == 0) {
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
  }
  ~SoakProcess() { stop(SIGKILL, std::chrono::seconds(0)); }
  // Sends `signal`; waits up to `grace`, then SIGKILL.
  void stop(int signal, std::chrono::milliseconds grace) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (::waitpid(pid_, nullptr, WNOHANG) != pid_) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
  }
  bool alive() const { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
};

inline bool acceptsConnections(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

inline std::string readAll(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs the soak in `dir` (a fresh directory) on `server`'s database `db` with the attrib binary
// `attrib` and its JIT cache `jitCache`.
inline SoakResult runSoak(PostgresServer& server, const std::string& db, const std::filesystem::path& dir, const std::string& attrib,
                          const std::string& jitCache, const SoakOptions& o) {
  namespace fs = std::filesystem;
  using clock = std::chrono::steady_clock;
  SoakResult result;
  writeFleet(dir, o.workloads);
  std::ofstream(dir / "pg.password") << server.password() << "\n";
  const std::string bare = "postgresql://attrib_admin@127.0.0.1:" + std::to_string(server.port()) + "/" + db;
  std::vector<std::pair<std::string, std::string>> env{{"ATTRIB_JIT_CACHE", jitCache}};

  std::vector<int> ports;
  std::vector<std::unique_ptr<SoakProcess>> replicas, workers;
  for (int r = 0; r < o.replicas; ++r) {
    ports.push_back(freeLoopbackPort());
    replicas.push_back(std::make_unique<SoakProcess>(
        std::vector<std::string>{attrib, "serve", "--listen", "127.0.0.1:" + std::to_string(ports.back()), "--sessions",
                                 "postgres:" + server.url(db), "--max-sessions", "10000000", "--threads", "4"},
        env, dir / ("replica" + std::to_string(r) + ".log")));
  }
  auto deadline = clock::now() + o.budget;
  for (int r = 0; r < o.replicas; ++r) {
    while (!acceptsConnections(ports[r])) {
      if (clock::now() > deadline || !replicas[r]->alive()) {
        result.failure = "replica " + std::to_string(r) + " did not start: " + readAll(dir / ("replica" + std::to_string(r) + ".log"));
        return result;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  RoundRobinProxy proxy(ports);
  fs::path bp = writeFleetBlueprint(dir, "blueprint.yaml",
                                    "  - postgres:\n      url: " + bare + "\n      password_file: pg.password\n",
                                    fmt::format("service:\n  url: http://127.0.0.1:{}\n  max_body: {}\n  timeout: 20s\n"
                                                "  max_retry_wait: 1s\nwatch:\n  interval: 1s\n  lease: {}ms\n  batch: 8\n",
                                                proxy.port(), o.maxBody, o.lease.count()));
  pg::Error e;
  auto c = pg::Connection::open(server.url(db), &e);
  if (!c) {
    result.failure = e.message;
    return result;
  }
  auto scalar = [&](const std::string& sql) {
    pg::Result r = c->exec(sql);
    return r.ok() && r.rows() ? r.integer(0, 0) : -1;
  };
  auto started = clock::now();
  for (int w = 0; w < o.workers; ++w) {
    auto env2 = env;
    env2.push_back({"ATTRIB_WORKER", "worker-" + std::to_string(w)});
    workers.push_back(std::make_unique<SoakProcess>(std::vector<std::string>{attrib, "run", "--config", bp.string(), "--watch"},
                                                    env2, dir / ("worker" + std::to_string(w) + ".log")));
  }
  bool killed = !o.kill;
  int64_t done = 0;
  while (done < o.workloads) {
    if (clock::now() > deadline) {
      result.failure = fmt::format("only {} of {} workloads were attributed within {} s", done, o.workloads, o.budget.count());
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    done = scalar("SELECT count(*) FROM work_claims WHERE state = 'done'");
    if (!killed && done >= o.workloads / 2) {
      replicas[0]->stop(SIGKILL, std::chrono::seconds(0));
      workers[0]->stop(SIGKILL, std::chrono::seconds(0));
      killed = true;
      result.killedAt = fmt::format("{} of {} done", done, o.workloads);
    }
  }
  result.seconds = std::chrono::duration<double>(clock::now() - started).count();
  for (auto& w : workers) w->stop(SIGTERM, std::chrono::seconds(10));
  for (auto& r : replicas) r->stop(SIGTERM, std::chrono::seconds(5));
  result.perReplica = proxy.perBackend();
  result.perSecond = static_cast<double>(done) / result.seconds;

  result.verdicts = scalar("SELECT count(*) FROM verdicts");
  result.rootCauses = scalar("SELECT count(*) FROM verdicts WHERE root_symptom = 'gpu.xid.xid79'");
  result.claimRows = scalar("SELECT count(*) FROM work_claims");
  result.done = scalar("SELECT count(*) FROM work_claims WHERE state = 'done'");
  result.attributions = scalar("SELECT coalesce(sum(attributions), 0) FROM work_claims");
  result.maxAttributions = scalar("SELECT coalesce(max(attributions), 0) FROM work_claims");
  result.takenOver = scalar("SELECT count(*) FROM work_claims WHERE claims > 1");
  pg::Result p = c->exec(
      "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM done_at - claimed_at)) * 1000, "
      "percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM done_at - claimed_at)) * 1000 "
      "FROM work_claims WHERE state = 'done'");
  if (p.ok() && p.rows() == 1 && !p.isNull(0, 0)) {
    result.p50ms = std::stod(p.text(0, 0));
    result.p99ms = std::stod(p.text(0, 1));
  }
  // Every session that gave a verdict holds exactly the workload's log file, once: no slice
  // lost or counted twice, whichever replicas its requests reached.
  std::map<std::string, int> sessionsOf;
  pg::Result s = c->exec("SELECT workload_id, file_bytes, files FROM attrib_sessions WHERE verdict IS NOT NULL");
  for (int i = 0; s.ok() && i < s.rows(); ++i) {
    std::string id = s.text(i, 0);
    int index = std::stoi(id.substr(id.size() - 5));
    ++result.sessionsAttributed;
    if (s.integer(i, 1) != static_cast<int64_t>(fleetLog(index).size()) || s.integer(i, 2) != 1) ++result.sessionsIncomplete;
    ++sessionsOf[id];
  }
  result.workloadsWithSession = static_cast<int64_t>(sessionsOf.size());
  std::map<std::string, int> printed;
  for (int w = 0; w < o.workers; ++w) {
    std::istringstream log(readAll(dir / ("worker" + std::to_string(w) + ".log")));
    // An attribution's line (runner.cc): "attrib run: ID: OUTCOME [FAMILY] CONFIDENCE"; a
    // failure's has no "[FAMILY] 0.95" at its end.
    const std::string prefix = "attrib run: static/w";
    for (std::string l; std::getline(log, l);) {
      if (l.rfind(prefix, 0) != 0 || l.size() < 40) continue;
      size_t open = l.rfind(" [");
      bool attributed = open != std::string::npos && l.size() >= 6 && l[l.size() - 6] == ']' && l[l.size() - 3] == '.';
      if (attributed) ++printed[l.substr(12, l.find(':', 12) - 12)];
    }
  }
  for (const auto& [id, n] : printed) {
    result.printed += n;
    if (n > 1) ++result.printedTwice;
  }
  return result;
}

}  // namespace attrib::testing
