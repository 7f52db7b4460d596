#include "connectors/slurm/slurm_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "connectors/process.h"
#include "ir/civil_time.h"

namespace attrib::connectors::slurm {
namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

// sacct reads times as local time; attrib runs it with TZ=UTC and passes UTC.
std::string sacctTime(int64_t nanos) {
  std::string t = formatTimestamp(nanos);  // 2026-11-29T13:40:03Z or with a fraction
  size_t cut = t.find_first_of(".Z");
  return t.substr(0, cut);
}

std::string firstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

}  // namespace

std::vector<std::string> SlurmContext::command() const {
  std::vector<std::string> argv = {options_.sacct, "--parsable2", "--noheader", "--allusers",
                                   "--format", std::string(kSacctColumns)};
  if (options_.completionLog) argv.push_back("--completion");
  if (!options_.cluster.empty()) argv.insert(argv.end(), {"--clusters", options_.cluster});
  if (options_.since) argv.insert(argv.end(), {"--starttime", sacctTime(*options_.since)});
  if (options_.until) argv.insert(argv.end(), {"--endtime", sacctTime(*options_.until)});
  if (!options_.partitions.empty()) argv.insert(argv.end(), {"--partition", joined(options_.partitions)});
  if (!options_.users.empty()) argv.insert(argv.end(), {"--user", joined(options_.users)});
  if (!options_.names.empty()) argv.insert(argv.end(), {"--name", joined(options_.names)});
  if (!options_.jobs.empty()) argv.insert(argv.end(), {"--jobs", joined(options_.jobs)});
  return argv;
}

std::vector<WorkloadContext> SlurmContext::discover(runtime::ConnectorReport* report) {
  auto started = std::chrono::steady_clock::now();
  *report = {};
  report->connector = "slurm";
  report->source = options_.cluster.empty() ? "sacct" : "sacct -M " + options_.cluster;
  auto finish = [&] {
    report->elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                              started).count();
  };
  std::vector<WorkloadContext> out;
  int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (options_.since && *options_.since > now) {  // sacct refuses a window that starts later
    report->status = runtime::ConnectorReport::Status::Empty;
    report->reason = "the window starts in the future";
    finish();
    return out;
  }
  ProcessOptions process;
  process.env = options_.env;
  process.env.push_back({"SLURM_TIME_FORMAT", "%s"});
  process.env.push_back({"TZ", "UTC"});
  process.timeout = options_.timeout;
  ProcessResult run = runProcess(command(), process);
  if (!run.started || run.timedOut || run.exitCode != 0) {
    report->status = runtime::ConnectorReport::Status::Error;
    report->reason = !run.started ? run.error
                     : run.timedOut ? fmt::format("sacct did not answer within {} s", options_.timeout.count() / 1000)
                     : fmt::format("sacct failed (exit {}): {}", run.exitCode,
                                   run.err.empty() ? "no message" : firstLine(run.err));
    finish();
    return out;
  }
  report->bytes = run.out.size();
  size_t skipped = 0;
  std::string why;
  std::vector<SlurmJob> jobs = parseSacct(run.out, kSacctColumns, &skipped, &why);
  for (auto& job : jobs) {
    size_t paren = job.user.find('(');  // sacct -c prints "root(0)"
    if (paren != std::string::npos) job.user.resize(paren);
    if (normaliseState(job.state) == ir::State::Running) continue;  // not finished
    // Filters again on our side: sacct -c ignores some of them.
    auto allowed = [](const std::vector<std::string>& filter, const std::string& value) {
      return filter.empty() || std::find(filter.begin(), filter.end(), value) != filter.end();
    };
    if (!allowed(options_.partitions, job.partition) || !allowed(options_.users, job.user) ||
        !allowed(options_.names, job.name) || !allowed(options_.jobs, job.id)) {
      continue;
    }
    WorkloadContext c;
    c.workload = toWorkload(job, options_.cluster);
    if (options_.since && c.workload.end && *c.workload.end < *options_.since) continue;
    if (options_.until && c.workload.end && *c.workload.end >= *options_.until) continue;
    c.facts = schedulerFacts(job, options_.cluster);
    out.push_back(std::move(c));
  }
  report->observations = jobs.size();
  if (skipped > 0) {
    report->status = runtime::ConnectorReport::Status::Partial;
    report->reason = fmt::format("{} malformed line(s) skipped; first: {}", skipped, why);
  } else if (out.empty()) {
    report->status = runtime::ConnectorReport::Status::Empty;
    report->reason = "no finished jobs in the window";
  }
  if (run.truncated) {
    report->status = runtime::ConnectorReport::Status::Partial;
    report->reason = "sacct's output was larger than the limit and was cut";
  }
  finish();
  return out;
}

}  // namespace attrib::connectors::slurm
