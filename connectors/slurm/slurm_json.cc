#include "connectors/slurm/slurm_json.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "connectors/slurm/hostlist.h"

namespace attrib::connectors::slurm {
namespace {

using nlohmann::json;

const json* member(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string str(const json& j, const char* key) {
  const json* v = member(j, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

// An integer, also in the later {"set": true, "number": N} form; null, absent or unset: nothing.
std::optional<int64_t> integer(const json* v) {
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v->is_object()) {
    const json* set = member(*v, "set");
    if (set && set->is_boolean() && !set->get<bool>()) return std::nullopt;
    return integer(member(*v, "number"));
  }
  return std::nullopt;
}

std::optional<int64_t> integer(const json& j, const char* key) { return integer(member(j, key)); }

// Epoch seconds; 0 and absurd values (the controller's far-future end of a pending job) are none.
std::optional<int64_t> epoch(const json* v) {
  auto t = integer(v);
  if (!t || *t <= 0 || *t > 32'503'680'000LL) return std::nullopt;  // year 3000
  return t;
}

// "OUT_OF_MEMORY", or the first of a list (the 23.02+ form).
std::string stateName(const json* v) {
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_array() && !v->empty() && (*v)[0].is_string()) return (*v)[0].get<std::string>();
  return "";
}

std::string reasonOf(std::string r) { return r == "None" ? std::string() : r; }

// {"status": "SIGNALED", "return_code": null, "signal": {"signal_id": 125}} and friends.
ExitStatus exitOf(const json* v) {
  ExitStatus e;
  if (!v) return e;
  if (v->is_number()) return decodeWaitStatus(integer(v).value_or(0));
  std::string status = str(*v, "status");
  if (status == "SIGNALED" || status == "CORE_DUMPED") {
    const json* sig = member(*v, "signal");
    if (sig) e.signal = integer(*sig, "signal_id");
  } else if (status == "SUCCESS") {
    e.code = integer(*v, "return_code").value_or(0);
    e.unverified = true;  // 22.05.8 says this for `exit 3` too
  } else if (status == "FAILED") {
    e.code = integer(*v, "return_code");
  }
  return e;
}

bool nodesOf(const std::string& hostlist, std::vector<std::string>* nodes, std::string* why) {
  nodes->clear();
  if (hostlist.empty() || hostlist == "None assigned" || hostlist == "(null)") return true;
  return expandHostlist(hostlist, nodes, why);
}

std::string idText(const json* v) {
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  if (auto n = integer(v)) return std::to_string(*n);
  return "";
}

// The id sacct's text uses: 123, 123_4 (array task), 123+1 (heterogeneous component).
std::string jobIdOf(std::optional<int64_t> id, std::optional<int64_t> arrayJob, std::optional<int64_t> arrayTask,
                    std::optional<int64_t> hetJob, std::optional<int64_t> hetOffset) {
  if (arrayJob && *arrayJob > 0 && arrayTask) return fmt::format("{}_{}", *arrayJob, *arrayTask);
  if (hetJob && *hetJob > 0 && hetOffset) return fmt::format("{}+{}", *hetJob, *hetOffset);
  return id ? std::to_string(*id) : std::string();
}

// The document: parsed, with its `jobs` list, its plugin and its errors.
bool document(std::string_view text, json* doc, SlurmJsonResult* out, std::string* error) {
  *out = {};
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    *error = "empty answer where JSON was expected";
    return false;
  }
  try {
    *doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    *error = e.byte >= text.size() ? fmt::format("the JSON ends early (cut at byte {} of {})", text.size(), text.size())
                                   : fmt::format("malformed JSON at byte {}", e.byte);
    return false;
  }
  if (!doc->is_object()) {
    *error = "the JSON is not an object";
    return false;
  }
  if (const json* meta = member(*doc, "meta")) {
    if (const json* plugin = member(*meta, "plugin")) out->plugin = str(*plugin, "type");
  }
  if (const json* errors = member(*doc, "errors"); errors && errors->is_array()) {
    for (const auto& e : *errors) {
      auto number = integer(e, "error_number");
      if (number == 9003) continue;  // "Nothing found with query": an empty answer
      std::string description = str(e, "description");
      std::string message = fmt::format("{} {}", number ? std::to_string(*number) : "error", str(e, "error"));
      if (!description.empty()) message += ": " + description;
      if (!str(e, "source").empty()) message += " (" + str(e, "source") + ")";
      out->errors.push_back(message);
    }
  }
  const json* jobs = member(*doc, "jobs");
  if (!jobs || !jobs->is_array()) {
    *error = out->errors.empty() ? "no 'jobs' list in the JSON" : out->errors.front();
    return false;
  }
  return true;
}

void skip(SlurmJsonResult* out, size_t index, const std::string& why) {
  if (out->skipped++ == 0) out->skipError = fmt::format("jobs[{}]: {}", index, why);
}

// Parses the document and each of its `jobs` with `parse`, which fills a job or says why it
// cannot (the job is then skipped and counted). False, with `error`, when the document itself
// is unusable.
template <typename ParseJob>
bool parseJobs(std::string_view text, SlurmJsonResult* out, std::string* error, ParseJob parse) {
  json doc;
  if (!document(text, &doc, out, error)) return false;
  size_t index = 0;
  for (const auto& j : doc["jobs"]) {
    size_t at = index++;
    if (!j.is_object()) {
      skip(out, at, "not an object");
      continue;
    }
    SlurmJob job;
    std::string why;
    if (!parse(j, &job, &why)) {
      skip(out, at, why);
      continue;
    }
    out->jobs.push_back(std::move(job));
  }
  return true;
}

}  // namespace

ExitStatus decodeWaitStatus(int64_t status) {
  ExitStatus e;
  if ((status & 0x7f) != 0) e.signal = status & 0x7f;
  else e.code = (status >> 8) & 0xff;
  return e;
}

bool parseSlurmdbJson(std::string_view text, SlurmJsonResult* out, std::string* error) {
  return parseJobs(text, out, error, [](const json& j, SlurmJob* job, std::string* why) {
    const json* array = member(j, "array");
    const json* het = member(j, "het");
    job->id = jobIdOf(integer(j, "job_id"), array ? integer(*array, "job_id") : std::nullopt,
                      array ? integer(*array, "task_id") : std::nullopt, het ? integer(*het, "job_id") : std::nullopt,
                      het ? integer(*het, "job_offset") : std::nullopt);
    if (job->id.empty()) {
      *why = "no job_id";
      return false;
    }
    job->name = str(j, "name");
    job->user = str(j, "user");
    job->partition = str(j, "partition");
    const json* state = member(j, "state");
    job->state = state ? stateName(member(*state, "current")) : "";
    if (job->state.empty()) {
      *why = fmt::format("job {} has no state.current", job->id);
      return false;
    }
    if (state) job->reason = reasonOf(str(*state, "reason"));
    job->exit = exitOf(member(j, "exit_code"));
    job->derived = exitOf(member(j, "derived_exit_code"));
    job->nodelist = str(j, "nodes");
    std::string nodesWhy;
    if (!nodesOf(job->nodelist, &job->nodes, &nodesWhy)) {
      *why = fmt::format("job {}: {}", job->id, nodesWhy);
      return false;
    }
    if (const json* time = member(j, "time")) {
      job->start = epoch(member(*time, "start"));
      job->end = epoch(member(*time, "end"));
    }
    // Cancelled while pending: slurmdbd later sets the start to the end; sacct says None.
    if (job->nodes.empty()) job->start.reset();
    job->cancelledBy = str(j, "kill_request_user");
    if (const json* steps = member(j, "steps"); steps && steps->is_array()) {
      for (const auto& s : *steps) {
        SlurmStep step;
        const json* info = member(s, "step");
        step.id = info ? idText(member(*info, "id")) : "";
        if (step.id.empty()) continue;  // a step without an id says nothing we can place
        step.state = stateName(member(s, "state"));
        step.exit = exitOf(member(s, "exit_code"));
        if (const json* nodes = member(s, "nodes")) {
          if (const json* list = member(*nodes, "list"); list && list->is_array()) {
            for (const auto& n : *list) {
              if (n.is_string()) step.nodes.push_back(n.get<std::string>());
            }
          } else if (!nodesOf(str(*nodes, "range"), &step.nodes, &nodesWhy)) {
            *why = fmt::format("job {}: {}", job->id, nodesWhy);
            return false;
          }
        }
        if (const json* time = member(s, "time")) {
          step.start = epoch(member(*time, "start"));
          step.end = epoch(member(*time, "end"));
        }
        job->steps.push_back(std::move(step));
      }
    }
    return true;
  });
}

bool parseSlurmJobsJson(std::string_view text, SlurmJsonResult* out, std::string* error) {
  return parseJobs(text, out, error, [](const json& j, SlurmJob* job, std::string* why) {
    job->id = jobIdOf(integer(j, "job_id"), integer(j, "array_job_id"), integer(j, "array_task_id"),
                      integer(j, "het_job_id"), integer(j, "het_job_offset"));
    job->state = stateName(member(j, "job_state"));
    if (job->id.empty() || job->state.empty()) {
      *why = job->id.empty() ? "no job_id" : fmt::format("job {} has no job_state", job->id);
      return false;
    }
    job->name = str(j, "name");
    job->user = str(j, "user_name");
    job->partition = str(j, "partition");
    job->reason = reasonOf(str(j, "state_reason"));
    if (auto s = integer(j, "exit_code")) job->exit = decodeWaitStatus(*s);
    if (auto s = integer(j, "derived_exit_code")) job->derived = decodeWaitStatus(*s);
    job->nodelist = str(j, "nodes");
    std::string nodesWhy;
    if (!nodesOf(job->nodelist, &job->nodes, &nodesWhy)) {
      *why = fmt::format("job {}: {}", job->id, nodesWhy);
      return false;
    }
    job->start = epoch(member(j, "start_time"));
    job->end = epoch(member(j, "end_time"));
    if (job->nodes.empty()) job->start.reset();  // never ran
    return true;
  });
}

size_t mergeExitCodes(std::vector<SlurmJob>* jobs, const std::vector<SlurmJob>& text) {
  std::map<std::string, const SlurmJob*> byId;
  for (const auto& t : text) byId[t.id] = &t;
  size_t matched = 0;
  for (auto& job : *jobs) {
    auto it = byId.find(job.id);
    if (it == byId.end()) continue;
    ++matched;
    const SlurmJob& t = *it->second;
    job.exit = t.exit;
    job.derived = t.derived;
    if (t.state.find(" by ") != std::string::npos && normaliseState(t.state) == normaliseState(job.state)) {
      job.state = t.state;  // "CANCELLED by 0"
    }
    if (job.reason.empty()) job.reason = t.reason;
    for (auto& step : job.steps) {
      for (const auto& ts : t.steps) {
        if (ts.id == step.id) step.exit = ts.exit;
      }
    }
  }
  return matched;
}

size_t mergeControllerJobs(std::vector<SlurmJob>* jobs, const std::vector<SlurmJob>& controller) {
  std::map<std::string, const SlurmJob*> byId;
  for (const auto& c : controller) byId[c.id] = &c;
  size_t matched = 0;
  // The accounting JSON's "success" is wrong when the process exited non-zero. But when the
  // scheduler ended the job itself (its time limit, a cancel, a preemption, a deadline), what the
  // controller holds is its kill as the batch shell saw it: a signal, or 128+N when the shell
  // outlived its child (`sleep` killed by SIGTERM leaves bash to exit 143; which of the two
  // depends on timing). Neither is the program's exit, and sacct and the completion log say 0.
  auto settle = [](ExitStatus* mine, const ExitStatus& theirs, bool endedByScheduler) {
    if (!mine->unverified) return;
    bool killReport = endedByScheduler && theirs.code && *theirs.code > 128;
    if (theirs.code && *theirs.code != 0 && !killReport) *mine = theirs;
    mine->unverified = false;
  };
  for (auto& job : *jobs) {
    auto it = byId.find(job.id);
    if (it == byId.end()) continue;
    ++matched;
    ir::State state = normaliseState(job.state);
    bool endedByScheduler = state == ir::State::Timeout || state == ir::State::Cancelled ||
                            state == ir::State::Preempted || state == ir::State::Deadline;
    settle(&job.exit, it->second->exit, endedByScheduler);
    settle(&job.derived, it->second->derived, endedByScheduler);
    if (job.reason.empty()) job.reason = it->second->reason;
  }
  return matched;
}

size_t dropUnverifiedExits(std::vector<SlurmJob>* jobs) {
  size_t dropped = 0;
  for (auto& job : *jobs) {
    if (job.exit.unverified && normaliseState(job.state) == ir::State::Failed) {
      job.exit = {};
      ++dropped;
    }
    for (auto& step : job.steps) {
      if (step.exit.unverified && normaliseState(step.state) == ir::State::Failed) step.exit = {};
    }
  }
  return dropped;
}

bool knownSlurmState(std::string_view raw) {
  std::string_view word = raw.substr(0, raw.find(' '));
  static const char* const kStates[] = {
      "BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED", "NODE_FAIL", "OUT_OF_MEMORY", "PENDING",
      "PREEMPTED", "RUNNING", "REQUEUED", "RESIZING", "REVOKED", "SUSPENDED", "TIMEOUT", "COMPLETING",
      "CONFIGURING", "REQUEUE_HOLD", "REQUEUE_FED", "SPECIAL_EXIT", "STOPPED", "SIGNALING", "STAGE_OUT",
      "RESV_DEL_HOLD", "POWER_UP_NODE", "UPDATE_DB"};
  for (const char* s : kStates) {
    if (word == s) return true;
  }
  return false;
}

}  // namespace attrib::connectors::slurm
