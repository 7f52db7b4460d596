// Slurm as an execution context, through sacct's parsable output (sacct.h): with slurmdbd
// (`sacct`, jobs and their steps) or without it (`sacct -c`, the job-completion log).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "connectors/context.h"
#include "connectors/slurm/sacct.h"

namespace attrib::connectors::slurm {

struct SlurmOptions {
  std::string sacct = "sacct";           // the program
  bool completionLog = false;            // no slurmdbd: read the job-completion log (sacct -c)
  std::string cluster;                   // sacct -M; also part of workload ids
  std::optional<int64_t> since, until;   // ns since the epoch: jobs that ended in [since, until)
  std::vector<std::string> partitions, users, names, jobs;  // filters (sacct -r, -u, --name, -j)
  std::vector<std::pair<std::string, std::string>> env;     // e.g. SLURM_CONF
  std::chrono::milliseconds timeout{60'000};
};

class SlurmContext : public ExecutionContext {
 public:
  explicit SlurmContext(SlurmOptions options) : options_(std::move(options)) {}
  std::vector<WorkloadContext> discover(runtime::ConnectorReport* report) override;

  // The sacct command line discover() runs (for tests and --dry-run).
  std::vector<std::string> command() const;

 private:
  SlurmOptions options_;
};

}  // namespace attrib::connectors::slurm
