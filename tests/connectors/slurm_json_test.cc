// The Slurm context's JSON paths without daemons (label `unit`): `sacct --json` and slurmrestd's
// v0.0.38 answers. Tests named `Recorded...` read real output recorded from the Slurm 22.05.8
// test cluster of tests/slurm/cluster.sh (slurmdbd on MariaDB, slurmrestd) into
// tests/connectors/data/slurm-22.05.8/: sacct.json (`sacct --json --allusers`),
// sacct-parsable.txt (the text form of the same jobs), slurmdb-jobs.json and slurm-jobs.json
// (`/slurmdb/v0.0.38/jobs`, `/slurm/v0.0.38/jobs` over the unix socket), slurmdb-wrong-token.json
// and slurmdb-no-token.txt (the JWT listener's answers to a wrong token and to none). The jobs:
// a time limit, exit 0, exit 3, kill -9, a memory kill, an srun task failing, a cancel while
// running, an array of two (one exits 4) and a heterogeneous job cancelled while pending.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "connectors/slurm/slurm_context.h"
#include "connectors/slurm/slurm_json.h"

namespace attrib::connectors::slurm {
namespace {

namespace fs = std::filesystem;
using Status = evidence::ConnectorReport::Status;

std::string recorded(const std::string& name) {
  std::ifstream in(std::string(ATTRIB_SOURCE_DIR) + "/tests/connectors/data/slurm-22.05.8/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::map<std::string, SlurmJob> byId(std::vector<SlurmJob> jobs) {
  std::map<std::string, SlurmJob> out;
  for (auto& j : jobs) out[j.id] = std::move(j);
  return out;
}

std::vector<SlurmJob> recordedText() {
  size_t skipped = 0;
  std::string error;
  auto jobs = parseSacct(recorded("sacct-parsable.txt"), kSacctColumns, &skipped, &error);
  EXPECT_EQ(skipped, 0u) << error;
  return jobs;
}

TEST(SlurmJson, RecordedSacctJsonHasEveryJobStepArrayAndHetId) {
  SlurmJsonResult r;
  std::string error;
  ASSERT_TRUE(parseSlurmdbJson(recorded("sacct.json"), &r, &error)) << error;
  EXPECT_EQ(r.plugin, "openapi/dbv0.0.38");
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.skipped, 0u) << r.skipError;
  auto jobs = byId(r.jobs);
  std::vector<std::string> ids;
  for (const auto& [id, j] : jobs) ids.push_back(id);
  EXPECT_EQ(ids, (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8_1", "8_2", "9+0", "9+1"}));
  EXPECT_EQ(jobs["1"].state, "TIMEOUT");
  EXPECT_EQ(jobs["7"].state, "CANCELLED");
  EXPECT_EQ(jobs["7"].cancelledBy, "root");
  EXPECT_EQ(jobs["4"].exit.signal, 9);
  EXPECT_FALSE(jobs["4"].exit.unverified) << "signals are right in 22.05's JSON";
  EXPECT_EQ(jobs["3"].exit.code, 0) << "22.05.8's JSON says success for `exit 3`";
  EXPECT_TRUE(jobs["3"].exit.unverified);
  ASSERT_EQ(jobs["6"].steps.size(), 2u);
  EXPECT_EQ(jobs["6"].steps[1].id, "0") << "a numeric step id";
  EXPECT_EQ(jobs["6"].steps[1].nodes, jobs["6"].nodes);
  EXPECT_EQ(jobs["7"].steps[0].exit.signal, 15);
  EXPECT_TRUE(jobs["9+1"].nodes.empty()) << "None assigned";
  EXPECT_FALSE(jobs["9+1"].start) << "a job cancelled while pending never started";
  EXPECT_TRUE(jobs["9+1"].end);
}

// The merged JSON and the text agree on everything the context yields.
TEST(SlurmJson, RecordedSacctJsonMergedWithTheTextAgreesWithTheText) {
  SlurmJsonResult r;
  std::string error;
  ASSERT_TRUE(parseSlurmdbJson(recorded("sacct.json"), &r, &error)) << error;
  auto text = recordedText();
  EXPECT_EQ(mergeExitCodes(&r.jobs, text), text.size());
  EXPECT_EQ(dropUnverifiedExits(&r.jobs), 0u);
  auto json = byId(r.jobs);
  ASSERT_EQ(json.size(), text.size());
  for (const auto& t : text) {
    SCOPED_TRACE(t.id);
    ASSERT_TRUE(json.count(t.id));
    evidence::Workload a = toWorkload(json[t.id], "c1"), b = toWorkload(t, "c1");
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.user, b.user);
    EXPECT_EQ(a.partition, b.partition);
    EXPECT_EQ(a.state, b.state);
    EXPECT_EQ(a.exitCode, b.exitCode);
    EXPECT_EQ(a.signal, b.signal);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.end, b.end);
    EXPECT_EQ(schedulerFacts(json[t.id], "c1")[0].text, schedulerFacts(t, "c1")[0].text);
  }
  EXPECT_EQ(toWorkload(json["3"], "").exitCode, 3);
  EXPECT_EQ(toWorkload(json["6"], "").exitCode, 1);
  EXPECT_EQ(json["6"].derived.code, 1);
  EXPECT_EQ(toWorkload(json["8_2"], "").exitCode, 4);
  EXPECT_EQ(json["7"].state, "CANCELLED by 0") << "the text's canceller";
}

TEST(SlurmJson, RecordedSlurmrestdAnswersMergeToTheSameExitCodes) {
  SlurmJsonResult db, ctl;
  std::string error;
  ASSERT_TRUE(parseSlurmdbJson(recorded("slurmdb-jobs.json"), &db, &error)) << error;
  ASSERT_TRUE(parseSlurmJobsJson(recorded("slurm-jobs.json"), &ctl, &error)) << error;
  EXPECT_EQ(ctl.plugin, "openapi/v0.0.38");
  auto controller = byId(ctl.jobs);
  EXPECT_EQ(controller["3"].exit.code, 3) << "wait status 768";
  EXPECT_EQ(controller["3"].reason, "NonZeroExitCode");
  EXPECT_EQ(controller["8_2"].exit.code, 4);
  EXPECT_EQ(controller["7"].exit.signal, 15);
  EXPECT_EQ(mergeControllerJobs(&db.jobs, ctl.jobs), db.jobs.size());
  dropUnverifiedExits(&db.jobs);
  auto json = byId(db.jobs);
  for (const auto& t : recordedText()) {
    SCOPED_TRACE(t.id);
    evidence::Workload a = toWorkload(json[t.id], ""), b = toWorkload(t, "");
    EXPECT_EQ(a.state, b.state);
    EXPECT_EQ(a.exitCode, b.exitCode);
    EXPECT_EQ(a.signal, b.signal);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.end, b.end);
  }
  // The controller's reason and the canceller's name become facts.
  auto facts = schedulerFacts(json["3"], "");
  EXPECT_EQ(facts[0].text, "slurm job 3 (failjob) ended FAILED: exit code 3, reason NonZeroExitCode");
  auto cancelled = schedulerFacts(json["7"], "");
  ASSERT_GE(cancelled.size(), 2u);
  EXPECT_EQ(cancelled[1].text, "slurm job 7 was cancelled by user root");
  EXPECT_EQ(cancelled[2].text, "slurm step 7.batch ended CANCELLED: signal 15 on " + json["7"].nodes[0]);
  auto derived = schedulerFacts(json["6"], "");
  EXPECT_EQ(derived[1].text, "slurm job 6 derived exit: exit code 1");
}

// Without the controller (the job left slurmctld's memory), a FAILED job's JSON "success" is
// no exit code, never a wrong 0.
TEST(SlurmJson, RecordedUnverifiedSuccessOfAFailedJobIsNoExitCode) {
  SlurmJsonResult db;
  std::string error;
  ASSERT_TRUE(parseSlurmdbJson(recorded("slurmdb-jobs.json"), &db, &error)) << error;
  EXPECT_EQ(dropUnverifiedExits(&db.jobs), 3u) << "failjob, srunfail, sweep task 2";
  auto jobs = byId(db.jobs);
  EXPECT_FALSE(toWorkload(jobs["3"], "").exitCode);
  EXPECT_EQ(toWorkload(jobs["2"], "").exitCode, 0) << "COMPLETED keeps its 0";
  EXPECT_EQ(toWorkload(jobs["4"], "").signal, 9);
  EXPECT_EQ(schedulerFacts(jobs["3"], "")[0].text, "slurm job 3 (failjob) ended FAILED: unknown exit");
}

// A job the scheduler ended (time limit, cancel): the controller's wait status is its kill as
// the batch shell saw it. Seen on Slurm 22.05.8 here: `sleep 300` past a one-minute limit left
// bash to exit 143 (128 + SIGTERM) in one run and be killed by signal 15 in another; sacct and
// the completion log say 0:0 both times, and so must the slurmrestd path.
TEST(SlurmJson, ControllerKillOfATimedOutOrCancelledJobIsNotItsExit) {
  auto job = [](const char* id, const char* state) {
    SlurmJob j;
    j.id = id;
    j.state = state;
    j.exit.code = 0;
    j.exit.unverified = true;  // the accounting JSON's "SUCCESS, 0"
    return j;
  };
  std::vector<SlurmJob> db = {job("1", "TIMEOUT"), job("2", "CANCELLED by 0"), job("3", "FAILED"),
                              job("4", "TIMEOUT")};
  std::vector<SlurmJob> ctl(4);
  for (size_t i = 0; i < ctl.size(); ++i) ctl[i].id = db[i].id;
  ctl[0].exit = decodeWaitStatus(143 << 8);
  ctl[1].exit = decodeWaitStatus(15);
  ctl[2].exit = decodeWaitStatus(143 << 8);
  ctl[3].exit = decodeWaitStatus(2 << 8);
  EXPECT_EQ(mergeControllerJobs(&db, ctl), 4u);
  EXPECT_EQ(db[0].exit.code, 0) << "the shell's report of the time limit's SIGTERM";
  EXPECT_FALSE(db[0].exit.unverified);
  EXPECT_EQ(db[1].exit.code, 0) << "a cancel's signal";
  EXPECT_EQ(db[2].exit.code, 143) << "a FAILED job's 143 is its own exit";
  EXPECT_EQ(db[3].exit.code, 2) << "a timed-out job that exited 2 on its own SIGTERM handler keeps it";
}

TEST(SlurmJson, WaitStatuses) {
  EXPECT_EQ(decodeWaitStatus(768).code, 3);
  EXPECT_EQ(decodeWaitStatus(9).signal, 9);
  EXPECT_EQ(decodeWaitStatus(253).signal, 125) << "Slurm's OOM";
  EXPECT_EQ(decodeWaitStatus(0).code, 0);
}

TEST(SlurmJson, TruncatedAndMalformedJsonIsAOneLineErrorNeverACrash) {
  std::string full = recorded("sacct.json");
  SlurmJsonResult r;
  std::string error;
  for (size_t cut : {size_t{1}, size_t{100}, full.size() / 2, full.size() - 3}) {
    EXPECT_FALSE(parseSlurmdbJson(std::string_view(full).substr(0, cut), &r, &error)) << cut;
    EXPECT_NE(error.find("the JSON ends early"), std::string::npos) << error;
  }
  EXPECT_FALSE(parseSlurmdbJson("", &r, &error));
  EXPECT_EQ(error, "empty answer where JSON was expected");
  EXPECT_FALSE(parseSlurmdbJson("Authentication failure", &r, &error));
  EXPECT_NE(error.find("malformed JSON at byte"), std::string::npos) << error;
  EXPECT_FALSE(parseSlurmdbJson("[1,2]", &r, &error));
  EXPECT_EQ(error, "the JSON is not an object");
  EXPECT_FALSE(parseSlurmdbJson(R"({"meta":{}})", &r, &error));
  EXPECT_EQ(error, "no 'jobs' list in the JSON");
  EXPECT_FALSE(parseSlurmJobsJson(R"({"jobs": {"job_id": 1}})", &r, &error));
  // Jobs that cannot be read are skipped and counted; the rest is kept.
  ASSERT_TRUE(parseSlurmdbJson(R"({"jobs": [
      7,
      {"name": "no id", "state": {"current": "FAILED"}},
      {"job_id": 2, "name": "no state"},
      {"job_id": 3, "state": {"current": "FAILED"}, "nodes": "gpu[1-"},
      {"job_id": 4, "state": {"current": "FAILED"}, "nodes": "", "exit_code": "weird", "time": {"start": "x"},
       "steps": [{"step": {"id": null}}, {"step": {"id": "batch"}, "state": 5, "nodes": {"list": [1, "n1"]}}]},
      {"job_id": 5, "state": {"current": ["COMPLETED", "X"]}, "nodes": "n[1-2]", "exit_code": {"status": "SUCCESS"},
       "time": {"start": {"set": true, "number": 1795984510}, "end": {"set": false, "number": 0}}}]})",
                               &r, &error))
      << error;
  EXPECT_EQ(r.skipped, 4u);
  EXPECT_EQ(r.skipError, "jobs[0]: not an object");
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_TRUE(r.jobs[0].nodes.empty()) << "an empty hostlist is no nodes";
  EXPECT_FALSE(r.jobs[0].exit.code);
  ASSERT_EQ(r.jobs[0].steps.size(), 1u);
  EXPECT_EQ(r.jobs[0].steps[0].nodes, std::vector<std::string>{"n1"});
  EXPECT_EQ(r.jobs[1].state, "COMPLETED") << "the later list form";
  EXPECT_EQ(r.jobs[1].nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(r.jobs[1].start, 1795984510);
  EXPECT_FALSE(r.jobs[1].end);
}

TEST(SlurmJson, RecordedWrongTokenErrorIsReported) {
  SlurmJsonResult r;
  std::string error;
  ASSERT_TRUE(parseSlurmdbJson(recorded("slurmdb-wrong-token.json"), &r, &error)) << error;
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "1007 Protocol authentication error (slurmdb_jobs_get)");
  ASSERT_TRUE(parseSlurmdbJson(
      R"({"errors":[{"description":"Nothing found","error_number":9003,"error":"Nothing found with query"}],"jobs":[]})", &r,
      &error));
  EXPECT_TRUE(r.errors.empty()) << "9003 is an empty answer, not an error";
}

TEST(SlurmJson, KnownStates) {
  for (const char* s : {"COMPLETED", "CANCELLED by 0", "OUT_OF_MEMORY", "PENDING", "REQUEUE_HOLD", "DEADLINE"}) {
    EXPECT_TRUE(knownSlurmState(s)) << s;
  }
  for (const char* s : {"EXPLODED", "", "completed", "UNKNOWN"}) EXPECT_FALSE(knownSlurmState(s)) << s;
}

// A fake sacct: prints a file for --json and another for the text form.
class FakeSacct : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("attrib-fake-sacct-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  SlurmOptions fake(const std::string& json, const std::string& text) {
    write("out.json", json);
    write("out.txt", text);
    write("sacct", "#!/bin/sh\ncase \"$*\" in *--json*) cat '" + (dir_ / "out.json").string() + "' ;; *) cat '" +
                       (dir_ / "out.txt").string() + "' ;; esac\n");
    fs::permissions(dir_ / "sacct", fs::perms::owner_all);
    SlurmOptions o;
    o.mode = SlurmMode::SacctJson;
    o.sacct = (dir_ / "sacct").string();
    o.timeout = std::chrono::seconds(10);
    return o;
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  fs::path dir_;
};

TEST_F(FakeSacct, RecordedOutputThroughTheContext) {
  evidence::ConnectorReport report;
  auto out = SlurmContext(fake(recorded("sacct.json"), recorded("sacct-parsable.txt"))).discover(&report);
  EXPECT_EQ(report.status, Status::Ok) << report.reason;
  EXPECT_EQ(report.source, "sacct --json");
  EXPECT_EQ(out.size(), 11u);
  std::map<std::string, evidence::Workload> w;
  for (auto& c : out) w[c.workload.id] = c.workload;
  EXPECT_EQ(w["slurm/3"].exitCode, 3);
  EXPECT_EQ(w["slurm/1"].state, ir::State::Timeout);
}

TEST_F(FakeSacct, TruncatedJsonIsAnErrorReport) {
  std::string full = recorded("sacct.json");
  evidence::ConnectorReport report;
  EXPECT_TRUE(SlurmContext(fake(full.substr(0, 5000), recorded("sacct-parsable.txt"))).discover(&report).empty());
  EXPECT_EQ(report.status, Status::Error);
  EXPECT_EQ(report.reason, "sacct --json: the JSON ends early (cut at byte 5000 of 5000)");
}

TEST_F(FakeSacct, UnknownStatesAreSkippedAndReported) {
  std::string doc = R"({"jobs": [
      {"job_id": 1, "name": "a", "state": {"current": "EXPLODED"}, "nodes": "n1"},
      {"job_id": 2, "name": "b", "state": {"current": "COMPLETED"}, "nodes": "n1", "exit_code": {"status": "SUCCESS", "return_code": 0},
       "time": {"start": 1795984510, "end": 1795984520}}]})";
  evidence::ConnectorReport report;
  auto out = SlurmContext(fake(doc, "")).discover(&report);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].workload.id, "slurm/2");
  EXPECT_EQ(report.status, Status::Partial);
  EXPECT_EQ(report.reason, "1 job(s) with an unknown state skipped; first: job 1 has the unknown state 'EXPLODED'");
}

TEST_F(FakeSacct, FailingTextLeavesFailedExitsUnknownAndSaysSo) {
  SlurmOptions o = fake(recorded("sacct.json"), "");
  write("sacct", "#!/bin/sh\ncase \"$*\" in *--json*) cat '" + (dir_ / "out.json").string() +
                     "' ;; *) echo 'sacct: error: boom' >&2; exit 1 ;; esac\n");
  evidence::ConnectorReport report;
  auto out = SlurmContext(o).discover(&report);
  EXPECT_EQ(report.status, Status::Partial);
  EXPECT_EQ(report.reason, "1 problem(s); first: exit codes unverified: sacct -P failed (exit 1): sacct: error: boom");
  size_t seen = 0;
  for (const auto& c : out) {
    if (c.workload.id == "slurm/3") {
      EXPECT_FALSE(c.workload.exitCode);
      ++seen;
    }
    if (c.workload.id == "slurm/4") {
      EXPECT_EQ(c.workload.signal, 9);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2u);
  o.completionLog = true;
  EXPECT_TRUE(SlurmContext(o).discover(&report).empty());
  EXPECT_EQ(report.status, Status::Error);
  EXPECT_NE(report.reason.find("sacct --json needs slurmdbd"), std::string::npos);
}

// A stub slurmrestd on 127.0.0.1 that answers as the real JWT listener did (recorded bodies):
// 401 "Authentication failure" without headers, 200 with error 1007 for a wrong token.
class StubSlurmrestd : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("attrib-stub-rest-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    auto answer = [this](const httplib::Request& req, httplib::Response& res, const std::string& file) {
      std::lock_guard<std::mutex> lock(mu_);
      tokens_.push_back(req.get_header_value("X-SLURM-USER-TOKEN"));
      if (!req.has_header("X-SLURM-USER-NAME") || !req.has_header("X-SLURM-USER-TOKEN")) {
        res.status = 401;
        res.set_content(recorded("slurmdb-no-token.txt"), "text/plain");
      } else if (req.get_header_value("X-SLURM-USER-TOKEN") != good_ || req.get_header_value("X-SLURM-USER-NAME") != "attrib-rest") {
        res.set_content(recorded("slurmdb-wrong-token.json"), "application/json");
      } else {
        res.set_content(recorded(file), "application/json");
      }
    };
    server_.Get("/slurmdb/v0.0.38/jobs", [=](const auto& q, auto& r) { answer(q, r, "slurmdb-jobs.json"); });
    server_.Get("/slurm/v0.0.38/jobs", [=](const auto& q, auto& r) { answer(q, r, "slurm-jobs.json"); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
    fs::remove_all(dir_);
  }
  SlurmOptions options(const std::string& token) {
    std::ofstream(dir_ / "token") << token << "\n";
    SlurmOptions o;
    o.mode = SlurmMode::Slurmrestd;
    o.rest.url = "http://127.0.0.1:" + std::to_string(port_);
    o.rest.user = "attrib-rest";
    o.rest.tokenFile = (dir_ / "token").string();
    o.timeout = std::chrono::seconds(5);
    return o;
  }
  std::string good_ = "eyJ-good-token";
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<std::string> tokens_;
  fs::path dir_;
};

TEST_F(StubSlurmrestd, RecordedAnswersGiveTheSameJobsAsSacct) {
  evidence::ConnectorReport report;
  auto out = SlurmContext(options(good_)).discover(&report);
  EXPECT_EQ(report.status, Status::Ok) << report.reason;
  EXPECT_EQ(report.source, "slurmrestd http://127.0.0.1:" + std::to_string(port_));
  ASSERT_EQ(out.size(), 11u);
  std::map<std::string, evidence::Workload> w;
  for (auto& c : out) w[c.workload.id] = c.workload;
  for (const auto& t : recordedText()) {
    SCOPED_TRACE(t.id);
    evidence::Workload b = toWorkload(t, "");
    EXPECT_EQ(w[b.id].state, b.state);
    EXPECT_EQ(w[b.id].exitCode, b.exitCode);
    EXPECT_EQ(w[b.id].signal, b.signal);
    EXPECT_EQ(w[b.id].nodes, b.nodes);
  }
  EXPECT_EQ(tokens_, (std::vector<std::string>{good_, good_}));
}

TEST_F(StubSlurmrestd, WrongOrMissingTokenIsAClearErrorWithoutTheToken) {
  evidence::ConnectorReport report;
  EXPECT_TRUE(SlurmContext(options("eyJ-secret-but-wrong")).discover(&report).empty());
  EXPECT_EQ(report.status, Status::Error);
  EXPECT_EQ(report.reason,
            "/slurmdb/v0.0.38/jobs: 1007 Protocol authentication error (slurmdb_jobs_get) (check the user and the token in "
            "token_file)");
  EXPECT_EQ(report.reason.find("eyJ-secret"), std::string::npos);
  SlurmOptions none = options("x");
  none.rest.user.clear();
  none.rest.tokenFile.clear();
  EXPECT_TRUE(SlurmContext(none).discover(&report).empty());
  EXPECT_EQ(report.status, Status::Error);
  EXPECT_EQ(report.reason,
            "/slurmdb/v0.0.38/jobs: HTTP 401 Authentication failure: slurmrestd refused the credentials (check the user "
            "and token_file; none was given)");
  SlurmOptions missing = options("x");
  missing.rest.tokenFile = (dir_ / "no-such-token").string();
  EXPECT_TRUE(SlurmContext(missing).discover(&report).empty());
  EXPECT_EQ(report.reason, "cannot read the token file " + missing.rest.tokenFile);
}

TEST_F(StubSlurmrestd, TheTokenFileIsReadForEveryRequest) {
  SlurmOptions o = options("eyJ-old");
  SlurmContext context(o);
  evidence::ConnectorReport report;
  EXPECT_TRUE(context.discover(&report).empty());
  EXPECT_EQ(report.status, Status::Error);
  std::ofstream(dir_ / "token") << "SLURM_JWT=" << good_ << "\n";  // rotated, as `scontrol token` prints it
  EXPECT_EQ(context.discover(&report).size(), 11u) << report.reason;
  EXPECT_EQ(report.status, Status::Ok) << report.reason;
}

TEST(SlurmrestdUnreachable, MissingSocketAndSilentSocketAreErrorsWithinTheDeadline) {
  SlurmOptions o;
  o.mode = SlurmMode::Slurmrestd;
  o.rest.socket = ::testing::TempDir() + "/attrib-no-such-slurmrestd.sock";
  o.timeout = std::chrono::seconds(1);
  evidence::ConnectorReport report;
  auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(SlurmContext(o).discover(&report).empty());
  EXPECT_EQ(report.status, Status::Error);
  EXPECT_EQ(report.source, "slurmrestd unix:" + o.rest.socket);
  EXPECT_EQ(report.reason.rfind("slurmrestd unreachable: http://localhost/slurmdb/v0.0.38/jobs (unix socket " + o.rest.socket + "): ", 0), 0u)
      << report.reason;
  // A socket that accepts connections but never answers: the deadline ends it.
  std::string path = ::testing::TempDir() + "/attrib-silent-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  o.rest.socket = path;
  EXPECT_TRUE(SlurmContext(o).discover(&report).empty());
  EXPECT_EQ(report.status, Status::Error);
  EXPECT_NE(report.reason.find("slurmrestd unreachable"), std::string::npos) << report.reason;
  EXPECT_NE(report.reason.find("timed out"), std::string::npos) << report.reason;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  ::close(fd);
  ::unlink(path.c_str());
}

TEST(SlurmrestdPath, TheWindowIsPaddedAndPercentEncoded) {
  SlurmOptions o;
  o.mode = SlurmMode::Slurmrestd;
  o.since = 1795984000LL * 1'000'000'000;
  o.until = 1795987600LL * 1'000'000'000;
  o.cluster = "c1";
  o.partitions = {"h100", "a100"};
  o.users = {"alice"};
  o.names = {"train"};
  EXPECT_EQ(SlurmContext(o).slurmdbPath(),
            "/slurmdb/v0.0.38/jobs?start_time=2026-11-28T20%3A26%3A40&end_time=2026-11-30T21%3A26%3A40&cluster=c1"
            "&partition=h100%2Ca100&job_name=train");
  std::string line;
  for (const auto& a : SlurmContext(o).command(true)) line += a + " ";
  EXPECT_EQ(line, "sacct --json --allusers --clusters c1 --starttime 2026-11-29T20:26:40 --endtime 2026-11-29T21:26:40 "
                  "--partition h100,a100 --user alice --name train ");
  SlurmMode m;
  EXPECT_TRUE(slurmModeFromName("sacct-json", &m));
  EXPECT_EQ(m, SlurmMode::SacctJson);
  EXPECT_STREQ(slurmModeName(SlurmMode::Slurmrestd), "slurmrestd");
  EXPECT_FALSE(slurmModeFromName("squeue", &m));
}

}  // namespace
}  // namespace attrib::connectors::slurm
