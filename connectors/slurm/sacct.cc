#include "connectors/slurm/sacct.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <map>

#include "connectors/slurm/hostlist.h"

namespace attrib::connectors::slurm {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

bool parseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

// Epoch seconds, or nothing for "Unknown", "None" and empty fields.
std::optional<int64_t> epoch(std::string_view s) {
  int64_t v;
  if (parseInt(s, &v) && v > 0) return v;
  return std::nullopt;
}

std::optional<int64_t> nanos(const std::optional<int64_t>& seconds) {
  if (!seconds) return std::nullopt;
  return *seconds * 1'000'000'000LL;
}

std::string describe(const ExitStatus& e) {
  if (e.signal) return fmt::format("signal {}", *e.signal);
  if (e.code) return fmt::format("exit code {}", *e.code);
  return "unknown exit";
}

}  // namespace

bool parseExitStatus(std::string_view text, ExitStatus* out) {
  size_t colon = text.find(':');
  int64_t code, signal = 0;
  if (colon == std::string_view::npos) {
    if (!parseInt(text, &code)) return false;
  } else if (!parseInt(text.substr(0, colon), &code) || !parseInt(text.substr(colon + 1), &signal)) {
    return false;
  }
  *out = {};
  if (signal != 0) out->signal = signal;
  else out->code = code;
  return true;
}

ir::State normaliseState(std::string_view raw) {
  std::string_view word = raw.substr(0, raw.find(' '));
  ir::State s;
  if (ir::stateFromName(std::string(word), &s)) return s;
  // Not yet finished (PENDING, RUNNING, SUSPENDED, REQUEUED, COMPLETING, ...).
  if (word == "REVOKED") return ir::State::Cancelled;
  return ir::State::Running;
}

std::vector<SlurmJob> parseSacct(std::string_view text, std::string_view columns, size_t* skipped,
                                 std::string* error) {
  std::vector<std::string_view> names = split(columns, ',');
  std::map<std::string_view, size_t> col;
  for (size_t i = 0; i < names.size(); ++i) col[names[i]] = i;
  auto field = [&](const std::vector<std::string_view>& f, std::string_view name) -> std::string_view {
    auto it = col.find(name);
    return it == col.end() ? std::string_view() : f[it->second];
  };
  std::vector<SlurmJob> jobs;
  std::map<std::string, size_t> byId;
  *skipped = 0;
  size_t lineNo = 0;
  for (std::string_view line : split(text, '\n')) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    auto bad = [&](const std::string& why) {
      if (*skipped == 0) *error = fmt::format("sacct output line {}: {}", lineNo, why);
      ++*skipped;
    };
    std::vector<std::string_view> f = split(line, '|');
    if (f.size() != names.size()) {
      bad(fmt::format("{} fields, expected {}", f.size(), names.size()));
      continue;
    }
    std::string_view id = field(f, "JobID");
    if (id.empty()) {
      bad("no job id");
      continue;
    }
    // 123, 123_4 (array task), 123+1 (heterogeneous component), 123.batch (step)
    bool plausible = id[0] >= '0' && id[0] <= '9';
    for (char c : id) plausible = plausible && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '.');
    if (!plausible) {
      bad("not a job id");
      continue;
    }
    ExitStatus exit;
    if (!field(f, "ExitCode").empty() && !parseExitStatus(field(f, "ExitCode"), &exit)) {
      bad(fmt::format("bad exit code '{}'", field(f, "ExitCode")));
      continue;
    }
    std::vector<std::string> nodes;
    std::string_view nodelist = field(f, "NodeList");
    if (!nodelist.empty() && nodelist != "None assigned" && nodelist != "(null)") {
      std::string why;
      if (!expandHostlist(nodelist, &nodes, &why)) {
        bad(why);
        continue;
      }
    }
    size_t dot = id.find('.');
    if (dot != std::string_view::npos) {  // a step of a job listed above it
      auto it = byId.find(std::string(id.substr(0, dot)));
      if (it == byId.end()) {
        bad(fmt::format("step {} before its job", id));
        continue;
      }
      SlurmStep step;
      step.id = std::string(id.substr(dot + 1));
      step.state = std::string(field(f, "State"));
      step.exit = exit;
      step.nodes = std::move(nodes);
      step.start = epoch(field(f, "Start"));
      step.end = epoch(field(f, "End"));
      jobs[it->second].steps.push_back(std::move(step));
      continue;
    }
    SlurmJob job;
    job.id = std::string(id);
    job.name = std::string(field(f, "JobName"));
    job.user = std::string(field(f, "User"));
    job.partition = std::string(field(f, "Partition"));
    job.state = std::string(field(f, "State"));
    job.exit = exit;
    if (!field(f, "DerivedExitCode").empty()) parseExitStatus(field(f, "DerivedExitCode"), &job.derived);
    job.nodelist = std::string(nodelist);
    job.nodes = std::move(nodes);
    job.start = epoch(field(f, "Start"));
    job.end = epoch(field(f, "End"));
    std::string_view reason = field(f, "Reason");
    if (reason != "None") job.reason = std::string(reason);
    byId[job.id] = jobs.size();
    jobs.push_back(std::move(job));
  }
  return jobs;
}

evidence::Workload toWorkload(const SlurmJob& job, const std::string& cluster) {
  evidence::Workload w;
  w.id = cluster.empty() ? fmt::format("slurm/{}", job.id) : fmt::format("slurm/{}/{}", cluster, job.id);
  w.scheduler = "slurm";
  w.name = job.name;
  w.user = job.user;
  w.partition = job.partition;
  w.state = normaliseState(job.state);
  w.exitCode = job.exit.code;
  w.signal = job.exit.signal;
  // A batch script that exited 0 after a task failed: the derived code says what went wrong.
  if (w.exitCode == 0 && job.derived.code && *job.derived.code != 0) w.exitCode = job.derived.code;
  w.start = nanos(job.start);
  w.end = nanos(job.end);
  w.nodes = job.nodes;
  w.reason = job.reason;
  if (w.reason.empty() && w.state == ir::State::OutOfMemory) w.reason = "OutOfMemory";
  return w;
}

std::vector<evidence::LogLine> schedulerFacts(const SlurmJob& job, const std::string& cluster) {
  std::vector<evidence::LogLine> out;
  auto fact = [&](const std::optional<int64_t>& at, std::string text) {
    evidence::LogLine l;
    l.source = "scheduler";
    l.time = nanos(at);
    l.text = std::move(text);
    l.where.connector = "slurm";
    l.where.location = cluster.empty() ? fmt::format("sacct job {}", job.id) : fmt::format("sacct {} job {}", cluster, job.id);
    l.where.line = out.size() + 1;
    out.push_back(std::move(l));
  };
  auto at = job.end ? job.end : job.start;
  fact(at, fmt::format("slurm job {} ({}) ended {}: {}{}", job.id, job.name, job.state, describe(job.exit),
                       job.reason.empty() ? "" : ", reason " + job.reason));
  if (job.derived.code.value_or(0) != 0 || job.derived.signal) {
    fact(at, fmt::format("slurm job {} derived exit: {}", job.id, describe(job.derived)));
  }
  size_t by = job.state.find(" by ");
  if (by != std::string::npos) {
    fact(at, fmt::format("slurm job {} was cancelled by uid {}", job.id, job.state.substr(by + 4)));
  } else if (!job.cancelledBy.empty() && normaliseState(job.state) == ir::State::Cancelled) {
    fact(at, fmt::format("slurm job {} was cancelled by user {}", job.id, job.cancelledBy));
  }
  for (const auto& step : job.steps) {
    std::string nodes;
    for (const auto& n : step.nodes) nodes += (nodes.empty() ? "" : ",") + n;
    fact(step.end ? step.end : at, fmt::format("slurm step {}.{} ended {}: {} on {}", job.id, step.id, step.state,
                                               describe(step.exit), nodes.empty() ? "no nodes" : nodes));
  }
  return out;
}

}  // namespace attrib::connectors::slurm
