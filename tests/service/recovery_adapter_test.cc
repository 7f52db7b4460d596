// POST /v1/attribution, NVIDIA Recovery's adapter API (service/recovery_adapter.h), over real
// HTTP on 127.0.0.1: fast and slow passes over evidence the Service collects itself, from stub
// sources (the names say so: the real connectors are tested in tests/connectors and through
// `attrib serve --sources` in tests/tools), the STRAGGLER signal, and every bad input as a
// JSON error that names the field and keeps nothing.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "ir/civil_time.h"
#include "service/evidence_collector.h"
#include "service/service.h"
#include "tests/service/running.h"

namespace attrib::service {
namespace {

using nlohmann::json;
using testing::Running;
using Clock = std::chrono::steady_clock;

int64_t at(const char* rfc3339) { return *attrib::parseRfc3339(rfc3339); }

evidence::LogLine line(std::string node, std::optional<int64_t> rank, const char* time, std::string text, std::string source = "") {
  evidence::LogLine l;
  l.node = std::move(node);
  l.rank = rank;
  l.time = at(time);
  l.text = std::move(text);
  l.source = std::move(source);
  return l;
}

std::string ncclTimeout(int rank) {
  return "[rank" + std::to_string(rank) + "]:[E ProcessGroupNCCL.cpp:563] [Rank " + std::to_string(rank) +
         "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
         "Timeout(ms)=600000) ran for 600250 milliseconds before timing out.";
}

// Two stub sources: "stub-app" answers at once with the ranks' NCCL timeouts (and one line of a
// node outside the scope); "stub-syslog-stalling" holds the Xid 79 that is the root cause and
// answers only once the test releases it (or after 20 s, so that no test can hang).
class StallingStubCollector : public EvidenceCollector {
 public:
  size_t sources() const override { return 2; }
  std::string sourceName(size_t i) const override { return i == 0 ? "stub-app" : "stub-syslog-stalling"; }
  void collect(size_t i, const evidence::Workload& workload, CollectedEvidence* out) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(workload);
    }
    if (i == 0) {
      for (int rank = 0; rank < 4; ++rank) out->lines.push_back(line(rank < 2 ? "gpu-01" : "gpu-02", rank, "2026-11-29T10:52:00Z", ncclTimeout(rank)));
      out->lines.push_back(line("gpu-99", 9, "2026-11-29T10:52:00Z", ncclTimeout(9)));
      out->reports.push_back({"stub-app", "applog", evidence::ConnectorReport::Status::Ok, 5, 0, "", 0, {}});
      return;
    }
    std::unique_lock<std::mutex> lock(mu_);
    released_.wait_for(lock, std::chrono::seconds(20), [&] { return release_; });
    out->lines.push_back(line("gpu-07", std::nullopt, "2026-11-29T10:42:00Z",
                              "Nov 29 10:42:00 gpu-07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.",
                              "syslog"));
    out->reports.push_back({"stub-syslog-stalling", "syslog", evidence::ConnectorReport::Status::Ok, 1, 0, "", 0, {}});
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    release_ = true;
    released_.notify_all();
  }
  std::vector<evidence::Workload> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::condition_variable released_;
  bool release_ = false;
  std::vector<evidence::Workload> seen_;
};

json request(const char* phase, int64_t timeoutMs, const char* signal = "CRASH") {
  return {{"schema_version", "1.0"},
          {"workload_id", "slurm/4242"},
          {"phase", phase},
          {"failure_context", {{"detected_at", "2026-11-29T10:55:00Z"}, {"detection_signal", signal}}},
          {"scope", {{"nodes", {"gpu-01", "gpu-02", "gpu-07"}}, {"ranks", {0, 1, 2, 3}}, {"start_time", "2026-11-29T10:00:00Z"}, {"end_time", "2026-11-29T10:55:00Z"}}},
          {"workload_context", {{"job_end_time", "2026-11-29T10:56:00Z"}, {"workflow_id", "wf-17"}, {"attempt_index", 0}}},
          {"timeout_ms", timeoutMs},
          {"continue_session", nullptr}};
}

json post(Running& s, const json& body, int* status = nullptr) {
  auto r = s.client().Post("/v1/attribution", body.dump(), "application/json");
  EXPECT_TRUE(r);
  if (!r) return json();
  if (status) *status = r->status;
  json j = json::parse(r->body, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r->body;
  return j;
}

TEST(RecoveryAdapter, FastPassAnswersInTimeWithAStallingStubSourceNamedAndTheSlowPassCompletesIt) {
  auto stub = std::make_shared<StallingStubCollector>();
  ServiceOptions o;
  o.collector = stub;
  Running s(o);

  auto began = Clock::now();
  int status = 0;
  json fast = post(s, request("fast", 500), &status);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count();
  ASSERT_EQ(status, 200) << fast.dump();
  EXPECT_LT(ms, 5000) << "the fast pass waited for the stalled source";  // a generous bound over 500 ms
  EXPECT_FALSE(fast["complete"]);
  EXPECT_EQ(fast["phase"], "fast");
  ASSERT_EQ(fast["evidence"]["sources"].size(), 2u);
  EXPECT_EQ(fast["evidence"]["sources"][0]["status"], "delivered");
  EXPECT_EQ(fast["evidence"]["sources"][1]["name"], "stub-syslog-stalling");
  EXPECT_EQ(fast["evidence"]["sources"][1]["status"], "pending");
  // The missing source is in the verdict's connector reports, as partial, and lowers the confidence.
  bool named = false;
  for (const auto& r : fast["verdict"]["connector_reports"]) {
    if (r["connector"] == "stub-syslog-stalling") named = r["status"] == "partial";
  }
  EXPECT_TRUE(named) << fast["verdict"]["connector_reports"].dump();
  EXPECT_NE(fast["verdict"]["root_cause"].dump().find("nccl"), std::string::npos) << fast["verdict"]["root_cause"].dump();
  bool lowered = false;
  for (const auto& n : fast["verdict"]["confidence_notes"]) lowered |= n.get<std::string>().find("stub-syslog-stalling") != std::string::npos;
  EXPECT_TRUE(lowered) << fast["verdict"]["confidence_notes"].dump();
  // Narrowed to the scope: the line of gpu-99 was left out, and that is said.
  EXPECT_NE(fast["notes"].dump().find("1 files, lines or samples of nodes outside the scope"), std::string::npos) << fast["notes"].dump();
  // The sources were asked for the scope's nodes and window.
  auto seen = stub->seen();
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen[0].nodes, (std::vector<std::string>{"gpu-01", "gpu-02", "gpu-07"}));
  EXPECT_EQ(seen[0].start, at("2026-11-29T10:00:00Z"));
  EXPECT_EQ(seen[0].end, at("2026-11-29T10:55:00Z"));

  // The slow pass continues the session: the stalled source's evidence, the full verdict.
  stub->release();
  json slowRequest = request("slow", 20000);
  slowRequest["continue_session"] = fast["session_id"];
  json slow = post(s, slowRequest, &status);
  ASSERT_EQ(status, 200) << slow.dump();
  EXPECT_TRUE(slow["complete"]);
  EXPECT_EQ(slow["session_id"], fast["session_id"]);
  EXPECT_EQ(slow["evidence"]["sources"][1]["status"], "delivered");
  EXPECT_EQ(slow["verdict"]["root_cause"]["symptom"], "gpu.xid.xid79") << slow["verdict"].dump();
  EXPECT_EQ(slow["verdict"]["root_cause"]["node"], "gpu-07");
  EXPECT_EQ(stub->seen().size(), 2u) << "the slow pass collected again instead of continuing";
  // The session holds the latest verdict.
  auto got = s.client().Get(("/v1/sessions/" + fast["session_id"].get<std::string>()).c_str());
  ASSERT_EQ(got->status, 200);
  EXPECT_EQ(json::parse(got->body)["verdict"]["root_cause"]["symptom"], "gpu.xid.xid79");
}

// The straggler rules' evidence: per-rank step timings, n3's ranks 1.6x slower.
class StragglerStubCollector : public EvidenceCollector {
 public:
  size_t sources() const override { return 1; }
  std::string sourceName(size_t) const override { return "stub-app"; }
  void collect(size_t, const evidence::Workload&, CollectedEvidence* out) override {
    const char* times[] = {"2026-11-29T11:02:00Z", "2026-11-29T11:04:00Z", "2026-11-29T11:06:00Z"};
    for (int step = 0; step < 3; ++step) {
      for (int rank = 0; rank < 8; ++rank) {
        std::string node = "n" + std::to_string(rank / 2 + 1);
        const char* fwd = rank / 2 == 2 ? "1120.0" : "700.0";
        out->lines.push_back(line(node, rank, times[step],
                                  "[rank" + std::to_string(rank) + "]: step " + std::to_string(100 * (step + 1)) +
                                      " | loss 2.3142 | lr 3.000e-04 | 1210.4 ms/step | fwd_bwd " + fwd + " ms | allreduce_wait 110.5 ms",
                                  "applog"));
      }
    }
  }
};

TEST(RecoveryAdapter, AStragglerSignalReportsTheStragglerRulesFindings) {
  ServiceOptions o;
  o.collector = std::make_shared<StragglerStubCollector>();
  Running s(o);
  json r = request("fast", 5000, "STRAGGLER");
  r["scope"] = {{"nodes", {"n1", "n2", "n3", "n4"}}, {"start_time", "2026-11-29T11:00:00Z"}};
  r["failure_context"]["detected_at"] = "2026-11-29T12:00:00Z";
  r.erase("workload_context");
  int status = 0;
  json a = post(s, r, &status);
  ASSERT_EQ(status, 200) << a.dump();
  ASSERT_TRUE(a["signal_focus"].is_object()) << a.dump();
  EXPECT_TRUE(a["signal_focus"]["loaded"]);
  EXPECT_TRUE(a["signal_focus"]["found"]);
  EXPECT_EQ(a["signal_focus"]["outcomes"][0]["name"], "perf.straggler.straggler_node");
  EXPECT_EQ(a["verdict"]["root_cause"]["node"], "n3");
  // No end time in the scope: the window ends when the straggler was detected.
  EXPECT_EQ(a["verdict"]["workload"]["end"], "2026-11-29T12:00:00Z") << a["verdict"]["workload"].dump();
  // Another signal: no focus, the same verdict.
  r["failure_context"]["detection_signal"] = "CRASH";
  json b = post(s, r, &status);
  EXPECT_TRUE(b["signal_focus"].is_null());
  EXPECT_EQ(b["verdict"]["root_cause"]["node"], "n3");
}

// Every bad input: a 400 (or 404) whose JSON body names the field, and no session is kept.
TEST(RecoveryAdapter, BadRequestsAreJsonErrorsNamingTheFieldAndKeepNothing) {
  ServiceOptions o;
  SessionLimits limits;
  std::shared_ptr<SessionStore> store = memorySessionStore(limits);
  o.store = store;
  Running s(o);
  auto refused = [&](const std::string& body, int status, const std::string& says) {
    auto r = s.client().Post("/v1/attribution", body, "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, status) << body << " -> " << r->body;
    json j = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r->body;
    EXPECT_EQ(j["error"]["code"], status == 404 ? "not_found" : "bad_request");
    EXPECT_NE(j["error"]["message"].get<std::string>().find(says), std::string::npos) << r->body;
  };
  auto with = [](const char* pointer, json value) {
    json r = request("fast", 1000);
    r[json::json_pointer(pointer)] = std::move(value);
    return r.dump();
  };
  refused("{\"schema_version\": ", 400, "the body is not a JSON object");
  refused("[1, 2]", 400, "the body is not a JSON object");
  refused(with("/schema_version", "9.9"), 400, "'schema_version' is '9.9', which this Service does not read");
  refused(with("/schema_version", 1), 400, "'schema_version' must be a string");
  refused(with("/phase", "medium"), 400, "'phase' must be fast or slow, not 'medium'");
  refused(with("/timeout_ms", "1000"), 400, "'timeout_ms' must be an integer");
  refused(with("/timeout_ms", 0), 400, "'timeout_ms' must be at least 1");
  refused(with("/timeout_ms", -5), 400, "'timeout_ms' must be at least 1");
  refused(with("/timeout_ms", 2.5), 400, "'timeout_ms' must be an integer");
  refused(with("/scope/nodes", "gpu-01"), 400, "'scope.nodes' must be");
  refused(with("/scope/nodes/1", 7), 400, "'scope.nodes[1]' must be a string");
  refused(with("/scope/nodes", json::array()), 400, "'scope.nodes' must name at least one node");
  refused(with("/scope/ranks/0", -1), 400, "'scope.ranks[0]'");
  refused(with("/scope/start_time", "yesterday"), 400, "'scope.start_time' must be an RFC 3339 time");
  refused(with("/scope/start_time", "2026-11-29T11:00:00Z"), 400, "'scope.start_time' is after 'scope.end_time'");
  json late = request("fast", 1000);
  late["scope"].erase("end_time");
  late["workload_context"].erase("job_end_time");
  late["scope"]["start_time"] = "2026-11-29T11:00:00Z";  // after detected_at, the window's end
  refused(late.dump(), 400, "'scope.start_time' is after the window's end (failure_context.detected_at)");
  refused(with("/failure_context/detected_at", 5), 400, "'failure_context.detected_at' must be a string");
  refused(with("/failure_context/detection_signal", "a b"), 400, "'failure_context.detection_signal' must be a word");
  refused(with("/workload_context/attempt_index", "first"), 400, "'workload_context.attempt_index'");
  json missing = request("fast", 1000);
  missing.erase("workload_id");
  refused(missing.dump(), 400, "'workload_id' (a string) is required");
  json many = json::array();
  for (int i = 0; i < 4097; ++i) many.push_back("node-" + std::to_string(i));
  refused(with("/scope/nodes", many), 400, "'scope.nodes' names 4097 nodes; at most 4096 are read");
  refused(with("/continue_session", "0123456789abcdef0123456789abcdef"), 404, "'continue_session' names no session");
  refused(with("/continue_session", "../../etc"), 404, "'continue_session' names no session");
  refused(with("/continue_session", 12), 400, "'continue_session' must be a string");
  EXPECT_EQ(store->sessions(), 0u) << "a refused request kept a session";
}

TEST(RecoveryAdapter, AHugeTimeoutIsClampedAndSaidAndUnknownFieldsAreNamed) {
  Running s;
  json r = request("fast", 10'000'000'000);
  r["priority"] = "high";
  r["scope"]["zone"] = "b";
  int status = 0;
  json a = post(s, r, &status);
  ASSERT_EQ(status, 200) << a.dump();
  EXPECT_EQ(a["timeout_ms"], 120000);
  std::string notes = a["notes"].dump();
  EXPECT_NE(notes.find("timeout_ms was clamped to 120000 ms"), std::string::npos) << notes;
  EXPECT_NE(notes.find("priority, scope.zone"), std::string::npos) << notes;
  EXPECT_NE(notes.find("no evidence sources are configured"), std::string::npos) << notes;
  EXPECT_TRUE(a["complete"]);
}

TEST(RecoveryAdapter, ASlowPassForAnExpiredSessionIsA404) {
  ServiceOptions o;
  o.sessionTtl = std::chrono::seconds(1);
  Running s(o);
  int status = 0;
  json fast = post(s, request("fast", 1000), &status);
  ASSERT_EQ(status, 200) << fast.dump();
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  json slow = request("slow", 1000);
  slow["continue_session"] = fast["session_id"];
  json answer = post(s, slow, &status);
  EXPECT_EQ(status, 404) << answer.dump();
  EXPECT_NE(answer["error"]["message"].get<std::string>().find("'continue_session' names no session (it may have expired)"), std::string::npos);
}

}  // namespace
}  // namespace attrib::service
