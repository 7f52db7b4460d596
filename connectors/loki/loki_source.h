// Log evidence from Grafana Loki: `query_range` with a LogQL query templated by the workload
// (its id, nodes and name), over its window padded on both sides, read forward in pages of at
// most the server's entry limit, paginated by time as logcli does (start inclusive: the next
// page starts at the newest timestamp seen, and the repeats at that instant are dropped).
// Stream labels give each line its node, rank, GPU and source. Retries 429 and 5xx answers with
// exponential backoff and jitter; every request has a deadline and the workload a total budget.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "connectors/http/http_client.h"
#include "evidence/log_input.h"
#include "evidence/workload_evidence.h"

namespace attrib::connectors::loki {

struct LokiOptions {
  std::string url;  // http://host:3100 (no trailing slash)
  // LogQL; placeholders: ${nodes} (the nodes as a regex alternation, escaped), ${id} (the
  // workload id), ${job} (the id after its last '/', e.g. a Slurm job number), ${name}.
  std::string query = R"({node=~"${nodes}"})";
  std::string nodeLabel = "node", rankLabel = "rank", gpuLabel = "gpu", sourceLabel = "source";
  std::string defaultSource = "applog";  // when a stream has no source label
  int64_t padBefore = 10LL * 60 * 1'000'000'000;  // ns
  int64_t padAfter = 5LL * 60 * 1'000'000'000;
  size_t limit = 5000;  // entries per request: at most the server's max_entries_limit_per_query
  std::string tenant;   // X-Scope-OrgID
  std::string bearerToken;
  std::string basicUser, basicPassword;
  http::TlsOptions tls;
  std::chrono::milliseconds timeout{30'000};  // per request
  std::chrono::milliseconds budget{300'000};  // for all requests of one workload
  int retries = 4;                            // per request, on 429 and 5xx
  std::chrono::milliseconds backoff{200};     // the first wait; doubled each retry, plus jitter
  size_t maxLines = 10'000'000;
};

// The lines of the workload's streams, in time order. Problems go to the report (error: nothing
// could be read; partial: some could); never throws.
std::vector<evidence::LogLine> fetchLogs(const LokiOptions& options, const evidence::Workload& workload,
                                        evidence::ConnectorReport* report);

// The query with its placeholders filled in for `workload`.
std::string expandQuery(const std::string& query, const evidence::Workload& workload);

}  // namespace attrib::connectors::loki
