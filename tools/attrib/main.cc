// attrib: diagnoses failed workloads. `attrib diagnose DIR` is the first thing a user runs.
// The command line lives here; the work is done by the runtime and connector libraries.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <thread>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "attrib_version.h"
#include "tools/cli_parse.h"
#include "evidence/intake.h"
#include "evidence/mapped_file.h"
#include "runtime/verdict.h"
#include "connectors/kueue/kueue_context.h"
#include "ir/civil_time.h"
#include "jit/jit_compiler.h"
#include "orchestrator/runner.h"
#include "service/service.h"
#include "service/postgres_session_store.h"
#include "sinks/postgres_claims.h"
#include "sinks/postgres_sink.h"
#include "sinks/sqlite_claims.h"
#include "sinks/sqlite_sink.h"
#include "sinks/stream_sink.h"
#include "tools/attrib/node_commands.h"
#include "tools/attrib/report_commands.h"
#include "tools/attrib/rule_set.h"
#include "tools/attrib/source_collector.h"
#include "tools/attrib/token_file.h"

namespace {

// Exit status (docs/workloads.md): a verdict; an error (rules, a workload.json that cannot be
// read, a sink); a usage error; a verdict on nothing (no evidence was read, or none any rule reads).
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNothingRead = 3;

void printError(const std::string& message) { fmt::print(stderr, "attrib: error: {}\n", message); }

struct DiagnoseOptions {
  std::vector<std::string> paths;  // files, directories, archives; "-" for standard input
  std::string workloadFile;
  std::vector<std::string> rules;
  std::string format;  // json or text; empty: text on a terminal, json otherwise
  bool noJit = false;
  std::string jitCache = attrib::jit::defaultCacheDir();
  bool noJitCache = false;
  unsigned threads = 0;
  bool timings = true;
  std::vector<std::string> sinks;  // stdout[:json|jsonl|text], sqlite:PATH, postgres:CONNINFO
  std::string report;              // also write the HTML report here (docs/report.md)
  std::string historyDb;           // add the bad nodes' earlier failures (docs/history.md)
};

// The sinks named on the command line (default: stdout in --format), opened before any work
// so that a bad sink fails fast. nullptr-free; empty with `error` on a bad spec.
std::vector<std::unique_ptr<attrib::sinks::Sink>> openSinks(const DiagnoseOptions& options, std::string* error) {
  std::vector<std::unique_ptr<attrib::sinks::Sink>> out;
  attrib::runtime::RenderOptions render;
  render.timings = options.timings;
  std::vector<std::string> specs = options.sinks.empty() ? std::vector<std::string>{"stdout"} : options.sinks;
  const std::string defaultFormat = !options.format.empty() ? options.format : ::isatty(STDOUT_FILENO) ? "text" : "json";
  for (const auto& spec : specs) {
    if (spec == "stdout" || spec.rfind("stdout:", 0) == 0) {
      std::string format = spec == "stdout" ? defaultFormat : spec.substr(7);
      attrib::sinks::StreamFormat f;
      if (!attrib::sinks::streamFormatFromName(format, &f)) {
        *error = fmt::format("--sink {}: the stdout formats are json, jsonl and text", spec);
        return {};
      }
      out.push_back(std::make_unique<attrib::sinks::StreamSink>(stdout, f, render));
    } else if (spec.rfind("sqlite:", 0) == 0 && spec.size() > 7) {
      auto sink = attrib::sinks::SqliteSink::open(spec.substr(7), error);
      if (!sink) return {};
      out.push_back(std::move(sink));
    } else if (spec.rfind("postgres:", 0) == 0 && spec.size() > 9) {
      auto sink = attrib::sinks::PostgresSink::open(spec.substr(9), error);
      if (!sink) return {};
      out.push_back(std::move(sink));
    } else {
      // Only the kind is echoed: a mistyped database spec may hold a password.
      *error = fmt::format("--sink {}: a sink is stdout, stdout:FORMAT, sqlite:PATH or postgres:CONNINFO", spec.substr(0, spec.find(':')));
      return {};
    }
  }
  return out;
}

int runDiagnose(const DiagnoseOptions& options) {
  std::string error;
  auto sinks = openSinks(options, &error);
  if (sinks.empty()) {
    printError(error);
    return kExitError;
  }
  std::shared_ptr<attrib::history::HistoryReader> history;
  if (!options.historyDb.empty() && !(history = attrib::tools::openHistory(options.historyDb, &error))) {
    printError(error);
    return kExitError;
  }
  attrib::tools::RuleSetOptions ruleSet;
  ruleSet.jit = !options.noJit;
  ruleSet.jitCacheDir = options.noJitCache ? "" : options.jitCache;
  ruleSet.rulesCacheDir = attrib::tools::defaultRulesCacheDir();
  auto engine = attrib::tools::loadRuleSet(attrib::tools::rulePaths(options.rules), ruleSet, &error);
  if (!engine) {
    printError(error);
    return kExitError;
  }
  attrib::evidence::Intake intake;
  if (!options.workloadFile.empty() && !intake.setWorkloadFile(options.workloadFile, &error)) {
    printError(error);
    return kExitError;
  }
  for (const auto& path : options.paths) {
    if (path != "-") {
      intake.addPath(path);
      continue;
    }
    if (::isatty(STDIN_FILENO)) {
      printError("'-' reads the log from standard input, but standard input is a terminal; pipe a log in "
                 "(cat job.log | attrib diagnose -)");
      return kExitUsage;
    }
    auto bytes = std::make_shared<std::string>();
    char buffer[1 << 16];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0;) bytes->append(buffer, n);
    if (std::ferror(stdin)) {
      printError("cannot read standard input");
      return kExitError;
    }
    intake.addBytes("stdin", std::move(bytes));
  }
  attrib::evidence::WorkloadEvidence evidence;
  if (!intake.finish(&evidence, &error)) {
    printError(error);
    return kExitError;
  }
  attrib::runtime::DiagnoseOptions diagnose;
  diagnose.scan.threads = options.threads;
  attrib::runtime::Verdict verdict = engine->diagnose(std::move(evidence), diagnose);
  if (history && !attrib::tools::addVerdictHistory(verdict, *history, &error)) {
    printError(error);
    return kExitError;
  }
  int status = kExitOk;
  for (auto& sink : sinks) {
    if (!sink->write(verdict, &error)) {
      printError(error);
      status = kExitError;
    }
  }
  if (!options.report.empty() && !attrib::tools::writeReport(verdict, options.report, &error)) {
    printError(error);
    status = kExitError;
  }
  if (status == kExitOk && !verdict.nothingRead.empty()) {
    printError(verdict.nothingRead);
    for (const auto& r : verdict.reports) {
      if (r.status != attrib::evidence::ConnectorReport::Status::Ok || !r.reason.empty()) {
        fmt::print(stderr, "  {}: {}{}\n", r.source, attrib::evidence::statusName(r.status), r.reason.empty() ? "" : ": " + r.reason);
      }
    }
    return kExitNothingRead;
  }
  return status;
}

struct RunCommandOptions {
  std::string config;
  bool watch = false;
  std::string since, until;
  std::optional<int64_t> interval;  // unset: the blueprint's
  int maxCycles = 0;
  bool noJit = false;
  std::string jitCache = attrib::jit::defaultCacheDir();
};

std::atomic<bool> gStop{false};
void onSignal(int) { gStop = true; }

int runBlueprintCommand(const RunCommandOptions& options) {
  namespace orch = attrib::orchestrator;
  std::string error;
  std::vector<std::string> rulePaths;
  if (!orch::blueprintRules(options.config, &rulePaths, &error)) {
    printError(error);
    return kExitError;
  }
  attrib::tools::RuleSetOptions ruleSet;
  ruleSet.jit = !options.noJit;
  ruleSet.jitCacheDir = options.jitCache;
  ruleSet.rulesCacheDir = attrib::tools::defaultRulesCacheDir();
  auto engine = attrib::tools::loadRuleSet(rulePaths, ruleSet, &error);
  if (!engine) {
    printError(error);
    return kExitError;
  }
  orch::BlueprintOverrides overrides;
  for (auto [text, slot] : {std::pair{&options.since, &overrides.since}, std::pair{&options.until, &overrides.until}}) {
    if (text->empty()) continue;
    *slot = attrib::parseRfc3339(*text);
    if (!*slot) {
      printError(fmt::format("'{}' is not an RFC 3339 time such as 2026-11-29T00:00:00Z", *text));
      return kExitUsage;
    }
  }
  orch::Blueprint blueprint;
  if (!orch::loadBlueprint(options.config, engine->bundle().program.metricNames(), overrides, &blueprint, &error)) {
    printError(error);
    return kExitError;
  }
  if (options.interval) blueprint.intervalSeconds = *options.interval;
  std::vector<std::unique_ptr<attrib::sinks::Sink>> sinks;
  // The state (which workloads are attributed; who attributes which): the first database sink.
  std::unique_ptr<attrib::sinks::WorkClaims> claims;
  for (const auto& spec : blueprint.sinks) {
    if (spec.kind == "stdout") {
      attrib::sinks::StreamFormat format;
      if (!attrib::sinks::streamFormatFromName(spec.format, &format)) {
        printError(fmt::format("{}: the stdout sink's format is json, jsonl or text, not '{}'", options.config, spec.format));
        return kExitError;
      }
      sinks.push_back(std::make_unique<attrib::sinks::StreamSink>(stdout, format));
    } else if (spec.kind == "postgres") {
      attrib::sinks::PostgresOptions pgOptions;
      pgOptions.maxBytes = spec.maxBytes;
      auto postgres = attrib::sinks::PostgresSink::open(spec.conninfo, &error, pgOptions);
      if (!postgres) {
        printError(error);
        return kExitError;
      }
      if (!claims) {
        attrib::sinks::ClaimOptions claimOptions;
        claimOptions.lease = blueprint.watch.lease;
        claimOptions.worker = blueprint.watch.worker;
        if (claimOptions.worker.empty()) {
          char host[256] = {};
          ::gethostname(host, sizeof host - 1);
          claimOptions.worker = fmt::format("{}:{}", host, ::getpid());
        }
        claims = attrib::sinks::PostgresClaims::open(spec.conninfo, *postgres, claimOptions, &error);
        if (!claims) {
          printError(error);
          return kExitError;
        }
      }
      sinks.push_back(std::move(postgres));
    } else {
      auto sqlite = attrib::sinks::SqliteSink::open(spec.path, &error);
      if (!sqlite) {
        printError(error);
        return kExitError;
      }
      if (!claims) claims = std::make_unique<attrib::sinks::SqliteClaims>(*sqlite);
      sinks.push_back(std::move(sqlite));
    }
  }
  if (options.watch && !claims) {
    printError("--watch needs a sqlite sink (one worker) or a postgres sink (any number of workers) in the blueprint: it remembers which workloads were attributed");
    return kExitUsage;
  }
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  bool tty = ::isatty(STDERR_FILENO);
  auto started = std::chrono::steady_clock::now();
  orch::RunEvents events;
  events.note = [&](const std::string& m) {
    if (tty) fmt::print(stderr, "\r\033[K");
    fmt::print(stderr, "attrib run: {}\n", m);
  };
  if (tty) {
    events.progress = [&](size_t done, size_t total) {
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
      int width = 30, filled = total ? static_cast<int>(width * done / total) : width;
      fmt::print(stderr, "\r[{}{}] {}/{} workloads, {:.1f}/s, ETA {:.0f}s", std::string(filled, '#'),
                 std::string(width - filled, '.'), done, total, rate, rate > 0 ? static_cast<double>(total - done) / rate : 0.0);
      if (done == total) fmt::print(stderr, "\n");
    };
  }
  orch::RunOptions run;
  run.watch = options.watch;
  run.maxCycles = options.maxCycles;
  run.stop = &gStop;
  orch::RunSummary summary = orch::runBlueprint(blueprint, *engine, sinks, claims.get(), run, events);
  claims.reset();  // before the sinks it writes through
  fmt::print(stderr, "attrib run: {} workload(s) found, {} attributed, {} already attributed, {} failed{}\n", summary.found,
             summary.attributed, summary.skipped, summary.failed,
             summary.elsewhere ? fmt::format(", {} held by other workers", summary.elsewhere) : "");
  return summary.failed > 0 ? kExitError : kExitOk;
}

struct ServeOptions {
  std::string listen = "127.0.0.1:8080";
  std::string tokenFile;
  std::vector<std::string> rules;
  // Signed, so that a negative value is refused by name instead of wrapping around.
  int64_t maxBody = 64 << 20;
  int64_t maxInFlight = 16;
  int64_t threads = 8;
  int64_t maxConnections = 1024;
  int64_t maxSessions = 1000;
  int64_t maxSessionBytes = int64_t{4} << 30;
  double sessionTtl = 3600, headerTimeout = 10, bodyTimeout = 60, idleTimeout = 30;
  bool noJit = false;
  std::string historyDb;  // GET /v1/nodes... (docs/history.md)
  attrib::tools::PolicyFlags historyPolicy;
  std::string sessions = "memory";  // or postgres:CONNINFO
  std::string sources;  // a blueprint whose `sources` POST /v1/attribution collects from
};


int runServe(const ServeOptions& options) {
  std::string error;
  attrib::service::ServiceOptions serviceOptions;
  auto count = [](int64_t v) { return v < 1 ? 0 : static_cast<size_t>(v); };
  auto millis = [](double seconds) {
    return std::chrono::milliseconds(seconds > 0 && seconds < 1e9 ? std::max<int64_t>(1, std::llround(seconds * 1000)) : 0);
  };
  serviceOptions.maxBodyBytes = count(options.maxBody);
  serviceOptions.maxInFlight = count(options.maxInFlight);
  serviceOptions.threads = static_cast<unsigned>(std::min<int64_t>(std::max<int64_t>(options.threads, 0), 1024));
  serviceOptions.maxConnections = count(options.maxConnections);
  serviceOptions.maxSessions = count(options.maxSessions);
  serviceOptions.maxSessionBytes = count(options.maxSessionBytes);
  serviceOptions.headerTimeout = millis(options.headerTimeout);
  serviceOptions.bodyTimeout = millis(options.bodyTimeout);
  serviceOptions.idleTimeout = millis(options.idleTimeout);
  serviceOptions.sessionTtl = std::chrono::seconds(options.sessionTtl >= 1 && options.sessionTtl < 1e9 ? std::llround(options.sessionTtl) : 0);
  if (std::string bad = attrib::service::checkOptions(serviceOptions); !bad.empty()) {
    printError(bad);
    return kExitUsage;
  }
  auto policy = attrib::tools::policyOf(options.historyPolicy, &error);
  if (!policy) {
    printError(error);
    return kExitUsage;
  }
  serviceOptions.historyPolicy = *policy;
  if (!options.historyDb.empty() && !(serviceOptions.history = attrib::tools::openHistory(options.historyDb, &error))) {
    printError(error);
    return kExitError;
  }
  attrib::tools::RuleSetOptions ruleSet;
  ruleSet.jit = !options.noJit;
  ruleSet.jitCacheDir = attrib::jit::defaultCacheDir();
  ruleSet.rulesCacheDir = attrib::tools::defaultRulesCacheDir();
  std::vector<std::string> rulePaths = attrib::tools::rulePaths(options.rules);
  auto engine = attrib::tools::loadRuleSet(rulePaths, ruleSet, &error);
  if (!engine) {
    printError(error);
    return kExitError;
  }
  if (!options.sources.empty()) {
    std::vector<std::unique_ptr<attrib::connectors::EvidenceSource>> sources;
    std::vector<std::string> kinds;
    if (!attrib::orchestrator::loadSources(options.sources, engine->bundle().program.metricNames(), &sources, &kinds, &error)) {
      printError(error);
      return kExitError;
    }
    serviceOptions.collector = std::make_shared<attrib::tools::SourceCollector>(std::move(sources), std::move(kinds));
  }
  static std::mutex logMu;
  serviceOptions.accessLog = [](const std::string& line) {
    std::lock_guard<std::mutex> lock(logMu);
    fmt::print(stderr, "{}\n", line);
  };
  serviceOptions.reload = [rulePaths, ruleSet](std::string* why) { return attrib::tools::loadRuleSet(rulePaths, ruleSet, why); };
  if (!options.tokenFile.empty() && !attrib::tools::readTokenFile(options.tokenFile, &serviceOptions.token, &error)) {
    printError(error);
    return kExitError;
  }
  size_t colon = options.listen.rfind(':');
  int port = colon == std::string::npos ? -1 : std::atoi(options.listen.c_str() + colon + 1);
  if (colon == std::string::npos || port < 0 || port > 65535) {
    printError(fmt::format("--listen wants HOST:PORT, not '{}'", options.listen));
    return kExitUsage;
  }
  if (options.sessions.rfind("postgres:", 0) == 0 && options.sessions.size() > 9) {
    attrib::service::SessionLimits limits;
    limits.maxSessions = serviceOptions.maxSessions;
    limits.maxObservationsPerSession = serviceOptions.maxObservationsPerSession;
    limits.maxSessionFileBytes = serviceOptions.maxSessionFileBytes;
    limits.maxBytes = serviceOptions.maxSessionBytes;
    limits.ttl = serviceOptions.sessionTtl;
    auto store = attrib::service::PostgresSessionStore::open(options.sessions.substr(9), limits, &error, serviceOptions.threads);
    if (!store) {
      printError(error);
      return kExitError;
    }
    serviceOptions.store = std::move(store);
  } else if (options.sessions != "memory") {
    printError("--sessions wants memory or postgres:CONNINFO");  // never echoed: it may hold a password
    return kExitUsage;
  }
  attrib::service::Service service(engine, serviceOptions);
  int bound = service.bind(options.listen.substr(0, colon), port, &error);
  if (bound < 0) {
    printError(error);
    return kExitError;
  }
  // Signal handlers only set a flag (stopping the server is not async-signal-safe); a watcher
  // stops it, and in-flight requests finish first.
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  std::thread watcher([&service] {
    while (!gStop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    service.stop();
  });
  fmt::print(stderr, "attrib serve: listening on {}:{} ({} rules {}, evaluator {}{})\n", options.listen.substr(0, colon), bound,
             engine->bundle().program.name, engine->bundle().digest, engine->evaluator().name,
             serviceOptions.token.empty() ? ", no token" : "");
  service.serve();
  gStop = true;
  watcher.join();
  fmt::print(stderr, "attrib serve: stopped\n");
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // glibc raises its mmap threshold to the largest block freed (up to 32 MiB), after which the
  // per-file instance vectors and the merged one (megabytes at high match densities) come from
  // the brk heap, whose freed middle it cannot give back: 24 MB of peak RSS on the dense
  // benchmark. Fixed at glibc's default, blocks of 128 KiB and more stay mapped and go back to
  // the system when freed (docs/performance.md, "High match density").
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  // Plain log files are scanned where they are mapped, not copied (evidence/mapped_file.h); the
  // guard that keeps a file truncated under its mapping from killing the process is the
  // program's to install. Without it, files are read through read(2).
  attrib::evidence::enableMappedReads();
  CLI::App app{"attrib: root causes of failed distributed AI workloads", "attrib"};
  app.set_version_flag("--version", std::string("attrib ") + ATTRIB_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'attrib COMMAND --help' for the options of a command. Docs: docs/workloads.md, docs/verdict.md");

  DiagnoseOptions diagnose;
  CLI::App* diagnoseCmd = app.add_subcommand("diagnose", "Attribute one workload from its logs: files, directories, archives");
  diagnoseCmd->add_option("paths", diagnose.paths,
                          "Log files, directories (any layout; a workload directory's workload.json, logs/, metrics/), "
                          "archives (.tar, .tar.gz, .zip, ...), or - for standard input")
      ->required();
  diagnoseCmd->add_option("--workload", diagnose.workloadFile,
                          "A workload.json with the job's state and layout (docs/workloads.md)");
  diagnoseCmd->add_option("--rules", diagnose.rules,
                          "Rules: a bundle from 'attribc build', or .attr files/directories layered on the stdlib, "
                          "repeatable (default: $ATTRIB_RULES, else the stdlib)")
      ->allow_extra_args(false);
  diagnoseCmd->add_option("--format", diagnose.format,
                          "json (the verdict) or text (a short summary); default text on a terminal, json otherwise")
      ->check(CLI::IsMember({"json", "text"}));
  diagnoseCmd->add_flag("--no-jit", diagnose.noJit,
                        "Evaluate predicates with the interpreter instead of compiling them to native code");
  diagnoseCmd->add_option("--jit-cache", diagnose.jitCache,
                          "Directory for compiled predicates (default: $ATTRIB_JIT_CACHE, else ~/.cache/attrib/jit)");
  diagnoseCmd->add_flag("--no-jit-cache", diagnose.noJitCache, "Compile predicates afresh and cache nothing");
  diagnoseCmd->add_option("--threads", diagnose.threads, "Threads for scanning logs (default: one per core)");
  diagnoseCmd->add_option("--sink", diagnose.sinks,
                          "Where the verdict goes, repeatable: stdout (in --format), stdout:json|jsonl|text, "
                          "sqlite:PATH, postgres:CONNINFO (keyword=value or a postgresql:// URL; docs/sinks.md); default stdout");
  diagnoseCmd->add_flag("--no-timings{false}", diagnose.timings,
                        "Render elapsed times as 0, for byte-identical verdicts");
  diagnoseCmd->add_option("--report", diagnose.report, "Also write the verdict's HTML report to this file (docs/report.md)");
  diagnoseCmd->add_option("--history-db", diagnose.historyDb, "Add each bad node's earlier failures from this verdict database: PATH (SQLite) or postgres:CONNINFO (docs/history.md)");

  RunCommandOptions runOptions;
  CLI::App* runCmd = app.add_subcommand("run", "Attribute every finished workload a blueprint's context finds (docs/orchestrator.md)");
  runCmd->add_option("--config", runOptions.config, "The blueprint (YAML): context, sources, rules, sinks")->required();
  runCmd->add_flag("--watch", runOptions.watch, "Keep polling; never attribute a workload twice (needs a sqlite sink, or a postgres sink for several workers)");
  runCmd->add_option("--since", runOptions.since, "Only workloads that ended at or after this time (RFC 3339)");
  runCmd->add_option("--until", runOptions.until, "Only workloads that ended before this time (RFC 3339)");
  runCmd->add_option("--interval", runOptions.interval,
                     "Seconds between polls in --watch mode (default: the blueprint's, or 60; 0 only with --max-cycles)");
  runCmd->add_option("--max-cycles", runOptions.maxCycles, "Stop --watch after this many polls");
  runCmd->add_flag("--no-jit", runOptions.noJit, "Evaluate predicates with the interpreter");
  runCmd->add_option("--jit-cache", runOptions.jitCache, "Directory for compiled predicates");

  ServeOptions serve;
  CLI::App* serveCmd = app.add_subcommand("serve", "Serve attribution over HTTP (docs/service.md)");
  serveCmd->add_option("--listen", serve.listen, "HOST:PORT (port 0: any free port)")->capture_default_str();
  serveCmd->add_option("--token-file", serve.tokenFile, "Require this bearer token (read from the file)");
  serveCmd->add_option("--rules", serve.rules,
                       "A bundle, or .attr rule sets layered on the stdlib, repeatable (default: $ATTRIB_RULES, else "
                       "the stdlib)")
      ->allow_extra_args(false);
  serveCmd->add_option("--max-body", serve.maxBody, "Largest request body, in bytes (413 beyond)")->capture_default_str();
  serveCmd->add_option("--max-in-flight", serve.maxInFlight, "Requests handled at once; more get 503")->capture_default_str();
  serveCmd->add_option("--threads", serve.threads, "Worker threads for requests")->capture_default_str();
  serveCmd->add_option("--max-connections", serve.maxConnections, "Connections open at once (idle ones give way)")
      ->capture_default_str();
  serveCmd->add_option("--header-timeout", serve.headerTimeout, "Seconds for a request's head, from its first byte (408 beyond)")
      ->capture_default_str();
  serveCmd->add_option("--body-timeout", serve.bodyTimeout, "Seconds for a request's body (408 beyond)")->capture_default_str();
  serveCmd->add_option("--idle-timeout", serve.idleTimeout, "Seconds a keep-alive connection waits for its next request")
      ->capture_default_str();
  serveCmd->add_option("--max-sessions", serve.maxSessions, "Sessions at once (429 beyond)")->capture_default_str();
  serveCmd->add_option("--max-session-bytes", serve.maxSessionBytes, "Bytes all sessions' evidence may take (507 beyond)")
      ->capture_default_str();
  serveCmd->add_option("--session-ttl", serve.sessionTtl, "Seconds an idle session lives")->capture_default_str();
  serveCmd->add_option("--sessions", serve.sessions,
                       "Where sessions live: memory, or postgres:CONNINFO shared by every replica (docs/service.md)")
      ->capture_default_str();
  serveCmd->add_flag("--no-jit", serve.noJit, "Evaluate predicates with the interpreter");
  serveCmd->add_option("--history-db", serve.historyDb, "Serve GET /v1/nodes... from this verdict database: PATH (SQLite) or postgres:CONNINFO");
  attrib::tools::addPolicyFlags(serveCmd, serve.historyPolicy);
  serveCmd->add_option("--sources", serve.sources,
                       "A blueprint whose sources (files, loki, prometheus, pod_logs) POST /v1/attribution collects from");

  attrib::tools::ReportCommandOptions report;
  CLI::App* reportCmd = app.add_subcommand("report", "Write the HTML report of a verdict (docs/report.md)");
  reportCmd->add_option("verdict", report.verdict, "A verdict JSON file from 'attrib diagnose', or - for stdin")
      ->capture_default_str();
  reportCmd->add_option("-o,--output", report.output, "The HTML file to write, or - for stdout")->capture_default_str();

  attrib::tools::DashboardCommandOptions dashboard;
  CLI::App* dashboardCmd = app.add_subcommand("dashboard", "Serve read-only pages over a verdict database (docs/report.md)");
  dashboardCmd->add_option("database", dashboard.database, "The SQLite database of a sqlite sink")->required();
  dashboardCmd->add_option("--listen", dashboard.listen, "HOST:PORT (port 0: any free port)")->capture_default_str();
  dashboardCmd->add_option("--token-file", dashboard.tokenFile, "Require this bearer token (read from the file)");
  dashboardCmd->add_option("--query-timeout", dashboard.queryTimeoutMs, "Milliseconds a page's queries may run")
      ->capture_default_str();

  attrib::tools::NodesCommandOptions nodes;
  CLI::App* nodesCmd = attrib::tools::addNodesCommand(app, nodes);

  if (auto status = attrib::tools::parseCommandLine(app, argc, argv)) return *status;
  if (*nodesCmd) return attrib::tools::runNodes(nodes);
  if (*reportCmd) return attrib::tools::runReport(report);
  if (*dashboardCmd) return attrib::tools::runDashboard(dashboard);
  if (*diagnoseCmd) return runDiagnose(diagnose);
  if (*serveCmd) return runServe(serve);
  if (*runCmd) {
    // A zero interval polls without pause: only for a bounded number of cycles (tests do).
    if (runOptions.interval && (*runOptions.interval < 0 || (*runOptions.interval == 0 && runOptions.maxCycles <= 0))) {
      printError(fmt::format("--interval must be at least 1 second (0 only with --max-cycles), not {}", *runOptions.interval));
      return kExitUsage;
    }
    return runBlueprintCommand(runOptions);
  }
  return kExitUsage;
}
