// The Service over real HTTP on 127.0.0.1 (cpp-httplib client): one-shot and session
// attribution, every observation format, authentication, limits, expiry, and JSON errors that
// name the offending field.
#include "service/service.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "tests/runtime/engine_util.h"
#include "tests/service/running.h"

namespace attrib::service {
namespace {

using nlohmann::json;
using attrib::testing::stdlibEngine;
using testing::Running;


const char* kWorkload = R"({"id": "slurm/77", "scheduler": "slurm", "state": "FAILED", "exit_code": 1,
  "start": "2026-11-29T10:00:00Z", "end": "2026-11-29T11:00:00Z", "nodes": ["gpu-01", "gpu-02", "gpu-07"]})";

std::string xidLines() {
  std::string out =
      R"({"node": "gpu-07", "source": "syslog", "time": "2026-11-29T10:42:00Z", "text": "Nov 29 10:42:00 gpu-07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus."})"
      "\n";
  for (int rank = 0; rank < 4; ++rank) {
    out += json{{"node", rank < 2 ? "gpu-01" : "gpu-02"},
                {"rank", rank},
                {"time", "2026-11-29T10:52:00Z"},
                {"text", "[rank" + std::to_string(rank) + "]:[E ProcessGroupNCCL.cpp:563] [Rank " + std::to_string(rank) +
                             "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, "
                             "NumelOut=1, Timeout(ms)=600000) ran for 600250 milliseconds before timing out."}}
               .dump() +
           "\n";
  }
  return out;
}

json body(const httplib::Result& r) {
  EXPECT_TRUE(r);
  if (!r) return json();
  json j = json::parse(r->body, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r->body;
  return j;
}

TEST(Service, OneCallAttribution) {
  Running s;
  json request = {{"workload", json::parse(kWorkload)}, {"observations", json::array({{{"format", "attrib"}, {"data", xidLines()}}})}};
  auto r = s.client().Post("/v1/attribute", request.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json v = body(r);
  EXPECT_EQ(v["root_cause"]["symptom"], "gpu.xid.xid79");
  EXPECT_EQ(v["root_cause"]["node"], "gpu-07");
  EXPECT_EQ(v["workload"]["id"], "slurm/77");
}

TEST(Service, SessionsTakeObservationsInAnyOrderAndEveryFormat) {
  Running s;
  auto created = s.client().Post("/v1/sessions", kWorkload, "application/json");
  ASSERT_EQ(created->status, 201) << created->body;
  std::string id = body(created)["id"];
  std::string base = "/v1/sessions/" + id;
  // Attribute before anything arrived, then feed, then attribute again: the verdict follows.
  json empty = body(s.client().Post(base + "/attribute", "", "application/json"));
  EXPECT_TRUE(empty["root_cause"].is_null()) << empty.dump();
  // The NCCL timeouts as a Loki query_range answer, the Xid as raw streams, a DCGM matrix.
  json loki = {{"status", "success"}, {"data", {{"resultType", "streams"}, {"result", json::array()}}}};
  loki["data"]["result"].push_back(
      {{"stream", {{"node", "gpu-01"}, {"rank", "0"}}},
       {"values", json::array({json::array({"1795949520000000000",
                                            "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
                                            "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600250 "
                                            "milliseconds before timing out."})})}});
  auto r1 = s.client().Post(base + "/observations?format=loki_query_range", loki.dump(), "application/json");
  ASSERT_EQ(r1->status, 200) << r1->body;
  json raw = {{"streams", json::array({{{"stream", {{"node", "gpu-07"}, {"source", "syslog"}}},
                                        {"values", json::array({json::array({"1795948920000000000",
                                                                             "Nov 29 10:42:00 gpu-07 kernel: NVRM: Xid (PCI:0000:3b:00): "
                                                                             "79, pid=1, GPU has fallen off the bus."})})}}})}};
  ASSERT_EQ(s.client().Post(base + "/observations?format=raw_loki_streams", raw.dump(), "application/json")->status, 200);
  json matrix = {{"status", "success"},
                 {"data",
                  {{"resultType", "matrix"},
                   {"result", json::array({{{"metric", {{"__name__", "DCGM_FI_DEV_GPU_TEMP"}, {"Hostname", "gpu-07"}, {"gpu", "0"}}},
                                            {"values", json::array({json::array({1795948800, "71"}), json::array({1795948860, "72"})})}}})}}}};
  auto r3 = s.client().Post(base + "/observations?format=prometheus_matrix", matrix.dump(), "application/json");
  ASSERT_EQ(r3->status, 200) << r3->body;
  EXPECT_EQ(body(r3)["samples"], 2);
  // The scheduler's final word arrives last: the job was cancelled by its time limit.
  auto state = s.client().Post(base + "/observations?format=scheduler",
                               R"({"state": "TIMEOUT", "end": "2026-11-29T11:00:00Z", "nodes": ["gpu-01", "gpu-02", "gpu-07"]})",
                               "application/json");
  ASSERT_EQ(state->status, 200) << state->body;
  json v = body(s.client().Post(base + "/attribute", "", "application/json"));
  EXPECT_EQ(v["root_cause"]["symptom"], "gpu.xid.xid79") << v.dump();
  EXPECT_EQ(v["workload"]["state"], "TIMEOUT");
  EXPECT_EQ(v["workload"]["id"], "slurm/77") << "the session keeps its id";
  json got = body(s.client().Get(base.c_str()));
  EXPECT_EQ(got["lines"], 2);
  EXPECT_EQ(got["samples"], 2);
  EXPECT_EQ(got["verdict"]["root_cause"]["symptom"], "gpu.xid.xid79");
}

TEST(Service, ATokenIsRequiredWhenConfiguredButHealthIsOpen) {
  ServiceOptions o;
  o.token = "s3cret";
  Running s(o);
  auto denied = s.client().Post("/v1/sessions", kWorkload, "application/json");
  ASSERT_EQ(denied->status, 401);
  EXPECT_EQ(body(denied)["error"]["code"], "unauthorized");
  EXPECT_EQ(denied->body.find("s3cret"), std::string::npos);
  EXPECT_EQ(s.client().Get("/healthz")->status, 200);
  httplib::Headers headers = {{"Authorization", "Bearer s3cret"}};
  EXPECT_EQ(s.client().Post("/v1/sessions", headers, kWorkload, "application/json")->status, 201);
  headers = {{"Authorization", "Bearer s3cre"}};
  EXPECT_EQ(s.client().Post("/v1/sessions", headers, kWorkload, "application/json")->status, 401);
}

TEST(Service, BadRequestsAreJsonErrorsNamingTheField) {
  ServiceOptions o;
  o.maxBodyBytes = 4096;
  o.maxSessions = 2;
  Running s(o);
  auto notJson = s.client().Post("/v1/attribute", "{not json", "application/json");
  EXPECT_EQ(notJson->status, 400);
  EXPECT_EQ(body(notJson)["error"]["message"], "the body is not a JSON object");
  auto badState = s.client().Post("/v1/sessions", R"({"id": "x", "state": "EXPLODED"})", "application/json");
  EXPECT_EQ(badState->status, 400);
  EXPECT_NE(body(badState)["error"]["message"].get<std::string>().find("unknown state"), std::string::npos);
  std::string id = body(s.client().Post("/v1/sessions", kWorkload, "application/json"))["id"];
  auto badLine = s.client().Post("/v1/sessions/" + id + "/observations", "{\"text\": \"ok\"}\n{\"time\": \"yesterday\", \"text\": \"x\"}",
                                 "application/x-ndjson");
  EXPECT_EQ(badLine->status, 400);
  EXPECT_EQ(body(badLine)["error"]["message"], "line 2: 'time' must be RFC 3339 or integer nanoseconds");
  EXPECT_EQ(body(s.client().Get(("/v1/sessions/" + id).c_str()))["lines"], 0) << "nothing of a bad body is kept";
  auto badFormat = s.client().Post("/v1/sessions/" + id + "/observations?format=csv", "a,b", "text/csv");
  EXPECT_EQ(badFormat->status, 400);
  auto missing = s.client().Post("/v1/sessions/00ff/attribute", "", "application/json");
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(body(missing)["error"]["code"], "not_found");
  auto big = s.client().Post("/v1/attribute", std::string(10000, ' '), "application/json");
  EXPECT_EQ(big->status, 413);
  EXPECT_EQ(body(big)["error"]["code"], "payload_too_large");
  EXPECT_EQ(s.client().Post("/v1/sessions", kWorkload, "application/json")->status, 201);
  auto full = s.client().Post("/v1/sessions", kWorkload, "application/json");
  EXPECT_EQ(full->status, 429);
  EXPECT_EQ(body(full)["error"]["code"], "too_many_sessions");
  auto route = s.client().Get("/v2/nothing");
  EXPECT_EQ(route->status, 404);
  EXPECT_EQ(body(route)["error"]["code"], "not_found");
}

TEST(Service, IdleSessionsExpire) {
  ServiceOptions o;
  o.sessionTtl = std::chrono::seconds(1);
  Running s(o);
  std::string id = body(s.client().Post("/v1/sessions", kWorkload, "application/json"))["id"];
  EXPECT_EQ(s.client().Get(("/v1/sessions/" + id).c_str())->status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_EQ(s.client().Get(("/v1/sessions/" + id).c_str())->status, 404);
}

// The reference product's V1 API, with the payloads its NVRx client sends.
TEST(Service, V1AttributorApiForExistingClients) {
  Running s;
  json create = {{"workload",
                  {{"id", "4242:cycle0:1795948800000000000"},
                   {"type", "slurm"},
                   {"job_start_time", "2026-11-29T10:00:00Z"},
                   {"job_end_time", "2026-11-29T11:00:00Z"},
                   {"status", "FAILED"},
                   {"nranks", 16},
                   {"ranks_per_node", 8},
                   {"nodes", {"gpu-07", "gpu-08"}},
                   {"name", "pretrain"},
                   {"username", "alice"}}},
                 {"metadata", {{"cluster", "c1"}, {"ruleset", "default"}}}};
  auto created = s.client().Post("/latest/attributor", create.dump(), "application/json");
  ASSERT_EQ(created->status, 200) << created->body;
  std::string id = body(created)["attributor_id"];
  json payload = {{"body", "Nov 29 10:42:00 gpu-07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus."},
                  {"severity", "err"},
                  {"attributes", {{"hostname", "gpu-07"}, {"appname", "kernel"}, {"facility", 0}}},
                  {"resources", json::object()}};
  json streams = json::array({{{"stream", {{"job", "4242"}, {"app", "kernel"}, {"hostname", "gpu-07"}}},
                               {"values", json::array({json::array({"1795948920000000000", payload.dump()})})}}});
  json observation = {{"context",
                       {{"time_interval", {{"start", "2026-11-29T10:00:00Z"}, {"end", "2026-11-29T11:00:00Z"}}},
                        {"resources", "AllJobResources"},
                        {"source", "syslog"},
                        {"format", "raw_loki_streams"}}},
                      {"body", streams.dump()}};
  auto added = s.client().Post("/latest/attributor/" + id + "/observation", observation.dump(), "application/json");
  ASSERT_EQ(added->status, 200) << added->body;
  EXPECT_EQ(body(added)["observation_id"], 1);
  json result = body(s.client().Get(("/latest/attributor/" + id + "/attribution").c_str()));
  ASSERT_EQ(result["attributions"].size(), 1u) << result.dump();
  EXPECT_EQ(result["attributions"][0]["type"], "NodeAttribution");
  EXPECT_EQ(result["attributions"][0]["node"], "gpu-07");
  EXPECT_FALSE(result["attributions"][0]["attributions"].empty());
  EXPECT_EQ(result["attributions"][0]["attributions"][0]["symptom"], "gpu.xid.xid79");
  // Nothing wrong: an empty list, which V1 clients read as "nothing attributed".
  std::string quiet = body(s.client().Post("/latest/attributor", create.dump(), "application/json"))["attributor_id"];
  EXPECT_EQ(body(s.client().Get(("/latest/attributor/" + quiet + "/attribution").c_str()))["attributions"], json::array());
  auto bad = s.client().Post("/latest/attributor/" + id + "/observation", R"({"context": {}, "body": 5})", "application/json");
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(body(bad)["error"]["message"], "'body' (a JSON string) is required");
}

TEST(Service, ReloadSwapsTheRulesAndKeepsTheOldOnesOnFailure) {
  ServiceOptions o;
  int calls = 0;
  o.reload = [&calls](std::string* error) -> std::shared_ptr<const runtime::Engine> {
    if (++calls == 2) {
      *error = "rules.attr:3:1: error: ...";
      return nullptr;
    }
    return stdlibEngine();
  };
  Running s(o);
  auto ok = s.client().Post("/v1/rulesets/reload", "", "application/json");
  ASSERT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(body(ok)["rulesets"][0]["digest"], stdlibEngine()->bundle().digest);
  auto broken = s.client().Post("/v1/rulesets/reload", "", "application/json");
  EXPECT_EQ(broken->status, 400);
  EXPECT_NE(body(broken)["error"]["message"].get<std::string>().find("the old ones stay"), std::string::npos);
  EXPECT_EQ(s.client().Get("/healthz")->status, 200);
  Running plain;
  EXPECT_EQ(plain.client().Post("/v1/rulesets/reload", "", "application/json")->status, 404);
}

TEST(Service, AccessLogLinesCarryNoBodiesOrSecrets) {
  ServiceOptions o;
  o.token = "s3cret";
  std::mutex mu;
  std::vector<std::string> lines;
  o.accessLog = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    lines.push_back(line);
  };
  Running s(o);
  httplib::Headers auth = {{"Authorization", "Bearer s3cret"}};
  ASSERT_EQ(s.client().Post("/v1/sessions?note=private", auth, kWorkload, "application/json")->status, 201);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_FALSE(lines.empty());
  json last = json::parse(lines.back());
  EXPECT_EQ(last["method"], "POST");
  EXPECT_EQ(last["route"], "/v1/sessions");
  EXPECT_EQ(last["status"], 201);
  EXPECT_EQ(last["bytes_in"], std::string(kWorkload).size());
  for (const auto& l : lines) {
    EXPECT_EQ(l.find("s3cret"), std::string::npos) << l;
    EXPECT_EQ(l.find("private"), std::string::npos) << l;
    EXPECT_EQ(l.find("gpu-07"), std::string::npos) << l;
  }
}

// docs/api/openapi.yaml, served at /openapi.json, against the implementation: every documented
// route answers (not "no such route"), every route the Service has is documented, and every
// request example is accepted.
TEST(Service, TheOpenApiDocumentMatchesTheRoutesAndItsExamplesWork) {
  ServiceOptions o;
  o.reload = [](std::string*) { return stdlibEngine(); };
  Running s(o);
  json doc = body(s.client().Get("/openapi.json"));
  ASSERT_EQ(doc["openapi"], "3.0.3");
  std::set<std::string> documented;
  std::string session = body(s.client().Post("/v1/sessions", kWorkload, "application/json"))["id"];
  std::string attributor = body(s.client().Post("/latest/attributor", R"({"workload": {"id": "x"}})", "application/json"))["attributor_id"];
  for (auto& [path, item] : doc["paths"].items()) {
    for (auto& [method, op] : item.items()) {
      if (method == "parameters") continue;
      documented.insert(method + " " + path);
      std::string concrete = path;
      std::string id = path.rfind("/latest/", 0) == 0 ? attributor : session;
      size_t at = concrete.find("{id}");
      if (at != std::string::npos) concrete.replace(at, 4, id);
      if (size_t n = concrete.find("{node}"); n != std::string::npos) concrete.replace(n, 6, "gpu-07");
      std::vector<std::string> examples;  // `example`, or each of `examples` (their `value`)
      std::string type = "application/json";
      if (op.contains("requestBody")) {
        for (auto& [mime, content] : op["requestBody"]["content"].items()) {
          type = mime;
          auto text = [](const json& e) { return e.is_string() ? e.get<std::string>() : e.dump(); };
          if (content.contains("example")) examples.push_back(text(content["example"]));
          json named = content.value("examples", json::object());
          for (auto& [name, e] : named.items()) examples.push_back(text(e["value"]));
        }
      }
      if (examples.empty()) examples.push_back("");
      for (const auto& example : examples) {
        httplib::Result r = method == "get" ? s.client().Get(concrete.c_str()) : s.client().Post(concrete, example, type);
        ASSERT_TRUE(r) << method << " " << path;
        EXPECT_EQ(r->body.find("no such route"), std::string::npos) << method << " " << path;
        if (op.contains("requestBody")) {
          EXPECT_LT(r->status, 300) << method << " " << path << ": the example is refused: " << r->body;
        }
      }
    }
  }
  std::set<std::string> implemented = {
      "get /healthz", "get /readyz", "get /openapi.json", "get /metrics", "get /v1/rulesets", "post /v1/rulesets/reload",
      "post /v1/sessions", "get /v1/sessions/{id}", "post /v1/sessions/{id}/observations", "post /v1/sessions/{id}/attribute",
      "post /v1/attribute", "post /v1/attribution", "post /latest/attributor", "post /latest/attributor/{id}/observation",
      "get /latest/attributor/{id}/attribution", "get /v1/nodes", "get /v1/nodes/{node}/history"};
  EXPECT_EQ(documented, implemented);
}

// Beyond --max-in-flight requests at once, the Service answers 503 with Retry-After at once
// instead of queueing without bound. A reload that takes a second holds the only slot.
TEST(Service, OverloadIsA503WithRetryAfter) {
  ServiceOptions o;
  o.maxInFlight = 1;
  std::atomic<bool> holding{false}, release{false};
  o.reload = [&](std::string*) {
    holding = true;  // the reload now holds the only slot until the test lets it go
    for (int i = 0; i < 1000 && !release; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return stdlibEngine();
  };
  Running s(o);
  std::thread slow([&] { EXPECT_EQ(s.client().Post("/v1/rulesets/reload", "", "application/json")->status, 200); });
  for (int i = 0; i < 1000 && !holding; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(holding);
  httplib::Client other("127.0.0.1", s.port());  // a client of its own: the first one is busy
  auto r = other.Get("/v1/rulesets");
  release = true;
  slow.join();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->get_header_value("Retry-After"), "1");
  EXPECT_EQ(body(r)["error"]["code"], "overloaded");
  EXPECT_EQ(s.client().Get("/v1/rulesets")->status, 200) << "the slot is free again";
}

TEST(Service, RulesetsAndMetrics) {
  Running s;
  json rulesets = body(s.client().Get("/v1/rulesets"));
  EXPECT_EQ(rulesets["rulesets"][0]["digest"], stdlibEngine()->bundle().digest);
  json request = {{"workload", json::parse(kWorkload)}, {"observations", json::array({{{"data", xidLines()}}})}};
  ASSERT_EQ(s.client().Post("/v1/attribute", request.dump(), "application/json")->status, 200);
  auto m = s.client().Get("/metrics");
  ASSERT_EQ(m->status, 200);
  EXPECT_NE(m->body.find("attrib_requests_total{route=\"/v1/attribute\",status=\"200\"} 1"), std::string::npos) << m->body;
  EXPECT_NE(m->body.find("attrib_verdicts_total{family=\"accelerator-gpu\"} 1"), std::string::npos) << m->body;
  EXPECT_NE(m->body.find("attrib_sessions 0"), std::string::npos) << m->body;
}

}  // namespace
}  // namespace attrib::service

namespace attrib::service {
namespace {

using nlohmann::json;
using testing::Running;

// The parsing layer: whatever a handler throws, an answer comes out and nothing escapes.
TEST(ParsingLayer, NoHandlerExceptionEscapesIt) {
  httpd::Request request;
  std::vector<std::string> params;
  Call call{request, params};
  std::vector<std::string> internal;
  auto onInternal = [&](const std::string& type) { internal.push_back(type); };
  struct Case {
    std::function<void()> thrower;
    int status;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {[] { throw attrib::json::FieldError("'x' must be a string"); }, 400, "'x' must be a string"},
           {[] { throw Failure(404, "no such session"); }, 404, "no such session"},
           {[] { (void)nlohmann::json(5).get<std::string>(); }, 500, "internal error"},
           {[] { throw std::bad_alloc(); }, 500, "internal error"},
           {[] { throw 42; }, 500, "internal error"},
           {[] { throw std::runtime_error("secret /var/log/gpu-07"); }, 500, "internal error"},
       }) {
    httpd::Response r;
    EXPECT_NO_THROW(r = runHandler([&](const Call&) -> httpd::Response { c.thrower(); return {}; }, call, onInternal));
    EXPECT_EQ(r.status, c.status);
    json body = json::parse(r.body);
    EXPECT_EQ(body["error"]["message"], c.message);
    EXPECT_EQ(body["error"]["code"], errorCode(c.status));
  }
  EXPECT_EQ(internal.size(), 4u) << "every 500 is reported, 4xx are not";
  // A report hook that throws itself loses the report, not the answer.
  httpd::Response r = runHandler([](const Call&) -> httpd::Response { throw 1; }, call, [](const std::string&) { throw 2; });
  EXPECT_EQ(r.status, 500);
}

// A handler that throws inside the Service (here the reload hook, 20 times with one slot in
// flight): each is a logged and counted 500, the slot comes back every time, the rest goes on.
TEST(ParsingLayer, AThrowingHandlerIsALoggedCountedFiveHundredAndFreesItsSlot) {
  ServiceOptions o;
  o.maxInFlight = 1;
  o.reload = [](std::string*) -> std::shared_ptr<const runtime::Engine> { throw std::runtime_error("boom"); };
  std::mutex mu;
  std::vector<std::string> lines;
  o.accessLog = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    lines.push_back(line);
  };
  Running s(o);
  for (int i = 0; i < 20; ++i) {
    auto r = s.client().Post("/v1/rulesets/reload", "", "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 500);
    EXPECT_EQ(json::parse(r->body)["error"]["message"], "internal error");
  }
  EXPECT_EQ(s.client().Get("/v1/rulesets")->status, 200) << "the in-flight slot was given back each time";
  EXPECT_EQ(s.client().Get("/healthz")->status, 200);
  auto m = s.client().Get("/metrics");
  EXPECT_NE(m->body.find("attrib_internal_errors_total 20\n"), std::string::npos) << m->body;
  EXPECT_NE(m->body.find("attrib_requests_total{route=\"/v1/rulesets/reload\",status=\"500\"} 20"), std::string::npos) << m->body;
  EXPECT_NE(m->body.find("attrib_in_flight 1\n"), std::string::npos) << "only /metrics itself: " << m->body;
  std::lock_guard<std::mutex> lock(mu);
  size_t logged = 0;
  for (const auto& l : lines) logged += l.find("\"status\":500") != std::string::npos;
  EXPECT_EQ(logged, 20u);
  for (const auto& l : lines) EXPECT_EQ(l.find("boom"), std::string::npos) << l;
}

TEST(Service, SessionIdsAre128RandomBits) {
  ServiceOptions o;
  o.maxSessions = 2000;
  Running s(o);
  std::set<std::string> ids;
  for (int i = 0; i < 300; ++i) {
    std::string id = json::parse(s.client().Post("/v1/sessions", "{}", "application/json")->body)["id"];
    ASSERT_EQ(id.size(), 32u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 300u);
  // No structure between consecutive ids: about half of the 128 bits differ (never few).
  std::vector<std::string> v(ids.begin(), ids.end());
  for (size_t i = 1; i < v.size(); ++i) {
    int differ = 0;
    for (size_t k = 0; k < 32; ++k) {
      int a = std::stoi(v[i].substr(k, 1), nullptr, 16), b = std::stoi(v[i - 1].substr(k, 1), nullptr, 16);
      differ += __builtin_popcount(static_cast<unsigned>(a ^ b));
    }
    EXPECT_GT(differ, 24) << v[i - 1] << " " << v[i];
  }
}

// The V1 attribution says what the one-call verdict says: symptom, outcome, family, confidence.
TEST(Service, TheV1AttributionCarriesTheVerdictsOutcomeAndFamily) {
  Running s;
  const std::string xid = "Nov 29 10:42:00 gpu-07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.";
  json workload = {{"id", "slurm/79"}, {"state", "FAILED"}, {"start", "2026-11-29T10:00:00Z"}, {"end", "2026-11-29T11:00:00Z"}, {"nodes", {"gpu-07"}}};
  json line = {{"node", "gpu-07"}, {"source", "syslog"}, {"time", "2026-11-29T10:42:00Z"}, {"text", xid}};
  json oneCall = {{"workload", workload}, {"observations", {{{"format", "attrib"}, {"data", line.dump()}}}}};
  json verdict = json::parse(s.client().Post("/v1/attribute", oneCall.dump(), "application/json")->body);
  ASSERT_EQ(verdict["root_cause"]["symptom"], "gpu.xid.xid79") << verdict.dump();

  json v1 = {{"workload", {{"id", "slurm/79"}, {"status", "FAILED"}, {"job_start_time", "2026-11-29T10:00:00Z"},
                           {"job_end_time", "2026-11-29T11:00:00Z"}, {"nodes", {"gpu-07"}}}}};
  std::string id = json::parse(s.client().Post("/latest/attributor", v1.dump(), "application/json")->body)["attributor_id"];
  json streams = json::array({{{"stream", {{"hostname", "gpu-07"}}}, {"values", json::array({json::array({"1795948920000000000", xid})})}}});
  json observation = {{"context", {{"source", "syslog"}, {"format", "raw_loki_streams"}}}, {"body", streams.dump()}};
  ASSERT_EQ(s.client().Post("/latest/attributor/" + id + "/observation", observation.dump(), "application/json")->status, 200);
  json attribution = json::parse(s.client().Get(("/latest/attributor/" + id + "/attribution").c_str())->body);
  ASSERT_EQ(attribution["attributions"].size(), 1u) << attribution.dump();
  json item = attribution["attributions"][0];
  EXPECT_EQ(item["node"], verdict["root_cause"]["node"]);
  ASSERT_FALSE(item["attributions"].empty());
  json reason = item["attributions"][0];
  EXPECT_EQ(reason["symptom"], verdict["root_cause"]["symptom"]);
  EXPECT_EQ(reason["outcome"], verdict["outcome"][0]["name"]);
  EXPECT_EQ(reason["family"], verdict["outcome"][0]["family"]);
  EXPECT_EQ(reason["family"], "accelerator-gpu");
  EXPECT_EQ(reason["confidence"], verdict["confidence"]);
}

// Every session's evidence together stays under --max-session-bytes: past it a 507, with
// nothing kept, and the Service goes on.
TEST(Service, TheSessionsMemoryBudgetIsA507WhenFull) {
  ServiceOptions o;
  o.maxSessionBytes = 256 << 10;
  Running s(o);
  std::string id = json::parse(s.client().Post("/v1/sessions", "{}", "application/json")->body)["id"];
  std::string lines;
  for (int i = 0; i < 200; ++i) lines += json{{"node", "gpu-07"}, {"text", std::string(200, 'x') + std::to_string(i)}}.dump() + "\n";
  int accepted = 0, full = 0;
  std::string message;
  for (int i = 0; i < 40 && full == 0; ++i) {
    auto r = s.client().Post("/v1/sessions/" + id + "/observations", lines, "application/x-ndjson");
    if (r->status == 200) ++accepted;
    if (r->status == 507) {
      ++full;
      message = json::parse(r->body)["error"]["message"];
      EXPECT_EQ(json::parse(r->body)["error"]["code"], "insufficient_storage");
    }
  }
  EXPECT_GT(accepted, 0);
  ASSERT_EQ(full, 1) << "the budget was never reached";
  EXPECT_NE(message.find("262144 bytes"), std::string::npos) << message;
  json counts = json::parse(s.client().Get(("/v1/sessions/" + id).c_str())->body);
  EXPECT_EQ(counts["lines"], accepted * 200) << "the refused body was not kept in part";
  auto more = s.client().Post("/v1/sessions", "{}", "application/json");
  EXPECT_TRUE(more->status == 201 || more->status == 507);
  EXPECT_EQ(s.client().Get("/healthz")->status, 200);
  auto m = s.client().Get("/metrics");
  EXPECT_NE(m->body.find("attrib_session_bytes "), std::string::npos);
}

}  // namespace
}  // namespace attrib::service
