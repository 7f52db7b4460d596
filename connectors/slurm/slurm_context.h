// Slurm as an execution context, read one of three ways (docs/connectors.md):
//   - `sacct` (the default): sacct's parsable text (sacct.h), with slurmdbd (jobs and their
//     steps) or without it (`sacct -c`, the job-completion log);
//   - `sacct-json`: `sacct --json` (slurm_json.h) for the jobs and steps, with exit codes merged
//     in from `sacct -P` of the same window (22.05's JSON gets them wrong); needs slurmdbd;
//   - `slurmrestd`: `/slurmdb/v0.0.38/jobs`, with exit codes and state reasons merged in from
//     `/slurm/v0.0.38/jobs` for the jobs slurmctld still remembers; over a unix socket
//     (rest_auth/local) or TCP with a JWT (X-SLURM-USER-NAME, X-SLURM-USER-TOKEN from a file,
//     re-read for every request and never written anywhere).
// All three give the same normalised context and scheduler facts.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "connectors/context.h"
#include "connectors/slurm/sacct.h"

namespace attrib::connectors::slurm {

enum class SlurmMode { Sacct, SacctJson, Slurmrestd };

// "sacct", "sacct-json", "slurmrestd"; false for anything else.
bool slurmModeFromName(const std::string& name, SlurmMode* out);
const char* slurmModeName(SlurmMode mode);

struct SlurmRestOptions {
  std::string url = "http://localhost";  // the base URL; with a socket only its path and Host count
  std::string socket;                    // a unix socket (rest_auth/local, or JWT over the socket)
  std::string user;                      // X-SLURM-USER-NAME
  std::string tokenFile;                 // X-SLURM-USER-TOKEN, read before every request
  bool controller = true;                // also ask /slurm/v0.0.38/jobs for exit codes and reasons
  size_t maxBody = 256u << 20;
};

struct SlurmOptions {
  SlurmMode mode = SlurmMode::Sacct;
  std::string sacct = "sacct";           // the program
  bool completionLog = false;            // no slurmdbd: read the job-completion log (sacct -c)
  std::string cluster;                   // sacct -M; also part of workload ids
  std::optional<int64_t> since, until;   // ns since the epoch: jobs that ended in [since, until)
  std::vector<std::string> partitions, users, names, jobs;  // filters (sacct -r, -u, --name, -j)
  std::vector<std::pair<std::string, std::string>> env;     // e.g. SLURM_CONF
  std::chrono::milliseconds timeout{60'000};  // per sacct run or HTTP request
  SlurmRestOptions rest;                      // mode slurmrestd
};

class SlurmContext : public ExecutionContext {
 public:
  explicit SlurmContext(SlurmOptions options) : options_(std::move(options)) {}
  std::vector<WorkloadContext> discover(evidence::ConnectorReport* report) override;

  // The sacct command line discover() runs (for tests and --dry-run): the text form, or with
  // `json` the `sacct --json` form of the same window and filters.
  std::vector<std::string> command(bool json = false) const;

  // The /slurmdb/v0.0.38/jobs path and query for the window and filters (mode slurmrestd).
  std::string slurmdbPath() const;

 private:
  bool readSacct(std::vector<SlurmJob>* jobs, evidence::ConnectorReport* report, size_t* skipped, std::string* why);
  bool readSacctJson(std::vector<SlurmJob>* jobs, evidence::ConnectorReport* report, size_t* skipped, std::string* why);
  bool readSlurmrestd(std::vector<SlurmJob>* jobs, evidence::ConnectorReport* report, size_t* skipped, std::string* why);

  SlurmOptions options_;
};

}  // namespace attrib::connectors::slurm
