// Log evidence from Kubernetes pod logs: for every pod and container of a workload, the current
// log and, for containers that restarted, the previous one (`previous=true`), with the API's
// timestamps (`timestamps=true`), from `sinceTime`, capped by `limitBytes`. Each line gets the
// pod's node (from the pod, or from placements recorded earlier when the pod is gone) and its
// rank (the job completion index label, when there is one).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "connectors/kube/kube_client.h"
#include "evidence/connector_report.h"
#include "evidence/log_input.h"

namespace attrib::connectors::kube {

struct PodRef {
  std::string ns, name, node;
  std::optional<int64_t> rank;
  std::vector<std::string> containers;
  std::vector<std::string> restarted;  // containers with a previous instance
};

struct PodLogOptions {
  std::optional<int64_t> since;  // ns since the epoch
  size_t limitBytes = 64u << 20;  // per container log
  std::string source = "applog";
};

// The pods of a job by label selector, as PodRefs (rank from batch.kubernetes.io/
// job-completion-index or training.kubeflow.org/replica-index).
bool listPods(const KubeClient& client, const std::string& ns, const std::string& selector, std::vector<PodRef>* pods,
              std::string* error);

// The log lines of `pods`. One report per pod container log read (status error for a log that
// could not be read: pod gone, container never started), so a missing log is visible.
std::vector<evidence::LogLine> fetchPodLogs(const KubeClient& client, const std::vector<PodRef>& pods,
                                           const PodLogOptions& options, std::vector<evidence::ConnectorReport>* reports);

}  // namespace attrib::connectors::kube
