// A blueprint: the YAML file `attrib run --config` reads, saying where workloads come from (one
// execution context), where their evidence is (any number of sources), which rules judge them
// and where verdicts go (any number of sinks). docs/orchestrator.md has the format.
//
// Values may be overridden from the environment (ATTRIB_LOKI_URL, ATTRIB_LOKI_TENANT,
// ATTRIB_PROMETHEUS_URL, ATTRIB_SQLITE, ATTRIB_POSTGRES, ATTRIB_RULES, ATTRIB_SERVICE_URL,
// ATTRIB_SERVICE_TOKEN_FILE), and secrets are read from files (`token_file`, `password_file`),
// never written in the blueprint.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "connectors/context.h"
#include "connectors/source.h"
#include "sinks/sink.h"

namespace attrib::orchestrator {

struct SinkSpec {
  std::string kind;  // stdout | sqlite | postgres
  std::string format = "jsonl";
  std::string path;
  // postgres: a postgresql:// URL or keyword=value conninfo, with the password of `password_file`
  // in it when one is given. A secret: never put it in a message (pg::describeConninfo names
  // the server without it).
  std::string conninfo;
  uint64_t maxBytes = 0;  // postgres: the sink's tables never grow past this (0: no limit)
};

// How `attrib run` workers share the work when their state is a PostgreSQL sink
// (docs/orchestrator.md, "Work sharing").
struct WatchSpec {
  std::chrono::milliseconds lease{60'000};  // how long a claim outlives a worker that died
  std::string worker;                       // this worker's name; empty: host:pid
  size_t batch = 8;                         // workloads claimed at a time
};

// Where workloads are diagnosed: in-process (no url), or by a remote attrib Service
// (docs/service.md) that gets each workload's context and evidence over HTTP.
struct ServiceSpec {
  std::string url;        // http(s)://host:port; empty: in-process
  std::string tokenFile;  // the bearer token, read again for every workload; empty: none
  std::chrono::milliseconds timeout{30'000};  // per request
  uint64_t maxBody = 0;   // largest request body to send; 0: the limit the Service announces
  int attempts = 4;       // tries per request when the Service answers 429 or 503
  std::chrono::milliseconds maxRetryWait{30'000};  // the longest Retry-After honoured
};

struct Blueprint {
  // A bundle, or .attr rule sets layered on the stdlib in this order; empty: the stdlib.
  std::vector<std::string> rules;
  std::unique_ptr<connectors::ExecutionContext> context;
  std::string contextKind;  // slurm | kueue | static
  std::vector<std::unique_ptr<connectors::EvidenceSource>> sources;
  std::vector<std::string> sourceKinds;
  std::vector<SinkSpec> sinks;
  ServiceSpec service;
  std::optional<int64_t> since, until;  // ns; the command line may override
  int64_t intervalSeconds = 60;         // watch mode's polling period
  WatchSpec watch;
};

// What the command line overrides.
struct BlueprintOverrides {
  std::optional<int64_t> since, until;  // ns
};

// Parses `path`. The metrics the rules read are needed to configure a Prometheus source, so they
// are passed in. False with an error naming the file, line and key ("blueprint.yaml:7:
// sources[1].loki: 'url' is required").
bool loadBlueprint(const std::string& path, const std::vector<std::string>& metricNames,
                   const BlueprintOverrides& overrides, Blueprint* out, std::string* error);

// The blueprint's `sources` alone, for `attrib serve --sources` (the other keys may be there and
// are not read: a whole blueprint can serve). Errors as loadBlueprint's.
bool loadSources(const std::string& path, const std::vector<std::string>& metricNames,
                 std::vector<std::unique_ptr<connectors::EvidenceSource>>* sources, std::vector<std::string>* kinds,
                 std::string* error);

// The rules alone (to load them before the rest of the blueprint needs their metrics): the
// blueprint's `rules` (a path or a list of paths, relative to the blueprint), unless
// ATTRIB_RULES is set.
bool blueprintRules(const std::string& path, std::vector<std::string>* rules, std::string* error);

// ATTRIB_RULES: rule paths separated by ':' (the order layers them), empty entries skipped; an
// empty list when it is unset or empty. attrib diagnose, run and serve all read it.
std::vector<std::string> rulesFromEnvironment();

}  // namespace attrib::orchestrator
