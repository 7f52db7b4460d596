// `attrib nodes`: the node history of a verdict database and the repeat-offender suspects
// (docs/history.md), and the parsing of the policy's flags shared with `attrib serve` and
// `attrib diagnose --history-db`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "history/repeat_offender.h"
#include "runtime/verdict.h"

namespace CLI {
class App;
}

namespace attrib::tools {

struct PolicyFlags {
  std::string since = "14d";     // the window
  std::string halfLife = "14d";
  uint64_t minEvents = 2;
  double minScore = 1.0;
  size_t maxNewPerCycle = 1;
  size_t maxSuspects = 16;
};
// The policy the flags give, or nullopt with a one-line `error` naming the flag.
std::optional<history::PolicyOptions> policyOf(const PolicyFlags& flags, std::string* error);

// The history of a verdict database, shared by the Service's threads: `spec` is a SQLite file
// (PATH or sqlite:PATH) or postgres:CONNINFO; null with a one-line `error` when it cannot be
// read (never quoting a conninfo, which may hold a password).
std::shared_ptr<history::HistoryReader> openHistory(const std::string& spec, std::string* error);

// Adds to each bad node of `verdict` its earlier failures from `reader` and adjusts the
// confidence (history/verdict_history.h); false with a one-line `error` when it cannot be read.
bool addVerdictHistory(runtime::Verdict& verdict, history::HistoryReader& reader, std::string* error);

struct NodesCommandOptions {
  std::string database;
  std::string node;         // empty: every node
  bool suspect = false;     // the suspects only (the policy's decisions)
  std::string format = "text";
  std::string now;          // RFC 3339; empty: the clock (tests pin it)
  PolicyFlags policy;
};
int runNodes(const NodesCommandOptions& options);

// The policy's flags (--since, --half-life, --min-events, --min-score, --max-new-per-cycle,
// --max-suspects) on a command, and the `nodes` command itself.
void addPolicyFlags(CLI::App* command, PolicyFlags& flags);
CLI::App* addNodesCommand(CLI::App& app, NodesCommandOptions& options);

}  // namespace attrib::tools
