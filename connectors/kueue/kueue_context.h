// Kueue as an execution context: finished Workload objects (kueue.x-k8s.io/v1beta1) and, for each,
// its owning Job (JobSet, PyTorchJob, ...), its pods (placement, container terminations, restarts)
// and their events, through the Kubernetes API (kube/kube_client.h).
//
// Normalised state: Finished/Succeeded is COMPLETED; Finished/Failed is OUT_OF_MEMORY when a
// container was OOMKilled, EVICTED when a pod was evicted, else FAILED; a workload evicted for
// preemption is PREEMPTED, for exceeding its maximum execution time TIMEOUT. Facts (source
// `k8s_events`, which the stdlib's k8s rules read) are the workload's conditions, each pod's
// container terminations, and the pods' events, on the pods' nodes.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "connectors/context.h"
#include "connectors/kube/kube_client.h"

namespace attrib::connectors::kueue {

struct KueueOptions {
  kube::KubeConfig kube;
  std::string ns;                       // empty: all namespaces
  std::optional<int64_t> since, until;  // ns since the epoch: workloads that finished in [since, until)
  size_t pageSize = 500;
  bool events = true;                   // also read the pods' events (best effort: they expire)
};

class KueueContext : public ExecutionContext {
 public:
  explicit KueueContext(KueueOptions options) : options_(std::move(options)), client_(options_.kube) {}
  std::vector<WorkloadContext> discover(evidence::ConnectorReport* report) override;

  // Pod -> node placements seen so far (namespace/pod -> node), kept across discover() calls so
  // a later attribution still knows where a pod ran after it is deleted.
  const std::map<std::string, std::string>& placements() const { return placements_; }

 private:
  WorkloadContext contextOf(const nlohmann::json& workload, std::vector<std::string>* problems);
  KueueOptions options_;
  kube::KubeClient client_;
  std::map<std::string, std::string> placements_;                 // namespace/pod -> node
  std::map<std::string, std::vector<std::string>> podsByWorkload_;  // workload id -> pod names
};

}  // namespace attrib::connectors::kueue
