// Slurm jobs in the JSON of Slurm 22.05's data parser v0.0.38 (../shared/reference/connectors.md,
// 3.4-3.5):
//   - the accounting shape (`sacct --json`, slurmrestd `/slurmdb/v0.0.38/jobs`): nested
//     `state.current`, `exit_code.{status,return_code,signal}`, `time.{start,end}`, steps with
//     node lists, `kill_request_user`, array and heterogeneous ids;
//   - the controller shape (slurmrestd `/slurm/v0.0.38/jobs`, jobs still in slurmctld's memory):
//     flat `job_state`, `state_reason`, and exit codes as raw wait statuses.
// In 22.05.8 the accounting JSON says `{"status":"SUCCESS","return_code":0}` for ordinary
// non-zero exits (and derived exits); its signals are right. Exit codes are therefore merged in
// from sacct's parsable text (`mergeExitCodes`) or from the controller's wait statuses
// (`mergeControllerJobs`), and a FAILED job with nothing better has no exit code rather than a
// wrong 0.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "connectors/slurm/sacct.h"

namespace attrib::connectors::slurm {

struct SlurmJsonResult {
  std::vector<SlurmJob> jobs;
  std::string plugin;  // meta.plugin.type, e.g. "openapi/dbv0.0.38"
  // Slurm's own errors[] ("1007 Protocol authentication error (slurmdb_jobs_get)"); 9003
  // ("Nothing found with query") is not an error and is left out.
  std::vector<std::string> errors;
  size_t skipped = 0;   // jobs that could not be read (a bad hostlist, no id, ...)
  std::string skipError;  // why the first was skipped
};

// The accounting shape. False with a one-line `error` when the text is not such a document
// (truncated, not JSON, no `jobs` list); otherwise the jobs it could read.
bool parseSlurmdbJson(std::string_view text, SlurmJsonResult* out, std::string* error);

// The controller shape (`/slurm/v0.0.38/jobs`); exits decoded from the raw wait statuses.
bool parseSlurmJobsJson(std::string_view text, SlurmJsonResult* out, std::string* error);

// A raw wait status: (s & 0x7f) != 0 is signal s & 0x7f, otherwise exit (s >> 8) & 0xff.
ExitStatus decodeWaitStatus(int64_t status);

// Takes each job's and step's exit and derived exit from sacct's parsable text of the same jobs
// (matched by id), and its raw state when it says more ("CANCELLED by 0"). Returns how many jobs
// were matched.
size_t mergeExitCodes(std::vector<SlurmJob>* jobs, const std::vector<SlurmJob>& text);

// Takes exits from the controller's jobs where the accounting JSON cannot be trusted (a success
// that the wait status says was a non-zero exit), and its state reason when the accounting one
// is empty. Returns how many jobs were matched.
size_t mergeControllerJobs(std::vector<SlurmJob>* jobs, const std::vector<SlurmJob>& controller);

// What is still unverified after the merges: a FAILED job's (or step's) "success" becomes no
// exit code at all. Returns how many jobs lost theirs.
size_t dropUnverifiedExits(std::vector<SlurmJob>* jobs);

// True for the state names of Slurm 22.05 (finished or not); false for anything else.
bool knownSlurmState(std::string_view raw);

}  // namespace attrib::connectors::slurm
