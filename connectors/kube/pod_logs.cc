#include "connectors/kube/pod_logs.h"

#include <fmt/format.h>

#include <chrono>
#include <charconv>

#include "connectors/kueue/kueue_context.h"
#include "ir/civil_time.h"

namespace attrib::connectors::kube {
namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) { return stringField(j, key); }


}  // namespace

bool listPods(const KubeClient& client, const std::string& ns, const std::string& selector, std::vector<PodRef>* pods,
              std::string* error) {
  std::vector<json> items;
  if (!client.list(fmt::format("/api/v1/namespaces/{}/pods", ns), "labelSelector=" + http::urlEncode(selector), &items, error)) {
    return false;
  }
  for (const auto& p : items) {
    PodRef ref;
    ref.ns = ns;
    ref.name = str(p["metadata"], "name");
    ref.node = str(p["spec"], "nodeName");
    const json& labels = p["metadata"].contains("labels") ? p["metadata"]["labels"] : json::object();
    for (const char* key : {"batch.kubernetes.io/job-completion-index", "training.kubeflow.org/replica-index"}) {
      std::string v = str(labels, key);
      int64_t rank;
      auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), rank);
      if (!v.empty() && ec == std::errc() && ptr == v.data() + v.size()) {
        ref.rank = rank;
        break;
      }
    }
    if (p["spec"].contains("containers") && p["spec"]["containers"].is_array()) {
      for (const auto& c : p["spec"]["containers"]) ref.containers.push_back(str(c, "name"));
    }
    const json& statuses = p["status"].contains("containerStatuses") ? p["status"]["containerStatuses"] : json::array();
    if (statuses.is_array()) {
      for (const auto& s : statuses) {
        if (s.value("restartCount", 0) > 0) ref.restarted.push_back(str(s, "name"));
      }
    }
    pods->push_back(std::move(ref));
  }
  return true;
}

std::vector<evidence::LogLine> fetchPodLogs(const KubeClient& client, const std::vector<PodRef>& pods,
                                           const PodLogOptions& options, std::vector<evidence::ConnectorReport>* reports) {
  std::vector<evidence::LogLine> out;
  for (const auto& pod : pods) {
    for (const auto& container : pod.containers) {
      bool restarted = std::find(pod.restarted.begin(), pod.restarted.end(), container) != pod.restarted.end();
      for (bool previous : {true, false}) {
        if (previous && !restarted) continue;
        auto started = std::chrono::steady_clock::now();
        std::string path = fmt::format("/api/v1/namespaces/{}/pods/{}/log?container={}&timestamps=true&limitBytes={}{}{}", pod.ns,
                                       pod.name, http::urlEncode(container), options.limitBytes, previous ? "&previous=true" : "",
                                       options.since ? "&sinceTime=" + http::urlEncode(formatTimestamp(*options.since)) : "");
        evidence::ConnectorReport report;
        report.connector = "k8s-logs";
        report.source = fmt::format("{}/{}/{}{}", pod.ns, pod.name, container, previous ? " (previous)" : "");
        std::string text, error;
        if (!client.getText(path, &text, &error, options.limitBytes + 4096)) {
          report.status = evidence::ConnectorReport::Status::Error;
          report.reason = error;
        } else {
          report.bytes = text.size();
          size_t start = 0, lineNo = 0;
          bool cut = text.size() >= options.limitBytes;
          while (start < text.size()) {
            size_t nl = text.find('\n', start);
            std::string_view line(text.data() + start, (nl == std::string::npos ? text.size() : nl) - start);
            start = nl == std::string::npos ? text.size() : nl + 1;
            ++lineNo;
            if (line.empty()) continue;
            evidence::LogLine l;
            // "2024-11-29T20:28:29.123456789Z <line>"
            size_t space = line.find(' ');
            std::optional<int64_t> t = space == std::string_view::npos ? std::nullopt
                                                                        : attrib::parseRfc3339(std::string(line.substr(0, space)));
            if (t) {
              l.time = t;
              line.remove_prefix(space + 1);
            }
            l.text = std::string(line);
            l.node = pod.node;
            l.rank = pod.rank;
            l.source = options.source;
            l.where.connector = "k8s-logs";
            l.where.location = report.source;
            l.where.line = lineNo;
            out.push_back(std::move(l));
            ++report.observations;
          }
          if (cut) {
            report.status = evidence::ConnectorReport::Status::Partial;
            report.reason = fmt::format("the log is longer than {} bytes; the rest was not read", options.limitBytes);
          } else if (report.observations == 0) {
            report.status = evidence::ConnectorReport::Status::Empty;
          }
        }
        report.elapsedMs =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
        reports->push_back(std::move(report));
      }
    }
  }
  return out;
}

}  // namespace attrib::connectors::kube
