// `attrib run` with a remote attrib Service as its diagnosing step (blueprint `service: {url}`):
// a real `attrib serve` started on 127.0.0.1 by the test gives the same verdicts, stored in
// SQLite, as an in-process run (elapsed times aside); a tiny body limit splits the evidence into
// a session; a wrong token, a stopped Service, 413, 503 with Retry-After, a timeout and a reply
// that is not a verdict are each that workload's failure, nothing is stored and a watch retries
// it. Stub Services (cpp-httplib, loopback) play the misbehaving ones.
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sqlite3.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

const fs::path kExamples = fs::path(ATTRIB_SOURCE_DIR) / "examples";
const fs::path kScenarios = fs::path(ATTRIB_SOURCE_DIR) / "tests" / "scenarios";
constexpr const char* kToken = "tok-3f9a1c7e-never-shown";

// A stub Service on 127.0.0.1: GET /v1/rulesets answers like attrib's; POST /v1/attribute runs
// `attribute` (by default: forwards to `upstream`, a real Service).
class Stub {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
  explicit Stub(Handler attribute, int upstream = 0) : attribute_(std::move(attribute)) {
    server_.Get("/v1/rulesets", [upstream](const httplib::Request&, httplib::Response& res) {
      if (upstream) {
        httplib::Client c("127.0.0.1", upstream);
        auto r = c.Get("/v1/rulesets");
        res.set_content(r ? r->body : "", "application/json");
        return;
      }
      res.set_content(R"({"rulesets": [{"name": "stdlib", "version": "0", "digest": "sha256:stub"}], "limits": {"max_body_bytes": 67108864}})",
                      "application/json");
    });
    server_.Post("/v1/attribute", [this, upstream](const httplib::Request& req, httplib::Response& res) {
      ++calls;
      if (attribute_) attribute_(req, res);
      if (res.status == -1 || res.status == 0) res.status = 200;
      if (res.status == 200 && res.body.empty() && upstream) {
        httplib::Client c("127.0.0.1", upstream);
        c.set_read_timeout(30);
        auto r = c.Post("/v1/attribute", req.body, "application/json");
        res.status = r ? r->status : 502;
        res.set_content(r ? r->body : "", "application/json");
      }
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 200 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~Stub() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }
  std::atomic<int> calls{0};

 private:
  Handler attribute_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// verdict_json by workload id from a SQLite sink.
std::map<std::string, std::string> storedVerdicts(const fs::path& db) {
  std::map<std::string, std::string> out;
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(h);
    return out;
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, "SELECT workload_id, verdict_json FROM verdicts", -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// The verdict without what legitimately differs between runs: elapsed times.
std::string withoutTimings(const std::string& text) {
  json v = json::parse(text);
  for (auto& r : v["connector_reports"]) r["elapsed_ms"] = 0;
  for (auto& [k, ms] : v["stats"]["elapsed_ms"].items()) ms = 0;
  return v.dump(2);
}

class RemoteRun : public ::testing::Test {
 protected:
  // A blueprint over workload directory `dir` (static context, local files), writing to `db`,
  // diagnosing with `service` (a YAML mapping; empty: in-process).
  fs::path blueprint(const fs::path& dir, const std::string& db, const std::string& service, const std::string& name = "blueprint.yaml") {
    std::string text = fmt::format(R"(context:
  static:
    workload: {0}/workload.json
sources:
  - files:
      roots: [{0}/logs]
      patterns:
        - glob: "{0}/logs/${{node}}/*.log*"
sinks:
  - sqlite: {{path: {1}}}
{2})",
                                   dir.string(), db, service.empty() ? "" : "service: " + service + "\n");
    return dir_.write(name, text);
  }
  CliResult run(const fs::path& bp, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", "--config", bp.string(), "--no-jit"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runAttrib(args, dir_.path());
  }
  // A copy of examples/host-oom with one log gzip-compressed (the Service must read it as the
  // in-process run does).
  fs::path hostOomWithGzip() {
    fs::path copy = dir_.path() / "host-oom";
    fs::copy(kExamples / "host-oom", copy, fs::copy_options::recursive);
    fs::path plain = copy / "logs" / "gpu-0021" / "syslog.log";
    std::string text = slurp(plain);
    gzFile gz = gzopen((plain.string() + ".gz").c_str(), "wb");
    gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
    gzclose(gz);
    fs::remove(plain);
    return copy;
  }
  TempDir dir_;
};

TEST_F(RemoteRun, VerdictsInSqliteEqualThoseOfAnInProcessRun) {
  fs::path token = dir_.write("token", std::string(kToken) + "\n");
  Served service(dir_.path(), {"--token-file", token.string()});
  std::vector<fs::path> dirs = {hostOomWithGzip(), kExamples / "xid79-nccl-cascade", kExamples / "user-code-exception"};
  for (const char* name : {"cuda-oom-4n", "ib-link-down-cuda-error-6n", "host-mce-panic-node-fail-8n", "completed-4n"}) {
    if (fs::exists(kScenarios / name)) dirs.push_back(kScenarios / name);
  }
  std::string remoteService = fmt::format("{{url: \"{}\", token_file: token, timeout: 30s}}", service.url());
  for (const auto& d : dirs) {
    CliResult local = run(blueprint(d, "local.db", ""));
    ASSERT_EQ(local.exit, 0) << d << ": " << local.err;
    CliResult remote = run(blueprint(d, "remote.db", remoteService));
    ASSERT_EQ(remote.exit, 0) << d << ": " << remote.err;
    for (const std::string& text : {remote.out, remote.err}) EXPECT_EQ(text.find(kToken), std::string::npos) << text;
  }
  auto local = storedVerdicts(dir_.path() / "local.db");
  auto remote = storedVerdicts(dir_.path() / "remote.db");
  ASSERT_EQ(local.size(), dirs.size());
  ASSERT_EQ(remote.size(), dirs.size());
  for (const auto& [id, verdict] : local) {
    ASSERT_TRUE(remote.count(id)) << id;
    EXPECT_EQ(withoutTimings(remote[id]), withoutTimings(verdict)) << id;
    // The evidence points at the same files and lines, the gzip-compressed one included.
    json v = json::parse(remote[id]);
    if (v["root_cause"].is_object()) {
      for (const auto& e : v["root_cause"]["evidence"]) {
        if (e["connector"] == "files" && !endsWith(e["where"]["location"].get<std::string>(), ".gz")) expectEvidenceFindsItsLine(e);
      }
    }
  }
  EXPECT_EQ(slurp(dir_.path() / "remote.db").find(kToken), std::string::npos);
  EXPECT_EQ(service.log().find(kToken), std::string::npos);
  // One call per workload: the evidence fitted the default body limit.
  std::string log = service.log();
  EXPECT_NE(log.find(R"("route":"/v1/attribute","status":200)"), std::string::npos) << log;
  EXPECT_EQ(log.find("/v1/sessions"), std::string::npos) << log;
}

TEST_F(RemoteRun, ATinyBodyLimitSplitsTheEvidenceAcrossASession) {
  Served service(dir_.path(), {"--max-body", "3000"});
  fs::path d = hostOomWithGzip();
  ASSERT_EQ(run(blueprint(d, "local.db", "")).exit, 0);
  CliResult remote = run(blueprint(d, "remote.db", fmt::format("{{url: \"{}\"}}", service.url())));
  ASSERT_EQ(remote.exit, 0) << remote.err;
  auto local = storedVerdicts(dir_.path() / "local.db");
  auto stored = storedVerdicts(dir_.path() / "remote.db");
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(withoutTimings(stored.begin()->second), withoutTimings(local.begin()->second));
  std::string log = service.log();
  size_t posts = 0;
  for (size_t at = log.find("/v1/sessions/{id}/observations\",\"status\":200"); at != std::string::npos;
       at = log.find("/v1/sessions/{id}/observations\",\"status\":200", at + 1)) {
    ++posts;
  }
  EXPECT_GT(posts, 20u) << "about 70 KB of logs in bodies of at most 3000 bytes";
  EXPECT_EQ(log.find("\"status\":413"), std::string::npos) << "no body over the limit";
  EXPECT_EQ(log.find("\"route\":\"/v1/attribute\""), std::string::npos) << "not one call";
}

TEST_F(RemoteRun, AWrongTokenFailsTheWorkloadInOneLineAndStoresNothing) {
  fs::path right = dir_.write("right", std::string(kToken) + "\n");
  dir_.write("wrong", "not-the-token\n");
  Served service(dir_.path(), {"--token-file", right.string()});
  CliResult r = run(blueprint(kExamples / "host-oom", "v.db", fmt::format("{{url: \"{}\", token_file: wrong}}", service.url())));
  EXPECT_EQ(r.exit, 1);
  EXPECT_NE(r.err.find("attrib run: slurm/5123: service: the Service refused the token (401 unauthorized): check service.token_file\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("0 attributed, 0 already attributed, 1 failed"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not-the-token"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(kToken), std::string::npos) << r.err;
  EXPECT_TRUE(storedVerdicts(dir_.path() / "v.db").empty());
  // The token is read again for every run (and workload): put the right one in and it works.
  dir_.write("wrong", std::string(kToken) + "\n");
  EXPECT_EQ(run(blueprint(kExamples / "host-oom", "v.db", fmt::format("{{url: \"{}\", token_file: wrong}}", service.url()))).exit, 0);
  EXPECT_EQ(storedVerdicts(dir_.path() / "v.db").size(), 1u);
}

TEST_F(RemoteRun, AStoppedServiceFailsTheWorkloadAndTheNextWatchCycleRetriesIt) {
  auto service = std::make_unique<Served>(dir_.path(), std::vector<std::string>{});
  int port = service->port();
  service->stop();
  fs::path bp = blueprint(kExamples / "host-oom", "state.db", fmt::format("{{url: \"http://127.0.0.1:{}\", timeout: 5}}", port));
  auto started = std::chrono::steady_clock::now();
  CliResult down = run(bp, {"--watch", "--max-cycles", "1"});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_EQ(down.exit, 1);
  EXPECT_NE(down.err.find("attrib run: slurm/5123: service: no answer from the Service: http://127.0.0.1:"), std::string::npos) << down.err;
  EXPECT_NE(down.err.find("0 attributed, 0 already attributed, 1 failed"), std::string::npos) << down.err;
  EXPECT_TRUE(storedVerdicts(dir_.path() / "state.db").empty()) << "a failed workload is not marked done";
  // The Service is back (same port): the next cycle attributes the workload, and then never again.
  service = std::make_unique<Served>(dir_.path(), std::vector<std::string>{}, port);
  ASSERT_EQ(service->port(), port);
  CliResult up = run(bp, {"--watch", "--max-cycles", "2", "--interval", "0"});
  EXPECT_EQ(up.exit, 0) << up.err;
  EXPECT_NE(up.err.find("1 attributed, 1 already attributed, 0 failed"), std::string::npos) << up.err;
  EXPECT_EQ(storedVerdicts(dir_.path() / "state.db").size(), 1u);
}

TEST_F(RemoteRun, A503IsRetriedAfterItsRetryAfterABoundedNumberOfTimes) {
  Served service(dir_.path(), {});
  std::atomic<int> refusals{2};
  Stub stub(
      [&](const httplib::Request&, httplib::Response& res) {
        if (refusals-- > 0) {
          res.status = 503;
          res.set_header("Retry-After", "1");
          res.set_content(R"({"error": {"code": "overloaded", "message": "too many requests in flight; retry later"}})", "application/json");
        }
      },
      service.port());
  auto started = std::chrono::steady_clock::now();
  CliResult r = run(blueprint(kExamples / "host-oom", "v.db", fmt::format("{{url: \"{}\"}}", stub.url())));
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_EQ(stub.calls, 3);
  EXPECT_GE(took, std::chrono::seconds(2)) << "Retry-After: 1, twice";
  EXPECT_EQ(storedVerdicts(dir_.path() / "v.db").size(), 1u);
  // Always overloaded: at most `attempts` tries, then the workload's failure.
  refusals = 1000;
  stub.calls = 0;
  started = std::chrono::steady_clock::now();
  r = run(blueprint(kExamples / "host-oom", "v2.db", fmt::format("{{url: \"{}\", attempts: 2}}", stub.url())));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_EQ(r.exit, 1);
  EXPECT_EQ(stub.calls, 2);
  EXPECT_NE(r.err.find("slurm/5123: service: the Service answered 503: too many requests in flight; retry later after 2 attempt(s)\n"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(storedVerdicts(dir_.path() / "v2.db").empty());
}

TEST_F(RemoteRun, BadRepliesAndTimeoutsAreOneLineFailures) {
  struct Case {
    const char* name;
    Stub::Handler reply;
    std::string service, message;
  };
  std::vector<Case> cases = {
      {"not JSON", [](const httplib::Request&, httplib::Response& res) { res.set_content(R"({"schema": "attrib.verdict/v1", "work)", "application/json"); },
       "", "service: the Service's answer is not a verdict: verdict: not JSON (at byte "},
      {"wrong schema", [](const httplib::Request&, httplib::Response& res) { res.set_content(R"({"schema": "attrib.verdict/v2"})", "application/json"); },
       "", "service: the Service's answer is not a verdict: verdict: schema 'attrib.verdict/v2' is not attrib.verdict/v1\n"},
      {"413",
       [](const httplib::Request&, httplib::Response& res) {
         res.status = 413;
         res.set_content(R"({"error": {"code": "payload_too_large", "message": "the request body is larger than the limit"}})", "application/json");
       },
       "", "service: the Service refused the request as too large (413): the request body is larger than the limit\n"},
      {"timeout", [](const httplib::Request&, httplib::Response&) { std::this_thread::sleep_for(std::chrono::milliseconds(2500)); },
       ", timeout: 500ms", "service: no answer from the Service: http://127.0.0.1:"},
  };
  for (const auto& c : cases) {
    Stub stub(c.reply);
    auto started = std::chrono::steady_clock::now();
    CliResult r = run(blueprint(kExamples / "host-oom", "v.db", fmt::format("{{url: \"{}\"{}}}", stub.url(), c.service)));
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << c.name;
    EXPECT_EQ(r.exit, 1) << c.name;
    EXPECT_NE(r.err.find("attrib run: slurm/5123: " + c.message), std::string::npos) << c.name << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << c.name << ": the failure and the summary\n" << r.err;
    EXPECT_TRUE(storedVerdicts(dir_.path() / "v.db").empty()) << c.name;
  }
}

TEST_F(RemoteRun, TheServiceBlockIsCheckedAndTheEnvironmentOverridesIt) {
  struct Case {
    std::string service, message;
  };
  for (const Case& c : std::vector<Case>{
           {"{url: ftp://x}", "blueprint.yaml:11: service: 'url' must be http://HOST:PORT or https://..., not 'ftp://x'"},
           {"{url: \"http://127.0.0.1:1\", token_file: missing}", "service: cannot read the token file"},
           {"{url: \"http://127.0.0.1:1\", timeout: soon}", "service: 'timeout' must be a number of seconds (or a duration such as 30s, 500ms, 2m)"},
           {"{url: \"http://127.0.0.1:1\", attempts: 0}", "service: 'attempts' must be between 1 and 20"},
           {"{uri: \"http://127.0.0.1:1\"}", "service: unknown key 'uri'"},
       }) {
    CliResult r = run(blueprint(kExamples / "host-oom", "v.db", c.service));
    EXPECT_EQ(r.exit, 1) << c.service;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.service << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // ATTRIB_SERVICE_URL turns a blueprint without a service block into a remote run.
  Served service(dir_.path(), {});
  ::setenv("ATTRIB_SERVICE_URL", service.url().c_str(), 1);
  CliResult r = run(blueprint(kExamples / "host-oom", "env.db", ""));
  ::unsetenv("ATTRIB_SERVICE_URL");
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_NE(service.log().find(R"("route":"/v1/attribute","status":200)"), std::string::npos);
}

}  // namespace
}  // namespace attrib::e2e
