// GET /v1/nodes and /v1/nodes/{node}/history over real HTTP, reading a real SQLite database the
// sink wrote through the reader tools/attrib gives the Service; odd node names in the URL, bad
// query values, the token, and a Service without a history.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "ir/civil_time.h"
#include "sinks/sqlite_history.h"
#include "sinks/sqlite_sink.h"
#include "tests/service/running.h"

namespace attrib::service {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Running;

constexpr int64_t kDay = 86'400'000'000'000LL;
const int64_t kNov29 = *parseRfc3339("2026-11-29T10:42:00Z");

runtime::Verdict failure(const std::string& id, const std::string& node, const std::string& family, int64_t time) {
  runtime::Verdict v;
  v.workload.id = id;
  v.workload.state = ir::State::Failed;
  v.workload.nodes = {node};
  v.outcomes.push_back({"pkg.o", family, "t", {}, 0.9});
  runtime::SymptomFinding root;
  root.symptom = "pkg.s";
  root.node = node;
  root.time = time;
  root.timeKnown = true;
  v.root = root;
  v.badNodes.push_back({node, {"pkg.s"}});
  v.confidence = 0.9;
  v.rulesetName = "r";
  v.rulesetVersion = "1";
  v.rulesetDigest = "sha256:r";
  return v;
}

class NodeRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attrib-node-routes-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "v.db").string();
    std::string db = db_, error;
    {
      auto sink = sinks::SqliteSink::open(db, &error);
      ASSERT_TRUE(sink) << error;
      for (const auto& v : {failure("w1", "gpu-07", "accelerator-gpu", kNov29 - 3 * kDay),
                            failure("w2", "gpu-07", "accelerator-gpu", kNov29), failure("w3", "gpu 09/a", "user-code", kNov29),
                            failure("w4", "gpu-11", "network-fabric", kNov29)}) {
        ASSERT_TRUE(sink->write(v, &error)) << error;
      }
    }
    options_.history = sinks::SqliteHistoryReader::open(db, &error);
    ASSERT_TRUE(options_.history) << error;
    options_.token = "t0ken";
  }
  void TearDown() override { fs::remove_all(dir_); }
  static httplib::Headers auth() { return {{"Authorization", "Bearer t0ken"}}; }
  fs::path dir_;
  std::string db_;
  ServiceOptions options_;
};

TEST_F(NodeRoutes, TheSuspectsAndOneNodesHistory) {
  Running s(options_);
  auto r = s.client().Get("/v1/nodes?suspect=true&now=2026-11-30T00:00:00Z", auth());
  ASSERT_EQ(r->status, 200) << r->body;
  json j = json::parse(r->body);
  ASSERT_EQ(j["nodes"].size(), 1u) << r->body;
  EXPECT_EQ(j["nodes"][0]["node"], "gpu-07");
  EXPECT_EQ(j["nodes"][0]["decision"], "avoid");
  EXPECT_EQ(j["now"], "2026-11-30T00:00:00Z");
  // Without suspect=true, every node with a node fault (gpu-11 has one: below).
  json all = json::parse(s.client().Get("/v1/nodes?now=2026-11-30T00:00:00Z", auth())->body);
  ASSERT_EQ(all["nodes"].size(), 2u);
  EXPECT_EQ(all["nodes"][1]["node"], "gpu-11");
  EXPECT_EQ(all["nodes"][1]["decision"], "below");
  auto h = s.client().Get("/v1/nodes/gpu-07/history?now=2026-11-30T00:00:00Z", auth());
  ASSERT_EQ(h->status, 200) << h->body;
  json hj = json::parse(h->body);
  EXPECT_EQ(hj["failures"], 2);
  EXPECT_EQ(hj["events"][0]["workload"], "w1");
  EXPECT_EQ(hj["events"][1]["time"], "2026-11-29T10:42:00Z");
  // A shorter window.
  EXPECT_EQ(json::parse(s.client().Get("/v1/nodes/gpu-07/history?since=1d&now=2026-11-30T00:00:00Z", auth())->body)["failures"], 1);
}

TEST_F(NodeRoutes, NodeNamesAreDecodedAndOddOnesRefused) {
  Running s(options_);
  // A space and a slash, percent-encoded: found exactly.
  auto r = s.client().Get("/v1/nodes/gpu%2009%2Fa/history?now=2026-11-30T00:00:00Z", auth());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["node"], "gpu 09/a");
  EXPECT_EQ(json::parse(r->body)["failures"], 1);
  // SQL in a name is a name.
  auto sql = s.client().Get("/v1/nodes/x'%20OR%20'1'='1/history", auth());
  ASSERT_EQ(sql->status, 200) << sql->body;
  EXPECT_EQ(json::parse(sql->body)["failures"], 0);
  // Invalid UTF-8 is a name too; the answer is still JSON.
  auto bytes = s.client().Get("/v1/nodes/gpu%FF%FE/history", auth());
  ASSERT_EQ(bytes->status, 200) << bytes->body;
  EXPECT_FALSE(json::parse(bytes->body, nullptr, false).is_discarded()) << bytes->body;
  struct Case {
    std::string target, message;
  };
  for (const Case& c : std::vector<Case>{
           {"/v1/nodes/gpu%00x/history", "node: a node name has no control characters"},
           {"/v1/nodes/gpu%0Ax/history", "node: a node name has no control characters"},
           {"/v1/nodes/gpu%ZZ/history", "node: a '%' must be followed by two hex digits"},
           {"/v1/nodes/gpu%2/history", "node: a '%' must be followed by two hex digits"},
           {"/v1/nodes/" + std::string(256, 'a') + "/history", "node: a node name has 1 to 255 bytes"},
           {"/v1/nodes/gpu-07/history?since=forever", "'since' must be a duration"},
           {"/v1/nodes?now=yesterday", "'now' must be an RFC 3339 time"},
           {"/v1/nodes?suspect=yes", "'suspect' must be true or false"},
       }) {
    auto e = s.client().Get(c.target, auth());
    ASSERT_TRUE(e) << c.target;
    EXPECT_EQ(e->status, 400) << c.target << ": " << e->body;
    json err = json::parse(e->body);
    EXPECT_EQ(err["error"]["code"], "bad_request");
    EXPECT_NE(err["error"]["message"].get<std::string>().find(c.message), std::string::npos) << e->body;
  }
}

TEST_F(NodeRoutes, TheTokenIsNeededAndWithoutAHistoryTheRoutesSaySo) {
  {
    Running s(options_);
    EXPECT_EQ(s.client().Get("/v1/nodes?suspect=true")->status, 401);
    EXPECT_EQ(s.client().Get("/v1/nodes/gpu-07/history")->status, 401);
  }
  Running bare;
  auto r = bare.client().Get("/v1/nodes?suspect=true");
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find("start attrib serve with --history-db"), std::string::npos) << r->body;
  EXPECT_EQ(bare.client().Get("/v1/nodes/gpu-07/history")->status, 404);
}

// A store that cannot be read once the Service runs (here a table gone under it): a JSON error
// that says so, not "overloaded", and nothing of the store's own message (its file's name).
TEST_F(NodeRoutes, AHistoryThatCannotBeReadIsAJsonErrorSayingSo) {
  Running s(options_);
  ASSERT_EQ(s.client().Get("/v1/nodes?now=2026-11-30T00:00:00Z", auth())->status, 200);
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &h), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(h, "DROP TABLE bad_nodes", nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
    sqlite3_close(h);
  }
  for (const char* target : {"/v1/nodes?suspect=true", "/v1/nodes", "/v1/nodes/gpu-07/history"}) {
    auto r = s.client().Get(target, auth());
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 503) << target << ": " << r->body;
    json err = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(err.is_object()) << r->body;
    EXPECT_EQ(err["error"]["code"], "history_unavailable") << r->body;
    EXPECT_EQ(err["error"]["message"], "the history store could not be read") << r->body;
    EXPECT_EQ(r->body.find("v.db"), std::string::npos) << r->body;
    EXPECT_EQ(r->body.find("overloaded"), std::string::npos) << r->body;
  }
  // The Service itself is fine: health answers.
  EXPECT_EQ(s.client().Get("/healthz")->status, 200);
}

}  // namespace
}  // namespace attrib::service
