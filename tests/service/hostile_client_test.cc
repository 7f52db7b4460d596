// The Service attacked as a hostile client would, on 127.0.0.1: every route with invalid JSON,
// every field of the wrong type, nesting 1e3/1e5/1e6 deep, a chunked body over the limit, no
// token with a big body, 64 slow clients, lying Content-Lengths. Each answer is a 4xx within
// its deadline, /healthz stays 200 after each, and no handler ever answers 500
// (attrib_internal_errors_total stays 0). Bounded: small limits and deadlines of about a second.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "service/endpoint.h"
#include "tests/service/raw_client.h"
#include "tests/service/running.h"

namespace attrib::service {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using testing::RawClient;
using testing::request;
using testing::Running;

constexpr milliseconds kAnswer{5000};  // an answer that is due now (generous for ASan builds)
constexpr const char* kToken = "t0ken-hostile";
const std::string kAuth = std::string("Authorization: Bearer ") + kToken + "\r\n";

ServiceOptions hostileOptions() {
  ServiceOptions o;
  o.token = kToken;
  o.maxBodyBytes = 4 << 20;
  o.headerTimeout = milliseconds(800);
  o.bodyTimeout = milliseconds(800);
  o.idleTimeout = milliseconds(2000);
  o.maxInFlight = 4;
  return o;
}

class Hostile : public ::testing::Test {
 protected:
  Hostile() : s_(hostileOptions()) {
    httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
    auto session = s_.client().Post("/v1/sessions", auth, R"({"id": "w"})", "application/json");
    session_ = json::parse(session->body)["id"];
    auto attributor = s_.client().Post("/latest/attributor", auth, R"({"workload": {"id": "w"}})", "application/json");
    attributor_ = json::parse(attributor->body)["attributor_id"];
  }
  ~Hostile() override {
    // Whatever was sent, no handler failed inside: every answer above was a client error.
    auto m = s_.client().Get("/metrics", {{"Authorization", std::string("Bearer ") + kToken}});
    EXPECT_NE(m->body.find("attrib_internal_errors_total 0\n"), std::string::npos) << m->body;
    EXPECT_EQ(m->body.find("status=\"500\""), std::string::npos) << m->body;
  }

  // Sends `bytes` on a new connection and returns the answer's status (0: none in time).
  int send(const std::string& bytes, std::string* body = nullptr) {
    RawClient c(s_.port());
    EXPECT_TRUE(c.connected());
    c.send(bytes);
    int status = c.status(kAnswer);
    if (body) *body = c.body(kAnswer);
    return status;
  }
  void expectHealthy(const std::string& after) {
    RawClient c(s_.port());
    c.send(request("GET", "/healthz", ""));
    EXPECT_EQ(c.status(kAnswer), 200) << "/healthz after " << after;
  }
  // Every route, with a concrete id.
  std::vector<std::pair<std::string, std::string>> routes() const {
    return {{"GET", "/healthz"},
            {"GET", "/readyz"},
            {"GET", "/openapi.json"},
            {"GET", "/metrics"},
            {"GET", "/v1/rulesets"},
            {"POST", "/v1/rulesets/reload"},
            {"POST", "/v1/sessions"},
            {"GET", "/v1/sessions/" + session_},
            {"POST", "/v1/sessions/" + session_ + "/observations"},
            {"POST", "/v1/sessions/" + session_ + "/observations?format=raw_loki_streams"},
            {"POST", "/v1/sessions/" + session_ + "/observations?format=loki_query_range"},
            {"POST", "/v1/sessions/" + session_ + "/observations?format=prometheus_matrix"},
            {"POST", "/v1/sessions/" + session_ + "/observations?format=scheduler"},
            {"POST", "/v1/sessions/" + session_ + "/attribute"},
            {"POST", "/v1/attribute"},
            {"POST", "/latest/attributor"},
            {"POST", "/latest/attributor/" + attributor_ + "/observation"},
            {"GET", "/latest/attributor/" + attributor_ + "/attribution"},
            {"GET", "/v1/nodes?suspect=true"},
            {"GET", "/v1/nodes/gpu-07/history"}};
  }

  Running s_;
  std::string session_, attributor_;
};


TEST_F(Hostile, InvalidJsonIsA4xxOnEveryRoute) {
  for (const auto& [method, target] : routes()) {
    for (const std::string& junk : {std::string("{not json"), std::string("[1, 2"), std::string("\xff\xfe{}", 4), std::string("{\"a\": 1}}")}) {
      std::string answer;
      int status = send(request(method, target, junk, kAuth), &answer);
      bool bodiless = method == "GET" || target.find("reload") != std::string::npos ||
                      (target.find("/v1/sessions/") == 0 && target.size() > 10 && target.compare(target.size() - 10, 10, "/attribute") == 0);
      if (bodiless) {
        EXPECT_EQ(status, 413) << method << " " << target << ": a route without a body takes none";
      } else {
        EXPECT_EQ(status, 400) << method << " " << target << " " << answer;
      }
      EXPECT_NE(answer.find("\"error\""), std::string::npos) << target << ": " << answer;
    }
    expectHealthy(target);
  }
}

TEST_F(Hostile, EveryFieldOfTheWrongTypeIsA400NamingIt) {
  std::string obs = "/v1/sessions/" + session_ + "/observations";
  std::string v1 = "/latest/attributor/" + attributor_ + "/observation";
  auto v1Body = [](const json& inner, const json& context = {{"format", "raw_loki_streams"}}) {
    return json{{"context", context}, {"body", inner.dump()}}.dump();
  };
  struct Case {
    std::string target, body, mention;
  };
  std::vector<Case> cases;
  // workload.json, as a session's context and as the scheduler's state.
  for (const char* key : {"id", "scheduler", "name", "user", "partition", "state", "reason"}) {
    cases.push_back({"/v1/sessions", json{{key, json::array({1})}}.dump(), key});
    cases.push_back({obs + "?format=scheduler", json{{key, json::object()}}.dump(), key});
  }
  for (const char* key : {"exit_code", "signal", "ranks", "ranks_per_node"}) cases.push_back({"/v1/sessions", json{{key, "1"}}.dump(), key});
  for (const char* key : {"start", "end"}) cases.push_back({"/v1/sessions", json{{key, json::array()}}.dump(), key});
  cases.push_back({"/v1/sessions", R"({"nodes": "n1"})", "nodes"});
  cases.push_back({"/v1/sessions", R"({"nodes": [1]})", "nodes"});
  // The attrib format: a log line, a sample, a report, a file slice.
  for (const char* key : {"node", "source", "gpu"}) cases.push_back({obs, json{{"text", "x"}, {key, 5}}.dump(), key});
  cases.push_back({obs, R"({"text": 5})", "'text'"});
  cases.push_back({obs, R"({"text": "x", "time": {}})", "time"});
  cases.push_back({obs, R"({"text": "x", "rank": "3"})", "rank"});
  cases.push_back({obs, R"({"text": "x", "where": 5})", "where"});
  cases.push_back({obs, R"({"metric": 5, "time": 1, "value": 1})", "metric"});
  cases.push_back({obs, R"({"metric": "m", "time": 1, "value": {}})", "value"});
  cases.push_back({obs, R"({"metric": "m", "time": 1, "value": 1, "labels": {"a": 1}})", "labels.a"});
  cases.push_back({obs, R"({"metric": "m", "time": 1, "value": 1, "labels": [1]})", "labels"});
  cases.push_back({obs, R"({"report": 3})", "report"});
  cases.push_back({obs, R"({"report": {"connector": 3}})", "report.connector"});
  cases.push_back({obs, R"({"report": {"status": null}})", "report.status"});
  cases.push_back({obs, R"({"file": 3, "offset": 0})", "'file'"});
  cases.push_back({obs, R"({"file": {"path": "/x", "node": 1}, "offset": 0})", "file.node"});
  cases.push_back({obs, R"({"file": {"path": "/x"}, "offset": "0"})", "offset"});
  cases.push_back({obs, R"({"file": {"path": "/x"}, "offset": 0, "error": 1})", "error"});
  // Loki and Prometheus answers.
  for (const char* fmt : {"raw_loki_streams"}) {
    std::string t = obs + "?format=" + fmt;
    cases.push_back({t, R"({"streams": 5})", "streams"});
    cases.push_back({t, R"({"streams": [5]})", "streams[0]"});
    cases.push_back({t, R"({"streams": [{"stream": 5, "values": []}]})", "stream"});
    cases.push_back({t, R"({"streams": [{"stream": {"node": 5}, "values": [["1", "x"]]}]})", "stream.node"});
    cases.push_back({t, R"({"streams": [{"stream": {}, "values": 5}]})", "values"});
    cases.push_back({t, R"({"streams": [{"stream": {}, "values": [5]}]})", "values[0]"});
    cases.push_back({t, R"({"streams": [{"stream": {}, "values": [[{}, "x"]]}]})", "values[0][0]"});
    cases.push_back({t, R"({"streams": [{"stream": {}, "values": [["1", 5]]}]})", "values[0]"});
  }
  std::string lq = obs + "?format=loki_query_range";
  cases.push_back({lq, R"({"data": 5})", "data.resultType"});
  cases.push_back({lq, R"({"data": {"resultType": 5}})", "data.resultType"});
  cases.push_back({lq, R"({"data": {"resultType": "streams", "result": 5}})", "data.result"});
  std::string pm = obs + "?format=prometheus_matrix";
  cases.push_back({pm, R"({"data": {"resultType": 7, "result": []}})", "data.resultType"});
  cases.push_back({pm, R"({"data": {"resultType": "matrix", "result": [{"metric": 5, "values": []}]}})", "__name__"});
  cases.push_back({pm, R"({"data": {"resultType": "matrix", "result": [{"metric": {"__name__": 5}, "values": []}]}})", "__name__"});
  cases.push_back({pm, R"({"data": {"resultType": "matrix", "result": [{"metric": {"__name__": "m", "gpu": 0}, "values": []}]}})", "metric.gpu"});
  cases.push_back({pm, R"({"data": {"resultType": "matrix", "result": [{"metric": {"__name__": "m"}, "values": 5}]}})", "values"});
  cases.push_back({pm, R"({"data": {"resultType": "matrix", "result": [{"metric": {"__name__": "m"}, "values": [["1", "2"]]}]}})", "values[0]"});
  cases.push_back({pm, R"({"data": {"resultType": "matrix", "result": [{"metric": {"__name__": "m"}, "values": [[1, "hot"]]}]}})", "values[0][1]"});
  cases.push_back({pm, R"({"data": {"resultType": "matrix", "result": [{"metric": {"__name__": "m"}, "values": [[1e300, "1"]]}]}})", "values[0][0]"});
  // The one-call attribution.
  for (const json& format : {json::array(), json(1), json::object()}) {
    cases.push_back({"/v1/attribute", json{{"observations", {{{"format", format}, {"data", ""}}}}}.dump(), "format"});
  }
  cases.push_back({"/v1/attribute", R"({"observations": 5})", "observations"});
  cases.push_back({"/v1/attribute", R"({"observations": [5]})", "data"});
  cases.push_back({"/v1/attribute", R"({"workload": 5})", "workload"});
  cases.push_back({"/v1/attribute", R"({"workload": {"nodes": {}}})", "nodes"});
  cases.push_back({"/v1/attribute", R"({"observations": [{"format": 1, "data": ""}]})", "format"});
  // V1.
  cases.push_back({"/latest/attributor", R"({"workload": 5})", "workload"});
  for (const char* key : {"id", "type", "name", "username", "status", "job_start_time"}) {
    cases.push_back({"/latest/attributor", json{{"workload", {{key, 5}}}}.dump(), key});
  }
  for (const char* key : {"nranks", "ranks_per_node", "exit_code_signal"}) {
    cases.push_back({"/latest/attributor", json{{"workload", {{key, "8"}}}}.dump(), key});
  }
  cases.push_back({"/latest/attributor", R"({"workload": {"nodes": [1]}})", "nodes[0]"});
  cases.push_back({v1, R"({"body": 5})", "body"});
  cases.push_back({v1, R"({"context": 5, "body": "[]"})", "context"});
  cases.push_back({v1, v1Body(json::array(), {{"format", 5}}), "context.format"});
  cases.push_back({v1, v1Body(json::array(), {{"source", 5}}), "context.source"});
  cases.push_back({v1, v1Body(5), "streams"});
  cases.push_back({v1, v1Body(json::array({{{"stream", {{"hostname", 5}}}, {"values", json::array()}}})), "hostname"});
  json payload = {{"body", "x"}, {"attributes", {{"hostname", 5}}}};
  cases.push_back({v1, v1Body(json::array({{{"values", json::array({json::array({"1", payload.dump()})})}}})), "hostname"});
  cases.push_back({v1, v1Body(json::array({{{"values", json::array({json::array({"soon", "x"})})}}})), "timestamp"});
  for (const auto& c : cases) {
    std::string answer;
    int status = send(request("POST", c.target, c.body, kAuth), &answer);
    EXPECT_EQ(status, 400) << c.target << " " << c.body << " -> " << answer;
    json error = json::parse(answer, nullptr, false);
    ASSERT_TRUE(error.is_object() && error.contains("error")) << c.body << " -> " << answer;
    std::string message = error["error"]["message"];
    EXPECT_NE(message.find(c.mention), std::string::npos) << c.body << ": the message names the field: " << message;
  }
  expectHealthy("the wrong-typed fields");
  // Nothing of a refused body was kept.
  auto got = s_.client().Get(("/v1/sessions/" + session_).c_str(), {{"Authorization", std::string("Bearer ") + kToken}});
  json counts = json::parse(got->body);
  EXPECT_EQ(counts["lines"], 0);
  EXPECT_EQ(counts["samples"], 0);
}

// Deep nesting anywhere a client's JSON goes (the body, an embedded document, an attrib line,
// V1's inner body) is a 400 naming the limit, not a deep recursion.
TEST_F(Hostile, DeepNestingIsA400NamingTheLimit) {
  for (size_t depth : {size_t{1000}, size_t{100'000}, size_t{1'000'000}}) {
    std::string deep = std::string(depth, '[') + std::string(depth, ']');
    std::vector<std::pair<std::string, std::string>> bodies = {
        {"/v1/attribute", "{\"observations\": [{\"data\": " + deep + "}]}"},
        {"/v1/attribute", "{\"workload\": {\"id\": " + deep + "}}"},
        {"/v1/sessions", "{\"nodes\": " + deep + "}"},
        {"/v1/sessions/" + session_ + "/observations", "{\"text\": \"x\", \"where\": " + deep + "}"},
        {"/v1/sessions/" + session_ + "/observations?format=raw_loki_streams", "{\"streams\": [{\"stream\": " + deep + "}]}"},
        {"/v1/sessions/" + session_ + "/observations?format=prometheus_matrix", "{\"data\": " + deep + "}"},
        {"/v1/sessions/" + session_ + "/observations?format=scheduler", "{\"id\": " + deep + "}"},
        {"/latest/attributor", "{\"workload\": " + deep + "}"},
        {"/latest/attributor/" + attributor_ + "/observation", json{{"body", deep}}.dump()},
        {"/latest/attributor/" + attributor_ + "/observation", "{\"context\": " + deep + ", \"body\": \"[]\"}"},
    };
    for (const auto& [target, body] : bodies) {
      std::string answer;
      auto started = std::chrono::steady_clock::now();
      int status = send(request("POST", target, body, kAuth), &answer);
      EXPECT_EQ(status, 400) << target << " at depth " << depth << ": " << answer.substr(0, 200);
      EXPECT_NE(answer.find("64 levels"), std::string::npos) << target << ": " << answer.substr(0, 200);
      EXPECT_LT(std::chrono::steady_clock::now() - started, kAnswer);
    }
    expectHealthy("nesting " + std::to_string(depth));
  }
}

// A chunked body is held to the limit like any other: 413 as soon as a chunk would pass it.
TEST_F(Hostile, AChunkedBodyOverTheLimitIsA413OnEveryRoute) {
  std::string chunk(256 << 10, 'x');
  std::string framed = "40000\r\n" + chunk + "\r\n";  // 256 KiB per chunk, 6 MiB in all > 4 MiB
  for (const auto& [method, target] : routes()) {
    RawClient c(s_.port());
    c.send(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + kAuth + "Transfer-Encoding: chunked\r\n\r\n");
    auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < 24 && c.send(framed); ++i) {
    }
    c.send("0\r\n\r\n");
    EXPECT_EQ(c.status(kAnswer), 413) << method << " " << target << ": " << c.received().substr(0, 200);
    EXPECT_LT(std::chrono::steady_clock::now() - started, kAnswer);
    EXPECT_TRUE(c.closedWithin(kAnswer)) << target;
    expectHealthy("a chunked body to " + target);
  }
}

// The token is checked on the head: a client without one is refused before its body is read.
TEST_F(Hostile, NoTokenWithABigBodyIsA401BeforeTheBodyIsRead) {
  for (const auto& [method, target] : routes()) {
    if (target == "/healthz" || target == "/readyz" || target == "/openapi.json") continue;
    RawClient c(s_.port());
    c.send(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 104857600\r\n\r\n");
    auto started = std::chrono::steady_clock::now();
    // The answer comes at once, without the 100 MB: at most a little of it is read (lingering).
    EXPECT_EQ(c.status(kAnswer), 401) << method << " " << target;
    EXPECT_LT(std::chrono::steady_clock::now() - started, kAnswer);
    size_t sent = 0;
    std::string megabyte(1 << 20, 'x');
    while (sent < (32u << 20) && c.send(megabyte)) sent += megabyte.size();
    EXPECT_LT(sent, 32u << 20) << target << ": the server went on reading a body it had refused";
    expectHealthy("no token to " + target);
  }
}

// Slow clients hold a connection each, never a worker: /healthz answers while 64 of them sit
// on half-sent heads, and each is answered 408 when its header deadline passes.
TEST_F(Hostile, SixtyFourSlowClientsNeitherStopTheServiceNorStayForever) {
  auto all = routes();
  std::vector<RawClient> slow;
  for (int i = 0; i < 64; ++i) {
    const auto& [method, target] = all[static_cast<size_t>(i) % all.size()];
    slow.emplace_back(s_.port());
    slow.back().send(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  }
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i) {
    RawClient c(s_.port());
    c.send(request("GET", "/healthz", ""));
    EXPECT_EQ(c.status(milliseconds(500)), 200) << "with 64 slow clients connected";
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(1500));
  for (auto& c : slow) {
    EXPECT_EQ(c.status(kAnswer), 408) << c.received().substr(0, 100);
    EXPECT_TRUE(c.closedWithin(kAnswer));
  }
  // Slow bodies: the head in time, the body never.
  std::vector<RawClient> slowBodies;
  for (int i = 0; i < 8; ++i) {
    slowBodies.emplace_back(s_.port());
    slowBodies.back().send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + kAuth + "Content-Length: 1000\r\n\r\n{\"id\"");
  }
  for (auto& c : slowBodies) EXPECT_EQ(c.status(kAnswer), 408);
  expectHealthy("slow clients");
}

TEST_F(Hostile, LyingOrBrokenHeadsAre400sAtOnce) {
  struct Case {
    std::string bytes;
    int status;
  };
  for (const Case& c : std::vector<Case>{
           {"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400},
           {"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400},
           {"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", 400},
           {"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 400},
           {"POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + kAuth + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
           {"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400},
           {"GARBAGE\r\n\r\n", 400},
           {"GET /healthz HTTP/2.0\r\n\r\n", 400},
           {"GET /healthz HTTP/1.2\r\nHost: x\r\n\r\n", 400},
           {"GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n", 431},
           {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'b') + "\r\n\r\n", 431},
           {"DELETE /v1/sessions HTTP/1.1\r\nHost: x\r\n" + kAuth + "\r\n", 405},
           {"PUT /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 405},
           {"GET /v1/sessions/not-an-id HTTP/1.1\r\nHost: x\r\n" + kAuth + "\r\n", 404},
           {"POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + kAuth + "Content-Length: 5000000\r\n\r\n", 413},
       }) {
    std::string body;
    auto started = std::chrono::steady_clock::now();
    EXPECT_EQ(send(c.bytes, &body), c.status) << c.bytes.substr(0, 120);
    EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(2000)) << c.bytes.substr(0, 120) << ": answered at once";
    json error = json::parse(body, nullptr, false);
    EXPECT_TRUE(error.is_object() && error["error"]["code"] == errorCode(c.status)) << body;
  }
  RawClient wrong(s_.port());
  wrong.send("PUT /v1/sessions HTTP/1.1\r\nHost: x\r\n" + kAuth + "\r\n");
  EXPECT_EQ(wrong.status(kAnswer), 405);
  EXPECT_NE(wrong.received().find("Allow: POST"), std::string::npos) << wrong.received();
  expectHealthy("broken heads");
}

}  // namespace
}  // namespace attrib::service
