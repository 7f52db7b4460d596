// The stdlib's own captures put a root on the node a line names when that node is not a word a
// rule test can write (an IPv4 address): the rule files' tests check the other forms.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/verdict.h"
#include "tests/runtime/engine_util.h"

namespace attrib {
namespace {

using testing::diagnose;
using testing::line;

// The verdict on application lines that all carry one time (what these tests vary is the text).
runtime::Verdict diagnoseLines(const runtime::Engine& engine, const std::vector<std::string>& texts,
                               evidence::Workload workload = {}) {
  std::vector<evidence::LogLine> lines;
  for (const auto& text : texts) lines.push_back(line("", "applog", "2026-01-01T10:20:00Z", text));
  return diagnose(engine, std::move(lines), std::move(workload));
}

// Ray's raylet summary (src/ray/raylet/node_manager.cc) ends with the node it ran on:
// "... at node (ID: <hex>, IP: <address>) over the last time period."
TEST(StdlibWhere, RayletOomSummaryNamesItsNodeByAddress) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  evidence::Workload w;
  w.nodes = {"head"};
  runtime::Verdict v = diagnoseLines(
      *engine,
      {"(raylet) [2026-01-01 10:20:00,117 E 4242 4242] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) "
       "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: "
       "351e406b196f66bb45eaad02a3b8b4725babfa8cc12949432f7ad7d8, IP: 10.95.1.76) over the last time period."},
      w);
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "host.oom.ray_oom_kill");
  EXPECT_EQ(v.root->node, "10.95.1.76");
}

// Near miss: a summary cut before its address names no node of its own.
TEST(StdlibWhere, RayletOomSummaryCutBeforeItsAddressNamesNone) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  runtime::Verdict v = diagnoseLines(
      *engine, {"(raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), "
                "0 Workers crashed due to other reasons at node (ID: 351e406b"});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "host.oom.ray_oom_kill");
  EXPECT_EQ(v.root->node, "");
}

// host/oom.attr's job_oom_kill_cancellation_on_its_node: the job-level kill ("Job 7518 exceeded
// memory limit") and "*** JOB 7518 ON gpu-7 CANCELLED ***" come from the batch step's slurmstepd,
// so a kill line that names no node takes gpu-7; a step's kill ("Step 7518.3") may be another
// node's and takes none.
TEST(StdlibWhere, JobMemoryKillTakesItsCancellationsNodeAndAStepsDoesNot) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  auto rootNode = [&](const std::string& kill) {
    runtime::Verdict v =
        diagnoseLines(*engine, {kill, "slurmstepd: error: *** JOB 7518 ON gpu-7 CANCELLED AT 2026-01-01T10:20:00 ***"});
    EXPECT_TRUE(v.root);
    if (!v.root) return std::string("(none)");
    EXPECT_EQ(v.root->symptom, "host.oom.slurm_memory_limit_kill");
    return v.root->node;
  };
  EXPECT_EQ(rootNode("slurmstepd: error: Job 7518 exceeded memory limit (626359956 > 512000000), being killed"),
            "gpu-7");
  EXPECT_EQ(rootNode("slurmstepd: error: Step 7518.3 exceeded memory limit (626359956 > 512000000), being killed"), "");
  EXPECT_EQ(rootNode("slurmstepd: error: Job 7519 exceeded memory limit (626359956 > 512000000), being killed"), "")
      << "another job's cancellation";
}

// Ray's GCS names the node it marked dead by its address (gcs_node_manager.cc, Ray 2.x), here in
// its event log's JSON (event_GCS.log); Ray 0.x's "client ID" form names none.
TEST(StdlibWhere, RayNodeMarkedDeadIsOnItsAddress) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  runtime::Verdict v = diagnoseLines(
      *engine,
      {"{\"custom_fields\":{\"ip\":\"10.0.0.7\",\"node_id\":\"ada3\"},\"label\":\"RAY_NODE_REMOVED\",\"message\":"
       "\"The "
       "node with node id: ada3 and address: 10.0.0.7 and node name: 10.0.0.7 has been marked dead because the "
       "detector has missed too many heartbeats from it.\"}"});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "host.node.ray_node_dead");
  EXPECT_EQ(v.root->node, "10.0.0.7");
  runtime::Verdict old = diagnoseLines(
      *engine, {"The node with client ID 5816 has been marked dead because the monitor has missed too many "
                "heartbeats from it."});
  ASSERT_TRUE(old.root);
  EXPECT_EQ(old.root->symptom, "host.node.ray_node_dead");
  EXPECT_EQ(old.root->node, "");
}

// TORQUE's job mail names the host in its header ("Exec host:  %h"): the lines of the mail that
// name none are that host's; a job over several hosts gives none (evidence/job_mail.h).
TEST(StdlibWhere, TorqueJobMailNamesTheHostOfItsLines) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  for (const auto& [exec, node] : {std::pair<std::string, std::string>{"Exec host:  gpu-2-17/5", "gpu-2-17"},
                                   {"Exec host:  gpu-2-17/5+gpu-2-18/0", ""}}) {
    SCOPED_TRACE(exec);
    runtime::Verdict v = diagnoseLines(*engine, {"PBS Job Id: 2600365.fe1.local", "Job Name:   STDIN", exec,
                                                 "job deleted", "job preempted (node failure)"});
    ASSERT_TRUE(v.root);
    EXPECT_EQ(v.root->symptom, "scheduler.batch.batch_node_failure");
    EXPECT_EQ(v.root->node, node);
  }
}

}  // namespace
}  // namespace attrib
