// The Loki source against a STUB Loki (no Grafana Loki exists in Debian: its `loki` package is a
// genetics program; ../shared/reference/connectors.md 0 and 1.7). The stub follows the documented
// query_range API: stream selectors with = and =~, start inclusive and end exclusive, forward
// and backward, a per-query entry limit answered with a plain-text 400 when exceeded, nanosecond
// string timestamps, tenants (401 "no org id"), and injected 429/5xx answers and broken bodies.
// ctest label `loki`.
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <thread>

#include "connectors/loki/loki_source.h"
#include "connectors/source.h"
#include "runtime/engine.h"
#include "tests/runtime/engine_util.h"

namespace attrib::connectors::loki {
namespace {

using nlohmann::json;

struct StubEntry {
  std::map<std::string, std::string> labels;
  int64_t time;
  std::string line;
};

class StubLoki {
 public:
  StubLoki() {
    server_.Get("/loki/api/v1/query_range", [this](const httplib::Request& req, httplib::Response& res) {
      if (stallMs_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(stallMs_.load()));
      std::lock_guard<std::mutex> lock(mu_);
      ++requests_;
      if (failures_ > 0) {
        --failures_;
        res.status = failStatus_;
        res.set_content(failStatus_ == 429 ? "Too Many Requests" : "internal server error", "text/plain");
        return;
      }
      if (requireTenant_ && req.get_header_value("X-Scope-OrgID") != "team-a") {
        res.status = 401;
        res.set_content("no org id\n", "text/plain");
        return;
      }
      size_t limit = std::stoul(req.get_param_value("limit"));
      if (limit > maxEntries_) {
        res.status = 400;
        res.set_content("max entries limit per query exceeded, limit > max_entries_limit (" + std::to_string(limit) + " > " +
                            std::to_string(maxEntries_) + ")",
                        "text/plain");
        return;
      }
      int64_t start = std::stoll(req.get_param_value("start")), end = std::stoll(req.get_param_value("end"));
      bool forward = req.get_param_value("direction") == "forward";
      auto matchers = parseSelector(req.get_param_value("query"));
      std::vector<const StubEntry*> hits;
      for (const auto& e : entries_) {
        if (e.time < start || e.time >= end) continue;
        bool ok = true;
        for (const auto& [k, op, v] : matchers) {
          auto it = e.labels.find(k);
          std::string have = it == e.labels.end() ? "" : it->second;
          ok = ok && (op == "=" ? have == v : std::regex_match(have, std::regex(v)));
        }
        if (ok) hits.push_back(&e);
      }
      std::stable_sort(hits.begin(), hits.end(), [&](auto* a, auto* b) { return forward ? a->time < b->time : a->time > b->time; });
      if (hits.size() > limit) hits.resize(limit);
      std::map<std::string, json> streams;
      for (const auto* e : hits) {
        json labels(e->labels);
        auto& s = streams[labels.dump()];
        if (s.is_null()) s = {{"stream", labels}, {"values", json::array()}};
        s["values"].push_back({std::to_string(e->time), e->line});
      }
      json result = json::array();
      for (auto& [k, s] : streams) result.push_back(s);
      json body = {{"status", "success"}, {"data", {{"resultType", "streams"}, {"result", result}, {"stats", json::object()}}}};
      std::string text = body.dump();
      if (malformed_) text = text.substr(0, text.size() / 2);
      res.set_content(text, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~StubLoki() {
    server_.stop();
    thread_.join();
  }
  // {k="v", k=~"re"} and nothing else (line filters are not needed here).
  static std::vector<std::tuple<std::string, std::string, std::string>> parseSelector(const std::string& q) {
    std::vector<std::tuple<std::string, std::string, std::string>> out;
    std::regex matcher(R"re(\s*([a-zA-Z_]+)\s*(=~|=)\s*"((?:[^"\\]|\\.)*)"\s*,?)re");
    std::string body = q.substr(q.find('{') + 1, q.rfind('}') - q.find('{') - 1);
    for (std::sregex_iterator it(body.begin(), body.end(), matcher), end; it != end; ++it) {
      std::string value = (*it)[3];
      std::string unescaped;
      for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '\\' && i + 1 < value.size()) ++i;
        unescaped += value[i];
      }
      out.emplace_back((*it)[1], (*it)[2], unescaped);
    }
    return out;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::vector<StubEntry> entries_;
  std::mutex mu_;
  size_t maxEntries_ = 5000;
  bool requireTenant_ = false, malformed_ = false;
  int failures_ = 0, failStatus_ = 429;
  std::atomic<int> requests_{0};
  std::atomic<int> stallMs_{0};  // answer this late

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

constexpr int64_t kT0 = 1'732'912'000'000'000'000LL;

evidence::Workload workload() {
  evidence::Workload w;
  w.id = "slurm/4242";
  w.nodes = {"gpu-07", "gpu-08"};
  w.start = kT0;
  w.end = kT0 + 3'600'000'000'000LL;
  return w;
}

LokiOptions optionsFor(const StubLoki& loki) {
  LokiOptions o;
  o.url = loki.url();
  o.query = R"({job="${job}", node=~"${nodes}"})";
  o.limit = 1000;
  o.timeout = std::chrono::seconds(5);
  o.backoff = std::chrono::milliseconds(10);
  return o;
}

// 3 streams (two nodes of the job, one other node), many lines sharing nanoseconds so pages cut
// through instants.
void fill(StubLoki& loki) {
  for (int i = 0; i < 4000; ++i) {
    int64_t t = kT0 + static_cast<int64_t>(i / 7) * 1'000'000;  // 7 lines per instant
    loki.entries_.push_back({{{"job", "4242"}, {"node", "gpu-07"}, {"rank", "3"}, {"source", "applog"}}, t, "a " + std::to_string(i)});
    loki.entries_.push_back({{{"job", "4242"}, {"node", "gpu-08"}, {"source", "syslog"}}, t, "b " + std::to_string(i)});
    loki.entries_.push_back({{{"job", "4242"}, {"node", "gpu-99"}}, t, "c " + std::to_string(i)});
  }
  loki.entries_.push_back({{{"job", "4242"}, {"node", "gpu-07"}}, kT0 - 3'600'000'000'000LL, "long before the window"});
}

TEST(LokiStub, PagesThroughEveryLineOnceInTimeOrderWithLabelsMapped) {
  StubLoki loki;
  fill(loki);
  evidence::ConnectorReport report;
  auto lines = fetchLogs(optionsFor(loki), workload(), &report);
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Ok) << report.reason;
  ASSERT_EQ(lines.size(), 8000u) << "every line of gpu-07 and gpu-08, none twice, none of gpu-99";
  EXPECT_GE(loki.requests_.load(), 8);
  std::map<std::string, int> seen;
  for (size_t i = 0; i < lines.size(); ++i) {
    ++seen[lines[i].text];
    if (i > 0) {
      ASSERT_LE(lines[i - 1].time, lines[i].time) << i;
    }
  }
  for (const auto& [text, n] : seen) ASSERT_EQ(n, 1) << text;
  const auto& first = lines[0];
  EXPECT_EQ(first.node, "gpu-07");
  EXPECT_EQ(first.rank, 3);
  EXPECT_EQ(first.source, "applog");
  EXPECT_EQ(first.time, kT0);
  EXPECT_EQ(first.where.connector, "loki");
  auto b = std::find_if(lines.begin(), lines.end(), [](const evidence::LogLine& l) { return l.text == "b 0"; });
  ASSERT_NE(b, lines.end());
  EXPECT_EQ(b->source, "syslog");
  EXPECT_FALSE(b->rank);
  EXPECT_EQ(report.source, R"({job="4242", node=~"gpu-07|gpu-08"})");
}

TEST(LokiStub, TenantHeaderAndTheServersLimitError) {
  StubLoki loki;
  fill(loki);
  loki.requireTenant_ = true;
  evidence::ConnectorReport report;
  EXPECT_TRUE(fetchLogs(optionsFor(loki), workload(), &report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_EQ(report.reason, "HTTP 401: no org id");
  LokiOptions o = optionsFor(loki);
  o.tenant = "team-a";
  EXPECT_EQ(fetchLogs(o, workload(), &report).size(), 8000u) << report.reason;
  o.limit = 6000;
  EXPECT_TRUE(fetchLogs(o, workload(), &report).empty());
  EXPECT_EQ(report.reason, "HTTP 400: max entries limit per query exceeded, limit > max_entries_limit (6000 > 5000)");
}

TEST(LokiStub, A429BurstIsRetriedAndPersistent5xxIsReportedNotHung) {
  StubLoki loki;
  fill(loki);
  loki.failures_ = 3;
  evidence::ConnectorReport report;
  EXPECT_EQ(fetchLogs(optionsFor(loki), workload(), &report).size(), 8000u);
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Ok) << report.reason;
  loki.failures_ = 1000;
  loki.failStatus_ = 503;
  auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(fetchLogs(optionsFor(loki), workload(), &report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_EQ(report.reason, "HTTP 503: internal server error");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
  LokiOptions tight = optionsFor(loki);
  tight.backoff = std::chrono::milliseconds(400);
  tight.budget = std::chrono::milliseconds(500);
  started = std::chrono::steady_clock::now();
  EXPECT_TRUE(fetchLogs(tight, workload(), &report).empty());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2)) << "the budget bounds the backoff";
}

TEST(LokiStub, AServerThatNeverAnswersTimesOutWithinTheDeadline) {
  StubLoki loki;
  fill(loki);
  loki.stallMs_ = 3000;
  LokiOptions o = optionsFor(loki);
  o.timeout = std::chrono::milliseconds(500);
  o.retries = 1;
  evidence::ConnectorReport report;
  auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(fetchLogs(o, workload(), &report).empty());
  auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(report.reason.find("imed out"), std::string::npos) << report.reason;
  EXPECT_LT(elapsed, std::chrono::milliseconds(2500)) << "two attempts of 0.5 s and a short backoff";
  loki.stallMs_ = 0;
}

TEST(LokiStub, BrokenBodiesAndADeadServerAreReported) {
  StubLoki loki;
  fill(loki);
  loki.malformed_ = true;
  evidence::ConnectorReport report;
  EXPECT_TRUE(fetchLogs(optionsFor(loki), workload(), &report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_EQ(report.reason, "an answer is not a streams result");
  LokiOptions dead = optionsFor(loki);
  dead.url = "http://127.0.0.1:1";
  dead.retries = 1;
  EXPECT_TRUE(fetchLogs(dead, workload(), &report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_FALSE(report.reason.empty());
}

TEST(LokiQuery, PlaceholdersAreFilledAndNodeNamesEscaped) {
  evidence::Workload w;
  w.id = "slurm/cluster1/777";
  w.name = "pretrain";
  w.nodes = {"gpu-01.dc", "gpu-02"};
  EXPECT_EQ(expandQuery(R"({job="${job}", node=~"${nodes}", workload="${id}", name="${name}"})", w),
            R"x({job="777", node=~"gpu-01\\.dc|gpu-02", workload="slurm/cluster1/777", name="pretrain"})x");
  EXPECT_EQ(expandQuery(R"({node=~"${nodes}"})", evidence::Workload{}), R"({node=~".+"})");
}

// Sources together, as a diagnosis uses them: Loki has the logs, Prometheus is down, a local
// gzip file is corrupt. The verdict comes from what could be read, and the reports say what
// could not.
TEST(Sources, TheVerdictComesFromTheRemainingEvidenceAndTheReportsSayWhatFailed) {
  auto engine = attrib::testing::stdlibEngine();
  ASSERT_TRUE(engine);

  StubLoki loki;
  const int64_t t = 1'795'949'000'000'000'000LL;
  loki.entries_.push_back({{{"node", "gpu-0007"}, {"source", "syslog"}}, t,
                           "Nov 29 10:42:00 gpu-0007 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=148921, GPU has fallen off the bus."});
  for (int rank = 0; rank < 8; ++rank) {
    loki.entries_.push_back({{{"node", rank < 4 ? "gpu-0001" : "gpu-0002"}, {"rank", std::to_string(rank)}}, t + 600'000'000'000LL + rank,
                             "[rank" + std::to_string(rank) + "]:[E ProcessGroupNCCL.cpp:563] [Rank " + std::to_string(rank) +
                                 "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=58211, OpType=ALLREDUCE, "
                                 "NumelIn=262144000, NumelOut=262144000, Timeout(ms)=600000) ran for 600250 milliseconds before timing out."});
  }
  std::filesystem::path root = std::filesystem::temp_directory_path() / ("attrib-sources-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "gpu-0001");
  // A gzip header, then garbage.
  std::ofstream(root / "gpu-0001" / "syslog.log.gz") << std::string{'\x1f', '\x8b', '\x08', '\0'} + "corrupt";

  WorkloadContext context;
  context.workload.id = "slurm/418207";
  context.workload.state = ir::State::Failed;
  context.workload.nodes = {"gpu-0001", "gpu-0002", "gpu-0007"};
  context.workload.start = t - 3'600'000'000'000LL;
  context.workload.end = t + 700'000'000'000LL;
  LokiOptions lokiOptions = optionsFor(loki);
  lokiOptions.query = R"({node=~"${nodes}"})";
  prometheus::PrometheusOptions promOptions;
  promOptions.url = "http://127.0.0.1:1";
  promOptions.metrics = engine->bundle().program.metricNames();
  promOptions.timeout = std::chrono::seconds(2);
  files::FileSourceOptions fileOptions;
  fileOptions.roots = {root.string()};
  fileOptions.patterns = {{(root / "${node}" / "*.log*").string(), ""}};
  std::vector<std::unique_ptr<EvidenceSource>> sources;
  sources.push_back(std::make_unique<LokiSource>(lokiOptions));
  sources.push_back(std::make_unique<PrometheusSource>(promOptions));
  sources.push_back(std::make_unique<FileSource>(fileOptions));
  SourceEvidence found;
  for (auto& source : sources) source->collect(context, &found);
  runtime::Verdict v = engine->diagnose(assembleEvidence(context, std::move(found)));
  std::filesystem::remove_all(root);

  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "gpu.xid.xid79");
  EXPECT_EQ(v.root->node, "gpu-0007");
  ASSERT_FALSE(v.badNodes.empty());
  EXPECT_EQ(v.badNodes[0].node, "gpu-0007");
  std::map<std::string, evidence::ConnectorReport::Status> status;
  for (const auto& r : v.reports) status[r.connector] = r.status;
  EXPECT_EQ(status.at("loki"), evidence::ConnectorReport::Status::Ok);
  EXPECT_EQ(status.at("prometheus"), evidence::ConnectorReport::Status::Error);
  bool corrupt = false;
  for (const auto& r : v.reports) {
    if (r.source.find("syslog.log.gz") != std::string::npos) corrupt = r.status != evidence::ConnectorReport::Status::Ok;
  }
  EXPECT_TRUE(corrupt) << "the corrupt gzip file is reported";
}

}  // namespace
}  // namespace attrib::connectors::loki
