#include "tools/attrib/node_commands.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "history/duration.h"
#include "history/history_json.h"
#include "history/verdict_history.h"
#include "ir/civil_time.h"
#include "sinks/postgres_history.h"
#include "sinks/sqlite_history.h"

namespace attrib::tools {
namespace {

constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2;

void printError(const std::string& message) { fmt::print(stderr, "attrib: error: {}\n", message); }

int64_t clockNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::optional<history::PolicyOptions> policyOf(const PolicyFlags& f, std::string* error) {
  history::PolicyOptions o;
  auto window = history::parseDuration(f.since);
  if (!window) {
    *error = fmt::format("--since {}: not a duration (a positive number and s, m, h, d or w: 14d)", f.since);
    return std::nullopt;
  }
  auto halfLife = history::parseDuration(f.halfLife);
  if (!halfLife) {
    *error = fmt::format("--half-life {}: not a duration (a positive number and s, m, h, d or w: 14d)", f.halfLife);
    return std::nullopt;
  }
  o.windowNs = *window;
  o.halfLifeNs = *halfLife;
  o.minEvents = f.minEvents;
  o.minScore = f.minScore;
  o.maxNewPerCycle = f.maxNewPerCycle;
  o.maxSuspects = f.maxSuspects;
  if (o.minEvents < 1) {
    *error = "--min-events must be at least 1";
    return std::nullopt;
  }
  if (!(o.minScore >= 0) || !std::isfinite(o.minScore)) {
    *error = "--min-score must be a finite number >= 0";
    return std::nullopt;
  }
  return o;
}

std::shared_ptr<history::HistoryReader> openHistory(const std::string& spec, std::string* error) {
  // The conninfo is never echoed: it may hold a password (the reader's messages name the server).
  if (spec.rfind("postgres:", 0) == 0) {
    if (spec.size() == 9) {
      *error = "postgres: wants a conninfo (keyword=value or a postgresql:// URL; docs/history.md)";
      return nullptr;
    }
    return sinks::PostgresHistoryReader::open(spec.substr(9), error);
  }
  return sinks::SqliteHistoryReader::open(spec.rfind("sqlite:", 0) == 0 ? spec.substr(7) : spec, error);
}

bool addVerdictHistory(runtime::Verdict& verdict, history::HistoryReader& reader, std::string* error) {
  history::PolicyOptions policy;
  int64_t time = history::verdictTime(verdict, clockNow());
  std::vector<history::NodeEvent> events;
  for (const auto& bad : verdict.badNodes) {
    history::HistoryQuery q;
    q.node = bad.node;
    q.since = time - policy.windowNs;
    q.until = time;
    if (!reader.events(q, &events, error)) return false;
  }
  history::addHistory(verdict, history::groupByNode(std::move(events)), time, policy);
  return true;
}

int runNodes(const NodesCommandOptions& options) {
  std::string error;
  auto policy = policyOf(options.policy, &error);
  if (!policy) {
    printError(error);
    return kExitUsage;
  }
  if (options.format != "text" && options.format != "json") {
    printError(fmt::format("--format {}: the formats are text and json", options.format));
    return kExitUsage;
  }
  int64_t now = clockNow();
  if (!options.now.empty()) {
    auto t = parseRfc3339(options.now);
    if (!t) {
      printError(fmt::format("--now {}: not an RFC 3339 time (2026-12-01T10:00:00Z)", options.now));
      return kExitUsage;
    }
    now = *t;
  }
  auto reader = openHistory(options.database, &error);
  if (!reader) {
    printError(error);
    return kExitError;
  }
  history::HistoryQuery query;
  if (!options.node.empty()) query.node = options.node;
  query.since = now - policy->windowNs;
  std::vector<history::NodeEvent> events;
  if (!reader->events(query, &events, &error)) {
    printError(error);
    return kExitError;
  }
  auto histories = history::groupByNode(std::move(events));
  bool json = options.format == "json";
  if (options.suspect) {
    auto suspicions = history::evaluate(histories, now, *policy);
    if (json) {
      fmt::print("{}\n", history::suspicionsJson(suspicions, now, *policy, false));
      return kExitOk;
    }
    size_t shown = 0;
    for (const auto& s : suspicions) {
      if (!s.suspect()) continue;
      ++shown;
      fmt::print("{:<9} {}  {} event(s), score {:.2f}, last {}, {}\n", history::decisionName(s.decision), s.node, s.events,
                 s.score, formatTimestamp(s.lastTime), fmt::join(s.families, ", "));
      for (const auto& r : s.reasons) fmt::print("          {}\n", r);
    }
    if (shown == 0) fmt::print("no suspect node: no node has {} or more node faults in the last {}\n", policy->minEvents, options.policy.since);
    return kExitOk;
  }
  if (json) {
    if (!options.node.empty()) {
      history::NodeHistory empty{options.node, {}, {}};
      fmt::print("{}\n", history::historyJson(histories.empty() ? empty : histories[0]));
      return kExitOk;
    }
    std::string out = "[";
    for (size_t i = 0; i < histories.size(); ++i) out += (i ? "," : "") + history::historyJson(histories[i]);
    fmt::print("{}]\n", out);
    return kExitOk;
  }
  if (histories.empty()) {
    fmt::print("{}: no failure in the last {}\n", options.node.empty() ? "no node" : options.node, options.policy.since);
    return kExitOk;
  }
  for (const auto& h : histories) {
    std::vector<std::string> families;
    for (const auto& [f, n] : h.byFamily) families.push_back(fmt::format("{} {}", f, n));
    fmt::print("{}  {} failure(s) in the last {}: {}\n", h.node, h.events.size(), options.policy.since, fmt::join(families, ", "));
    if (!options.node.empty()) {
      for (const auto& e : h.events) {
        fmt::print("  {}  {:<20} {}  {}{}\n", formatTimestamp(e.time), e.family, e.workloadId,
                   e.rootSymptom.empty() ? "(no root cause)" : e.rootSymptom,
                   history::countsAgainstNode(e.family) ? "" : "  (not a node fault)");
      }
    }
  }
  return kExitOk;
}

void addPolicyFlags(CLI::App* c, PolicyFlags& f) {
  c->add_option("--since", f.since, "The policy's lookback window: 14d, 36h, 90m")->capture_default_str();
  c->add_option("--half-life", f.halfLife, "An event this old counts half (docs/history.md)")->capture_default_str();
  c->add_option("--min-events", f.minEvents, "Node faults in the window that make a suspect")->capture_default_str();
  c->add_option("--min-score", f.minScore, "Their decayed weights, summed, that make a suspect")->capture_default_str();
  c->add_option("--max-new-per-cycle", f.maxNewPerCycle, "Suspects avoided per evaluation")->capture_default_str();
  c->add_option("--max-suspects", f.maxSuspects, "More suspects than this at once: systemic, none avoided")->capture_default_str();
}

CLI::App* addNodesCommand(CLI::App& app, NodesCommandOptions& o) {
  CLI::App* c = app.add_subcommand("nodes", "Node history and repeat offenders from a verdict database (docs/history.md)");
  c->add_option("node", o.node, "One node's history (default: every node's summary)");
  c->add_option("--db", o.database, "The verdict database: a sqlite sink's file (PATH or sqlite:PATH) or postgres:CONNINFO")->required();
  c->add_flag("--suspect", o.suspect, "Only the suspects, with the repeat-offender policy's decision");
  c->add_option("--format", o.format, "text or json")->capture_default_str();
  c->add_option("--now", o.now, "Evaluate at this RFC 3339 time instead of the clock");
  addPolicyFlags(c, o.policy);
  return c;
}

}  // namespace attrib::tools
