// The Prometheus source against a real Prometheus 2.42 from Debian, started on 127.0.0.1 by the
// test with history backfilled by `promtool tsdb create-blocks-from openmetrics` (fixed 2024
// timestamps in seconds, `# EOF`; ../shared/reference/connectors.md 2.2). ctest label
// `prometheus`. Samples are asserted one by one, including a series with more points than
// Prometheus allows in one request, which the source must split without losing or doubling any.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "connectors/http/http_client.h"
#include "connectors/process.h"
#include "tests/connectors/loopback.h"
#include "connectors/prometheus/prometheus_source.h"

namespace attrib::connectors::prometheus {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kStart = 1704067200;  // 2024-01-01T00:00:00Z
constexpr int64_t kHours = 4;
constexpr int64_t kSecond = 1'000'000'000;


double temperature(int64_t i) { return 60.0 + static_cast<double>(i % 30); }

class PrometheusServer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* tool : {"prometheus", "promtool"}) {
      if (runProcess({"sh", "-c", std::string("command -v ") + tool}).exitCode != 0) {
        skip_ = std::string(tool) + " is not installed (scripts/install-deps.sh installs prometheus)";
        return;
      }
    }
    dir_ = fs::temp_directory_path() / ("attrib-prometheus-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "data");
    {
      std::ofstream om(dir_ / "fixture.om");
      om << "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n"
            "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
            "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",Hostname=\"node01\",UUID=\"GPU-abc\"} 0 " << kStart << "\n"
            "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",Hostname=\"node01\",UUID=\"GPU-abc\"} 79 " << kStart + 60 << "\n"
            "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n";
      for (int64_t i = 0; i * 15 < kHours * 3600; ++i) {
        om << "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"node01\"} " << temperature(i) << " " << kStart + i * 15 << "\n";
      }
      for (int64_t i = 0; i * 15 < kHours * 3600; ++i) {
        om << "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"node99\"} 99 " << kStart + i * 15 << "\n";  // another job's node
      }
      om << "# TYPE DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter\n";
      for (int64_t i = 0; i < kHours * 3600; ++i) {  // one sample a second: 14,400 points > 11,000
        om << "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu=\"1\",Hostname=\"node02\"} " << i / 1000 << " " << kStart + i << "\n";
      }
      om << "# TYPE node_load1 gauge\n"
         << "node_load1{instance=\"node01:9100\"} 3.5 " << kStart << "\n"
         << "# EOF\n";
    }
    ProcessOptions slow;
    slow.timeout = std::chrono::seconds(120);
    ProcessResult backfill = runProcess({"promtool", "tsdb", "create-blocks-from", "openmetrics", (dir_ / "fixture.om").string(),
                                         (dir_ / "data").string()},
                                        slow);
    if (backfill.exitCode != 0) {
      failure_ = "promtool could not backfill: " + backfill.err + backfill.out;
      return;
    }
    std::ofstream(dir_ / "prom.yml") << "global:\n  scrape_interval: 1h\nscrape_configs: []\n";
    port_ = testing::freeLoopbackPort();
    pid_ = ::fork();
    if (pid_ == 0) {
      std::string log = (dir_ / "prometheus.log").string();
      std::freopen(log.c_str(), "w", stderr);
      std::freopen(log.c_str(), "a", stdout);
      std::string config = "--config.file=" + (dir_ / "prom.yml").string();
      std::string storage = "--storage.tsdb.path=" + (dir_ / "data").string();
      std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port_);
      ::execlp("prometheus", "prometheus", config.c_str(), storage.c_str(), listen.c_str(),
               "--storage.tsdb.retention.time=100y", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 300; ++i) {
      http::Request ready;
      ready.url = url() + "/-/ready";
      ready.timeout = std::chrono::seconds(1);
      http::Response r = http::get(ready);
      if (r.ok && r.status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    failure_ = "prometheus did not become ready; see " + (dir_ / "prometheus.log").string();
  }
  static void TearDownTestSuite() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(failure_.empty()) << failure_;
  }
  static std::string url() { return "http://127.0.0.1:" + std::to_string(port_); }

  PrometheusOptions options() const {
    PrometheusOptions o;
    o.url = url();
    o.metrics = {"DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"};
    o.step = kSecond;
    o.padBefore = 0;
    o.padAfter = 0;
    return o;
  }
  static evidence::Workload workload() {
    evidence::Workload w;
    w.id = "slurm/1";
    w.nodes = {"node01", "node02"};
    w.start = kStart * kSecond;
    w.end = (kStart + kHours * 3600 - 1) * kSecond;
    return w;
  }

  static inline std::string skip_, failure_;
  static inline fs::path dir_;
  static inline int port_ = 0;
  static inline pid_t pid_ = -1;
};

TEST_F(PrometheusServer, OnlyTheRulesMetricsOnTheWorkloadsNodesSampleBySample) {
  evidence::ConnectorReport report;
  auto samples = fetchMetrics(options(), workload(), &report);
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Ok) << report.reason;
  std::map<std::string, std::vector<const evidence::MetricSample*>> byMetric;
  for (const auto& s : samples) {
    byMetric[s.name].push_back(&s);
    EXPECT_NE(s.node, "node99") << "another workload's node";
  }
  EXPECT_EQ(byMetric.count("node_load1"), 0u) << "a metric no rule reads";
  EXPECT_EQ(report.observations, samples.size());

  // The counter: 14,400 one-second samples, split over two requests, none lost or doubled.
  const auto& ecc = byMetric["DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"];
  ASSERT_EQ(ecc.size(), static_cast<size_t>(kHours * 3600));
  for (size_t i = 0; i < ecc.size(); ++i) {
    ASSERT_EQ(ecc[i]->time, (kStart + static_cast<int64_t>(i)) * kSecond) << i;
    ASSERT_EQ(ecc[i]->value, static_cast<double>(i / 1000)) << i;
    ASSERT_EQ(ecc[i]->node, "node02");
    ASSERT_EQ(ecc[i]->gpu, "1");
  }
  EXPECT_EQ(ecc[0]->labels, (std::vector<std::pair<std::string, std::string>>{{"Hostname", "node02"}, {"gpu", "1"}}));

  // The gauge read every second: each raw sample (every 15 s) is there with its value, and the
  // seconds between repeat it (Prometheus's lookback).
  const auto& temp = byMetric["DCGM_FI_DEV_GPU_TEMP"];
  ASSERT_EQ(temp.size(), static_cast<size_t>(kHours * 3600));
  for (size_t i = 0; i < temp.size(); ++i) {
    ASSERT_EQ(temp[i]->time, (kStart + static_cast<int64_t>(i)) * kSecond);
    ASSERT_EQ(temp[i]->value, temperature(static_cast<int64_t>(i) / 15)) << i;
    ASSERT_EQ(temp[i]->node, "node01");
  }

  // The Xid gauge: 0, then 79 from one minute in, held for Prometheus's 5-minute lookback.
  const auto& xid = byMetric["DCGM_FI_DEV_XID_ERRORS"];
  ASSERT_EQ(xid.size(), 361u);
  EXPECT_EQ(xid[59]->value, 0);
  EXPECT_EQ(xid[60]->value, 79);
  EXPECT_EQ(xid.back()->time, (kStart + 360) * kSecond);
}

TEST_F(PrometheusServer, ServerErrorsAreReportedWithTheServersReason) {
  PrometheusOptions tooMany = options();
  tooMany.maxPoints = 20'000;  // more than the server accepts: it answers 400
  tooMany.metrics = {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"};
  evidence::ConnectorReport report;
  EXPECT_TRUE(fetchMetrics(tooMany, workload(), &report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(report.reason.find("HTTP 400 bad_data: exceeded maximum resolution of 11,000 points"), std::string::npos)
      << report.reason;
  // One good metric and one broken query: partial.
  PrometheusOptions mixed = options();
  mixed.metrics = {"DCGM_FI_DEV_XID_ERRORS", "not a metric name!"};
  auto some = fetchMetrics(mixed, workload(), &report);
  EXPECT_EQ(some.size(), 361u);
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Partial);
  EXPECT_NE(report.reason.find("1 of 3 requests failed"), std::string::npos) << report.reason;
}

TEST(PrometheusSource, DeadServerAndMissingWindowAreErrorsNotHangs) {
  PrometheusOptions o;
  o.url = "http://127.0.0.1:1";
  o.metrics = {"DCGM_FI_DEV_XID_ERRORS"};
  o.timeout = std::chrono::seconds(2);
  evidence::Workload w;
  w.start = kStart * kSecond;
  w.end = (kStart + 60) * kSecond;
  evidence::ConnectorReport report;
  auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(fetchMetrics(o, w, &report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_TRUE(fetchMetrics(o, evidence::Workload{}, &report).empty());
  EXPECT_NE(report.reason.find("no start or end time"), std::string::npos) << report.reason;
}

TEST(PrometheusSource, SelectorsEscapeNodeNamesAndAllowPorts) {
  PrometheusOptions o;
  EXPECT_EQ(selectorFor(o, "DCGM_FI_DEV_GPU_TEMP", {"gpu-01.cluster", "gpu-02"}),
            R"x(DCGM_FI_DEV_GPU_TEMP{Hostname=~"(gpu-01\\.cluster|gpu-02)(:[0-9]+)?"})x");
  o.nodeLabel = "instance";
  o.stripPort = false;
  EXPECT_EQ(selectorFor(o, "node_load1", {"n1"}), R"x(node_load1{instance=~"(n1)"})x");
  EXPECT_EQ(selectorFor(o, "node_load1", {}), "node_load1");
}

}  // namespace
}  // namespace attrib::connectors::prometheus
