// End-to-end: the attrib binary on the committed example workloads (examples/, written by
// examples/generate.py). Each test runs `attrib diagnose --no-timings` as a user would and checks
// the verdict it prints: outcome, root cause and its evidence (down to the byte offset in the log
// file), bad nodes, downstream consequences, the recommendation, one ok connector report per log
// file, and that the output is the same, byte for byte, across runs and thread counts.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

struct Downstream {
  std::string symptom;
  uint64_t count, nodes;
  std::optional<uint64_t> ranks;
  std::string explainedBy, rule;
};

struct Example {
  std::string dir;  // under examples/
  std::string workloadId, state;
  size_t nodes;
  int64_t ranks;
  std::string outcome, family;
  std::string rootSymptom, rootNode, rootTime;
  std::optional<int64_t> rootRank;
  std::optional<std::string> rootGpu;
  bool rootTimeEstimated;
  std::string rootFile;   // relative to the example directory
  std::string rootText;   // a substring that occurs on exactly one line of rootFile: the root's line
  std::string rootSource;
  std::vector<std::string> badNodes;
  std::vector<Downstream> downstream;  // groups that must be present (others may be)
  std::string allExplainedBy;          // when set, every downstream group is explained by it
  std::vector<std::string> actions, actionNodes;
  double confidence;
  size_t confidenceNotes;
  std::map<std::string, uint64_t> symptomCounts;  // a few counts that must hold
  // The first line of the root's record, when the root's line continues a record (an exception
  // line ends its traceback): where the evidence points. Empty: the root's line is its record.
  std::string rootHead = "";
};

const std::vector<Example>& examples() {
  static const std::vector<Example> all = {
      {
          "xid79-nccl-cascade", "slurm/418207", "FAILED", 16, 128,
          "gpu.xid.gpu_lost", "accelerator-gpu",
          "gpu.xid.xid79", "gpu-0007", "2026-11-29T10:42:00Z", std::nullopt, "0000:3b:00", false,
          "logs/gpu-0007/syslog.log", "NVRM: Xid (PCI:0000:3b:00): 79, pid=", "kernel",
          {"gpu-0007"},
          {
              {"std.nccl.watchdog_timeout", 127, 16, 127, "gpu.xid.xid79@gpu-0007", "gpu.xid.gpu_fault_explains_nccl"},
              {"std.nccl.process_group_abort", 127, 16, 127, "gpu.xid.xid79@gpu-0007", "gpu.xid.gpu_fault_explains_nccl"},
              {"std.teardown.worker_failed", 16, 16, std::nullopt, "gpu.xid.xid79@gpu-0007",
               "gpu.xid.gpu_fault_explains_teardown"},
              {"std.teardown.child_failed", 16, 16, std::nullopt, "gpu.xid.xid79@gpu-0007",
               "gpu.xid.gpu_fault_explains_teardown"},
              // srun reports every node's exit from the batch host, gpu-0001.
              {"std.teardown.srun_task_exit", 16, 1, std::nullopt, "gpu.xid.xid79@gpu-0007",
               "gpu.xid.gpu_fault_explains_teardown"},
          },
          "gpu.xid.xid79@gpu-0007",
          {"drain_node", "reboot_node", "restart"}, {"gpu-0007"},
          0.95, 0,
          {{"gpu.xid.xid79", 1}, {"std.nccl.watchdog_timeout", 127}},
      },
      {
          "host-oom", "slurm/5123", "OUT_OF_MEMORY", 4, 32,
          "host.oom.host_oom", "host-oom",
          "host.oom.kernel_oom_kill", "gpu-0023", "2026-11-29T14:17:31Z", std::nullopt, std::nullopt, false,
          "logs/gpu-0023/syslog.log", "Out of memory: Killed process", "kernel",
          {},  // an OOM is the job's demand, not a faulty node: nothing to drain
          {
              // Slurm's reports and the OUT_OF_MEMORY state are the same event, seen later.
              {"host.oom.oom_kill_event", 1, 1, std::nullopt, "host.oom.kernel_oom_kill@gpu-0023",
               "host.oom.kill_explains_slurm_reports"},
              {"host.oom.srun_task_oom", 1, 1, std::nullopt, "host.oom.kernel_oom_kill@gpu-0023",
               "host.oom.kill_explains_slurm_reports"},
              {"scheduler.slurm.job_out_of_memory", 1, 0, std::nullopt, "host.oom.kernel_oom_kill@gpu-0023",
               "host.oom.oom_explains_scheduler_state"},
              // The killed rank's launcher on the same node.
              {"std.teardown.worker_failed", 1, 1, std::nullopt, "host.oom.kernel_oom_kill@gpu-0023",
               "host.oom.oom_explains_teardown"},
              {"std.teardown.signal_received", 1, 1, std::nullopt, "host.oom.kernel_oom_kill@gpu-0023",
               "host.oom.oom_explains_teardown"},
              // Every launcher stopping its workers, through the job's OUT_OF_MEMORY state (which the
              // kill explains) or directly: one group under the cause at the end of the chain, named
              // by the rule that explained most of them.
              {"std.teardown.closing_signal", 31, 4, std::nullopt, "host.oom.kernel_oom_kill@gpu-0023",
               "scheduler.slurm.scheduler_explains_teardown"},
              // The peers on the other three nodes: two matching lines per rank (the watchdog's
              // message and its ncclRemoteError continuation).
              {"std.nccl.remote_process_exited", 18, 3, 9, "host.oom.kernel_oom_kill@gpu-0023",
               "host.oom.oom_explains_nccl"},
              {"std.nccl.process_group_abort", 9, 3, 9, "host.oom.kernel_oom_kill@gpu-0023", "host.oom.oom_explains_nccl"},
          },
          "",
          {"increase_memory", "restart"}, {},
          0.9, 0,
          {{"host.oom.kernel_oom_kill", 1}, {"std.teardown.closing_signal", 31}},
      },
      {
          "user-code-exception", "slurm/6120", "FAILED", 4, 32,
          "user.python.python_exception", "user-code",
          // The exception line ends its traceback's record: the evidence is the whole traceback,
          // at its first line ("Traceback (most recent call last):", 15 lines above), whose time
          // is the record's.
          "user.python.exception", "gpu-0042", "2026-11-29T16:05:13.482Z", 13, std::nullopt, false,
          "logs/gpu-0042/applog.log", "ValueError: sequence length 4113 exceeds max_seq_len 4096", "application",
          {},
          {
              {"std.nccl.remote_process_exited", 6, 3, 3, "user.python.exception@gpu-0042",
               "user.python.exception_explains_nccl"},
              {"std.nccl.process_group_abort", 3, 3, 3, "user.python.exception@gpu-0042",
               "user.python.exception_explains_nccl"},
              {"std.teardown.worker_failed", 1, 1, std::nullopt, "user.python.exception@gpu-0042",
               "user.python.exception_explains_teardown"},
              {"std.teardown.closing_signal", 31, 4, std::nullopt, "user.python.exception@gpu-0042",
               "user.python.exception_explains_teardown"},
              {"std.teardown.srun_task_exit", 1, 1, std::nullopt, "user.python.exception@gpu-0042",
               "user.python.exception_explains_teardown"},
          },
          "user.python.exception@gpu-0042",
          {"fix_code"}, {},
          0.7, 0,  // the traceback's first line carries the time
          {{"user.python.exception", 1}},
          "2026-11-29T16:05:13.482000Z [rank13]: Traceback (most recent call last):",
      },
  };
  return all;
}

fs::path exampleDir(const std::string& name) { return fs::path(ATTRIB_SOURCE_DIR) / "examples" / name; }

// The log files of a workload directory, as "node/file" (the connector report's source).
std::map<std::string, fs::path> logFiles(const fs::path& dir) {
  std::map<std::string, fs::path> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "logs")) {
    if (!entry.is_regular_file()) continue;
    std::string name = entry.path().filename().string();
    EXPECT_TRUE(endsWith(name, ".log")) << "unexpected file in the example: " << entry.path();
    std::string node = entry.path().parent_path().filename().string();
    out[node + "/" + name] = entry.path();
  }
  return out;
}

class ExampleTest : public ::testing::TestWithParam<Example> {
 protected:
  TempDir scratch_;
};

TEST_P(ExampleTest, Verdict) {
  const Example& ex = GetParam();
  const fs::path dir = exampleDir(ex.dir);
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " is missing; run python3 examples/generate.py";
  CliResult raw;
  json v = diagnose(dir, scratch_.path(), {}, &raw);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(raw.err, "");

  EXPECT_EQ(v["schema"], "attrib.verdict/v1");
  EXPECT_EQ(v["workload"]["id"], ex.workloadId);
  EXPECT_EQ(v["workload"]["scheduler"], "slurm");
  EXPECT_EQ(v["workload"]["state"], ex.state);
  EXPECT_EQ(v["workload"]["nodes"].size(), ex.nodes);
  EXPECT_EQ(v["workload"]["ranks"], ex.ranks);
  EXPECT_EQ(v["terminal_state"], ex.state);

  // Outcome: exactly one, the expected one.
  ASSERT_EQ(v["outcome"].size(), 1u) << v["outcome"].dump();
  EXPECT_EQ(v["outcome"][0]["name"], ex.outcome);
  EXPECT_EQ(v["outcome"][0]["family"], ex.family);

  // Root cause.
  const json& root = v["root_cause"];
  ASSERT_TRUE(root.is_object()) << "no root cause";
  EXPECT_EQ(root["symptom"], ex.rootSymptom);
  EXPECT_EQ(root["node"], ex.rootNode);
  EXPECT_EQ(root["time"], ex.rootTime);
  EXPECT_EQ(root["time_estimated"], ex.rootTimeEstimated);
  EXPECT_EQ(root["rank"], ex.rootRank ? json(*ex.rootRank) : json());
  EXPECT_EQ(root["gpu"], ex.rootGpu ? json(*ex.rootGpu) : json());
  EXPECT_TRUE(v["other_causes"].empty()) << v["other_causes"].dump(2);

  // Its evidence: the right file, and offset and line number that find the line again.
  ASSERT_EQ(root["evidence"].size(), 1u);
  const json& e = root["evidence"][0];
  EXPECT_EQ(e["source"], ex.rootSource);
  EXPECT_EQ(e["connector"], "files");
  EXPECT_EQ(e["node"], ex.rootNode);
  EXPECT_EQ(e["time"].is_null(), ex.rootTimeEstimated) << "evidence time: " << e["time"];
  const std::string location = e["where"].value("location", "");
  EXPECT_TRUE(endsWith(location, ex.dir + "/" + ex.rootFile)) << location;
  EXPECT_NE(e.value("line", "").find(ex.rootText), std::string::npos) << e["line"];
  expectEvidenceFindsItsLine(e);
  {
    // Independently of the verdict: where the root's line is in the committed file.
    const std::string file = slurp(dir / ex.rootFile);
    const std::string& head = ex.rootHead.empty() ? ex.rootText : ex.rootHead;
    ASSERT_NE(file.find(ex.rootText), std::string::npos);
    size_t at = file.find(head);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(file.find(head, at + 1), std::string::npos) << "the root's first line must occur once";
    size_t lineStart = file.rfind('\n', at);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    EXPECT_EQ(e["where"]["offset"], lineStart);
    EXPECT_EQ(e["where"]["line"], std::count(file.begin(), file.begin() + static_cast<long>(lineStart), '\n') + 1);
  }

  // Nodes.
  EXPECT_EQ(nodeNames(v["bad_nodes"]), ex.badNodes);
  for (const auto& n : v["bad_nodes"]) {
    EXPECT_EQ(n["symptoms"], json::array({ex.rootSymptom})) << n.dump();
  }

  // Downstream consequences.
  for (const auto& d : ex.downstream) {
    SCOPED_TRACE(d.symptom + " explained by " + d.explainedBy);
    json g = downstreamFor(v, d.symptom, d.explainedBy);
    ASSERT_TRUE(g.is_object()) << "missing; downstream is:\n" << v["downstream"].dump(2);
    EXPECT_EQ(g["count"], d.count);
    EXPECT_EQ(g["nodes"], d.nodes);
    if (d.ranks) {
      EXPECT_EQ(g["ranks"], *d.ranks);
    }
    EXPECT_EQ(g["rule"], d.rule);
    // RFC 3339 times of one day and zone compare as text, to the second.
    EXPECT_GE(g.value("first", "").substr(0, 19), ex.rootTime.substr(0, 19)) << "a consequence before its cause";
  }
  if (!ex.allExplainedBy.empty()) {
    for (const auto& g : v["downstream"]) EXPECT_EQ(g["explained_by"], ex.allExplainedBy) << g.dump();
  }
  for (const auto& [symptom, count] : ex.symptomCounts) {
    EXPECT_EQ(v["symptom_counts"].value(symptom, uint64_t{0}), count) << symptom;
  }

  // Recommendation and confidence.
  EXPECT_EQ(v["recommendation"]["actions"], json(ex.actions));
  EXPECT_EQ(v["recommendation"]["nodes"], json(ex.actionNodes));
  EXPECT_DOUBLE_EQ(v["confidence"].get<double>(), ex.confidence);
  EXPECT_EQ(v["confidence_notes"].size(), ex.confidenceNotes) << v["confidence_notes"].dump();
}

// Every log file of the example is read completely: one "ok" report each, with its line and
// byte counts, and nothing else to report (workload.json is present, there are no metrics).
TEST_P(ExampleTest, OneOkConnectorReportPerLogFile) {
  const Example& ex = GetParam();
  const fs::path dir = exampleDir(ex.dir);
  json v = diagnose(dir, scratch_.path());
  ASSERT_FALSE(v.empty());
  const auto files = logFiles(dir);
  ASSERT_EQ(files.size(), 2 * ex.nodes) << "applog and syslog per node";
  EXPECT_EQ(v["connector_reports"].size(), files.size()) << v["connector_reports"].dump(2);
  uint64_t lines = 0, bytes = 0;
  for (const auto& [source, path] : files) {
    SCOPED_TRACE(source);
    json r = reportFor(v, source);
    ASSERT_TRUE(r.is_object()) << "no report";
    EXPECT_EQ(r["connector"], "files");
    EXPECT_EQ(r["status"], "ok");
    EXPECT_TRUE(r["reason"].is_null()) << r["reason"];
    const std::string text = slurp(path);
    const auto n = static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
    EXPECT_EQ(r["observations"], n);
    EXPECT_EQ(r["bytes"], text.size());
    lines += n;
    bytes += text.size();
  }
  EXPECT_EQ(v["stats"]["lines_scanned"], lines);
  EXPECT_EQ(v["stats"]["bytes_scanned"], bytes);
  EXPECT_EQ(v["stats"]["elapsed_ms"], json({{"collect", 0}, {"scan", 0}, {"refine", 0}}));
}

TEST_P(ExampleTest, SameBytesEveryRunAndThreadCount) {
  const Example& ex = GetParam();
  const fs::path dir = exampleDir(ex.dir);
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"diagnose", "--no-timings"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(dir.string());
    CliResult r = runAttrib(args, scratch_.path());
    EXPECT_EQ(r.exit, 0) << r.err;
    EXPECT_FALSE(r.out.empty());
    return r.out;
  };
  const std::string first = run({});
  EXPECT_EQ(run({}), first) << "two runs differ";
  const std::string one = run({"--threads", "1"});
  EXPECT_EQ(run({"--threads", "2"}), one) << "--threads 1 and --threads 2 differ";
  EXPECT_EQ(one, first) << "--threads 1 and the default differ";
  // The text summary too.
  EXPECT_EQ(run({"--format", "text", "--threads", "1"}), run({"--format", "text", "--threads", "2"}));
}

// The JIT (the default) and the interpreter (--no-jit) give the same verdict, byte for byte,
// apart from saying which one ran.
TEST_P(ExampleTest, JitAndInterpreterAgree) {
  const Example& ex = GetParam();
  const fs::path dir = exampleDir(ex.dir);
  CliResult jit, interpreted;
  json a = diagnose(dir, scratch_.path(), {}, &jit);
  json b = diagnose(dir, scratch_.path(), {"--no-jit"}, &interpreted);
  EXPECT_EQ(a["stats"]["evaluator"], "jit");
  EXPECT_EQ(b["stats"]["evaluator"], "interpreter");
  EXPECT_FALSE(a["stats"].contains("evaluator_note")) << a["stats"];
  std::string jitOut = jit.out, interpretedOut = interpreted.out;
  auto strip = [](std::string s, const std::string& evaluator) {
    std::string field = "\"evaluator\": \"" + evaluator + "\"";
    size_t at = s.find(field);
    if (at != std::string::npos) s.erase(at, field.size());
    return s;
  };
  EXPECT_EQ(strip(jitOut, "jit"), strip(interpretedOut, "interpreter"));
}

// --jit-cache DIR keeps the compiled predicates there (one entry per rule set and machine);
// --no-jit-cache and --no-jit write nothing.
TEST_P(ExampleTest, JitCacheDirectory) {
  const Example& ex = GetParam();
  const fs::path dir = exampleDir(ex.dir);
  const fs::path cache = scratch_.path() / "jit-cache";
  auto count = [&] {
    size_t n = 0;
    std::error_code ec;
    for (auto it = fs::directory_iterator(cache, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
    return n;
  };
  diagnose(dir, scratch_.path(), {"--no-jit", "--jit-cache", cache.string()});
  EXPECT_EQ(count(), 0u);
  diagnose(dir, scratch_.path(), {"--no-jit-cache", "--jit-cache", cache.string()});
  EXPECT_EQ(count(), 0u);
  json cold = diagnose(dir, scratch_.path(), {"--jit-cache", cache.string()});
  EXPECT_EQ(count(), 1u);
  json warm = diagnose(dir, scratch_.path(), {"--jit-cache", cache.string()});
  EXPECT_EQ(count(), 1u);
  EXPECT_EQ(cold, warm);
  EXPECT_EQ(warm["stats"]["evaluator"], "jit");
}

// --sink: the verdict to stdout (as JSON lines here) and into SQLite, in one run; running again
// replaces the stored verdict instead of adding one. A bad sink fails before any work.
TEST_P(ExampleTest, SinksToStdoutAndSqlite) {
  const Example& ex = GetParam();
  const fs::path db = scratch_.path() / "verdicts.db";
  for (int run = 0; run < 2; ++run) {
    CliResult r = runAttrib({"diagnose", "--no-timings", "--sink", "stdout:jsonl", "--sink", "sqlite:" + db.string(),
                             exampleDir(ex.dir).string()},
                            scratch_.path());
    ASSERT_EQ(r.exit, 0) << r.err;
    ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one JSON line";
    json v = json::parse(r.out);
    EXPECT_EQ(v["workload"]["id"], ex.workloadId);
  }
  CliResult q = runAttrib({"diagnose", "--sink", "sqlite:" + (scratch_.path() / "no" / "dir.db").string(),
                           exampleDir(ex.dir).string()},
                          scratch_.path());
  EXPECT_EQ(q.exit, 1);
  EXPECT_NE(q.err.find("attrib: error: cannot open the SQLite database"), std::string::npos) << q.err;
  EXPECT_TRUE(q.out.empty());
  CliResult bad = runAttrib({"diagnose", "--sink", "kafka://user:hunter2@broker/topic", exampleDir(ex.dir).string()}, scratch_.path());
  EXPECT_EQ(bad.exit, 1);
  EXPECT_NE(bad.err.find("--sink kafka: a sink is stdout, stdout:FORMAT, sqlite:PATH or postgres:CONNINFO"), std::string::npos)
      << bad.err;
  EXPECT_EQ(bad.err.find("hunter2"), std::string::npos) << "a mistyped spec may hold a password: " << bad.err;
  ASSERT_TRUE(fs::exists(db));
  // Read it back with the sqlite3 shell, as a dashboard would.
  std::string cmd = "sqlite3 " + quote(db.string()) + " 'SELECT count(*), min(workload_id) FROM verdicts' > " +
                    quote((scratch_.path() / "count.txt").string());
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(slurp(scratch_.path() / "count.txt"), "1|" + ex.workloadId + "\n");
}

// The text summary names the outcome, the root cause with its file and line, and the action.
TEST_P(ExampleTest, TextSummary) {
  const Example& ex = GetParam();
  CliResult r = runAttrib({"diagnose", "--format", "text", exampleDir(ex.dir).string()}, scratch_.path());
  ASSERT_EQ(r.exit, 0) << r.err;
  EXPECT_NE(r.out.find("outcome    " + ex.outcome + " [" + ex.family + "]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("root cause " + ex.rootSymptom + " on " + ex.rootNode), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(ex.rootFile + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("action     " + ex.actions.front()), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleTest, ::testing::ValuesIn(examples()),
                         [](const ::testing::TestParamInfo<Example>& info) {
                           std::string name = info.param.dir;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace attrib::e2e
