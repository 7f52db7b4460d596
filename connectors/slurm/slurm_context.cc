#include "connectors/slurm/slurm_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include <fstream>
#include <sstream>

#include "connectors/http/http_client.h"
#include "connectors/process.h"
#include "connectors/slurm/slurm_json.h"
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

// The token, read fresh for every request (it is rotated); never logged or reported.
bool readToken(const std::string& path, std::string* token, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = fmt::format("cannot read the token file {}", path);
    return false;
  }
  std::stringstream all;
  all << in.rdbuf();
  *token = all.str();
  while (!token->empty() && std::isspace(static_cast<unsigned char>(token->back()))) token->pop_back();
  if (token->rfind("SLURM_JWT=", 0) == 0) token->erase(0, 10);  // `scontrol token` output as is
  if (token->empty()) {
    *error = fmt::format("the token file {} is empty", path);
    return false;
  }
  return true;
}

const char* const kModeNames[] = {"sacct", "sacct-json", "slurmrestd"};

}  // namespace

bool slurmModeFromName(const std::string& name, SlurmMode* out) {
  for (size_t i = 0; i < std::size(kModeNames); ++i) {
    if (name == kModeNames[i]) {
      *out = static_cast<SlurmMode>(i);
      return true;
    }
  }
  return false;
}

const char* slurmModeName(SlurmMode mode) { return kModeNames[static_cast<size_t>(mode)]; }

std::vector<std::string> SlurmContext::command(bool json) const {
  std::vector<std::string> argv = {options_.sacct, "--parsable2", "--noheader", "--allusers",
                                   "--format", std::string(kSacctColumns)};
  if (json) argv = {options_.sacct, "--json", "--allusers"};
  else if (options_.completionLog) argv.push_back("--completion");
  if (!options_.cluster.empty()) argv.insert(argv.end(), {"--clusters", options_.cluster});
  if (options_.since) argv.insert(argv.end(), {"--starttime", sacctTime(*options_.since)});
  if (options_.until) argv.insert(argv.end(), {"--endtime", sacctTime(*options_.until)});
  if (!options_.partitions.empty()) argv.insert(argv.end(), {"--partition", joined(options_.partitions)});
  if (!options_.users.empty()) argv.insert(argv.end(), {"--user", joined(options_.users)});
  if (!options_.names.empty()) argv.insert(argv.end(), {"--name", joined(options_.names)});
  if (!options_.jobs.empty()) argv.insert(argv.end(), {"--jobs", joined(options_.jobs)});
  return argv;
}

std::string SlurmContext::slurmdbPath() const {
  // slurmrestd reads these times in its own time zone and refuses epoch seconds: the window is
  // padded by a day on each side and applied exactly on our side.
  constexpr int64_t kDay = 86'400'000'000'000LL;
  std::vector<std::string> query;
  if (options_.since) query.push_back("start_time=" + http::urlEncode(sacctTime(*options_.since - kDay)));
  if (options_.until) query.push_back("end_time=" + http::urlEncode(sacctTime(*options_.until + kDay)));
  if (!options_.cluster.empty()) query.push_back("cluster=" + http::urlEncode(options_.cluster));
  if (!options_.partitions.empty()) query.push_back("partition=" + http::urlEncode(joined(options_.partitions)));
  if (!options_.names.empty()) query.push_back("job_name=" + http::urlEncode(joined(options_.names)));
  // No `users`: /slurmdb/v0.0.38/jobs refuses it (error 9000); users are filtered on our side.
  std::string path = "/slurmdb/v0.0.38/jobs";
  for (size_t i = 0; i < query.size(); ++i) path += (i == 0 ? "?" : "&") + query[i];
  return path;
}

namespace {

ProcessResult runSacct(const std::vector<std::string>& argv, const SlurmOptions& options, bool json = false) {
  ProcessOptions process;
  process.env = options.env;
  // Epoch seconds in the text. Not for --json: its times are epoch seconds anyway, and with
  // this format sacct hands its default start time to the JSON query as an epoch, which 22.05
  // refuses ("Unable to parse time format (start_time)").
  if (!json) process.env.push_back({"SLURM_TIME_FORMAT", "%s"});
  process.env.push_back({"TZ", "UTC"});
  process.timeout = options.timeout;
  return runProcess(argv, process);
}

// Why a sacct run gave nothing usable, or "" when it did.
std::string sacctFailure(const ProcessResult& run, const SlurmOptions& options, const char* what) {
  if (!run.started) return run.error;
  if (run.timedOut) return fmt::format("{} did not answer within {} s", what, options.timeout.count() / 1000);
  if (run.exitCode != 0) {
    return fmt::format("{} failed (exit {}): {}", what, run.exitCode, run.err.empty() ? "no message" : firstLine(run.err));
  }
  return "";
}

}  // namespace

bool SlurmContext::readSacct(std::vector<SlurmJob>* jobs, evidence::ConnectorReport* report, size_t* skipped,
                             std::string* why) {
  ProcessResult run = runSacct(command(), options_);
  if (std::string failure = sacctFailure(run, options_, "sacct"); !failure.empty()) {
    report->status = evidence::ConnectorReport::Status::Error;
    report->reason = failure;
    return false;
  }
  report->bytes = run.out.size();
  *jobs = parseSacct(run.out, kSacctColumns, skipped, why);
  if (run.truncated) {
    ++*skipped;
    *why = "sacct's output was larger than the limit and was cut";
  }
  return true;
}

bool SlurmContext::readSacctJson(std::vector<SlurmJob>* jobs, evidence::ConnectorReport* report, size_t* skipped,
                                 std::string* why) {
  auto fail = [&](std::string reason) {
    report->status = evidence::ConnectorReport::Status::Error;
    report->reason = std::move(reason);
    return false;
  };
  if (options_.completionLog) return fail("sacct --json needs slurmdbd; the job-completion log has text only (mode sacct)");
  ProcessResult run = runSacct(command(true), options_, true);
  if (std::string failure = sacctFailure(run, options_, "sacct --json"); !failure.empty()) return fail(failure);
  report->bytes = run.out.size();
  SlurmJsonResult parsed;
  std::string error;
  if (!parseSlurmdbJson(run.out, &parsed, &error)) {
    return fail(fmt::format("sacct --json: {}{}", error, run.truncated ? " (its output was larger than the limit)" : ""));
  }
  if (!parsed.errors.empty()) return fail("sacct --json: " + parsed.errors.front());
  *jobs = std::move(parsed.jobs);
  *skipped = parsed.skipped;
  *why = parsed.skipError;
  // Exit codes from the parsable text of the same window: the JSON's are wrong in 22.05.
  ProcessResult text = runSacct(command(), options_);
  if (std::string failure = sacctFailure(text, options_, "sacct -P"); !failure.empty()) {
    ++*skipped;
    if (why->empty()) *why = "exit codes unverified: " + failure;
  } else {
    size_t textSkipped = 0;
    std::string textWhy;
    mergeExitCodes(jobs, parseSacct(text.out, kSacctColumns, &textSkipped, &textWhy));
  }
  dropUnverifiedExits(jobs);
  return true;
}

bool SlurmContext::readSlurmrestd(std::vector<SlurmJob>* jobs, evidence::ConnectorReport* report, size_t* skipped,
                                  std::string* why) {
  const SlurmRestOptions& rest = options_.rest;
  auto fail = [&](std::string reason) {
    report->status = evidence::ConnectorReport::Status::Error;
    report->reason = std::move(reason);
    return false;
  };
  // GET base+path; "" and the body, or a one-line reason.
  auto fetch = [&](const std::string& path, std::string* body) -> std::string {
    http::Request request;
    std::string base = rest.url.empty() ? "http://localhost" : rest.url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    request.url = base + path;
    request.unixSocket = rest.socket;
    request.timeout = options_.timeout;
    request.maxBody = rest.maxBody;
    if (!rest.user.empty()) request.headers.push_back({"X-SLURM-USER-NAME", rest.user});
    if (!rest.tokenFile.empty()) {
      std::string token, error;
      if (!readToken(rest.tokenFile, &token, &error)) return error;
      request.headers.push_back({"X-SLURM-USER-TOKEN", token});
    }
    http::Response r = http::get(request);
    std::string endpoint = path.substr(0, path.find('?'));
    if (!r.ok) return fmt::format("slurmrestd unreachable: {}", r.error);
    if (r.truncated) return fmt::format("{}: the answer was larger than {} bytes and was cut", endpoint, rest.maxBody);
    if (r.status == 401 || r.status == 403) {
      return fmt::format("{}: HTTP {} {}: slurmrestd refused the credentials (check the user and token_file{})", endpoint,
                         r.status, firstLine(r.body), rest.tokenFile.empty() ? "; none was given" : "");
    }
    if (r.status < 200 || r.status >= 300) {
      SlurmJsonResult parsed;
      std::string error;
      parseSlurmdbJson(r.body, &parsed, &error);
      return fmt::format("{}: HTTP {}: {}", endpoint, r.status,
                         !parsed.errors.empty() ? parsed.errors.front() : r.body.empty() ? "no message" : firstLine(r.body));
    }
    *body = std::move(r.body);
    return "";
  };
  std::string body;
  if (std::string failure = fetch(slurmdbPath(), &body); !failure.empty()) return fail(failure);
  report->bytes = body.size();
  SlurmJsonResult parsed;
  std::string error;
  if (!parseSlurmdbJson(body, &parsed, &error)) return fail("/slurmdb/v0.0.38/jobs: " + error);
  if (!parsed.errors.empty()) {
    std::string hint = parsed.errors.front().rfind("1007 ", 0) == 0 ? " (check the user and the token in token_file)" : "";
    return fail("/slurmdb/v0.0.38/jobs: " + parsed.errors.front() + hint);
  }
  *jobs = std::move(parsed.jobs);
  *skipped = parsed.skipped;
  *why = parsed.skipError;
  if (rest.controller) {
    // Exit codes and reasons of the jobs slurmctld still remembers (MinJobAge).
    std::string controllerBody;
    std::string failure = fetch("/slurm/v0.0.38/jobs", &controllerBody);
    SlurmJsonResult controller;
    if (failure.empty() && !parseSlurmJobsJson(controllerBody, &controller, &error)) failure = "/slurm/v0.0.38/jobs: " + error;
    if (failure.empty() && !controller.errors.empty()) failure = "/slurm/v0.0.38/jobs: " + controller.errors.front();
    if (!failure.empty()) {
      ++*skipped;
      if (why->empty()) *why = "exit codes unverified: " + failure;
    } else {
      mergeControllerJobs(jobs, controller.jobs);
    }
  }
  dropUnverifiedExits(jobs);
  return true;
}

std::vector<WorkloadContext> SlurmContext::discover(evidence::ConnectorReport* report) {
  auto started = std::chrono::steady_clock::now();
  *report = {};
  report->connector = "slurm";
  std::string cluster = options_.cluster.empty() ? "" : " -M " + options_.cluster;
  switch (options_.mode) {
    case SlurmMode::Sacct: report->source = "sacct" + cluster; break;
    case SlurmMode::SacctJson: report->source = "sacct --json" + cluster; break;
    case SlurmMode::Slurmrestd:
      report->source = "slurmrestd " + (options_.rest.socket.empty() ? options_.rest.url : "unix:" + options_.rest.socket);
      break;
  }
  auto finish = [&] {
    report->elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                              started).count();
  };
  std::vector<WorkloadContext> out;
  int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (options_.since && *options_.since > now) {  // sacct refuses a window that starts later
    report->status = evidence::ConnectorReport::Status::Empty;
    report->reason = "the window starts in the future";
    finish();
    return out;
  }
  std::vector<SlurmJob> jobs;
  size_t skipped = 0;
  std::string why;
  bool read = options_.mode == SlurmMode::Sacct       ? readSacct(&jobs, report, &skipped, &why)
              : options_.mode == SlurmMode::SacctJson ? readSacctJson(&jobs, report, &skipped, &why)
                                                      : readSlurmrestd(&jobs, report, &skipped, &why);
  if (!read) {
    finish();
    return out;
  }
  size_t unknown = 0;
  std::string firstUnknown;
  for (auto& job : jobs) {
    size_t paren = job.user.find('(');  // sacct -c prints "root(0)"
    if (paren != std::string::npos) job.user.resize(paren);
    if (!knownSlurmState(job.state)) {  // a state this version does not know: not guessed at
      if (unknown++ == 0) firstUnknown = fmt::format("job {} has the unknown state '{}'", job.id, firstLine(job.state));
      continue;
    }
    if (normaliseState(job.state) == ir::State::Running) continue;  // not finished
    // Filters again on our side: sacct -c and slurmrestd ignore some of them.
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
  std::vector<std::string> problems;
  if (skipped > 0) {
    problems.push_back(options_.mode == SlurmMode::Sacct
                           ? fmt::format("{} malformed line(s) skipped; first: {}", skipped, why)
                           : fmt::format("{} problem(s); first: {}", skipped, why));
  }
  if (unknown > 0) problems.push_back(fmt::format("{} job(s) with an unknown state skipped; first: {}", unknown, firstUnknown));
  if (!problems.empty()) {
    report->status = evidence::ConnectorReport::Status::Partial;
    for (const auto& p : problems) report->reason += (report->reason.empty() ? "" : "; ") + p;
  } else if (out.empty()) {
    report->status = evidence::ConnectorReport::Status::Empty;
    report->reason = "no finished jobs in the window";
  }
  finish();
  return out;
}

}  // namespace attrib::connectors::slurm
