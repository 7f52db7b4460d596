#include "connectors/source.h"

#include <fmt/format.h>

namespace attrib::connectors {

void FileSource::collect(const WorkloadContext& context, SourceEvidence* out) {
  auto files = files::findLogFiles(options_, context.workload, &out->reports);
  for (auto& f : files) out->files.push_back(std::move(f));
}

void LokiSource::collect(const WorkloadContext& context, SourceEvidence* out) {
  evidence::ConnectorReport report;
  auto lines = loki::fetchLogs(options_, context.workload, &report);
  for (auto& l : lines) out->lines.push_back(std::move(l));
  out->reports.push_back(std::move(report));
}

void PrometheusSource::collect(const WorkloadContext& context, SourceEvidence* out) {
  evidence::ConnectorReport report;
  auto samples = prometheus::fetchMetrics(options_, context.workload, &report);
  for (auto& s : samples) out->metrics.push_back(std::move(s));
  out->reports.push_back(std::move(report));
}

void PodLogSource::collect(const WorkloadContext& context, SourceEvidence* out) {
  const auto& w = context.workload;
  std::string ns = client_.config().ns;
  if (w.id.rfind("kueue/", 0) == 0) {
    size_t slash = w.id.find('/', 6);
    if (slash != std::string::npos) ns = w.id.substr(6, slash - 6);
  }
  std::vector<kube::PodRef> pods;
  std::string error;
  if (ns.empty() || w.name.empty()) {
    out->reports.push_back({"k8s-logs", w.id, evidence::ConnectorReport::Status::Error, 0, 0,
                            "no namespace or job name to find the pods by", 0});
    return;
  }
  if (!kube::listPods(client_, ns, "batch.kubernetes.io/job-name=" + w.name, &pods, &error)) {
    out->reports.push_back({"k8s-logs", ns + "/" + w.name, evidence::ConnectorReport::Status::Error, 0, 0, error, 0});
    return;
  }
  if (pods.empty()) {
    out->reports.push_back({"k8s-logs", ns + "/" + w.name, evidence::ConnectorReport::Status::Empty, 0, 0,
                            "no pods (deleted with their job?); Loki may still have their logs", 0});
    return;
  }
  auto lines = kube::fetchPodLogs(client_, pods, options_, &out->reports);
  for (auto& l : lines) out->lines.push_back(std::move(l));
}

evidence::WorkloadEvidence assembleEvidence(const WorkloadContext& context, SourceEvidence found) {
  evidence::WorkloadEvidence ev;
  ev.workload = context.workload;
  ev.logs = std::move(found.files);
  ev.lines = context.facts;
  for (auto& l : found.lines) ev.lines.push_back(std::move(l));
  ev.metrics = std::move(found.metrics);
  ev.reports = std::move(found.reports);
  return ev;
}

}  // namespace attrib::connectors
