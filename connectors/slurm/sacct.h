// Slurm jobs as sacct reports them, in its parsable text form (`sacct -P -n`), which is right
// about exit codes where Slurm 22.05's JSON is not (../shared/reference/connectors.md, section
// 0), and is the only form without slurmdbd (`sacct -c`, the job-completion log).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/log_input.h"
#include "evidence/workload_evidence.h"

namespace attrib::connectors::slurm {

// The columns attrib asks sacct for, in this order (sacct -o). Times come as epoch seconds
// (SLURM_TIME_FORMAT=%s).
inline constexpr std::string_view kSacctColumns =
    "JobID,JobName,User,Partition,State,ExitCode,DerivedExitCode,NodeList,Start,End,Reason";
// The columns `sacct -c` (job-completion log) supports: no user name, derived code or reason.
inline constexpr std::string_view kSacctCompletionColumns =
    "JobID,JobName,Partition,State,ExitCode,NodeList,Start,End";

struct ExitStatus {
  std::optional<int64_t> code;    // the exit code when the process exited
  std::optional<int64_t> signal;  // the signal when it was killed (125: Slurm's OOM kill)
  // From 22.05's accounting JSON, which says "SUCCESS, 0" for non-zero exits: true until a
  // trustworthy source (sacct's text, the controller's wait status) confirms or replaces it.
  bool unverified = false;
};

struct SlurmStep {
  std::string id;     // "batch", "extern", "0", ...
  std::string state;  // raw, e.g. "CANCELLED by 0"
  ExitStatus exit;
  std::vector<std::string> nodes;
  std::optional<int64_t> start, end;  // epoch seconds
};

struct SlurmJob {
  std::string id;  // "123", "123_4" (array task), "123+0" (heterogeneous component)
  std::string name, user, partition;
  std::string state;  // raw sacct state, e.g. "CANCELLED by 1000"
  ExitStatus exit, derived;
  std::string nodelist;  // the hostlist expression
  std::vector<std::string> nodes;
  std::optional<int64_t> start, end;  // epoch seconds
  std::string reason;
  std::string cancelledBy;  // the user name that cancelled it (JSON `kill_request_user`)
  std::vector<SlurmStep> steps;
};

// Parses `sacct -P -n -o <columns>` output (kSacctColumns or kSacctCompletionColumns) into jobs
// with their steps. A malformed line is skipped and counted in `skipped` with the first reason
// in `error`; the rest is kept.
std::vector<SlurmJob> parseSacct(std::string_view text, std::string_view columns, size_t* skipped,
                                 std::string* error);

// "3:0" -> code 3; "0:9" -> signal 9; "0:0" -> code 0.
bool parseExitStatus(std::string_view text, ExitStatus* out);

// The normalised state ("CANCELLED by 0" -> Cancelled; PENDING and friends -> Running).
ir::State normaliseState(std::string_view raw);

// The normalised context of a job, as rules see it: `workload.*`.
evidence::Workload toWorkload(const SlurmJob& job, const std::string& cluster);

// What sacct says, as scheduler-source evidence lines the rules can match: the job's state,
// exit codes and reason, who cancelled it, and each step's state and exit.
std::vector<evidence::LogLine> schedulerFacts(const SlurmJob& job, const std::string& cluster);

}  // namespace attrib::connectors::slurm
