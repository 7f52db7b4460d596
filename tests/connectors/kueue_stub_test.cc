// The Kueue context against a STUB Kubernetes API server (no API server can be installed here;
// ../shared/reference/connectors.md 4.8): cpp-httplib on 127.0.0.1 replaying documents in the
// shapes recorded in the reference, checking the bearer token and paginating with `continue`.
// ctest label `k8s`. Also: kubeconfig and in-cluster configuration.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "connectors/kube/kube_client.h"
#include "connectors/kube/pod_logs.h"
#include "connectors/kueue/kueue_context.h"
#include "ir/civil_time.h"

namespace attrib::connectors::kueue {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json condition(const std::string& type, const std::string& status, const std::string& reason, const std::string& message,
               const std::string& time) {
  return {{"type", type}, {"status", status}, {"reason", reason}, {"message", message}, {"lastTransitionTime", time}};
}

json workload(const std::string& name, const std::string& job, json conditions) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "Workload"},
          {"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"ownerReferences", json::array({{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"name", job}, {"controller", true}}})}}},
          {"spec", {{"queueName", "team-a"}}},
          {"status", {{"conditions", conditions}}}};
}

json pod(const std::string& name, const std::string& job, const std::string& node, json containerStatus) {
  return {{"metadata", {{"name", name}, {"namespace", "ml"}, {"labels", {{"batch.kubernetes.io/job-name", job}}}}},
          {"spec", {{"nodeName", node}}},
          {"status", {{"phase", "Failed"}, {"containerStatuses", json::array({containerStatus})}}}};
}

json terminated(const std::string& reason, int code, int restarts) {
  json state = {{"terminated",
                 {{"exitCode", code}, {"reason", reason}, {"startedAt", "2024-11-29T20:10:00Z"}, {"finishedAt", "2024-11-29T20:28:29Z"}}}};
  json last = json::object();
  if (restarts > 0) last = {{"terminated", {{"exitCode", 1}, {"reason", "Error"}, {"finishedAt", "2024-11-29T20:09:58Z"}}}};
  return {{"name", "trainer"}, {"restartCount", restarts}, {"state", state}, {"lastState", last}};
}

// The stub API server.
class StubApi {
 public:
  StubApi() {
    workloads_ = {
        workload("job-llm-pretrain-5f2c1", "llm-pretrain",
                 {condition("Finished", "True", "Failed", "Job has reached the specified backoff limit", "2024-11-29T20:28:31Z"),
                  condition("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue gpu-cq", "2024-11-29T20:01:00Z"),
                  condition("Admitted", "True", "Admitted", "The workload is admitted", "2024-11-29T20:01:00Z")}),
        workload("job-eval-1a2b3", "eval",
                 {condition("Admitted", "True", "Admitted", "The workload is admitted", "2024-11-29T19:00:00Z"),
                  condition("Finished", "True", "Succeeded", "Job finished successfully", "2024-11-29T19:30:00Z")}),
        workload("job-queued-9z9z9", "queued",
                 {condition("QuotaReserved", "False", "Pending", "couldn't assign flavors to pod set main: insufficient quota",
                            "2024-11-29T20:00:00Z")}),
        workload("job-bumped-7c7c7", "bumped",
                 {condition("Admitted", "True", "Admitted", "The workload is admitted", "2024-11-29T18:00:00Z"),
                  condition("Evicted", "True", "Preempted", "Preempted to accommodate a higher priority Workload",
                            "2024-11-29T18:20:00Z"),
                  condition("Finished", "True", "Failed", "Job was preempted", "2024-11-29T18:21:00Z")}),
    };
    pods_["llm-pretrain"] = {pod("llm-pretrain-0-aaaaa", "llm-pretrain", "gpu-07", terminated("Error", 1, 0)),
                             pod("llm-pretrain-3-x7k2q", "llm-pretrain", "gpu-08", terminated("OOMKilled", 137, 1))};
    pods_["eval"] = {pod("eval-0-bbbbb", "eval", "gpu-02", terminated("Completed", 0, 0))};
    pods_["bumped"] = {pod("bumped-0-ccccc", "bumped", "gpu-05", terminated("Error", 143, 0))};
    server_.Get(R"(/apis/kueue.x-k8s.io/v1beta1/namespaces/ml/workloads)", [this](const httplib::Request& req, httplib::Response& res) {
      if (!authorised(req, res)) return;
      // Pages of `limit`, continuing from the index in the token.
      size_t limit = req.has_param("limit") ? std::stoul(req.get_param_value("limit")) : 500;
      size_t from = req.has_param("continue") ? std::stoul(req.get_param_value("continue").substr(4)) : 0;
      json page = {{"kind", "WorkloadList"}, {"items", json::array()}, {"metadata", json::object()}};
      for (size_t i = from; i < workloads_.size() && i < from + limit; ++i) page["items"].push_back(workloads_[i]);
      if (from + limit < workloads_.size()) page["metadata"]["continue"] = "tok-" + std::to_string(from + limit);
      ++pages_;
      res.set_content(malformed_ ? std::string("{\"kind\": \"WorkloadList\", \"items\": [") : page.dump(), "application/json");
    });
    server_.Get(R"(/api/v1/namespaces/ml/pods)", [this](const httplib::Request& req, httplib::Response& res) {
      if (!authorised(req, res)) return;
      std::string selector = req.get_param_value("labelSelector");
      std::string job = selector.substr(selector.find('=') + 1);
      json list = {{"kind", "PodList"}, {"items", podsGone_ ? json::array() : json(pods_[job])}, {"metadata", json::object()}};
      res.set_content(list.dump(), "application/json");
    });
    server_.Get(R"(/api/v1/namespaces/ml/events)", [this](const httplib::Request& req, httplib::Response& res) {
      if (!authorised(req, res)) return;
      std::string selector = req.get_param_value("fieldSelector");
      json items = json::array();
      if (selector.find("llm-pretrain-3-x7k2q") != std::string::npos) {
        items.push_back({{"type", "Warning"},
                         {"reason", "BackOff"},
                         {"message", "Back-off restarting failed container trainer in pod llm-pretrain-3-x7k2q"},
                         {"involvedObject", {{"kind", "Pod"}, {"name", "llm-pretrain-3-x7k2q"}, {"namespace", "ml"}}},
                         {"source", {{"component", "kubelet"}, {"host", "gpu-08"}}},
                         {"firstTimestamp", "2024-11-29T20:10:01Z"},
                         {"lastTimestamp", "2024-11-29T20:12:30Z"},
                         {"count", 4}});
      }
      res.set_content(json{{"kind", "EventList"}, {"items", items}, {"metadata", json::object()}}.dump(), "application/json");
    });
    server_.Get(R"(/api/v1/namespaces/ml/pods/([^/]+)/log)", [this](const httplib::Request& req, httplib::Response& res) {
      if (!authorised(req, res)) return;
      {
        std::lock_guard<std::mutex> lock(mu_);
        logQueries_.push_back(req.target);
      }
      std::string pod = req.matches[1];
      bool previous = req.get_param_value("previous") == "true";
      if (pod == "gone-pod") {
        res.status = 404;
        res.set_content(R"({"kind":"Status","status":"Failure","message":"pods \"gone-pod\" not found","reason":"NotFound","code":404})",
                        "application/json");
        return;
      }
      if (req.get_param_value("timestamps") != "true") {
        res.set_content("no timestamps asked for\n", "text/plain");
        return;
      }
      std::string text = previous ? "2024-11-29T20:09:57.000000001Z [rank3] RuntimeError: CUDA error: out of memory\n"
                                  : "2024-11-29T20:28:28.123456789Z [rank3] step 120 loss=2.31\n"
                                    "2024-11-29T20:28:29Z [rank3] terminate called after throwing an instance of 'c10::Error'\n"
                                    "a line without a timestamp\n";
      size_t limit = std::stoul(req.get_param_value("limitBytes"));
      res.set_content(text.substr(0, std::min(limit, text.size())), "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~StubApi() {
    server_.stop();
    thread_.join();
  }
  bool authorised(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    tokensSeen_.push_back(req.get_header_value("Authorization"));
    if (req.get_header_value("Authorization") == "Bearer " + token_) return true;
    res.status = 401;
    res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})",
                    "application/json");
    return false;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::vector<json> workloads_;
  std::map<std::string, std::vector<json>> pods_;
  std::string token_ = "sekret";
  std::vector<std::string> tokensSeen_;
  std::vector<std::string> logQueries_;
  std::mutex mu_;
  std::atomic<int> pages_{0};
  std::atomic<bool> malformed_{false}, podsGone_{false};

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

KueueOptions optionsFor(const StubApi& api, const std::string& token = "sekret") {
  KueueOptions o;
  o.kube.server = api.url();
  o.kube.token = token;
  o.kube.timeout = std::chrono::seconds(5);
  o.ns = "ml";
  o.pageSize = 2;
  return o;
}

TEST(KueueStub, FinishedWorkloadsWithPodsPlacementTerminationsAndEvents) {
  StubApi api;
  KueueContext context(optionsFor(api));
  evidence::ConnectorReport report;
  auto found = context.discover(&report);
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Ok) << report.reason;
  EXPECT_EQ(report.observations, 4u);
  EXPECT_EQ(api.pages_.load(), 2) << "4 workloads in pages of 2, through `continue`";
  ASSERT_EQ(found.size(), 3u) << "the queued workload is not finished";
  std::map<std::string, const WorkloadContext*> byId;
  for (const auto& c : found) byId[c.workload.id] = &c;

  const auto& failed = byId.at("kueue/ml/job-llm-pretrain-5f2c1")->workload;
  EXPECT_EQ(failed.scheduler, "kueue");
  EXPECT_EQ(failed.name, "llm-pretrain");
  EXPECT_EQ(failed.partition, "team-a");
  EXPECT_EQ(failed.state, ir::State::OutOfMemory) << "a container was OOMKilled";
  EXPECT_EQ(failed.exitCode, 1) << "the first failing container, in pod order";
  EXPECT_EQ(failed.nodes, (std::vector<std::string>{"gpu-07", "gpu-08"}));
  EXPECT_EQ(failed.ranks, 2);
  EXPECT_EQ(failed.start, attrib::parseRfc3339("2024-11-29T20:01:00Z"));
  EXPECT_EQ(failed.end, attrib::parseRfc3339("2024-11-29T20:28:31Z"));
  EXPECT_EQ(failed.reason, "Job has reached the specified backoff limit");
  std::string facts;
  for (const auto& f : byId.at("kueue/ml/job-llm-pretrain-5f2c1")->facts) {
    EXPECT_EQ(f.source, "k8s_events");
    facts += f.node + "|" + f.text + "\n";
  }
  EXPECT_NE(facts.find("|Workload ml/job-llm-pretrain-5f2c1 Finished=True reason=Failed: Job has reached the specified backoff limit"),
            std::string::npos) << facts;
  EXPECT_NE(facts.find("gpu-08|Pod llm-pretrain-3-x7k2q on gpu-08: container trainer terminated OOMKilled (exit code 137), 1 restarts"),
            std::string::npos) << facts;
  EXPECT_NE(facts.find("gpu-08|Pod llm-pretrain-3-x7k2q on gpu-08: container trainer previously terminated Error (exit code 1)"),
            std::string::npos) << facts;
  EXPECT_NE(facts.find("gpu-08|Warning BackOff llm-pretrain-3-x7k2q: Back-off restarting failed container trainer"), std::string::npos)
      << facts;
  // Conditions come in time order, not array order.
  EXPECT_LT(facts.find("QuotaReserved=True"), facts.find("Finished=True")) << facts;

  EXPECT_EQ(byId.at("kueue/ml/job-eval-1a2b3")->workload.state, ir::State::Completed);
  EXPECT_EQ(byId.at("kueue/ml/job-eval-1a2b3")->workload.nodes, std::vector<std::string>{"gpu-02"});
  const auto& bumped = byId.at("kueue/ml/job-bumped-7c7c7")->workload;
  EXPECT_EQ(bumped.state, ir::State::Preempted);
  EXPECT_EQ(bumped.exitCode, 143);
  EXPECT_EQ(bumped.signal, 15);

  // The pods go away with their job; the placement seen before stays.
  api.podsGone_ = true;
  auto later = context.discover(&report);
  for (const auto& c : later) {
    if (c.workload.id == "kueue/ml/job-llm-pretrain-5f2c1") {
      EXPECT_EQ(c.workload.nodes, (std::vector<std::string>{"gpu-07", "gpu-08"}));
    }
  }
  EXPECT_EQ(context.placements().at("ml/llm-pretrain-3-x7k2q"), "gpu-08");

  // A window that ends before the failure.
  KueueOptions early = optionsFor(api);
  early.until = attrib::parseRfc3339("2024-11-29T20:00:00Z");
  auto before = KueueContext(early).discover(&report);
  ASSERT_EQ(before.size(), 2u);
}

TEST(PodLogsStub, CurrentAndPreviousLogsWithTimestampsNodesAndRanks) {
  StubApi api;
  kube::KubeConfig config;
  config.server = api.url();
  config.token = "sekret";
  kube::KubeClient client(config);
  std::vector<kube::PodRef> pods;
  std::string error;
  ASSERT_TRUE(kube::listPods(client, "ml", "batch.kubernetes.io/job-name=llm-pretrain", &pods, &error)) << error;
  ASSERT_EQ(pods.size(), 2u);
  pods[1].rank = 3;
  pods[1].containers = {"trainer"};
  pods[0].containers = {"trainer"};
  EXPECT_EQ(pods[1].restarted, std::vector<std::string>{"trainer"});
  pods.push_back({"ml", "gone-pod", "gpu-09", std::nullopt, {"trainer"}, {}});
  kube::PodLogOptions options;
  options.since = attrib::parseRfc3339("2024-11-29T20:00:00Z");
  std::vector<evidence::ConnectorReport> reports;
  auto lines = kube::fetchPodLogs(client, pods, options, &reports);
  ASSERT_EQ(reports.size(), 4u) << "two current logs, one previous, one gone pod";
  EXPECT_EQ(reports[3].status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(reports[3].reason.find("HTTP 404 NotFound: pods \"gone-pod\" not found"), std::string::npos) << reports[3].reason;
  ASSERT_EQ(lines.size(), 7u);
  const evidence::LogLine* previous = nullptr;
  for (const auto& l : lines) {
    if (l.text.find("out of memory") != std::string::npos) previous = &l;
  }
  ASSERT_TRUE(previous);
  EXPECT_EQ(previous->node, "gpu-08");
  EXPECT_EQ(previous->rank, 3);
  EXPECT_EQ(previous->time, *attrib::parseRfc3339("2024-11-29T20:09:57.000000001Z"));
  EXPECT_EQ(previous->where.location, "ml/llm-pretrain-3-x7k2q/trainer (previous)");
  EXPECT_EQ(lines.back().text, "a line without a timestamp");
  EXPECT_FALSE(lines.back().time);
  for (const auto& q : api.logQueries_) {
    EXPECT_NE(q.find("timestamps=true"), std::string::npos) << q;
    EXPECT_NE(q.find("sinceTime=2024-11-29T20%3A00%3A00Z"), std::string::npos) << q;
  }
  // A cap on the bytes read cuts the log and says so.
  options.limitBytes = 40;
  reports.clear();
  kube::fetchPodLogs(client, {pods[0]}, options, &reports);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].status, evidence::ConnectorReport::Status::Partial);
  EXPECT_NE(reports[0].reason.find("longer than 40 bytes"), std::string::npos);
}

TEST(KueueStub, WrongTokenIsAnAuthErrorAndATokenFileIsReReadEveryRequest) {
  StubApi api;
  evidence::ConnectorReport report;
  EXPECT_TRUE(KueueContext(optionsFor(api, "wrong")).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_NE(report.reason.find("HTTP 401 Unauthorized: Unauthorized"), std::string::npos) << report.reason;
  EXPECT_EQ(report.reason.find("wrong"), std::string::npos) << "the token never appears in reports";

  fs::path file = fs::temp_directory_path() / ("attrib-kube-token-" + std::to_string(::getpid()));
  std::ofstream(file) << "rotated-1\n";
  KueueOptions o = optionsFor(api, "");
  o.kube.tokenFile = file.string();
  api.token_ = "rotated-1";
  KueueContext context(o);
  EXPECT_EQ(context.discover(&report).size(), 3u) << report.reason;
  std::ofstream(file, std::ios::trunc) << "rotated-2\n";
  api.token_ = "rotated-2";
  EXPECT_EQ(context.discover(&report).size(), 3u) << report.reason;
  fs::remove(file);
}

TEST(KueueStub, MalformedAnswersAndADeadServerAreConnectorErrors) {
  evidence::ConnectorReport report;
  {
    StubApi api;
    api.malformed_ = true;
    EXPECT_TRUE(KueueContext(optionsFor(api)).discover(&report).empty());
    EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
    EXPECT_NE(report.reason.find("not a JSON object"), std::string::npos) << report.reason;
  }
  KueueOptions dead;
  dead.kube.server = "http://127.0.0.1:1";  // nothing listens there
  dead.kube.timeout = std::chrono::seconds(3);
  auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(KueueContext(dead).discover(&report).empty());
  EXPECT_EQ(report.status, evidence::ConnectorReport::Status::Error);
  EXPECT_FALSE(report.reason.empty());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attrib-kubeconfig-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(KubeconfigTest, ReadsTheCurrentOrANamedContext) {
  // "LS0tLS1CRUdJTi..." is base64 of "-----BEGIN..." (enough to check decoding).
  std::string path = write("config", R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
- name: dev-cluster
  cluster:
    server: https://dev:6443
    certificate-authority: ca/dev.crt
    insecure-skip-tls-verify: true
contexts:
- name: prod
  context: {cluster: prod-cluster, user: robot, namespace: ml}
- name: dev
  context: {cluster: dev-cluster, user: dev-user}
users:
- name: robot
  user: {token: abc123}
- name: dev-user
  user: {tokenFile: tokens/dev, client-certificate: certs/c.crt, client-key: certs/c.key}
)");
  kube::KubeConfig c;
  std::string error;
  ASSERT_TRUE(kube::loadKubeconfig(path, "", &c, &error)) << error;
  EXPECT_EQ(c.server, "https://10.0.0.1:6443");
  EXPECT_EQ(c.token, "abc123");
  EXPECT_EQ(c.ns, "ml");
  EXPECT_EQ(c.tls.caPem, "-----BEGIN CERTIFICATE-----");
  ASSERT_TRUE(kube::loadKubeconfig(path, "dev", &c, &error)) << error;
  EXPECT_EQ(c.server, "https://dev:6443");
  EXPECT_TRUE(c.tls.insecureSkipVerify);
  EXPECT_EQ(c.tls.caFile, (dir_ / "ca/dev.crt").string()) << "relative to the kubeconfig";
  EXPECT_EQ(c.tokenFile, (dir_ / "tokens/dev").string());
  EXPECT_EQ(c.tls.certFile, (dir_ / "certs/c.crt").string());
  EXPECT_FALSE(kube::loadKubeconfig(path, "staging", &c, &error));
  EXPECT_NE(error.find("has no context 'staging'"), std::string::npos) << error;
}

TEST_F(KubeconfigTest, UnsupportedAndMalformedConfigsAreClearErrors) {
  kube::KubeConfig c;
  std::string error;
  std::string exec = write("exec", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://s"}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
users: [{name: u, user: {exec: {command: aws, args: [eks, get-token]}}}]
)");
  EXPECT_FALSE(kube::loadKubeconfig(exec, "", &c, &error));
  EXPECT_NE(error.find("exec or auth-provider plugin"), std::string::npos) << error;
  std::string basic = write("basic", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://s"}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
users: [{name: u, user: {username: admin, password: hunter2}}]
)");
  EXPECT_FALSE(kube::loadKubeconfig(basic, "", &c, &error));
  EXPECT_NE(error.find("basic auth"), std::string::npos) << error;
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << "secrets never appear in errors";
  EXPECT_FALSE(kube::loadKubeconfig(write("broken", "clusters: [unclosed"), "", &c, &error));
  EXPECT_NE(error.find("cannot read the kubeconfig"), std::string::npos) << error;
  EXPECT_FALSE(kube::loadKubeconfig(write("nocontext", "clusters: []\n"), "", &c, &error));
  EXPECT_NE(error.find("no current-context"), std::string::npos) << error;
  EXPECT_FALSE(kube::loadKubeconfig((dir_ / "missing").string(), "", &c, &error));
}

TEST_F(KubeconfigTest, InClusterServiceAccount) {
  write("token", "sa-token\n");
  write("ca.crt", "-----BEGIN CERTIFICATE-----\n");
  write("namespace", "training\n");
  ::setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  kube::KubeConfig c;
  std::string error;
  ASSERT_TRUE(kube::inClusterConfig(&c, &error, dir_.string())) << error;
  EXPECT_EQ(c.server, "https://10.96.0.1:443");
  EXPECT_EQ(c.tokenFile, (dir_ / "token").string());
  EXPECT_EQ(c.tls.caFile, (dir_ / "ca.crt").string());
  EXPECT_EQ(c.ns, "training");
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  EXPECT_FALSE(kube::inClusterConfig(&c, &error, dir_.string()));
  EXPECT_NE(error.find("not running in a Kubernetes pod"), std::string::npos);
}

TEST(KubeTime, ParsesRfc3339WithFractionsAndOffsets) {
  EXPECT_EQ(attrib::parseRfc3339("1970-01-01T00:00:01Z"), 1'000'000'000LL);
  EXPECT_EQ(attrib::parseRfc3339("1970-01-01T00:00:01.5Z"), 1'500'000'000LL);
  EXPECT_EQ(attrib::parseRfc3339("1970-01-01T01:00:01+01:00"), 1'000'000'000LL);
  EXPECT_FALSE(attrib::parseRfc3339("yesterday"));
  EXPECT_FALSE(attrib::parseRfc3339("2024-02-30T00:00:00Z"));
}

}  // namespace
}  // namespace attrib::connectors::kueue
