// attribc bench-patterns: what each log pattern of a rule set costs Hyperscan, measured on logs
// the user gives, so a rule author sees which pattern slows every scan before it ships.
//
// It compiles what `attribc build` compiles into a bundle's database (every distinct pattern in
// its scan form, compiler/scan_form.h, then the channel markers and telling words), scans the
// logs' bytes held in memory (the scan loop only: no reading, no confirmation), and prints
//   - the whole database: time, throughput, candidate lines;
//   - a baseline of as many plain literals, each pattern's longest literal factor: what a
//     pattern set of the same size costs when every pattern is a literal;
//   - every pattern alone, costliest first: its time above an empty scan of the same bytes and
//     the lines it makes candidates (each one a PCRE2 confirmation at run time); --top 0
//     skips this part (bench/run wants only the database figures of a large input).
// Times are the best of --reps runs; only their ratios mean anything across machines.
#include <fmt/format.h>
#include <hs/hs.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/bundle_writer.h"
#include "compiler/compilation.h"
#include "compiler/lower.h"
#include "compiler/scan_form.h"
#include "evidence/log_reader.h"
#include "ir/bundle_format.h"
#include "ir/log_channels.h"
#include "ir/telling_words.h"
#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"

namespace attrib::tools {
namespace {

constexpr uint64_t kMaxBytes = uint64_t{2} << 30;  // the logs are held in memory

using Database = std::unique_ptr<hs_database_t, decltype(&hs_free_database)>;

struct Expression {
  std::string regex;
  unsigned flags = HS_FLAG_MULTILINE;
};

// A literal as a Hyperscan expression: every byte that is not a letter or digit as \xHH.
std::string literalExpression(const std::string& literal) {
  std::string out;
  for (unsigned char c : literal) out += std::isalnum(c) ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
  return out;
}

Database compile(const std::vector<Expression>& expressions, std::string* error) {
  std::vector<const char*> regexes;
  std::vector<unsigned> flags, ids;
  for (size_t i = 0; i < expressions.size(); ++i) {
    regexes.push_back(expressions[i].regex.c_str());
    flags.push_back(expressions[i].flags);
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* compileError = nullptr;
  if (hs_compile_multi(regexes.data(), flags.data(), ids.data(), static_cast<unsigned>(regexes.size()), HS_MODE_BLOCK,
                       nullptr, &db, &compileError) != HS_SUCCESS) {
    *error = compileError && compileError->message ? compileError->message : "Hyperscan cannot compile the patterns";
    hs_free_compile_error(compileError);
    return Database(nullptr, hs_free_database);
  }
  return Database(db, hs_free_database);
}

// The logs: each file's (decompressed) bytes, read as attrib reads them.
struct Logs {
  std::vector<std::string> files;  // contents
  uint64_t bytes = 0;
  size_t lines = 0;
};

bool readLogs(const std::vector<std::string>& paths, Logs* logs, std::string* error) {
  std::vector<std::string> names;
  for (const std::string& path : paths) {
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) {
      *error = fmt::format("cannot read the logs '{}': no such file or directory", path);
      return false;
    }
    if (std::filesystem::is_directory(status)) {
      std::vector<std::string> found;
      for (auto it = std::filesystem::recursive_directory_iterator(path, ec); !ec && it != std::filesystem::end(it); it.increment(ec)) {
        if (it->is_regular_file()) found.push_back(it->path().string());
      }
      if (ec) {
        *error = fmt::format("cannot walk the directory '{}': {}", path, ec.message());
        return false;
      }
      std::sort(found.begin(), found.end());
      names.insert(names.end(), found.begin(), found.end());
    } else {
      names.push_back(path);
    }
  }
  for (const std::string& name : names) {
    auto reader = evidence::LogReader::open(name);
    std::string bytes;
    evidence::LogChunk chunk;
    while (reader->next(chunk)) {
      bytes.append(chunk.data);
      logs->lines += chunk.lineCount();
      if (logs->bytes + bytes.size() > kMaxBytes) {
        *error = fmt::format("the logs hold more than {} GiB; give fewer files (they are scanned in memory)", kMaxBytes >> 30);
        return false;
      }
    }
    if (!reader->error().empty()) {
      *error = reader->error();
      return false;
    }
    logs->bytes += bytes.size();
    if (!bytes.empty()) logs->files.push_back(std::move(bytes));
  }
  if (logs->bytes == 0) {
    *error = "the logs hold no bytes to scan";
    return false;
  }
  return true;
}

struct ScanResult {
  double seconds = 0;
  uint64_t candidateLines = 0;  // lines with at least one match
};

struct Counter {
  const std::string* bytes;
  uint64_t lines = 0;
  bool counted = false;
  size_t lineEnd = 0;  // the '\n' (or the end) of the last line counted
};

// A match's line is the one holding its last byte. Matches arrive in order of their end, so
// a line counts once when its matches come together.
int onMatch(unsigned, unsigned long long, unsigned long long to, unsigned, void* context) {
  auto* c = static_cast<Counter*>(context);
  const size_t last = to > 0 ? static_cast<size_t>(to - 1) : 0;
  if (c->counted && last <= c->lineEnd) return 0;
  size_t end = c->bytes->find('\n', last);
  c->lineEnd = end == std::string::npos ? c->bytes->size() : end;
  c->counted = true;
  ++c->lines;
  return 0;
}

bool scan(const hs_database_t* db, const Logs& logs, int reps, ScanResult* result, std::string* error) {
  hs_scratch_t* scratch = nullptr;
  if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) {
    *error = "Hyperscan cannot allocate scratch space";
    return false;
  }
  result->seconds = 1e30;
  for (int r = 0; r < reps; ++r) {
    uint64_t lines = 0;
    auto start = std::chrono::steady_clock::now();
    for (const std::string& bytes : logs.files) {
      Counter counter{&bytes};
      hs_scan(db, bytes.data(), static_cast<unsigned>(bytes.size()), 0, scratch, onMatch, &counter);
      lines += counter.lines;
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result->seconds = std::min(result->seconds, s);
    result->candidateLines = lines;
  }
  hs_free_scratch(scratch);
  return true;
}

struct PatternCost {
  std::string symptom;  // the first symptom using it (others share it)
  size_t users = 0;     // symptoms using it
  std::string flags, form, literal;
  double ms = 0;
  uint64_t candidateLines = 0;
};

}  // namespace

int runBenchPatterns(const BenchPatternsOptions& options) {
  if (options.logs.empty()) {
    printError("say which logs to measure on: --logs PATH (files or directories)");
    return kExitUsage;
  }
  if (options.reps < 1 || options.top < 0) {
    printError("--reps must be at least 1 and --top at least 0");
    return kExitUsage;
  }
  DiagnosticSink sink;
  Compilation compilation(sink);
  if (int status = readAndCheck(compilation, options.rules, options.color, "nothing was measured"); status != kExitOk) {
    return status;
  }
  ir::Program program = lower(compilation);
  std::vector<std::vector<PatternRef>> table = logExpressionTable(program);
  if (table.empty()) {
    printError("the rules have no log patterns to measure");
    return kExitProblems;
  }
  Logs logs;
  std::string error;
  if (!readLogs(options.logs, &logs, &error)) {
    printError(error);
    return kExitUsage;
  }

  std::vector<PatternCost> costs;
  std::vector<Expression> patterns, literals;
  for (const auto& refs : table) {
    const ir::Pattern& p = program.symptoms[refs[0].symptom].patterns[refs[0].pattern];
    PatternCost c;
    c.symptom = program.symptoms[refs[0].symptom].name;
    c.users = refs.size();
    c.flags = p.flags;
    c.form = scanForm(p.regex).expression;
    c.literal = literalFactor(c.form);
    patterns.push_back({c.form, scanFlags(p.flags)});
    if (!c.literal.empty()) literals.push_back({literalExpression(c.literal), scanFlags(p.flags) & ~(HS_FLAG_UTF8 | HS_FLAG_UCP)});
    costs.push_back(std::move(c));
  }
  std::vector<Expression> whole = patterns;
  for (const auto& m : ir::markerExpressions()) whole.push_back({m.regex, HS_FLAG_MULTILINE});
  for (const auto& w : ir::tellingWords()) whole.push_back({std::string(w.regex), HS_FLAG_MULTILINE | HS_FLAG_CASELESS});

  auto measure = [&](const std::vector<Expression>& expressions, ScanResult* result) {
    Database db = compile(expressions, &error);
    return db && scan(db.get(), logs, options.reps, result, &error);
  };
  // A pattern set without any literal still gets a baseline: one that never matches.
  if (literals.empty()) literals.push_back({"\\x00\\x01\\x02never", HS_FLAG_MULTILINE});
  ScanResult all, onlyPatterns, literalBaseline, empty;
  if (!measure(whole, &all) || !measure(patterns, &onlyPatterns) || !measure(literals, &literalBaseline) ||
      !measure({{"\\x00\\x01\\x02never", HS_FLAG_MULTILINE}}, &empty)) {
    printError(error);
    return kExitProblems;
  }
  const size_t shown = std::min(costs.size(), static_cast<size_t>(options.top));
  for (size_t i = 0; shown > 0 && i < costs.size(); ++i) {
    ScanResult alone;
    if (!measure({patterns[i]}, &alone)) {
      printError(fmt::format("symptom {}: {}", costs[i].symptom, error));
      return kExitProblems;
    }
    costs[i].ms = std::max(0.0, (alone.seconds - empty.seconds) * 1e3);
    costs[i].candidateLines = alone.candidateLines;
  }
  std::vector<size_t> order(costs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return costs[a].ms > costs[b].ms; });
  auto gbps = [&](const ScanResult& r) { return r.seconds > 0 ? static_cast<double>(logs.bytes) / r.seconds / 1e9 : 0.0; };
  const double ratio = literalBaseline.seconds > 0 ? onlyPatterns.seconds / literalBaseline.seconds : 0;

  if (options.format == "json") {
    nlohmann::json out;
    out["bytes"] = logs.bytes;
    out["files"] = logs.files.size();
    out["lines"] = logs.lines;
    out["reps"] = options.reps;
    auto row = [&](const ScanResult& r, size_t n) {
      return nlohmann::json{{"expressions", n}, {"ms", r.seconds * 1e3}, {"gb_per_s", gbps(r)}, {"candidate_lines", r.candidateLines}};
    };
    out["database"] = row(all, whole.size());
    out["patterns"] = row(onlyPatterns, patterns.size());
    out["literal_baseline"] = row(literalBaseline, literals.size());
    out["empty_scan_ms"] = empty.seconds * 1e3;
    out["patterns_over_literals"] = ratio;
    nlohmann::json each = nlohmann::json::array();
    for (size_t k = 0; k < shown; ++k) {
      const PatternCost& c = costs[order[k]];
      each.push_back({{"symptom", c.symptom}, {"symptoms", c.users}, {"flags", c.flags}, {"scan_form", c.form},
                      {"literal", c.literal}, {"ms", c.ms}, {"candidate_lines", c.candidateLines}});
    }
    out["costliest"] = each;
    fmt::print("{}\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return kExitOk;
  }
  fmt::print("{:.1f} MB in {} file{}, {} lines; best of {} run{}\n", logs.bytes / 1e6, logs.files.size(),
             logs.files.size() == 1 ? "" : "s", logs.lines, options.reps, options.reps == 1 ? "" : "s");
  fmt::print("  whole database ({} patterns, {} channel markers, {} telling words): {:.1f} ms, {:.2f} GB/s, {} candidate lines\n",
             patterns.size(), ir::markerExpressions().size(), ir::tellingWords().size(), all.seconds * 1e3, gbps(all),
             all.candidateLines);
  fmt::print("  the patterns alone: {:.1f} ms, {:.2f} GB/s, {} candidate lines\n", onlyPatterns.seconds * 1e3,
             gbps(onlyPatterns), onlyPatterns.candidateLines);
  fmt::print("  their {} longest literal factors, as plain literals: {:.1f} ms, {:.2f} GB/s (patterns / literals: {:.2f}x)\n",
             literals.size(), literalBaseline.seconds * 1e3, gbps(literalBaseline), ratio);
  if (shown == 0) return kExitOk;
  fmt::print("costliest patterns, each alone (ms above an empty scan of {:.1f} ms):\n", empty.seconds * 1e3);
  fmt::print("  {:>8}  {:>10}  {:>7}  {}\n", "ms", "candidates", "literal", "symptom: scan form");
  for (size_t k = 0; k < shown; ++k) {
    const PatternCost& c = costs[order[k]];
    std::string form = c.form.size() > 100 ? c.form.substr(0, 97) + "..." : c.form;
    fmt::print("  {:>8.1f}  {:>10}  {:>7}  {}{}: /{}/{}\n", c.ms, c.candidateLines, c.literal.size(), c.symptom,
               c.users > 1 ? fmt::format(" (+{})", c.users - 1) : "", form, c.flags);
  }
  return kExitOk;
}

}  // namespace attrib::tools
