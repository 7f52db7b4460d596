#include "runtime/log_scanner.h"

#include <fmt/format.h>
#include <hs/hs.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <map>
#include <memory>
#include <thread>

#include <sys/stat.h>
#include <cstring>

#include "runtime/interpreter.h"

namespace attrib::runtime {
namespace {

using evidence::LinePrefix;
using evidence::LogChunk;
using evidence::LogReader;
using evidence::PrefixOptions;
using evidence::parseLinePrefix;

struct Hit {
  uint32_t line;     // index in the chunk
  uint32_t pattern;  // Hyperscan id
  bool operator<(const Hit& o) const { return line != o.line ? line < o.line : pattern < o.pattern; }
  bool operator==(const Hit& o) const { return line == o.line && pattern == o.pattern; }
};

struct MatchState {
  const LogChunk* chunk;
  std::vector<Hit>* hits;
};

// Hyperscan reports the end offset of each match; the line is the one holding its last byte.
int onMatch(unsigned id, unsigned long long, unsigned long long to, unsigned, void* context) {
  auto* state = static_cast<MatchState*>(context);
  const auto& starts = state->chunk->lineStarts;
  uint64_t last = to > 0 ? to - 1 : 0;
  auto it = std::upper_bound(starts.begin(), starts.end(), static_cast<uint32_t>(last));
  uint32_t line = static_cast<uint32_t>(it - starts.begin()) - 1;
  state->hits->push_back({line, id});
  return 0;
}

std::string_view stripCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Per-file scanning state and the work of turning matched lines into instances.
class FileScan {
 public:
  FileScan(const Bundle& bundle, const RegexTable& regexes, const Workload& workload, const LogFile& file,
           const LogScanOptions& options, hs_scratch_t* scratch, const std::vector<const LogLine*>* lines = nullptr)
      : bundle_(bundle), regexes_(regexes), workload_(workload), file_(file), options_(options), scratch_(scratch),
        lines_(lines) {
    // Syslog dates have no year: the workload's start supplies it, or failing that the file's
    // modification time (when the job stopped writing it).
    prefix_.referenceTime = workload.start;
    if (!prefix_.referenceTime && file.bytes) {
      prefix_.referenceTime = file.modified;
    } else if (!prefix_.referenceTime && !file.path.empty()) {
      struct stat st;
      if (::stat(file.path.c_str(), &st) == 0) {
        prefix_.referenceTime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
      }
    }
    prefix_.srunLabels = file.source == "applog";
    lastTime_ = workload.start.value_or(0);
    // Which symptoms may read this file's source.
    const auto& symptoms = bundle.program.symptoms;
    readsSource_.resize(symptoms.size());
    for (size_t s = 0; s < symptoms.size(); ++s) {
      const auto& srcs = symptoms[s].sources;
      readsSource_[s] = srcs.empty() || std::find(srcs.begin(), srcs.end(), file.source) != srcs.end();
    }
  }

  // Scans in-memory lines (the `lines` given at construction) as one chunk.
  ConnectorReport runLines(std::vector<Instance>& out, uint64_t* lines) {
    std::string data;
    LogChunk chunk;
    for (const LogLine* l : *lines_) {
      chunk.lineStarts.push_back(static_cast<uint32_t>(data.size()));
      // A newline inside a delivered line would split it; it stands for a space instead.
      for (char c : l->text) data += c == '\n' ? ' ' : c;
      data += '\n';
    }
    chunk.data = data;
    ConnectorReport report;
    report.connector = "memory";
    report.source = file_.node.empty() ? file_.source : file_.node + "/" + file_.source;
    report.observations = lines_->size();
    report.bytes = data.size();
    *lines = lines_->size();
    if (bundle_.logDatabase && !data.empty()) {
      std::vector<Hit> hits;
      MatchState state{&chunk, &hits};
      hs_error_t rc = hs_scan(bundle_.logDatabase.get(), chunk.data.data(), static_cast<unsigned>(chunk.data.size()), 0,
                              scratch_, onMatch, &state);
      if (rc != HS_SUCCESS) {
        report.status = ConnectorReport::Status::Error;
        report.reason = fmt::format("Hyperscan scan failed (error {})", rc);
        return report;
      }
      std::sort(hits.begin(), hits.end());
      hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
      extract(chunk, hits, out);
    }
    if (lines_->empty()) report.status = ConnectorReport::Status::Empty;
    for (const auto& n : regexLimitNotes(bundle_.program, regexLimited_)) {
      report.status = ConnectorReport::Status::Partial;
      report.reason += (report.reason.empty() ? "" : "; ") + n;
    }
    return report;
  }

  ConnectorReport run(std::vector<Instance>& out, uint64_t* lines) {
    auto started = std::chrono::steady_clock::now();
    ConnectorReport report;
    report.connector = "files";
    report.source = !file_.name.empty() ? file_.name : file_.node.empty() ? file_.source : file_.node + "/" + file_.source;
    auto reader = file_.bytes ? LogReader::openMemory(file_.bytes, file_.path, file_.readError, options_.reader)
                              : LogReader::open(file_.path, options_.reader);
    LogChunk chunk;
    std::vector<Hit> hits;
    uint64_t lineCount = 0;
    while (reader->next(chunk)) {
      lineCount += chunk.lineCount();
      if (bundle_.logDatabase) {
        hits.clear();
        MatchState state{&chunk, &hits};
        hs_error_t rc = hs_scan(bundle_.logDatabase.get(), chunk.data.data(), static_cast<unsigned>(chunk.data.size()),
                                0, scratch_, onMatch, &state);
        if (rc != HS_SUCCESS) {
          report.status = ConnectorReport::Status::Partial;
          report.reason = fmt::format("Hyperscan scan failed (error {}) at byte {}", rc, chunk.offset);
          break;
        }
        std::sort(hits.begin(), hits.end());
        hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
        extract(chunk, hits, out);
      }
      rememberLastTime(chunk);
    }
    report.observations = lineCount;
    report.bytes = reader->bytesRead();
    *lines = lineCount;
    if (!reader->error().empty()) {
      report.status = lineCount > 0 ? ConnectorReport::Status::Partial : ConnectorReport::Status::Error;
      report.reason = reader->error();
    } else if (report.reason.empty()) {
      report.status = lineCount == 0 ? ConnectorReport::Status::Empty : ConnectorReport::Status::Ok;
      if (lineCount == 0) report.reason = "the file is empty";
    }
    // Notes on evidence that was read but not as expected; the status stays as it is.
    std::vector<std::string> notes;
    if (!report.reason.empty()) notes.push_back(report.reason);
    if (reader->truncatedLines() > 0) {
      notes.push_back(fmt::format("{} line(s) longer than {} bytes were cut", reader->truncatedLines(),
                                  options_.reader.maxLineBytes));
    }
    // Binary data is scanned like text, but the report says it was there.
    if (reader->sawBinary()) notes.push_back("binary data (NUL bytes)");
    // Continuation lines (tracebacks) without a time of their own are normal; a file in which
    // no line checked had one is not, and every time taken from it is an estimate.
    if (timesChecked_ > 0 && timesFound_ == 0) {
      notes.push_back("no line had a recognisable timestamp; times were estimated");
    }
    for (auto& n : regexLimitNotes(bundle_.program, regexLimited_)) notes.push_back(std::move(n));
    if (!regexLimited_.empty() && report.status == ConnectorReport::Status::Ok) report.status = ConnectorReport::Status::Partial;
    report.reason.clear();
    for (const auto& n : notes) report.reason += (report.reason.empty() ? "" : "; ") + n;
    report.elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    return report;
  }

 private:
  // The time of line `i` of the chunk, or of the nearest earlier line that has one.
  std::pair<int64_t, bool> timeOf(const LogChunk& chunk, size_t i, const LinePrefix& prefix) {
    ++timesChecked_;
    if (prefix.time) {
      ++timesFound_;
      return {*prefix.time, true};
    }
    if (prefix.monotonic && anchor_) {
      ++timesFound_;
      return {*anchor_ + *prefix.monotonic, true};
    }
    constexpr size_t kLookBack = 256;
    for (size_t k = i; k-- > 0 && i - k <= kLookBack;) {
      LinePrefix p = parseLinePrefix(stripCr(chunk.line(k)), prefix_);
      if (p.time) return {*p.time, false};
      if (p.monotonic && anchor_) return {*anchor_ + *p.monotonic, false};
    }
    return {lastTime_, false};
  }

  void rememberLastTime(const LogChunk& chunk) {
    for (size_t k = chunk.lineCount(), seen = 0; k-- > 0 && seen < 64; ++seen) {
      LinePrefix p = parseLinePrefix(stripCr(chunk.line(k)), prefix_);
      ++timesChecked_;
      if (p.time) {
        ++timesFound_;
        lastTime_ = *p.time;
        return;
      }
    }
  }

  void extract(const LogChunk& chunk, const std::vector<Hit>& hits, std::vector<Instance>& out) {
    const ir::Program& program = bundle_.program;
    size_t h = 0;
    while (h < hits.size()) {
      uint32_t lineIndex = hits[h].line;
      std::string_view line = stripCr(chunk.line(lineIndex));
      LinePrefix prefix = parseLinePrefix(line, prefix_);
      const LogLine* given = lines_ ? (*lines_)[lineIndex] : nullptr;
      if (given && given->time) prefix.time = given->time;
      if (prefix.time && prefix.monotonic && !anchor_) anchor_ = *prefix.time - *prefix.monotonic;
      bool timed = false;
      int64_t time = 0;
      bool haveTime = false;
      int32_t lastSymptom = -1;
      for (; h < hits.size() && hits[h].line == lineIndex; ++h) {
        const PatternRef& ref = bundle_.logPatterns[hits[h].pattern];
        if (ref.symptom == lastSymptom || !readsSource_[ref.symptom]) continue;  // one instance per symptom and line
        Instance inst;
        // PCRE2 confirms the match on this line alone (a pattern such as [^x]* could have
        // matched across lines in the chunk) and extracts the named captures.
        bool limited = false;
        if (!regexes_.pattern(ref.symptom, ref.pattern).match(line, &inst.captures, &limited)) {
          if (limited) ++regexLimited_[ref.symptom];  // said in the report: never a silent non-match
          continue;
        }
        lastSymptom = ref.symptom;
        if (!haveTime) {
          std::tie(time, timed) = timeOf(chunk, lineIndex, prefix);
          haveTime = true;
        }
        inst.symptom = ref.symptom;
        inst.time = time;
        inst.timeKnown = timed;
        inst.monotonic = prefix.monotonic;
        inst.node = file_.node;
        inst.rank = prefix.rank ? std::optional<int64_t>(*prefix.rank) : file_.rank;
        if (given && given->rank) inst.rank = given->rank;
        if (given) inst.gpu = given->gpu;
        inst.source = file_.source;
        inst.text = std::string(line.substr(0, options_.maxTextBytes));
        if (line.size() > options_.maxTextBytes) inst.text += "...";
        applyCaptureFields(inst);
        if (given) {
          inst.where = given->where;
        } else {
          inst.where.connector = "files";
          inst.where.location = file_.path;
          inst.where.offset = chunk.offset + chunk.lineStarts[lineIndex];
          inst.where.line = chunk.firstLine + lineIndex + 1;
        }
        const ir::Symptom& symptom = program.symptoms[ref.symptom];
        if (symptom.hasWhen) {
          EvalContext ctx;
          ctx.program = &program;
          ctx.regexes = &regexes_;
          ctx.workload = &workload_;
          ctx.slots[0] = &inst;
          if (!interpreter_.test(symptom.when, ctx)) continue;
        }
        out.push_back(std::move(inst));
      }
      if (timed) lastTime_ = time;
    }
  }

  // Named captures called node, rank or gpu set those fields (docs/language.md).
  static void applyCaptureFields(Instance& inst) {
    if (const std::string* node = inst.capture("node")) inst.node = *node;
    if (const std::string* gpu = inst.capture("gpu")) inst.gpu = *gpu;
    if (const std::string* rank = inst.capture("rank")) {
      int64_t r;
      auto [ptr, ec] = std::from_chars(rank->data(), rank->data() + rank->size(), r);
      if (ec == std::errc() && ptr == rank->data() + rank->size()) inst.rank = r;
    }
  }

  const Bundle& bundle_;
  const RegexTable& regexes_;
  RegexLimitHits regexLimited_;  // lines PCRE2 gave up on, by symptom
  const Workload& workload_;
  const LogFile& file_;
  const LogScanOptions& options_;
  hs_scratch_t* scratch_;
  const std::vector<const LogLine*>* lines_;  // in-memory lines, or null for a file
  PrefixOptions prefix_;
  std::vector<bool> readsSource_;
  int64_t lastTime_ = 0;
  uint64_t timesChecked_ = 0, timesFound_ = 0;  // lines whose prefix was parsed, and those with a time
  std::optional<int64_t> anchor_;  // boot time: wall clock minus kernel monotonic time
  Interpreter interpreter_;
};

}  // namespace

LogScanResult LogScanner::scan(const std::vector<LogFile>& files, const Workload& workload,
                               const LogScanOptions& options) const {
  LogScanResult result;
  result.reports.resize(files.size());
  std::vector<std::vector<Instance>> perFile(files.size());
  std::vector<uint64_t> lines(files.size(), 0);

  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, std::max<size_t>(1, files.size()));
  std::atomic<size_t> next{0};
  std::string scratchError;
  auto worker = [&] {
    hs_scratch_t* scratch = nullptr;
    if (bundle_.logDatabase && hs_alloc_scratch(bundle_.logDatabase.get(), &scratch) != HS_SUCCESS) scratch = nullptr;
    std::unique_ptr<hs_scratch_t, decltype(&hs_free_scratch)> owned(scratch, hs_free_scratch);
    for (size_t i = next++; i < files.size(); i = next++) {
      if (bundle_.logDatabase && !scratch) {
        result.reports[i] = {"files", files[i].source, ConnectorReport::Status::Error, 0, 0,
                             "cannot allocate Hyperscan scratch space", 0};
        continue;
      }
      FileScan scan(bundle_, regexes_, workload, files[i], options, scratch);
      result.reports[i] = scan.run(perFile[i], &lines[i]);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  // A kernel line read through syslog carries both clocks ("Nov 29 10:42:00 host kernel:
  // [10523.000001] ..."), which gives the node's boot time; dmesg lines of the same node that
  // carry only the monotonic clock then get their wall-clock time from it.
  std::map<std::string, int64_t> bootTime;
  for (size_t i = 0; i < files.size(); ++i) {
    for (const auto& inst : perFile[i]) {
      if (inst.timeKnown && inst.monotonic && !bootTime.count(inst.node)) bootTime[inst.node] = inst.time - *inst.monotonic;
    }
  }
  for (auto& found : perFile) {
    for (auto& inst : found) {
      auto boot = bootTime.find(inst.node);
      if (!inst.timeKnown && inst.monotonic && boot != bootTime.end()) {
        inst.time = boot->second + *inst.monotonic;
        inst.timeKnown = true;
      }
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    result.lines += lines[i];
    result.bytes += result.reports[i].bytes;
    for (auto& inst : perFile[i]) {
      inst.sequence = (static_cast<uint64_t>(i) << 40) | (inst.where.line & ((1ULL << 40) - 1));
      result.instances.push_back(std::move(inst));
    }
  }
  return result;
}

LogScanResult LogScanner::scanLines(const std::vector<LogLine>& lines, const Workload& workload,
                                    const LogScanOptions& options) const {
  // Group by (node, source), keeping the order in which groups and lines appeared.
  std::vector<LogFile> groups;
  std::vector<std::vector<const LogLine*>> members;
  std::map<std::pair<std::string, std::string>, size_t> groupOf;
  for (const auto& line : lines) {
    auto [it, inserted] = groupOf.emplace(std::make_pair(line.node, line.source), groups.size());
    if (inserted) {
      evidence::LogFile group;
      group.node = line.node;
      group.source = line.source;
      groups.push_back(std::move(group));
      members.emplace_back();
    }
    members[it->second].push_back(&line);
  }
  LogScanResult result;
  hs_scratch_t* scratch = nullptr;
  if (bundle_.logDatabase && hs_alloc_scratch(bundle_.logDatabase.get(), &scratch) != HS_SUCCESS) {
    result.reports.push_back({"memory", "logs", ConnectorReport::Status::Error, 0, 0,
                              "cannot allocate Hyperscan scratch space", 0});
    return result;
  }
  std::unique_ptr<hs_scratch_t, decltype(&hs_free_scratch)> owned(scratch, hs_free_scratch);
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<Instance> found;
    uint64_t count = 0;
    FileScan scan(bundle_, regexes_, workload, groups[g], options, scratch, &members[g]);
    result.reports.push_back(scan.runLines(found, &count));
    result.lines += count;
    result.bytes += result.reports.back().bytes;
    for (auto& inst : found) {
      inst.sequence = (static_cast<uint64_t>(g) << 40) | (inst.where.line & ((1ULL << 40) - 1));
      result.instances.push_back(std::move(inst));
    }
  }
  return result;
}

}  // namespace attrib::runtime
