// `attrib run --config blueprint.yaml` as users run it: a static context and local files over an
// example workload, verdicts to stdout and SQLite, a source that is down, watch mode that never
// attributes twice and resumes from its database, and blueprints that are wrong.
#include <fmt/format.h>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

const fs::path kExample = fs::path(ATTRIB_SOURCE_DIR) / "examples" / "host-oom";

class Orchestrator : public ::testing::Test {
 protected:
  fs::path blueprint(const std::string& extraSources = "", const std::string& sinks = "") {
    std::string text = fmt::format(R"(# a test blueprint
context:
  static:
    workload: {0}/workload.json
sources:
  - files:
      roots: [{0}/logs]
      patterns:
        - glob: "{0}/logs/${{node}}/*.log*"
{1}sinks:
{2})",
                                   kExample.string(), extraSources,
                                   sinks.empty() ? "  - stdout: {format: jsonl}\n  - sqlite: {path: verdicts.db}\n" : sinks);
    return dir_.write("blueprint.yaml", text);
  }
  TempDir dir_;
};

TEST_F(Orchestrator, BatchRunWritesTheSameVerdictAsDiagnoseToEverySink) {
  CliResult r = runAttrib({"run", "--config", blueprint().string()}, dir_.path());
  ASSERT_EQ(r.exit, 0) << r.err;
  json v = json::parse(r.out);
  json direct = diagnose(kExample, dir_.path());
  EXPECT_EQ(v["root_cause"]["symptom"], direct["root_cause"]["symptom"]);
  EXPECT_EQ(v["root_cause"]["node"], direct["root_cause"]["node"]);
  EXPECT_EQ(v["outcomes"], direct["outcomes"]);
  EXPECT_NE(r.err.find("attrib run: 1 workload(s) found, 1 attributed, 0 already attributed, 0 failed"), std::string::npos) << r.err;
  ASSERT_TRUE(fs::exists(dir_.path() / "verdicts.db")) << "sink paths are relative to the blueprint";
}

TEST_F(Orchestrator, WatchModeNeverAttributesTwiceAndResumesFromItsDatabase) {
  fs::path bp = blueprint();
  CliResult first = runAttrib({"run", "--config", bp.string(), "--watch", "--max-cycles", "1"}, dir_.path());
  ASSERT_EQ(first.exit, 0) << first.err;
  EXPECT_NE(first.err.find("1 attributed, 0 already attributed"), std::string::npos) << first.err;
  // A new process (a restart) with the same database: nothing to do.
  CliResult again = runAttrib({"run", "--config", bp.string(), "--watch", "--max-cycles", "2", "--interval", "0"}, dir_.path());
  ASSERT_EQ(again.exit, 0) << again.err;
  EXPECT_NE(again.err.find("0 attributed, 2 already attributed"), std::string::npos) << again.err;
  EXPECT_TRUE(again.out.empty()) << "no verdict printed twice";
}

TEST_F(Orchestrator, ASourceThatIsDownIsRecordedAndTheRunGoesOn) {
  CliResult r = runAttrib({"run", "--config",
                           blueprint("  - loki:\n      url: http://127.0.0.1:1\n      timeout: 1\n      budget: 2\n").string()},
                          dir_.path());
  ASSERT_EQ(r.exit, 0) << r.err;
  json v = json::parse(r.out);
  EXPECT_EQ(v["root_cause"]["symptom"], "host.oom.kernel_oom_kill");
  bool lokiError = false;
  for (const auto& rep : v["connector_reports"]) {
    if (rep["connector"] == "loki") lokiError = rep["status"] == "error";
  }
  EXPECT_TRUE(lokiError) << v["connector_reports"].dump();
}

TEST_F(Orchestrator, TheEnvironmentOverridesTheBlueprint) {
  fs::path db = dir_.path() / "from-env.db";
  ::setenv("ATTRIB_SQLITE", db.string().c_str(), 1);
  CliResult r = runAttrib({"run", "--config", blueprint().string()}, dir_.path());
  ::unsetenv("ATTRIB_SQLITE");
  ASSERT_EQ(r.exit, 0) << r.err;
  EXPECT_TRUE(fs::exists(db));
  EXPECT_FALSE(fs::exists(dir_.path() / "verdicts.db"));
}

TEST_F(Orchestrator, WrongBlueprintsAreOneLineErrorsWithTheirPlace) {
  struct Case {
    std::string text, message;
  };
  for (const Case& c : std::vector<Case>{
           {"context:\n  static:\n    workload: w.json\nsinkz: []\n", "blueprint.yaml:4: blueprint: unknown key 'sinkz'"},
           {"context:\n  pbs: {}\n", "blueprint.yaml:2: context: unknown context 'pbs' (known: slurm, kueue, static)"},
           {"context:\n  static:\n    workload: w.json\nsources:\n  - files:\n      patterns: [x]\n",
            "sources[0].files: 'roots' is required: files are only read inside them"},
           {"context:\n  static:\n    workload: w.json\nsources:\n  - loki: {query: x}\n", "sources[0].loki: 'url' is required"},
           {"context: [unclosed\n", "blueprint.yaml"},
           {"context:\n  slurm:\n    mode: squeue\n",
            "blueprint.yaml:3: context.slurm: unknown mode 'squeue' (known: sacct, sacct-json, slurmrestd)"},
           {"context:\n  slurm:\n    mode: slurmrestd\n",
            "context.slurm: mode slurmrestd needs 'slurmrestd' (url or socket, user, token_file)"},
           {"context:\n  slurm:\n    mode: slurmrestd\n    slurmrestd: {user: u}\n", "context.slurm.slurmrestd: give 'url' or 'socket'"},
           {"context:\n  slurm:\n    mode: slurmrestd\n    slurmrestd: {url: 'slurm:6820'}\n",
            "context.slurm.slurmrestd: 'url' must be http://HOST:PORT or https://..., not 'slurm:6820'"},
           {"context:\n  slurm:\n    mode: slurmrestd\n    slurmrestd: {url: 'http://127.0.0.1:1', user: u, token_file: nope}\n",
            "context.slurm.slurmrestd: cannot read the token file"},
           {"context:\n  slurm:\n    mode: slurmrestd\n    slurmrestd: {socket: /s, secret: x}\n",
            "context.slurm.slurmrestd: unknown key 'secret'"},
           {"context:\n  slurm:\n    mode: sacct-json\n    completion_log: true\n",
            "context.slurm: completion_log (no slurmdbd) works with mode sacct only, not sacct-json"},
           {"context:\n  slurm:\n    slurmrestd: {socket: /s}\n",
            "context.slurm: 'slurmrestd' is only read in mode slurmrestd (mode is sacct)"},
           // Zero or negative intervals, timeouts and limits cannot work: each names its setting.
           {"context:\n  static:\n    workload: w.json\nwatch: {interval: -5}\n",
            "blueprint.yaml:4: watch: 'interval' must be more than 0 seconds"},
           {"context:\n  static:\n    workload: w.json\nwatch: {interval: 0}\n", "blueprint.yaml:4: watch: 'interval' must be more than 0 seconds"},
           {"context:\n  static:\n    workload: w.json\nwatch: {interval: 500ms}\n", "watch: 'interval' must be at least 1 second"},
           {"context:\n  static:\n    workload: w.json\nwatch: {every: 5}\n", "watch: unknown key 'every'"},
           {"context:\n  slurm:\n    timeout: 0\n", "context.slurm: 'timeout' must be more than 0 seconds"},
           {"context:\n  static:\n    workload: w.json\nsources:\n  - loki: {url: 'http://127.0.0.1:1', limit: 0}\n",
            "sources[0].loki: 'limit' must be a whole number of at least 1"},
           {"context:\n  static:\n    workload: w.json\nsources:\n  - loki: {url: 'http://127.0.0.1:1', limit: -3}\n",
            "sources[0].loki: 'limit' must be a whole number of at least 1"},
           {"context:\n  static:\n    workload: w.json\nsources:\n  - loki: {url: 'http://127.0.0.1:1', budget: 0}\n",
            "sources[0].loki: 'budget' must be more than 0 seconds"},
           {"context:\n  static:\n    workload: w.json\nsources:\n  - prometheus: {url: 'http://127.0.0.1:1', step: -15}\n",
            "sources[0].prometheus: 'step' must be more than 0 seconds"},
           {"context:\n  static:\n    workload: w.json\nsources:\n  - pod_logs: {server: 'https://127.0.0.1:1', limit_bytes: 0}\n",
            "sources[0].pod_logs: 'limit_bytes' must be a whole number of at least 1"},
       }) {
    fs::path bp = dir_.write("blueprint.yaml", c.text);
    CliResult r = runAttrib({"run", "--config", bp.string()}, dir_.path());
    EXPECT_EQ(r.exit, 1) << c.text;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.text << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // A valid slurmrestd context whose socket is not there: the context's error, within its deadline.
  dir_.write("jwt", "eyJ-secret-token\n");
  fs::path rest = dir_.write("blueprint.yaml",
                             "context:\n  slurm:\n    mode: slurmrestd\n    timeout: 2\n    slurmrestd:\n"
                             "      socket: no-such-slurmrestd.sock\n      user: attrib\n      token_file: jwt\n");
  CliResult unreachable = runAttrib({"run", "--config", rest.string()}, dir_.path());
  EXPECT_EQ(unreachable.exit, 1) << unreachable.err;
  EXPECT_NE(unreachable.err.find("slurmrestd unreachable"), std::string::npos) << unreachable.err;
  EXPECT_EQ(unreachable.err.find("eyJ-secret"), std::string::npos) << unreachable.err;
  CliResult watch = runAttrib({"run", "--config", blueprint("", "  - stdout: {}\n").string(), "--watch"}, dir_.path());
  EXPECT_EQ(watch.exit, 2);
  EXPECT_NE(watch.err.find("--watch needs a sqlite sink"), std::string::npos) << watch.err;
  for (const char* interval : {"-3", "0"}) {
    CliResult r = runAttrib({"run", "--config", blueprint().string(), "--watch", "--interval", interval}, dir_.path());
    EXPECT_EQ(r.exit, 2) << interval;
    EXPECT_EQ(r.err, fmt::format("attrib: error: --interval must be at least 1 second (0 only with --max-cycles), not {}\n", interval));
  }
  CliResult since = runAttrib({"run", "--config", blueprint().string(), "--since", "yesterday"}, dir_.path());
  EXPECT_EQ(since.exit, 2);
  EXPECT_NE(since.err.find("'yesterday' is not an RFC 3339 time"), std::string::npos) << since.err;
}

}  // namespace
}  // namespace attrib::e2e
