// Metric evidence from Prometheus (or a compatible server: Mimir, Cortex, VictoriaMetrics):
// `query_range` for exactly the metrics the loaded rules read (ir::Program::metricNames()), on
// the workload's nodes, over its window padded on both sides. A window with more points than the
// server allows per series is split into several requests, so no sample is lost or doubled.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "connectors/http/http_client.h"
#include "evidence/workload_evidence.h"

namespace attrib::connectors::prometheus {

struct PrometheusOptions {
  std::string url;                    // http://host:9090 (no trailing slash)
  std::vector<std::string> metrics;   // the metric names to fetch
  std::string nodeLabel = "Hostname"; // the label that names the node (instance for node_exporter)
  std::string gpuLabel = "gpu";
  bool stripPort = true;              // "gpu-07:9400" -> "gpu-07" (instance labels carry ports)
  int64_t padBefore = 10LL * 60 * 1'000'000'000;  // ns
  int64_t padAfter = 5LL * 60 * 1'000'000'000;
  int64_t step = 15LL * 1'000'000'000;            // ns; at least 1 ms
  size_t maxPoints = 11'000;                      // per series and request (Prometheus's limit)
  std::string bearerToken;            // Authorization: Bearer (a proxy's)
  std::string tenant;                 // X-Scope-OrgID (Mimir, Cortex)
  http::TlsOptions tls;
  std::chrono::milliseconds timeout{30'000};  // per request
  std::chrono::milliseconds budget{120'000};  // for all requests of one workload
  size_t maxSamples = 5'000'000;
};

// The samples of `options.metrics` for `workload` (its nodes and window). Problems go to the
// report (status error: nothing could be read; partial: some requests failed); never throws.
std::vector<evidence::MetricSample> fetchMetrics(const PrometheusOptions& options, const evidence::Workload& workload,
                                                evidence::ConnectorReport* report);

// The PromQL selector for one metric on some nodes: NAME{LABEL=~"^(n1|n2)(:[0-9]+)?$"}.
std::string selectorFor(const PrometheusOptions& options, const std::string& metric,
                        const std::vector<std::string>& nodes);

}  // namespace attrib::connectors::prometheus
