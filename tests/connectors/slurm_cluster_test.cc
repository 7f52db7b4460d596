// The Slurm context against a real Slurm 22.05 cluster from Debian's packages, started on this
// machine by tests/slurm/cluster.sh (munge, slurmctld, slurmd, MariaDB, slurmdbd and two
// slurmrestd on 127.0.0.1 or unix sockets, config and state in a temp dir). ctest label `slurm`.
// Jobs that complete, fail with an exit code, are killed by a signal, exceed their memory, are
// cancelled while running, fail in one srun task, and hit their time limit (about 70 s); the test
// asserts what the connector yields for each, through every path: the job-completion log
// (`sacct -c`), sacct with slurmdbd, `sacct --json`, slurmrestd on its unix socket
// (rest_auth/local) and slurmrestd on TCP with a JWT, which must all agree.
//
// Not producible here: OUT_OF_MEMORY needs the cgroup task plugin (this container has no
// usable cgroup v1 hierarchy), so the memory job ends FAILED with signal 9 (Slurm's over-memory
// kill), and NODE_FAIL, PREEMPTED, BOOT_FAIL and DEADLINE are covered by recorded real output
// in slurm_test.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "connectors/process.h"
#include "tests/connectors/loopback.h"
#include "connectors/slurm/slurm_context.h"

namespace attrib::connectors::slurm {
namespace {

namespace fs = std::filesystem;


std::string hostname() {
  ProcessResult r = runProcess({"hostname", "-s"});
  std::string h = r.out;
  while (!h.empty() && (h.back() == '\n' || h.back() == '\r')) h.pop_back();
  return h;
}

class SlurmCluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) {
      skip_ = "the test cluster runs as root";
      return;
    }
    for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "sacct"}) {
      if (runProcess({"sh", "-c", std::string("command -v ") + tool}).exitCode != 0) {
        skip_ = std::string(tool) + " is not installed (scripts/install-deps.sh installs Slurm)";
        return;
      }
    }
    dir_ = fs::temp_directory_path() / ("attrib-slurm-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    ProcessOptions o;
    o.timeout = std::chrono::seconds(660);  // above the sum of cluster.sh's own deadlines
    std::vector<std::string> argv = {std::string(ATTRIB_SOURCE_DIR) + "/tests/slurm/cluster.sh", "start", dir_.string()};
    for (int i = 0; i < 5; ++i) argv.push_back(std::to_string(testing::freeLoopbackPort()));
    restUrl_ = "http://127.0.0.1:" + argv.back();
    auto started = std::chrono::steady_clock::now();
    ProcessResult r = runProcess(argv, o);
    startSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (r.exitCode != 0) {
      failure_ = "the test cluster did not start: " + r.err + r.out;
      return;
    }
    env_ = {{"SLURM_CONF", (dir_ / "slurm.conf").string()}};
  }
  static void TearDownTestSuite() {
    if (dir_.empty()) return;
    runProcess({std::string(ATTRIB_SOURCE_DIR) + "/tests/slurm/cluster.sh", "stop", dir_.string()});
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(failure_.empty()) << failure_;
  }

  // sbatch ARGS --wrap SCRIPT; returns the job id.
  std::string submit(std::vector<std::string> args, const std::string& script) {
    std::vector<std::string> argv = {"sbatch", "--parsable", "-o", (dir_ / "%j.out").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--wrap", script});
    ProcessOptions o;
    o.env = env_;
    ProcessResult r = runProcess(argv, o);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
    return id;
  }

  bool running(const std::string& id) {
    ProcessOptions o;
    o.env = env_;
    ProcessResult r = runProcess({"squeue", "-h", "-j", id, "-o", "%T"}, o);
    return r.out.rfind("RUNNING", 0) == 0;
  }

  SlurmOptions options() const {
    SlurmOptions o;
    o.completionLog = true;
    o.env = env_;
    return o;
  }
  // The other paths: sacct with slurmdbd, sacct --json, slurmrestd (unix socket, or TCP + JWT).
  SlurmOptions options(const std::string& path) const {
    SlurmOptions o;
    o.env = env_;
    o.timeout = std::chrono::seconds(20);
    if (path == "sacct-json") o.mode = SlurmMode::SacctJson;
    if (path == "slurmrestd-socket" || path == "slurmrestd-jwt") o.mode = SlurmMode::Slurmrestd;
    if (path == "slurmrestd-socket") o.rest.socket = (dir_ / "rest/slurmrestd.sock").string();
    if (path == "slurmrestd-jwt") {
      o.rest.url = restUrl_;
      o.rest.user = "attrib-rest";
      o.rest.tokenFile = (dir_ / "rest/token").string();
    }
    return o;
  }

  // The contexts of `ids`, once all have finished (at most `wait`).
  std::map<std::string, WorkloadContext> finished(const std::vector<std::string>& ids, std::chrono::seconds wait,
                                                  const SlurmOptions& o) {
    auto deadline = std::chrono::steady_clock::now() + wait;
    std::map<std::string, WorkloadContext> byId;
    while (std::chrono::steady_clock::now() < deadline) {
      evidence::ConnectorReport report;
      byId.clear();
      for (auto& c : SlurmContext(o).discover(&report)) byId[c.workload.id] = std::move(c);
      EXPECT_NE(report.status, evidence::ConnectorReport::Status::Error) << report.reason;
      EXPECT_NE(report.status, evidence::ConnectorReport::Status::Partial) << report.reason;
      bool all = true;
      for (const auto& id : ids) all = all && byId.count("slurm/" + id);
      if (all) return byId;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    ADD_FAILURE() << "jobs did not finish in time; see " << dir_ / "log";
    return byId;
  }

  static inline std::string skip_, failure_, restUrl_;
  static inline double startSeconds_ = 0;
  static inline fs::path dir_;
  static inline std::vector<std::pair<std::string, std::string>> env_;
};

TEST_F(SlurmCluster, YieldsStateExitCodeNodesAndTimesOfEveryKindOfEnding) {
  const std::string host = hostname();
  auto before = std::chrono::system_clock::now();
  std::string timeout = submit({"-J", "timelimit", "-t", "1"}, "sleep 300");
  std::string ok = submit({"-J", "okjob"}, "echo fine; exit 0");
  std::string fail = submit({"-J", "failjob"}, "exit 3");
  std::string killed = submit({"-J", "killjob"}, "kill -9 $$");
  std::string memory = submit({"-J", "memjob", "--mem=50M"},
                              "python3 -c 'x = bytearray(400 * 1024 * 1024); import time; time.sleep(10)'");
  std::string task = submit({"-J", "srunfail", "-n", "2"}, "srun -n 2 sh -c '[ $SLURM_PROCID = 1 ] && exit 1; exit 0'");
  // Cancel it once its script runs (RUNNING in squeue can come before the batch step exists,
  // and a job cancelled then has no ".batch ended CANCELLED" line), so it has a node and a start.
  std::string started = (std::filesystem::temp_directory_path() /
                         ("attrib-canceljob-" + std::to_string(::getpid()))).string();
  std::filesystem::remove(started);
  std::string cancel = submit({"-J", "canceljob"}, "touch " + started + "; sleep 300");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!(running(cancel) && std::filesystem::exists(started)) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(running(cancel) && std::filesystem::exists(started)) << "the job to cancel never started";
  std::filesystem::remove(started);
  ProcessOptions o;
  o.env = env_;
  ASSERT_EQ(runProcess({"scancel", cancel}, o).exitCode, 0);

  std::vector<std::string> ids = {ok, fail, killed, memory, task, cancel, timeout};
  auto jobs = finished(ids, std::chrono::seconds(150), options());
  auto at = [&](const std::string& id) -> const evidence::Workload& { return jobs.at("slurm/" + id).workload; };
  using S = ir::State;
  struct Expect {
    std::string id, name;
    S state;
    std::optional<int64_t> exit, signal;
  };
  for (const Expect& e : std::vector<Expect>{{ok, "okjob", S::Completed, 0, std::nullopt},
                                             {fail, "failjob", S::Failed, 3, std::nullopt},
                                             {killed, "killjob", S::Failed, std::nullopt, 9},
                                             {memory, "memjob", S::Failed, std::nullopt, 9},
                                             {task, "srunfail", S::Failed, 1, std::nullopt},
                                             {cancel, "canceljob", S::Cancelled, 0, std::nullopt},
                                             {timeout, "timelimit", S::Timeout, 0, std::nullopt}}) {
    SCOPED_TRACE(e.name);
    ASSERT_TRUE(jobs.count("slurm/" + e.id));
    const evidence::Workload& w = at(e.id);
    EXPECT_EQ(w.scheduler, "slurm");
    EXPECT_EQ(w.name, e.name);
    EXPECT_EQ(w.user, "root");
    EXPECT_EQ(w.partition, "debug");
    EXPECT_EQ(w.state, e.state) << ir::stateName(w.state);
    EXPECT_EQ(w.exitCode, e.exit);
    EXPECT_EQ(w.signal, e.signal);
    EXPECT_EQ(w.nodes, std::vector<std::string>{host});
    ASSERT_TRUE(w.start && w.end);
    int64_t submitted = std::chrono::duration_cast<std::chrono::seconds>(before.time_since_epoch()).count();
    EXPECT_GE(*w.start / 1'000'000'000, submitted - 1);
    EXPECT_GE(*w.end, *w.start);
    EXPECT_FALSE(jobs.at("slurm/" + e.id).facts.empty());
    EXPECT_NE(jobs.at("slurm/" + e.id).facts[0].text.find("slurm job " + e.id + " (" + e.name + ") ended"), std::string::npos);
  }
  EXPECT_GE(*at(timeout).end - *at(timeout).start, 55'000'000'000LL) << "ran to its one-minute limit";

  // Every other path yields the same jobs: state, exit code, signal, nodes, times, name, user.
  for (const std::string path : {"sacct", "sacct-json", "slurmrestd-socket", "slurmrestd-jwt"}) {
    SCOPED_TRACE(path);
    auto other = finished(ids, std::chrono::seconds(30), options(path));
    for (const auto& id : ids) {
      SCOPED_TRACE(id);
      ASSERT_TRUE(other.count("slurm/" + id));
      const evidence::Workload& a = other.at("slurm/" + id).workload;
      const evidence::Workload& b = at(id);
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.user, b.user);
      EXPECT_EQ(a.partition, b.partition);
      EXPECT_EQ(a.state, b.state) << ir::stateName(a.state);
      EXPECT_EQ(a.exitCode, b.exitCode);
      EXPECT_EQ(a.signal, b.signal);
      EXPECT_EQ(a.nodes, b.nodes);
      EXPECT_EQ(a.start, b.start);
      EXPECT_EQ(a.end, b.end);
      EXPECT_NE(other.at("slurm/" + id).facts.at(0).text.find("slurm job " + id + " (" + b.name + ") ended"), std::string::npos);
    }
    // With slurmdbd, steps: the srun task that failed, and the batch step of the cancelled job.
    bool failedStep = false, cancelledStep = false;
    // slurmrestd has no trustworthy step exit code (the accounting JSON's is wrong, the
    // controller has none per step): unknown, not a wrong 0.
    std::string stepExit = path.rfind("slurmrestd", 0) == 0 ? "unknown exit" : "exit code 1";
    for (const auto& f : other.at("slurm/" + task).facts) {
      failedStep = failedStep || f.text == "slurm step " + task + ".0 ended FAILED: " + stepExit + " on " + host;
    }
    for (const auto& f : other.at("slurm/" + cancel).facts) {
      cancelledStep = cancelledStep || f.text == "slurm step " + cancel + ".batch ended CANCELLED: signal 15 on " + host;
    }
    EXPECT_TRUE(failedStep);
    EXPECT_TRUE(cancelledStep);
  }

  // The window: nothing ended after now.
  SlurmOptions later = options();
  later.since = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count() +
                3'600'000'000'000LL;
  evidence::ConnectorReport report;
  EXPECT_TRUE(SlurmContext(later).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Empty) << report.reason;
  // A job-name filter.
  SlurmOptions named = options();
  named.names = {"failjob"};
  auto only = SlurmContext(named).discover(&report);
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].workload.id, "slurm/" + fail);
}

// Without slurmdbd, plain sacct refuses ("accounting storage is disabled"): an error report. The
// real slurmrestd refuses a wrong token and a missing one with clear reports (the token nowhere
// in them).
TEST_F(SlurmCluster, SacctWithoutSlurmdbdAndAWrongTokenAreConnectorErrors) {
  std::cout << "[ cluster  ] started in " << startSeconds_ << " s\n";
  fs::path wrong = dir_ / "wrong-token";
  { std::ofstream(wrong) << "eyJhbGciOiJIUzI1NiJ9.wrong.wrong\n"; }
  SlurmOptions rest = options("slurmrestd-jwt");
  rest.rest.tokenFile = wrong.string();
  evidence::ConnectorReport restReport;
  EXPECT_TRUE(SlurmContext(rest).discover(&restReport).empty());
  EXPECT_EQ(restReport.status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(restReport.reason.find("1007 Protocol authentication error"), std::string::npos) << restReport.reason;
  EXPECT_EQ(restReport.reason.find("eyJ"), std::string::npos);
  rest.rest.tokenFile.clear();
  rest.rest.user.clear();
  EXPECT_TRUE(SlurmContext(rest).discover(&restReport).empty());
  EXPECT_NE(restReport.reason.find("HTTP 401 Authentication failure"), std::string::npos) << restReport.reason;

  // The cluster's configuration with accounting switched off, as a cluster without slurmdbd has.
  std::string conf = runProcess({"sed", "s/^AccountingStorageType=.*/AccountingStorageType=accounting_storage\\/none/",
                                 (dir_ / "slurm.conf").string()}).out;
  ASSERT_NE(conf.find("AccountingStorageType=accounting_storage/none"), std::string::npos);
  { std::ofstream(dir_ / "slurm-nodbd.conf") << conf; }
  SlurmOptions o = options();
  o.completionLog = false;  // plain sacct
  o.env = {{"SLURM_CONF", (dir_ / "slurm-nodbd.conf").string()}};
  o.timeout = std::chrono::seconds(20);
  evidence::ConnectorReport report;
  auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(SlurmContext(o).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(report.reason.find("sacct failed"), std::string::npos) << report.reason;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(25));
  o.mode = SlurmMode::SacctJson;  // sacct --json aborts without slurmdbd
  EXPECT_TRUE(SlurmContext(o).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(report.reason.find("sacct --json failed"), std::string::npos) << report.reason;
  // No configuration at all: an error within the deadline, not a hang.
  SlurmOptions gone = options();
  gone.env = {{"SLURM_CONF", "/nonexistent/slurm.conf"}};
  gone.timeout = std::chrono::seconds(5);
  started = std::chrono::steady_clock::now();
  EXPECT_TRUE(SlurmContext(gone).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_TRUE(report.reason.find("sacct failed") != std::string::npos ||
              report.reason.find("did not answer within 5 s") != std::string::npos)
      << report.reason;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

}  // namespace
}  // namespace attrib::connectors::slurm

