#include "connectors/kueue/kueue_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "ir/civil_time.h"

namespace attrib::connectors::kueue {
namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) { return kube::stringField(j, key); }

const json& at(const json& j, std::initializer_list<const char*> path) {
  static const json none;
  const json* cur = &j;
  for (const char* k : path) {
    if (!cur->is_object() || !cur->contains(k)) return none;
    cur = &(*cur)[k];
  }
  return *cur;
}

struct Condition {
  std::string type, status, reason, message;
  std::optional<int64_t> time;
};

std::vector<Condition> conditions(const json& workload) {
  std::vector<Condition> out;
  const json& list = at(workload, {"status", "conditions"});
  if (!list.is_array()) return out;
  for (const auto& c : list) {
    out.push_back({str(c, "type"), str(c, "status"), str(c, "reason"), str(c, "message"),
                   attrib::parseRfc3339(str(c, "lastTransitionTime"))});
  }
  // By time, not array position (../shared/reference/connectors.md 4.1).
  std::stable_sort(out.begin(), out.end(), [](const Condition& a, const Condition& b) {
    return a.time.value_or(0) < b.time.value_or(0);
  });
  return out;
}

const Condition* find(const std::vector<Condition>& cs, const std::string& type) {
  for (const auto& c : cs) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// The label selector that finds the pods of a workload's owner.
std::string podSelector(const json& owner) {
  std::string kind = str(owner, "kind"), name = str(owner, "name");
  if (kind == "JobSet") return "jobset.sigs.k8s.io/jobset-name=" + name;
  if (kind == "PyTorchJob" || kind == "MPIJob" || kind == "TFJob" || kind == "XGBoostJob" || kind == "PaddleJob") {
    return "training.kubeflow.org/job-name=" + name;
  }
  return "batch.kubernetes.io/job-name=" + name;
}

}  // namespace

WorkloadContext KueueContext::contextOf(const json& wl, std::vector<std::string>* problems) {
  WorkloadContext c;
  evidence::Workload& w = c.workload;
  std::string ns = str(wl["metadata"], "namespace"), name = str(wl["metadata"], "name");
  w.id = fmt::format("kueue/{}/{}", ns, name);
  w.scheduler = "kueue";
  w.partition = str(wl["spec"], "queueName");
  const json& owners = at(wl, {"metadata", "ownerReferences"});
  json owner = owners.is_array() && !owners.empty() ? owners[0] : json::object();
  w.name = owner.is_object() && !str(owner, "name").empty() ? str(owner, "name") : name;
  auto cs = conditions(wl);
  const Condition* finished = find(cs, "Finished");
  const Condition* admitted = find(cs, "Admitted");
  const Condition* evicted = find(cs, "Evicted");
  if (admitted && admitted->status == "True") w.start = admitted->time;
  if (finished) w.end = finished->time;
  w.reason = finished ? finished->message : "";
  auto fact = [&](std::optional<int64_t> time, const std::string& node, std::string text, const std::string& where) {
    evidence::LogLine l;
    l.source = "k8s_events";
    l.node = node;
    l.time = time;
    l.text = std::move(text);
    l.where.connector = "kueue";
    l.where.location = where;
    l.where.line = c.facts.size() + 1;
    c.facts.push_back(std::move(l));
  };
  std::string path = fmt::format("/apis/kueue.x-k8s.io/v1beta1/namespaces/{}/workloads/{}", ns, name);
  for (const auto& cond : cs) {
    fact(cond.time, "", fmt::format("Workload {}/{} {}={} reason={}: {}", ns, name, cond.type, cond.status, cond.reason, cond.message),
         path);
  }

  // Pods: placement, terminations, restarts.
  bool oomKilled = false, podEvicted = false;
  std::optional<int64_t> exitCode;
  std::set<std::string> nodes;
  std::vector<json> pods;
  std::string error;
  if (!owner.is_object() || str(owner, "name").empty()) {
    problems->push_back(fmt::format("{}: no owner reference, so no pods", w.id));
  } else if (!client_.list(fmt::format("/api/v1/namespaces/{}/pods", ns), "labelSelector=" + http::urlEncode(podSelector(owner)),
                           &pods, &error, options_.pageSize)) {
    problems->push_back(error);
  }
  std::vector<std::string> podNames;
  if (pods.empty() && podsByWorkload_.count(w.id)) {
    // The pods are gone (deleted with their job): what an earlier look saw still says where
    // the workload ran.
    for (const auto& podName : podsByWorkload_[w.id]) {
      podNames.push_back(podName);
      auto it = placements_.find(ns + "/" + podName);
      if (it != placements_.end()) nodes.insert(it->second);
    }
    fact(std::nullopt, "", fmt::format("Pods of {}/{} are gone; their placement was recorded earlier", ns, name), path);
  }
  for (const auto& pod : pods) {
    std::string podName = str(pod["metadata"], "name");
    std::string node = str(pod["spec"], "nodeName");
    std::string key = ns + "/" + podName;
    if (!node.empty()) placements_[key] = node;
    else if (placements_.count(key)) node = placements_[key];
    if (!node.empty()) nodes.insert(node);
    podNames.push_back(podName);
    std::string podPath = fmt::format("/api/v1/namespaces/{}/pods/{}", ns, podName);
    const json& status = pod["status"];
    if (str(status, "reason") == "Evicted") podEvicted = true;
    if (!str(status, "reason").empty()) {
      fact(std::nullopt, node, fmt::format("Pod {} {}: {}", podName, str(status, "reason"), str(status, "message")), podPath);
    }
    const json& containers = at(pod, {"status", "containerStatuses"});
    if (!containers.is_array()) continue;
    for (const auto& cs2 : containers) {
      int64_t restarts = cs2.value("restartCount", 0);
      for (const char* which : {"lastState", "state"}) {
        const json& t = at(cs2, {which, "terminated"});
        if (!t.is_object()) continue;
        int64_t code = t.value("exitCode", 0);
        std::string reason = str(t, "reason");
        if (reason == "OOMKilled") oomKilled = true;
        if (code != 0 && std::string(which) == "state" && !exitCode) exitCode = code;
        fact(attrib::parseRfc3339(str(t, "finishedAt")), node,
             fmt::format("Pod {} on {}: container {} {}terminated {} (exit code {}){}", podName, node.empty() ? "no node" : node,
                         str(cs2, "name"), std::string(which) == "lastState" ? "previously " : "", reason, code,
                         restarts > 0 && std::string(which) == "state" ? fmt::format(", {} restarts", restarts) : ""),
             podPath);
      }
      const json& waiting = at(cs2, {"state", "waiting"});
      if (waiting.is_object() && !str(waiting, "reason").empty()) {
        fact(std::nullopt, node, fmt::format("Pod {}: container {} waiting: {} {}", podName, str(cs2, "name"),
                                             str(waiting, "reason"), str(waiting, "message")),
             podPath);
      }
    }
  }
  // Events of the pods (best effort: the API server keeps them about an hour).
  if (options_.events) {
    for (const auto& podName : podNames) {
      std::vector<json> events;
      std::string selector = "involvedObject.kind=Pod,involvedObject.name=" + podName;
      if (!client_.list(fmt::format("/api/v1/namespaces/{}/events", ns), "fieldSelector=" + http::urlEncode(selector), &events,
                        &error, options_.pageSize)) {
        problems->push_back(error);
        continue;
      }
      for (const auto& e : events) {
        std::string host = str(e["source"], "host");
        std::string when = str(e, "lastTimestamp");
        if (when.empty()) when = str(e, "eventTime");
        fact(attrib::parseRfc3339(when), host.empty() ? placements_[ns + "/" + podName] : host,
             fmt::format("{} {} {}: {}", str(e, "type"), str(e, "reason"), podName, str(e, "message")),
             fmt::format("/api/v1/namespaces/{}/events", ns));
      }
    }
  }
  w.nodes.assign(nodes.begin(), nodes.end());
  if (!pods.empty()) {
    w.ranks = static_cast<int64_t>(pods.size());
    podsByWorkload_[w.id] = podNames;
  }

  // The terminal state.
  std::string how = finished ? finished->reason : "";
  if (evicted && evicted->status == "True" && evicted->reason == "Preempted") w.state = ir::State::Preempted;
  else if (evicted && evicted->status == "True" && evicted->reason == "MaximumExecutionTimeExceeded") w.state = ir::State::Timeout;
  else if (how == "Succeeded") w.state = ir::State::Completed;
  else if (oomKilled) w.state = ir::State::OutOfMemory;
  else if (podEvicted) w.state = ir::State::Evicted;
  else w.state = ir::State::Failed;
  w.exitCode = exitCode;
  if (exitCode && *exitCode > 128 && *exitCode < 160) w.signal = *exitCode - 128;
  return c;
}

std::vector<WorkloadContext> KueueContext::discover(evidence::ConnectorReport* report) {
  auto started = std::chrono::steady_clock::now();
  *report = {};
  report->connector = "kueue";
  report->source = options_.kube.server + (options_.ns.empty() ? " (all namespaces)" : " namespace " + options_.ns);
  std::vector<WorkloadContext> out;
  std::string path = options_.ns.empty() ? "/apis/kueue.x-k8s.io/v1beta1/workloads"
                                         : fmt::format("/apis/kueue.x-k8s.io/v1beta1/namespaces/{}/workloads", options_.ns);
  std::vector<json> workloads;
  std::string error;
  if (!client_.list(path, "", &workloads, &error, options_.pageSize)) {
    report->status = evidence::ConnectorReport::Status::Error;
    report->reason = error;
  } else {
    std::vector<std::string> problems;
    for (const auto& wl : workloads) {
      if (!wl.is_object() || !wl.contains("metadata") || !wl["metadata"].is_object()) {
        problems.push_back("a workload without metadata was skipped");
        continue;
      }
      auto cs = conditions(wl);
      const Condition* finished = find(cs, "Finished");
      if (!finished || finished->status != "True") continue;  // still queued or running
      if (options_.since && finished->time && *finished->time < *options_.since) continue;
      if (options_.until && finished->time && *finished->time >= *options_.until) continue;
      out.push_back(contextOf(wl, &problems));
    }
    report->observations = workloads.size();
    if (!problems.empty()) {
      report->status = evidence::ConnectorReport::Status::Partial;
      report->reason = fmt::format("{} problem(s); first: {}", problems.size(), problems[0]);
    } else if (out.empty()) {
      report->status = evidence::ConnectorReport::Status::Empty;
      report->reason = "no finished workloads in the window";
    }
  }
  report->elapsedMs =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace attrib::connectors::kueue
