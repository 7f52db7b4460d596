// The Slurm context's parsing: hostlists, sacct's parsable output (recorded from Slurm 22.05.8
// on this kind of machine, see ../shared/reference/connectors.md 3.1-3.4), and malformed output.
#include <gtest/gtest.h>

#include "connectors/process.h"
#include "connectors/static/static_context.h"
#include "connectors/slurm/hostlist.h"
#include "connectors/slurm/sacct.h"
#include "connectors/slurm/slurm_context.h"

namespace attrib::connectors::slurm {
namespace {

std::vector<std::string> expand(const std::string& e) {
  std::vector<std::string> hosts;
  std::string error;
  EXPECT_TRUE(expandHostlist(e, &hosts, &error)) << e << ": " << error;
  return hosts;
}

std::string expandError(const std::string& e, size_t limit = 1'000'000) {
  std::vector<std::string> hosts = {"untouched"};
  std::string error;
  EXPECT_FALSE(expandHostlist(e, &hosts, &error, limit)) << e;
  EXPECT_EQ(hosts, std::vector<std::string>{"untouched"}) << "nothing is half-written on error";
  return error;
}

TEST(Hostlist, ExpandsRangesListsPaddingAndCrossProducts) {
  EXPECT_EQ(expand("vm"), (std::vector<std::string>{"vm"}));
  EXPECT_EQ(expand("gpu-[001-004,010]"),
            (std::vector<std::string>{"gpu-001", "gpu-002", "gpu-003", "gpu-004", "gpu-010"}));
  EXPECT_EQ(expand("gpu[8-11],login1"), (std::vector<std::string>{"gpu8", "gpu9", "gpu10", "gpu11", "login1"}));
  EXPECT_EQ(expand("r[1-2]n[01-02]"), (std::vector<std::string>{"r1n01", "r1n02", "r2n01", "r2n02"}));
  EXPECT_EQ(expand("a[1]-ib"), (std::vector<std::string>{"a1-ib"}));
  EXPECT_EQ(expand("a,,b,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(expand("").empty());
}

TEST(Hostlist, RejectsMalformedAndHugeExpressions) {
  EXPECT_NE(expandError("gpu[1-3").find("unclosed '['"), std::string::npos);
  EXPECT_NE(expandError("gpu1-3]").find("unmatched ']'"), std::string::npos);
  EXPECT_NE(expandError("gpu[[1-3]]").find("nested"), std::string::npos);
  EXPECT_NE(expandError("gpu[a-c]").find("bad range 'a-c'"), std::string::npos);
  EXPECT_NE(expandError("gpu[5-1]").find("backwards"), std::string::npos);
  EXPECT_NE(expandError("gpu[]").find("bad range"), std::string::npos);
  EXPECT_NE(expandError("n[0-999999999]").find("more than"), std::string::npos);
  EXPECT_NE(expandError("a[1-100]b[1-100]", 5000).find("more than 5000"), std::string::npos);
}

TEST(ExitStatus, SplitsCodeAndSignal) {
  ExitStatus e;
  ASSERT_TRUE(parseExitStatus("3:0", &e));
  EXPECT_EQ(e.code, 3);
  EXPECT_FALSE(e.signal);
  ASSERT_TRUE(parseExitStatus("0:9", &e));
  EXPECT_EQ(e.signal, 9);
  EXPECT_FALSE(e.code);
  ASSERT_TRUE(parseExitStatus("0:125", &e));
  EXPECT_EQ(e.signal, 125);
  EXPECT_FALSE(parseExitStatus("x:0", &e));
  EXPECT_FALSE(parseExitStatus("", &e));
}

// Recorded with SLURM_TIME_FORMAT=%s from Slurm 22.05.8 (slurmdbd), plus an array task, a
// heterogeneous component and every terminal state.
const char* kRecorded =
    "12|nodefailjob|alice|h100|NODE_FAIL|0:0|0:0|gpu-[0001-0002]|1795984510|1795984544|NodeDown\n"
    "12.batch|batch||h100|CANCELLED|0:15||gpu-0001|1795984510|1795984544|\n"
    "13|oomcg|bob|h100|OUT_OF_MEMORY|0:125|0:0|gpu-0003|1795984635|1795984636|OutOfMemory\n"
    "13.batch|batch||h100|OUT_OF_MEMORY|0:125||gpu-0003|1795984635|1795984636|\n"
    "13.0|python||h100|OUT_OF_MEMORY|0:125||gpu-0003|1795984635|1795984636|\n"
    "14|train|carol|a100|CANCELLED by 1001|0:0|0:0|gpu-0004|1795984700|1795984800|None\n"
    "15|train|carol|a100|TIMEOUT|0:0|0:0|gpu-0005|1795984700|1795988300|TimeLimit\n"
    "16|preempt|dave|a100|PREEMPTED|0:0|0:0|gpu-0006|1795984700|1795984900|None\n"
    "17|boot|dave|a100|BOOT_FAIL|0:0|0:0|gpu-0007|Unknown|1795984701|None\n"
    "18|deadline|dave|a100|DEADLINE|0:0|0:0|None assigned|Unknown|1795984702|None\n"
    "19_4|sweep|erin|a100|FAILED|1:0|1:0|gpu-0008|1795984710|1795984720|NonZeroExitCode\n"
    "20+1|hetero|erin|a100|COMPLETED|0:0|0:0|gpu-0009|1795984710|1795984720|None\n"
    "21|script|erin|a100|COMPLETED|0:0|2:0|gpu-0010|1795984710|1795984720|None\n"
    "22|running|erin|a100|RUNNING|0:0|0:0|gpu-0011|1795984710|Unknown|None\n";

TEST(Sacct, ParsesJobsStepsAndEveryTerminalState) {
  size_t skipped = 0;
  std::string error;
  auto jobs = parseSacct(kRecorded, kSacctColumns, &skipped, &error);
  EXPECT_EQ(skipped, 0u) << error;
  ASSERT_EQ(jobs.size(), 11u);
  EXPECT_EQ(jobs[0].id, "12");
  EXPECT_EQ(jobs[0].nodes, (std::vector<std::string>{"gpu-0001", "gpu-0002"}));
  ASSERT_EQ(jobs[0].steps.size(), 1u);
  EXPECT_EQ(jobs[0].steps[0].id, "batch");
  EXPECT_EQ(jobs[0].steps[0].exit.signal, 15);
  EXPECT_EQ(jobs[1].steps.size(), 2u);
  std::vector<ir::State> states;
  for (const auto& j : jobs) states.push_back(toWorkload(j, "").state);
  using S = ir::State;
  EXPECT_EQ(states, (std::vector<S>{S::NodeFail, S::OutOfMemory, S::Cancelled, S::Timeout, S::Preempted, S::BootFail,
                                    S::Deadline, S::Failed, S::Completed, S::Completed, S::Running}));
  evidence::Workload oom = toWorkload(jobs[1], "");
  EXPECT_EQ(oom.id, "slurm/13");
  EXPECT_EQ(oom.signal, 125);
  EXPECT_FALSE(oom.exitCode);
  EXPECT_EQ(oom.start, 1795984635LL * 1'000'000'000);
  EXPECT_EQ(oom.end, 1795984636LL * 1'000'000'000);
  EXPECT_EQ(oom.reason, "OutOfMemory");
  EXPECT_EQ(oom.user, "bob");
  EXPECT_EQ(toWorkload(jobs[6], "").nodes.size(), 0u) << "None assigned";
  EXPECT_FALSE(toWorkload(jobs[5], "").start) << "Unknown start";
  EXPECT_EQ(toWorkload(jobs[7], "c1").id, "slurm/c1/19_4");
  EXPECT_EQ(toWorkload(jobs[9], "").exitCode, 2) << "the derived exit code of a script that hid a failure";
}

TEST(Sacct, SchedulerFactsSayStateExitCancellerAndSteps) {
  size_t skipped = 0;
  std::string error;
  auto jobs = parseSacct(kRecorded, kSacctColumns, &skipped, &error);
  auto facts = schedulerFacts(jobs[1], "");
  ASSERT_EQ(facts.size(), 3u);
  EXPECT_EQ(facts[0].text, "slurm job 13 (oomcg) ended OUT_OF_MEMORY: signal 125, reason OutOfMemory");
  EXPECT_EQ(facts[0].source, "scheduler");
  EXPECT_EQ(facts[0].time, 1795984636LL * 1'000'000'000);
  EXPECT_EQ(facts[0].where.connector, "slurm");
  EXPECT_EQ(facts[2].text, "slurm step 13.0 ended OUT_OF_MEMORY: signal 125 on gpu-0003");
  auto cancelled = schedulerFacts(jobs[2], "");
  ASSERT_EQ(cancelled.size(), 2u);
  EXPECT_EQ(cancelled[1].text, "slurm job 14 was cancelled by uid 1001");
}

TEST(Sacct, MalformedLinesAreSkippedAndCountedNeverACrash) {
  const std::string text = std::string(kRecorded) +
                           "23|short|line\n"                                         // too few fields
                           "24|x|y|z|FAILED|abc|0:0|n1|1|2|None\n"                    // bad exit code
                           "25|x|y|z|FAILED|1:0|0:0|gpu[1-|1|2|None\n"                // bad hostlist
                           "99.batch|batch||z|FAILED|1:0||n1|1|2|\n"                  // a step without its job
                           "|x|y|z|FAILED|1:0|0:0|n1|1|2|None\n"                      // no id
                           "\xff\xfe|\x01|||||||||\n"                                 // binary garbage
                           "26|trunc|y|z|COMPLE";                                     // cut mid-line
  size_t skipped = 0;
  std::string error;
  auto jobs = parseSacct(text, kSacctColumns, &skipped, &error);
  EXPECT_EQ(jobs.size(), 11u) << "the good lines are all kept";
  EXPECT_EQ(skipped, 7u);
  EXPECT_NE(error.find("sacct output line 15: 3 fields, expected 11"), std::string::npos) << error;
  EXPECT_EQ(normaliseState("SOMETHING_NEW"), ir::State::Running) << "an unknown state is not a finished job";
}

TEST(SlurmContextCommand, PassesTheWindowAndFiltersToSacct) {
  SlurmOptions o;
  o.sacct = "/usr/bin/sacct";
  o.completionLog = true;
  o.cluster = "c1";
  o.since = 1795984000LL * 1'000'000'000;
  o.until = 1795987600LL * 1'000'000'000 + 500;
  o.partitions = {"h100", "a100"};
  o.users = {"alice"};
  o.names = {"train"};
  std::vector<std::string> argv = SlurmContext(o).command();
  std::string line;
  for (const auto& a : argv) line += a + " ";
  EXPECT_EQ(line,
            "/usr/bin/sacct --parsable2 --noheader --allusers --format "
            "JobID,JobName,User,Partition,State,ExitCode,DerivedExitCode,NodeList,Start,End,Reason --completion "
            "--clusters c1 --starttime 2026-11-29T20:26:40 --endtime 2026-11-29T21:26:40 --partition h100,a100 "
            "--user alice --name train ");
}

TEST(SlurmContextErrors, MissingProgramAndFailingSacctAreConnectorErrors) {
  SlurmOptions o;
  o.sacct = "/nonexistent/sacct";
  evidence::ConnectorReport report;
  EXPECT_TRUE(SlurmContext(o).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(report.reason.find("cannot run /nonexistent/sacct"), std::string::npos) << report.reason;
  o.sacct = "false";
  EXPECT_TRUE(SlurmContext(o).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(report.reason.find("sacct failed (exit 1)"), std::string::npos) << report.reason;
}

TEST(Process, TimesOutAndKills) {
  ProcessOptions o;
  o.timeout = std::chrono::milliseconds(300);
  auto started = std::chrono::steady_clock::now();
  ProcessResult r = runProcess({"sleep", "30"}, o);
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.timedOut);
  EXPECT_EQ(r.signal, 9);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(Process, CapturesOutputEnvironmentAndCapsSize) {
  ProcessOptions o;
  o.env = {{"ATTRIB_TEST_VALUE", "42"}};
  ProcessResult r = runProcess({"sh", "-c", "echo out $ATTRIB_TEST_VALUE; echo err >&2; exit 7"}, o);
  EXPECT_EQ(r.exitCode, 7);
  EXPECT_EQ(r.out, "out 42\n");
  EXPECT_EQ(r.err, "err\n");
  o.maxOutput = 1000;
  ProcessResult big = runProcess({"sh", "-c", "head -c 100000 /dev/zero"}, o);
  EXPECT_EQ(big.out.size(), 1000u);
  EXPECT_TRUE(big.truncated);
  EXPECT_EQ(big.exitCode, 0);
}

TEST(StaticContext, OneWorkloadFromAFileOrFlags) {
  std::string path = ::testing::TempDir() + "/attrib-static-workload.json";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(R"({"id": "run-7", "state": "FAILED", "exit_code": 2, "nodes": ["n1", "n2"]})", f);
    std::fclose(f);
  }
  evidence::ConnectorReport report;
  auto fromFile = StaticContext::fromFile(path).discover(&report);
  ASSERT_EQ(fromFile.size(), 1u) << report.reason;
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Ok);
  EXPECT_EQ(fromFile[0].workload.id, "run-7");
  EXPECT_EQ(fromFile[0].workload.scheduler, "static");
  EXPECT_EQ(fromFile[0].workload.state, ir::State::Failed);
  EXPECT_EQ(fromFile[0].workload.nodes, (std::vector<std::string>{"n1", "n2"}));
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(R"({"id": "run-7", "state": "EXPLODED"})", f);
    std::fclose(f);
  }
  EXPECT_TRUE(StaticContext::fromFile(path).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(report.reason.find("unknown state"), std::string::npos) << report.reason;
  EXPECT_TRUE(StaticContext::fromFile(path + ".missing").discover(&report).empty());
  EXPECT_NE(report.reason.find("cannot read"), std::string::npos) << report.reason;
  std::remove(path.c_str());
  evidence::Workload w;
  w.id = "flags";
  auto fromFlags = StaticContext::fromWorkload(w).discover(&report);
  ASSERT_EQ(fromFlags.size(), 1u);
  EXPECT_EQ(fromFlags[0].workload.id, "flags");
}

}  // namespace
}  // namespace attrib::connectors::slurm
