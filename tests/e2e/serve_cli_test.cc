// `attrib serve` refuses settings that cannot work, naming the flag, before it loads anything;
// with --sources, POST /v1/attribution collects a workload's evidence from a blueprint's sources.
#include <gtest/gtest.h>
#include <httplib.h>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

TEST(ServeCommand, ZeroOrNegativeLimitsAndTimeoutsAreUsageErrorsNamingTheFlag) {
  TempDir scratch;
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--max-in-flight", "0"}, "--max-in-flight must be at least 1"},
           {{"--max-in-flight", "-4"}, "--max-in-flight must be at least 1"},
           {{"--max-body", "0"}, "--max-body must be at least 1 byte"},
           {{"--max-body", "-1"}, "--max-body must be at least 1 byte"},
           {{"--session-ttl", "0"}, "--session-ttl must be at least 1 second"},
           {{"--session-ttl", "-1"}, "--session-ttl must be at least 1 second"},
           {{"--header-timeout", "0"}, "--header-timeout must be more than 0 seconds"},
           {{"--body-timeout", "-2"}, "--body-timeout must be more than 0 seconds"},
           {{"--idle-timeout", "0"}, "--idle-timeout must be more than 0 seconds"},
           {{"--threads", "0"}, "--threads must be at least 1"},
           {{"--max-connections", "0"}, "--max-connections must be at least 1"},
           {{"--max-sessions", "0"}, "--max-sessions must be at least 1"},
           {{"--max-session-bytes", "-5"}, "--max-session-bytes must be at least 1 byte"},
       }) {
    std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0", "--no-jit"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    CliResult r = runAttrib(args, scratch.path());
    EXPECT_EQ(r.exit, 2) << c.message;
    EXPECT_EQ(r.err, "attrib: error: " + c.message + "\n");
  }
}


// `attrib serve --sources` with a files source over the host-oom example: NVIDIA Recovery's
// request names the nodes and the window, and the Service finds the logs itself.
TEST(ServeCommand, SourcesFromABlueprintFeedTheRecoveryAdapter) {
  TempDir scratch;
  fs::path example = fs::path(ATTRIB_SOURCE_DIR) / "examples" / "host-oom";
  fs::path blueprint = scratch.write("sources.yaml", fmt::format(R"(sources:
  - files:
      roots: [{0}/logs]
      patterns:
        - glob: "{0}/logs/${{node}}/*.log*"
)", example.string()));
  fs::path log = scratch.path() / "serve.stderr", pidFile = scratch.path() / "serve.pid";
  std::string cmd = quote(ATTRIB_PATH) + " serve --listen 127.0.0.1:0 --no-jit --sources " + quote(blueprint.string()) +
                    " </dev/null >/dev/null 2>" + quote(log.string()) + " & echo $! >" + quote(pidFile.string());
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  int port = 0;
  for (int i = 0; i < 600 && port == 0; ++i) {  // up to 60 s: the stdlib loads first
    std::string err = slurp(log);
    size_t at = err.find("listening on 127.0.0.1:");
    if (at != std::string::npos) port = std::atoi(err.c_str() + at + 23);
    else std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  pid_t pid = std::atoi(slurp(pidFile).c_str());
  ASSERT_GT(port, 0) << slurp(log);
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30);
  json request = {{"schema_version", "1.0"},
                  {"workload_id", "slurm/5123"},
                  {"phase", "fast"},
                  {"failure_context", {{"detected_at", "2026-11-29T14:17:44Z"}, {"detection_signal", "CRASH"}}},
                  {"scope", {{"nodes", {"gpu-0021", "gpu-0022", "gpu-0023", "gpu-0024"}},
                             {"start_time", "2026-11-29T13:40:03Z"}, {"end_time", "2026-11-29T14:17:44Z"}}},
                  {"timeout_ms", 20000}};
  auto r = client.Post("/v1/attribution", request.dump(), "application/json");
  ::kill(pid, SIGTERM);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json a = json::parse(r->body);
  EXPECT_TRUE(a["complete"]) << a.dump();
  EXPECT_EQ(a["evidence"]["sources"][0]["name"], "sources[0].files");
  EXPECT_EQ(a["verdict"]["root_cause"]["symptom"], "host.oom.kernel_oom_kill") << a["verdict"].dump();
  EXPECT_EQ(a["verdict"]["root_cause"]["node"], "gpu-0023");
  for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

TEST(ServeCommand, ASourcesBlueprintThatCannotBeUsedIsAnErrorNamingItsLine) {
  TempDir scratch;
  fs::path bad = scratch.write("sources.yaml", "sources:\n  - elastic: {url: http://127.0.0.1:1}\n");
  CliResult r = runAttrib({"serve", "--listen", "127.0.0.1:0", "--no-jit", "--sources", bad.string()}, scratch.path());
  EXPECT_EQ(r.exit, 1);
  EXPECT_NE(r.err.find("sources.yaml:2: sources[0].elastic: unknown source 'elastic'"), std::string::npos) << r.err;
  fs::path none = scratch.write("none.yaml", "sinks: []\n");
  r = runAttrib({"serve", "--listen", "127.0.0.1:0", "--no-jit", "--sources", none.string()}, scratch.path());
  EXPECT_EQ(r.exit, 1);
  EXPECT_NE(r.err.find("'sources' is required"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attrib::e2e
