#include "runtime/log_scanner.h"

#include <fmt/format.h>
#include <hs/hs.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <utility>

#include <sys/stat.h>

#include "evidence/archive_reader.h"
#include "evidence/job_mail.h"
#include "evidence/line_channel.h"
#include "evidence/log_record.h"
#include "evidence/shell_prompt.h"
#include "runtime/context_text.h"
#include "runtime/huge_pages.h"
#include "runtime/interpreter.h"

namespace attrib::runtime {
namespace {

using evidence::LineChannel;
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
  uint32_t markerBase, tellingBase;
  std::vector<Hit>* hits;     // symptom patterns
  std::vector<Hit>* markers;  // channel markers, pattern = marker expression index
  std::vector<Hit>* telling;  // telling words, pattern = index in ir::tellingWords()
  uint32_t line = 0;          // the line of the last match
};

// Hyperscan reports the end offset of each match; the line is the one holding its last byte.
int onMatch(unsigned id, unsigned long long, unsigned long long to, unsigned, void* context) {
  auto* state = static_cast<MatchState*>(context);
  const auto& starts = state->chunk->lineStarts;
  const auto last = static_cast<uint32_t>(to > 0 ? to - 1 : 0);
  // Hyperscan reports matches by increasing end offset, so the line is most often the last
  // match's or one a few lines on: a short walk forward, and a binary search otherwise.
  uint32_t line = state->line;
  if (line < starts.size() && starts[line] <= last) {
    uint32_t steps = 0;
    while (line + 1 < starts.size() && starts[line + 1] <= last && ++steps < 8) ++line;
    if (line + 1 < starts.size() && starts[line + 1] <= last) {
      line = static_cast<uint32_t>(std::upper_bound(starts.begin() + line, starts.end(), last) - starts.begin()) - 1;
    }
  } else {
    line = static_cast<uint32_t>(std::upper_bound(starts.begin(), starts.end(), last) - starts.begin()) - 1;
  }
  state->line = line;
  if (id < state->markerBase) {
    state->hits->push_back({line, id});
  } else if (id < state->tellingBase) {
    state->markers->push_back({line, id - state->markerBase});
  } else {
    state->telling->push_back({line, id - state->tellingBase});
  }
  return 0;
}

// Puts hits in (line, pattern) order. Hyperscan reports matches by increasing end offset, so
// the lines already are in order and only the patterns of one line may not be: each line's run
// is sorted on its own (a sort of the whole vector took 6% of a dense scan's instructions).
void sortByLine(std::vector<Hit>& hits) {
  for (size_t from = 0; from < hits.size();) {
    size_t to = from + 1;
    while (to < hits.size() && hits[to].line == hits[from].line) ++to;
    if (to - from > 1) std::sort(hits.begin() + static_cast<long>(from), hits.begin() + static_cast<long>(to));
    if (to < hits.size() && hits[to].line < hits[from].line) {  // not Hyperscan's order after all
      std::sort(hits.begin(), hits.end());
      return;
    }
    from = to;
  }
}

// Scratch space for both of the bundle's log databases (one scratch serves either).
bool allocScratch(const Bundle& bundle, hs_scratch_t** scratch) {
  if (hs_alloc_scratch(bundle.logDatabase.get(), scratch) != HS_SUCCESS) return false;
  if (hs_alloc_scratch(bundle.logDatabaseWithoutMarkers.get(), scratch) != HS_SUCCESS) {
    hs_free_scratch(*scratch);
    *scratch = nullptr;
    return false;
  }
  return true;
}

std::string_view stripCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// The workload's node that a host named in a line is: the node of that name, or the one whose
// short name (up to the first '.') is the host's; else the host as written.
std::string nodeOfHost(std::string_view host, const std::vector<std::string>& nodes) {
  auto shortName = [](std::string_view s) { return s.substr(0, s.find('.')); };
  for (const auto& n : nodes) {
    if (n == host) return n;
  }
  for (const auto& n : nodes) {
    if (shortName(n) == shortName(host)) return n;
  }
  return std::string(host);
}

// Where a thread's chunks keep their lines' parsed prefixes: one slot per line of the largest
// chunk so far, kept across chunks and files (no allocation per chunk or per line; LinePrefix is
// trivially destructible), a flag per line, and the order lines were parsed in.
struct PrefixStore {
  std::vector<LinePrefix> slots;
  std::vector<uint8_t> parsed;
  std::vector<uint32_t> order;
};

// The calling thread's store, kept from file to file: a file's first chunk used to allocate and
// construct its thousands of slots anew (fresh pages, faulted in), 0.8% of a quiet scan's time
// over 48 files. One FileScan at a time uses it (a thread scans its files one after another),
// and each chunk's scan begins by forgetting what the last one parsed (ChunkLines).
PrefixStore& threadPrefixStore() {
  thread_local PrefixStore store;
  return store;
}

// The lines of one chunk with their prefixes parsed on demand (records, times, identities).
// A reference to a line's prefix stays valid for the chunk's whole scan.
class ChunkLines final : public evidence::RecordLines {
 public:
  ChunkLines(const LogChunk& chunk, const PrefixOptions& options, PrefixStore& store)
      : chunk_(chunk), options_(options), store_(store) {
    const size_t n = chunk.lineCount();
    if (store_.slots.size() < n) store_.slots.resize(n);
    store_.parsed.assign(n, 0);
    store_.order.clear();
  }
  size_t size() const override { return chunk_.lineCount(); }
  const LogChunk& chunk() const { return chunk_; }
  std::string_view line(size_t i) override { return stripCr(chunk_.line(i)); }
  const LinePrefix& prefix(size_t i) override {
    if (!store_.parsed[i]) {
      store_.slots[i] = parseLinePrefix(line(i), options_);
      store_.parsed[i] = 1;
      store_.order.push_back(static_cast<uint32_t>(i));
    }
    return store_.slots[i];
  }
  // The prefixes parsed so far, in the order they were (what the chunk's lines said about who
  // printed them).
  template <typename F>
  void forEachParsed(F f) const {
    for (uint32_t i : store_.order) f(store_.slots[i]);
  }

 private:
  const LogChunk& chunk_;
  const PrefixOptions& options_;
  PrefixStore& store_;
};

// What a file's lines say about who printed them, learned from every prefix parsed: the host
// of each srun task and rank, and the hosts seen.
struct FileIdentities {
  std::map<int32_t, std::string> hostOfTask, hostOfRank;
  std::set<std::string> hosts;

  void learn(const LinePrefix& p) {
    if (p.host.empty()) return;
    std::string host(p.host);
    if (p.task) hostOfTask.emplace(*p.task, host);
    if (p.rank) hostOfRank.emplace(*p.rank, host);
    if (hosts.size() < 2) hosts.insert(host);  // only "one or several" matters
  }
};

// An instance under construction, with the parts of its line's prefix that decide its
// identity once the whole file has been read.
struct Unresolved {
  std::optional<int32_t> task;
  bool nodeFixed = false;  // a capture or the line itself named the node
};
struct Pending {
  Instance inst;
  Unresolved who;
};

// Per-file scanning state and the work of turning matched records into instances.
class FileScan {
 public:
  FileScan(const Bundle& bundle, const RegexTable& regexes, const std::vector<ir::ChannelMask>& reads,
           const std::vector<bool>& compact, const Workload& workload, const LogFile& file,
           const LogScanOptions& options, hs_scratch_t* scratch, const std::vector<const LogLine*>* lines = nullptr)
      : bundle_(bundle), regexes_(regexes), reads_(reads), compact_(compact), workload_(workload), file_(file),
        options_(options),
        scratch_(scratch), lines_(lines),
        // An archive's entry is named in it, as the intake's reports name it.
        fileSource_(std::make_shared<const Place::Source>(
            Place::Source{"files", file.entry.empty() ? file.path : file.path + "!/" + file.entry})) {
    // Syslog dates have no year: the workload's start supplies it, or failing that the file's
    // modification time (when the job stopped writing it), or for bytes that have none (standard
    // input, a paste) the present: a log is read within a year of being written.
    prefix_.referenceTime = workload.start;
    if (!prefix_.referenceTime && (file.bytes || !file.entry.empty())) {
      prefix_.referenceTime = file.modified;
    } else if (!prefix_.referenceTime && !file.path.empty()) {
      struct stat st;
      if (::stat(file.path.c_str(), &st) == 0) {
        prefix_.referenceTime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
      }
    }
    if (!prefix_.referenceTime) {
      prefix_.referenceTime = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
    }
    hint_ = evidence::channelHint(!file.source.empty() ? file.source
                                  : !file.name.empty()  ? file.name
                                  : !file.entry.empty() ? file.entry
                                                        : file.path);
    // srun --label prefixes only application output; a kernel or syslog file never starts a
    // line with "N: ".
    prefix_.srunLabels = hint_ == ir::Channel::Application || hint_ == ir::Channel::Scheduler;
    lastTime_ = workload.start;
  }

  // Scans in-memory lines (the `lines` given at construction) as one chunk.
  ConnectorReport runLines(InstanceBlocks& out, uint64_t* lines) {
    std::string data;
    LogChunk chunk;
    for (const LogLine* l : *lines_) {
      const size_t begin = data.size();
      // A newline inside a delivered line would split it; it stands for a space instead.
      for (char c : l->text) data += c == '\n' ? ' ' : c;
      chunk.addLine(data.data(), begin, data.size());
      data += '\n';
    }
    chunk.data = data;
    ConnectorReport report;
    report.connector = "memory";
    report.source = file_.node.empty() ? file_.source : file_.node + "/" + file_.source;
    report.observations = lines_->size();
    report.bytes = data.size();
    *lines = lines_->size();
    if (!data.empty() && !scanChunk(chunk, &report)) return report;
    finish(out);
    report.channelLines = channelLines_;
    if (lines_->empty()) report.status = ConnectorReport::Status::Empty;
    for (const auto& n : regexLimitNotes(bundle_.program, regexLimited_)) {
      report.status = ConnectorReport::Status::Partial;
      report.reason += (report.reason.empty() ? "" : "; ") + n;
    }
    return report;
  }

  // Scans the file, or the archive entry `archive` is positioned at.
  ConnectorReport run(InstanceBlocks& out, uint64_t* lines, evidence::ArchiveReader* archive = nullptr) {
    auto started = std::chrono::steady_clock::now();
    ConnectorReport report;
    report.connector = "files";
    report.source = !file_.name.empty() ? file_.name : file_.node.empty() ? file_.source : file_.node + "/" + file_.source;
    auto reader = archive      ? LogReader::openArchiveEntry(*archive, file_.entry, options_.reader)
                  : file_.bytes ? LogReader::openMemory(file_.bytes, file_.path, file_.readError, options_.reader)
                                : LogReader::open(file_.path, options_.reader);
    LogChunk chunk;
    uint64_t lineCount = 0;
    while (reader->next(chunk)) {
      lineCount += chunk.lineCount();
      if (!scanChunk(chunk, &report)) break;
    }
    finish(out);
    report.channelLines = channelLines_;
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
    // no line checked had one is not.
    if (timesChecked_ > 0 && timesFound_ == 0) notes.push_back("no line had a recognisable timestamp; times are unknown");
    for (auto& n : regexLimitNotes(bundle_.program, regexLimited_)) notes.push_back(std::move(n));
    if (!regexLimited_.empty() && report.status == ConnectorReport::Status::Ok) report.status = ConnectorReport::Status::Partial;
    report.reason.clear();
    for (const auto& n : notes) report.reason += (report.reason.empty() ? "" : "; ") + n;
    report.elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    return report;
  }

 private:
  // One chunk: scan, count channels, turn the matched records into instances. False when
  // Hyperscan failed (the report says so).
  bool scanChunk(const LogChunk& chunk, ConnectorReport* report) {
    hits_.clear();
    markers_.clear();
    telling_.clear();
    const auto markerBase = static_cast<uint32_t>(bundle_.logExpressions.size());
    const auto tellingBase = markerBase + static_cast<uint32_t>(ir::markerExpressions().size());
    MatchState state{&chunk, markerBase, tellingBase, &hits_, &markers_, &telling_};
    // A chunk whose every line has a Program or Prefix marker (a dmesg or syslog chunk) needs no
    // literal markers: the database without them is scanned, and no marker match is reported
    // for the kernel lines that nearly all hold one.
    const bool everyLineClaimed = chunk.prefixChannels.size() == chunk.lineCount() && chunk.lineCount() > 0 &&
                                  std::memchr(chunk.prefixChannels.data(), 0, chunk.prefixChannels.size()) == nullptr;
    const hs_database_t* database =
        everyLineClaimed ? bundle_.logDatabaseWithoutMarkers.get() : bundle_.logDatabase.get();
    hs_error_t rc = hs_scan(database, chunk.data.data(), static_cast<unsigned>(chunk.data.size()), 0, scratch_, onMatch,
                            &state);
    if (rc != HS_SUCCESS) {
      report->status = lines_ ? ConnectorReport::Status::Error : ConnectorReport::Status::Partial;
      report->reason = fmt::format("Hyperscan scan failed (error {}) at byte {}", rc, chunk.offset);
      return false;
    }
    sortByLine(hits_);
    hits_.erase(std::unique(hits_.begin(), hits_.end()), hits_.end());
    if (chunk.offset == 0) readFileForms(chunk);
    ChunkLines lines(chunk, prefix_, prefixStore_);
    classifyLines(chunk, lines);
    extract(chunk, lines);
    collectTelling(chunk, lines);
    rememberLastTime(lines);
    lines.forEachParsed([&](const LinePrefix& p) { identities_.learn(p); });
    return true;
  }

  // What the file's first chunk says about the whole file, decided once:
  // - pdsh's "host: " labels are read as the line's host only in a file whose first lines carry
  //   them (evidence::hostLabelled), and MPICH's "[rank] " labels only in an application's file
  //   whose first lines carry them (evidence::rankLabelled);
  // - the shell prompts of a pasted terminal session and the syslog daemon's wall messages
  //   ("Message from syslogd@host at ..."), when they name one host, are the node of its kernel
  //   and system lines (evidence/shell_prompt.h);
  // - the header of a batch system's job mail names the host of every line of the file that
  //   names none (evidence/job_mail.h).
  void readFileForms(const LogChunk& chunk) {
    constexpr size_t kSample = 200;
    std::vector<std::string_view> first;
    for (size_t i = 0; i < chunk.lineCount() && first.size() < kSample; ++i) first.push_back(chunk.line(i));
    const bool application = hint_ == ir::Channel::Application || hint_ == ir::Channel::Scheduler;
    const auto form = application ? evidence::HostLabels::Names : evidence::HostLabels::Addresses;
    prefix_.hostLabels = evidence::hostLabelled(first, form) ? form : evidence::HostLabels::None;
    prefix_.rankLabels = application && evidence::rankLabelled(first);
    bool several = false;
    for (size_t i = 0; i < chunk.lineCount() && !several; ++i) {
      std::string_view host = evidence::shellPromptHost(chunk.line(i));
      if (host.empty()) host = evidence::syslogWallHost(chunk.line(i));
      if (host.empty()) continue;
      if (promptHost_.empty()) {
        promptHost_ = host;
      } else {
        several = host != promptHost_;
      }
    }
    if (several) promptHost_.clear();
    // TORQUE's job mail names the one host the job ran on in its header.
    for (size_t i = 0; i < first.size() && execHost_.empty(); ++i) execHost_ = evidence::torqueMailExecHost(first[i]);
  }

  // Counts the chunk's lines per channel and remembers the channel of every line a literal
  // marker claims. A line's Program or Prefix marker, first in precedence, was read by the
  // reader as it indexed the line (LogChunk::prefixChannels); a line without one that a literal
  // marker's expression found is confirmed on its parsed prefix; every other line is unclaimed
  // and counts under the file's hint.
  void classifyLines(const LogChunk& chunk, ChunkLines& lines) {
    lineChannel_.clear();
    // The lines with a Program or Prefix marker, counted in one pass over the chunk's bytes of
    // prefix channels (no branch per line: most chunks have millions of lines in all).
    std::array<uint64_t, static_cast<size_t>(ir::kChannelCount) + 1> byPrefix{};
    for (const uint8_t c : chunk.prefixChannels) ++byPrefix[c];
    uint64_t claimed = 0;
    for (size_t c = 0; c < static_cast<size_t>(ir::kChannelCount); ++c) {
      channelLines_[c] += byPrefix[c + 1];
      claimed += byPrefix[c + 1];
    }
    // The lines a literal marker's expression found (in line order) and no prefix claimed,
    // confirmed on their parsed prefix.
    for (size_t k = 0; k < markers_.size();) {
      const uint32_t line = markers_[k].line;
      while (k < markers_.size() && markers_[k].line == line) ++k;
      if (chunk.prefixChannels[line] != 0) continue;
      LineChannel c = evidence::classifyLine(lines.prefix(line), lines.line(line), hint_);
      if (!c.claimed) continue;
      lineChannel_.emplace_back(line, c);
      ++channelLines_[static_cast<size_t>(c.channel)];
      ++claimed;
    }
    channelLines_[static_cast<size_t>(hint_)] += chunk.lineCount() - claimed;
  }

  // The channel of one line of the chunk: its Program or Prefix marker's, else the literal
  // marker's that classifyLines confirmed, else the file's hint, unclaimed.
  LineChannel channelOf(ChunkLines& lines, uint32_t line) const {
    if (std::optional<ir::Channel> c = lines.chunk().prefixChannel(line)) return {*c, true};
    auto it = std::lower_bound(lineChannel_.begin(), lineChannel_.end(), line,
                               [](const std::pair<uint32_t, LineChannel>& e, uint32_t l) { return e.first < l; });
    return it != lineChannel_.end() && it->first == line ? it->second : LineChannel{hint_, false};
  }

  // The time of a record: its first line that carries one (a wall clock, or a kernel time
  // anchored to it); else the nearest earlier line's (estimated); else the last time seen in
  // the file before this chunk (estimated); else unknown.
  void timeOf(ChunkLines& lines, const std::vector<uint32_t>& record, Instance* inst) {
    ++timesChecked_;
    for (uint32_t k : record) {
      const LinePrefix& p = lines.prefix(k);
      if (p.time && p.monotonic && !anchor_) anchor_ = *p.time - *p.monotonic;
      if (p.time || (p.monotonic && anchor_)) {
        ++timesFound_;
        inst->time = p.time ? *p.time : *anchor_ + *p.monotonic;
        inst->timeKnown = true;
        inst->monotonic = p.monotonic;
        return;
      }
      if (p.monotonic && !inst->monotonic) inst->monotonic = p.monotonic;
    }
    constexpr size_t kLookBack = 256;
    for (size_t k = record.front(); k-- > 0 && record.front() - k <= kLookBack;) {
      const LinePrefix& p = lines.prefix(k);
      if (p.time || (p.monotonic && anchor_)) {
        inst->time = p.time ? *p.time : *anchor_ + *p.monotonic;
        return;
      }
    }
    if (lastTime_) {
      inst->time = *lastTime_;
      return;
    }
    inst->time = kTimeUnknown;
    inst->timeUnknown = true;
  }

  void rememberLastTime(ChunkLines& lines) {
    for (size_t k = lines.size(), seen = 0; k-- > 0 && seen < 64; ++seen) {
      const LinePrefix& p = lines.prefix(k);
      ++timesChecked_;
      if (p.time) {
        ++timesFound_;
        lastTime_ = *p.time;
        return;
      }
    }
  }

  // The record's messages (prefixes stripped) joined by '\n', as patterns see them, and its raw
  // lines joined by '\n' (cut at maxTextBytes), as the evidence shows them.
  void recordText(ChunkLines& lines, const std::vector<uint32_t>& record, std::string* messages, std::string* raw) {
    messages->clear();
    raw->clear();
    for (uint32_t k : record) {
      std::string_view line = lines.line(k);
      if (!messages->empty() || k != record.front()) *messages += '\n';
      *messages += line.substr(std::min(lines.prefix(k).length, line.size()));
      if (raw->size() <= options_.maxTextBytes) {
        if (k != record.front()) *raw += '\n';
        *raw += line;
      }
    }
    if (raw->size() > options_.maxTextBytes) {
      raw->resize(options_.maxTextBytes);
      *raw += "...";
    }
  }

  // A compact instance's text: the raw line of `record` that holds offset `start` of its
  // messages (one line each, joined by '\n'), cut at kCompactTextBytes (and maxTextBytes).
  std::string compactText(ChunkLines& lines, const std::vector<uint32_t>& record, std::string_view messages,
                          size_t start) {
    start = std::min(start, messages.size());
    const size_t k = std::min<size_t>(static_cast<size_t>(std::count(messages.begin(), messages.begin() + start, '\n')),
                                      record.size() - 1);
    std::string_view line = lines.line(record[k]);
    const size_t bound = std::min(kCompactTextBytes, options_.maxTextBytes);
    return line.size() > bound ? std::string(line.substr(0, bound)) + "..." : std::string(line);
  }

  void extract(const LogChunk& chunk, ChunkLines& lines) {
    const ir::Program& program = bundle_.program;
    // The records already made in this chunk, by the lines they hold, so that several matched
    // lines of one record give one instance per symptom.
    // (line, record) sorted by line: records come in line order, so inserts are at the end and
    // a lookup is a binary search, without a node allocation per line as a std::map would make.
    // Kept across chunks (extractScratch_) with the other lists below: a dense chunk grows them
    // to tens of thousands of entries, and growing them anew per chunk was 3% of a dense scan.
    std::vector<std::pair<uint32_t, size_t>>& recordOfLine = extractScratch_.recordOfLine;
    recordOfLine.clear();
    auto recordOf = [&](uint32_t line) -> const size_t* {
      auto it = std::lower_bound(recordOfLine.begin(), recordOfLine.end(), std::make_pair(line, size_t{0}));
      return it != recordOfLine.end() && it->first == line ? &it->second : nullptr;
    };
    std::vector<std::vector<uint32_t>> records;
    // The (record, symptom) pairs that gave an instance, as record << 32 | symptom, sorted: records
    // are made in line order, so most inserts are at the end (a std::set per record was a node
    // allocation per instance).
    std::vector<uint64_t>& taken = extractScratch_.taken;
    taken.clear();
    auto takenKey = [](size_t record, int32_t symptom) {
      return static_cast<uint64_t>(record) << 32 | static_cast<uint32_t>(symptom);
    };
    auto isTaken = [&](size_t record, int32_t symptom) {
      return std::binary_search(taken.begin(), taken.end(), takenKey(record, symptom));
    };
    std::string& messages = extractScratch_.messages;
    std::string& raw = extractScratch_.raw;
    for (size_t h = 0; h < hits_.size();) {
      const uint32_t lineIndex = hits_[h].line;
      size_t r;
      if (const size_t* known = recordOf(lineIndex)) {
        r = *known;
        // A line of a record already made, all of whose symptoms that record already gave (the
        // 2nd to nth lines of a kernel record of one form: dense logs are mostly these): nothing
        // to decide, not even the record's channel.
        bool open = false;
        for (size_t j = h; j < hits_.size() && hits_[j].line == lineIndex && !open; ++j) {
          for (const PatternRef& ref : bundle_.logExpressions[hits_[j].pattern]) {
            if (!isTaken(r, ref.symptom)) {
              open = true;
              break;
            }
          }
        }
        if (!open) {
          while (h < hits_.size() && hits_[h].line == lineIndex) ++h;
          continue;
        }
      } else {
        // Most candidate lines are not confirmed (a narrowed scan form finds a superset). When
        // every pattern Hyperscan reported here matches within one line (Regex::singleLine), a
        // match in this line's record that holds this line lies in this line: unless one of them
        // matches its message alone, no record is made for it. A match on another line of the
        // same record is that line's own candidate, and makes the record when its turn comes.
        if (!mayConfirmOn(lines, lineIndex, h)) {
          while (h < hits_.size() && hits_[h].line == lineIndex) ++h;
          continue;
        }
        r = records.size();
        records.push_back(evidence::recordAt(lines, lineIndex));
        for (uint32_t k : records.back()) {
          if (recordOf(k)) continue;  // a line already taken stays with its first record
          auto at = std::upper_bound(recordOfLine.begin(), recordOfLine.end(), std::make_pair(k, SIZE_MAX));
          recordOfLine.insert(at, {k, r});
        }
      }
      const std::vector<uint32_t>& record = records[r];
      const uint32_t head = record.front();
      // A record is of the channel its first claimed line says (an indented "Reason: OOMKilled"
      // under kubectl's "Containers:"), else of its head's hint.
      LineChannel channel = channelOf(lines, head);
      for (size_t k = 1; k < record.size() && !channel.claimed; ++k) {
        if (LineChannel c = channelOf(lines, record[k]); c.claimed) channel = c;
      }
      const ir::ChannelMask readers = evidence::readersOf(channel);
      // The (symptom, pattern) pairs of the expressions Hyperscan reported on this line, in
      // symptom order. The pairs of one expression share its PCRE2 program (many symptoms may use
      // one line form: the catalogue's Xids), so it runs once per expression and line, and its
      // instance is made once; each symptom's `when` then decides on it.
      uses_.clear();
      for (; h < hits_.size() && hits_[h].line == lineIndex; ++h) {
        for (const PatternRef& ref : bundle_.logExpressions[hits_[h].pattern]) {
          if ((reads_[static_cast<size_t>(ref.symptom)] & readers) == 0) continue;
          if (isTaken(r, ref.symptom)) continue;  // one instance per symptom and record
          uses_.push_back({ref.symptom, ref.pattern, hits_[h].pattern});
        }
      }
      std::sort(uses_.begin(), uses_.end());
      probes_.clear();
      bool haveText = false, haveTime = false;
      Instance timed;
      for (size_t u = 0; u < uses_.size(); ++u) {
        const Use& use = uses_[u];
        // The first of a symptom's patterns that matches and whose `when` holds gives its instance.
        if (isTaken(r, use.symptom)) continue;
        auto probe = std::find_if(probes_.begin(), probes_.end(),
                                  [&](const Probe& p) { return p.expression == use.expression; });
        if (probe == probes_.end()) {
          if (!haveText) {
            recordText(lines, record, &messages, &raw);
            haveText = true;
          }
          probes_.emplace_back();
          probe = std::prev(probes_.end());
          probe->expression = use.expression;
          Instance& inst = probe->pending.inst;
          // PCRE2 confirms the pattern on the record's messages and extracts the named captures;
          // a record it gave up on (catastrophic backtracking) is said in the report, never a
          // silent non-match.
          probe->matched =
              regexes_.pattern(use.symptom, use.pattern).matchRecord(messages, &inst.captures, &probe->limited, &probe->start);
          if (probe->matched) {
            if (!haveTime) {
              timeOf(lines, record, &timed);
              haveTime = true;
            }
            const LinePrefix& p = lines.prefix(head);
            const LogLine* given = lines_ ? (*lines_)[head] : nullptr;
            inst.time = timed.time;
            inst.timeKnown = timed.timeKnown;
            inst.timeUnknown = timed.timeUnknown;
            inst.monotonic = timed.monotonic;
            takeGivenTime(given, &inst);
            inst.source = ir::channelName(channel.channel);
            inst.text = raw;
            identify(p, given, &probe->pending);
            applyCaptureFields(&probe->pending);
            placeAt(chunk, head, given, &inst);
          }
        }
        if (!probe->matched) {
          if (probe->limited) ++regexLimited_[use.symptom];
          continue;
        }
        probe->pending.inst.symptom = use.symptom;
        const ir::Symptom& symptom = program.symptoms[static_cast<size_t>(use.symptom)];
        if (symptom.hasWhen) {
          EvalContext ctx;
          ctx.program = &program;
          ctx.regexes = &regexes_;
          ctx.workload = &workload_;
          ctx.slots[0] = &probe->pending.inst;
          if (!interpreter_.test(symptom.when, ctx)) continue;
        }
        taken.insert(std::upper_bound(taken.begin(), taken.end(), takenKey(r, use.symptom)), takenKey(r, use.symptom));
        // The probe's instance is copied for every symptom that takes it but the last, which
        // takes it whole: most records give one instance, and a copy is a string and a vector
        // allocated per instance (docs/performance.md).
        const bool lastUse = std::none_of(uses_.begin() + static_cast<std::ptrdiff_t>(u) + 1, uses_.end(),
                                          [&](const Use& later) { return later.expression == use.expression; });
        unresolved_.push_back(probe->pending.who);
        if (options_.compactContextText && compact_[static_cast<size_t>(use.symptom)]) {
          // The record's text stays with the probe (other symptoms may take it whole).
          std::string whole = std::exchange(probe->pending.inst.text, compactText(lines, record, messages, probe->start));
          if (lastUse) {
            found_.push(std::move(probe->pending.inst));
          } else {
            found_.push(Instance(probe->pending.inst));
            probe->pending.inst.text = std::move(whole);
          }
        } else if (lastUse) {
          found_.push(std::move(probe->pending.inst));
        } else {
          found_.push(Instance(probe->pending.inst));
        }
      }
    }
  }

  // Whether a pattern reported on line `lineIndex` (the hits from `h` on) may confirm in the
  // record that holds it: one that may span lines, or one that matches the line's own message.
  bool mayConfirmOn(ChunkLines& lines, uint32_t lineIndex, size_t h) {
    const Regex* tried[8];
    size_t ntried = 0;
    bool haveMessage = false;
    std::string_view message;
    for (; h < hits_.size() && hits_[h].line == lineIndex; ++h) {
      for (const PatternRef& ref : bundle_.logExpressions[hits_[h].pattern]) {
        const Regex& re = regexes_.pattern(ref.symptom, ref.pattern);
        if (!re.singleLine()) return true;
        if (std::find(tried, tried + ntried, &re) != tried + ntried) continue;
        if (ntried < 8) tried[ntried++] = &re;
        if (!haveMessage) {
          const std::string_view line = lines.line(lineIndex);
          message = line.substr(std::min(lines.prefix(lineIndex).length, line.size()));
          haveMessage = true;
        }
        bool limited = false;
        if (re.match(message, nullptr, &limited) || limited) return true;  // a limit decides nothing
      }
    }
    return false;
  }

  // The chunk's telling lines (runtime/telling_lines.h): each form's first line becomes an
  // instance-like record, the others are counted under it.
  void collectTelling(const LogChunk& chunk, ChunkLines& lines) {
    sortByLine(telling_);
    std::vector<uint32_t> words;
    for (size_t h = 0; h < telling_.size();) {
      const uint32_t lineIndex = telling_[h].line;
      words.clear();
      for (; h < telling_.size() && telling_[h].line == lineIndex; ++h) words.push_back(telling_[h].pattern);
      std::string_view line = stripCr(lines.line(lineIndex));
      const int weight = tellingWeight(words, line);
      if (weight <= 0) continue;
      const LinePrefix& p = lines.prefix(lineIndex);
      // Most telling lines repeat a form already held: the form and the writer are built in
      // buffers kept across lines, and copied only for a form seen first.
      messageForm(line.substr(std::min(p.length, line.size())), &formBuffer_);
      if (formBuffer_.empty()) continue;
      const LogLine* given = lines_ ? (*lines_)[lineIndex] : nullptr;
      writerBuffer_.assign(!p.host.empty() ? p.host : given && !given->node.empty() ? std::string_view(given->node) : std::string_view(file_.node));
      if (p.rank) fmt::format_to(std::back_inserter(writerBuffer_), "/rank {}", *p.rank);
      else if (p.task) fmt::format_to(std::back_inserter(writerBuffer_), "/task {}", *p.task);
      if (!tellingLines_.wantsFirst(formBuffer_, writerBuffer_)) continue;
      std::string form = formBuffer_;
      std::string writer = writerBuffer_;
      Pending pending;
      Instance& inst = pending.inst;
      timeOf(lines, {lineIndex}, &inst);
      takeGivenTime(given, &inst);
      inst.source = ir::channelName(channelOf(lines, lineIndex).channel);
      inst.text = line.size() > options_.maxTextBytes ? std::string(line.substr(0, options_.maxTextBytes)) + "..."
                                                       : std::string(line);
      identify(p, given, &pending);
      placeAt(chunk, lineIndex, given, &inst);
      tellingLines_.add({std::move(form), weight, inst, 1, {std::move(writer)}});
      tellingPending_.push_back(std::move(pending));
    }
  }

  // A delivered line's own time wins over what its prefix says.
  static void takeGivenTime(const LogLine* given, Instance* inst) {
    if (!given || !given->time) return;
    inst->time = *given->time;
    inst->timeKnown = true;
    inst->timeUnknown = false;
  }

  // Where line `index` of `chunk` is: a delivered line's own place, else the file's. Every
  // instance of the file shares its source; delivered lines of one stream share theirs.
  void placeAt(const LogChunk& chunk, uint32_t index, const LogLine* given, Instance* inst) {
    if (given) {
      const Provenance& w = given->where;
      if (!givenSource_ || givenSource_->connector != w.connector || givenSource_->location != w.location) {
        givenSource_ = std::make_shared<const Place::Source>(Place::Source{w.connector, w.location});
      }
      inst->where.source = givenSource_;
      inst->where.offset = w.offset;
      inst->where.line = w.line;
      return;
    }
    inst->where.source = fileSource_;
    inst->where.offset = chunk.offset + chunk.lineStarts[index];
    inst->where.line = chunk.firstLine + index + 1;
  }

  // Node, rank and GPU from the line's prefix, the delivered line and the file; the rest is
  // settled in finish(), once the whole file has told who printed what.
  void identify(const LinePrefix& p, const LogLine* given, Pending* pending) {
    Instance& inst = pending->inst;
    if (!p.host.empty()) {
      inst.node = nodeOfHost(p.host, workload_.nodes);
      pending->who.nodeFixed = true;
    } else if (!file_.node.empty()) {
      inst.node = file_.node;
      pending->who.nodeFixed = true;
    }
    if (p.rank) inst.rank = *p.rank;
    else if (file_.rank) inst.rank = file_.rank;
    pending->who.task = p.task;
    if (given) {
      if (!given->node.empty()) {
        inst.node = given->node;
        pending->who.nodeFixed = true;
      }
      if (given->rank) inst.rank = given->rank;
      inst.gpu = given->gpu;
    }
  }

  // Named captures called node, rank or gpu set those fields (docs/language.md).
  static void applyCaptureFields(Pending* pending) {
    Instance& inst = pending->inst;
    if (std::optional<std::string_view> node = inst.capture("node")) {
      inst.node = *node;
      pending->who.nodeFixed = true;
    }
    if (std::optional<std::string_view> gpu = inst.capture("gpu")) inst.gpu = *gpu;
    if (std::optional<std::string_view> rank = inst.capture("rank")) {
      int64_t r;
      auto [ptr, ec] = std::from_chars(rank->data(), rank->data() + rank->size(), r);
      if (ec == std::errc() && ptr == rank->data() + rank->size()) inst.rank = r;
    }
  }

  // The file has been read: instances whose line did not name their node take it from what the
  // file's other lines said about the same task or rank, the file's only host, or the
  // workload's layout; srun tasks become ranks only where the layout says tasks are ranks.
  void finish(InstanceBlocks& out) {
    size_t next = 0;
    found_.forEach([&](Instance& inst) { resolve(inst, unresolved_[next++]); });
    out = std::move(found_);
    std::vector<Unresolved>().swap(unresolved_);
    auto& telling = tellingLines_.lines();
    for (size_t k = 0; k < tellingPending_.size() && k < telling.size(); ++k) {
      resolve(tellingPending_[k].inst, tellingPending_[k].who);
      telling[k].first.node = tellingPending_[k].inst.node;
      telling[k].first.rank = tellingPending_[k].inst.rank;
    }
    tellingPending_.clear();
  }

 public:
  // The file's telling lines, once it has been read (run() or runLines()).
  TellingLines takeTelling() { return std::move(tellingLines_); }

 private:
  void resolve(Instance& inst, const Unresolved& who) const {
    const auto& w = workload_;
    const bool tasksAreRanks = w.tasksPerNode && w.ranksPerNode && *w.tasksPerNode == *w.ranksPerNode;
    {
      if (!who.nodeFixed) {
        std::string host;
        if (who.task) {
          if (auto it = identities_.hostOfTask.find(*who.task); it != identities_.hostOfTask.end()) host = it->second;
        }
        if (host.empty() && inst.rank) {
          if (auto it = identities_.hostOfRank.find(static_cast<int32_t>(*inst.rank)); it != identities_.hostOfRank.end()) {
            host = it->second;
          }
        }
        if (host.empty() && identities_.hosts.size() == 1) host = *identities_.hosts.begin();
        if (host.empty()) host = execHost_;
        if (host.empty() && !promptHost_.empty() && (inst.source == ir::channelName(ir::Channel::Kernel) || inst.source == ir::channelName(ir::Channel::System))) host = promptHost_;
        if (!host.empty()) {
          inst.node = nodeOfHost(host, w.nodes);
        } else if (who.task && w.tasksPerNode && *w.tasksPerNode > 0) {
          const int64_t index = *who.task / *w.tasksPerNode;
          if (index >= 0 && static_cast<size_t>(index) < w.nodes.size()) inst.node = w.nodes[static_cast<size_t>(index)];
        }
      }
      if (!inst.rank && who.task && tasksAreRanks) inst.rank = *who.task;
    }
  }

  const Bundle& bundle_;
  const RegexTable& regexes_;
  const std::vector<ir::ChannelMask>& reads_;
  const std::vector<bool>& compact_;  // per symptom: its instances keep the compact text (runtime/context_text.h)
  const Workload& workload_;
  const LogFile& file_;
  const LogScanOptions& options_;
  hs_scratch_t* scratch_;
  const std::vector<const LogLine*>* lines_;  // in-memory lines, or null for a file
  // How instances name the file ("files", its path, or path!/entry for an archive's member).
  const std::shared_ptr<const Place::Source> fileSource_;
  std::shared_ptr<const Place::Source> givenSource_;  // the last delivered line's source
  std::string formBuffer_, writerBuffer_;      // collectTelling's, kept across lines
  PrefixStore& prefixStore_ = threadPrefixStore();  // the chunks' parsed prefixes (ChunkLines)
  PrefixOptions prefix_;
  ir::Channel hint_ = ir::Channel::Application;
  std::vector<Hit> hits_, markers_, telling_;
  TellingLines tellingLines_;
  std::vector<Pending> tellingPending_;  // the identities of tellingLines_'s first lines, in step
  RegexLimitHits regexLimited_;  // records PCRE2 gave up on, by symptom
  std::vector<std::pair<uint32_t, LineChannel>> lineChannel_;  // the claimed lines of the current chunk, by line
  std::array<uint64_t, ir::kChannelCount> channelLines_{};
  std::optional<int64_t> lastTime_;
  uint64_t timesChecked_ = 0, timesFound_ = 0;  // records and lines whose time was looked for, and found
  std::optional<int64_t> anchor_;  // boot time: wall clock minus kernel monotonic time
  FileIdentities identities_;
  std::string promptHost_;  // the one host the file's shell prompts name (readFileForms), or empty
  std::string execHost_;    // the one host a batch system's job mail in the file names, or empty
  InstanceBlocks found_;                // the file's instances, made in place
  std::vector<Unresolved> unresolved_;  // in step with found_: what finish() settles
  Interpreter interpreter_;
  // extract()'s per-line scratch, kept to reuse its memory.
  struct Use {
    int32_t symptom, pattern;
    uint32_t expression;  // Hyperscan id
    bool operator<(const Use& o) const { return symptom != o.symptom ? symptom < o.symptom : pattern < o.pattern; }
  };
  struct Probe {
    uint32_t expression = 0;
    bool matched = false, limited = false;
    size_t start = 0;  // where the match begins in the record's messages
    Pending pending;  // the instance the expression's match gives, whichever symptom it is for
  };
  std::vector<Use> uses_;
  std::vector<Probe> probes_;
  struct ExtractScratch {
    std::vector<std::pair<uint32_t, size_t>> recordOfLine;
    std::vector<uint64_t> taken;
    std::string messages, raw;
  } extractScratch_;
};

// A kernel line read through syslog carries both clocks ("Nov 29 10:42:00 host kernel:
// [10523.000001] ..."), which gives the node's boot time; kernel lines of the same node that
// carry only the monotonic clock (dmesg) then get their wall-clock time from it.
void anchorKernelTimes(std::vector<InstanceBlocks>& perFile) {
  std::map<std::string, int64_t> bootTime;
  for (const auto& found : perFile) {
    found.forEach([&](const Instance& inst) {
      if (inst.timeKnown && inst.monotonic && !bootTime.count(inst.node)) bootTime[inst.node] = inst.time - *inst.monotonic;
    });
  }
  for (auto& found : perFile) {
    found.forEach([&](Instance& inst) {
      auto boot = bootTime.find(inst.node);
      if (!inst.timeKnown && inst.monotonic && boot != bootTime.end()) {
        inst.time = boot->second + *inst.monotonic;
        inst.timeKnown = true;
        inst.timeUnknown = false;
      }
    });
  }
}

// Moves each file's (or group's) instances into `out` in file order, numbering them by file and
// line (the order of instances at the same time), and frees each file's list as it goes.
void mergeByFile(std::vector<InstanceBlocks>& perFile, std::vector<Instance>& out) {
  size_t total = out.size();
  for (const auto& f : perFile) total += f.size();
  out.reserve(total);
  // Filled wholly below: huge pages spare a dense scan a page fault per 4 KiB (huge_pages.h).
  adviseHugePages(out.data() + out.size(), (out.capacity() - out.size()) * sizeof(Instance));
  for (size_t i = 0; i < perFile.size(); ++i) {
    const size_t from = out.size();
    perFile[i].moveInto(out);
    for (size_t k = from; k < out.size(); ++k) {
      out[k].sequence = (static_cast<uint64_t>(i) << 40) | (out[k].where.line & ((1ULL << 40) - 1));
    }
  }
}

// About how much scanning a file is, to take the largest first: its size, and a compressed
// file's several times its size (logs compress about tenfold).
uint64_t workOf(const LogFile& file) {
  uint64_t size = 0;
  if (file.bytes) {
    size = file.bytes->size();
  } else {
    struct stat st;
    if (::stat(file.path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) size = static_cast<uint64_t>(st.st_size);
  }
  const std::string& name = file.entry.empty() ? file.path : file.entry;
  const bool compressed = name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0;
  return compressed ? size * 8 : size;
}

}  // namespace

void LogScanner::scanArchive(const std::vector<LogFile>& files, const std::vector<size_t>& unit, const Workload& workload,
                             const LogScanOptions& options, hs_scratch_t* scratch, std::vector<ConnectorReport>& reports,
                             std::vector<InstanceBlocks>& perFile, std::vector<TellingLines>& telling,
                             std::vector<uint64_t>& lines) const {
  const LogFile& first = files[unit.front()];
  std::string error;
  auto archive = first.bytes ? evidence::ArchiveReader::openMemory(first.bytes, first.path, &error)
                             : evidence::ArchiveReader::open(first.path, &error);
  std::map<std::string, std::vector<size_t>> wanted;  // entry name -> files, in order (a name may repeat)
  for (size_t i : unit) wanted[files[i].entry].push_back(i);
  std::set<size_t> done;
  evidence::ArchiveReader::Entry entry;
  while (archive && archive->next(&entry)) {
    auto it = wanted.find(entry.name);
    if (it == wanted.end() || it->second.empty()) continue;
    const size_t i = it->second.front();
    it->second.erase(it->second.begin());
    FileScan scan(bundle_, regexes_, reads_, compact_, workload, files[i], options, scratch);
    reports[i] = scan.run(perFile[i], &lines[i], archive.get());
    telling[i] = scan.takeTelling();
    done.insert(i);
  }
  if (archive && !archive->error().empty()) error = archive->error();
  for (size_t i : unit) {
    if (done.count(i)) continue;
    reports[i] = {"files", files[i].name, ConnectorReport::Status::Error, 0, 0,
                  error.empty() ? "the archive ended before this entry" : error, 0, {}};
  }
}

LogScanner::LogScanner(const Bundle& bundle, const RegexTable& regexes)
    : bundle_(bundle), regexes_(regexes), compact_(compactTextSymptoms(bundle.program)) {
  for (const auto& s : bundle.program.symptoms) {
    ir::ChannelMask mask = 0;
    for (const auto& word : s.sources) mask |= ir::channelsOfSourceWord(word);
    reads_.push_back(s.sources.empty() ? static_cast<ir::ChannelMask>((1u << ir::kChannelCount) - 1) : mask);
  }
}

LogScanResult LogScanner::scan(const std::vector<LogFile>& files, const Workload& workload,
                               const LogScanOptions& options) const {
  LogScanResult result;
  result.reports.resize(files.size());
  std::vector<InstanceBlocks> perFile(files.size());
  std::vector<TellingLines> telling(files.size());
  std::vector<uint64_t> lines(files.size(), 0);

  // Work units: a file, or every entry of one archive (read in archive order, once).
  std::vector<std::vector<size_t>> units;
  std::map<std::pair<std::string, const std::string*>, size_t> unitOfArchive;
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].entry.empty()) {
      units.push_back({i});
      continue;
    }
    auto [it, inserted] = unitOfArchive.emplace(std::make_pair(files[i].path, files[i].bytes.get()), units.size());
    if (inserted) units.emplace_back();
    units[it->second].push_back(i);
  }
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, std::max<size_t>(1, units.size()));
  // The largest units first: with files of unequal sizes, taking them in the order given can
  // leave one thread scanning the last big file alone. Results do not depend on the order (each
  // unit writes its own slots, merged by file afterwards).
  std::vector<size_t> order(units.size());
  for (size_t u = 0; u < units.size(); ++u) order[u] = u;
  if (threads > 1) {
    std::vector<uint64_t> work(units.size(), 0);
    for (size_t u = 0; u < units.size(); ++u) work[u] = workOf(files[units[u].front()]);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return work[a] > work[b]; });
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    hs_scratch_t* scratch = nullptr;
    if (!allocScratch(bundle_, &scratch)) scratch = nullptr;
    std::unique_ptr<hs_scratch_t, decltype(&hs_free_scratch)> owned(scratch, hs_free_scratch);
    for (size_t taken = next++; taken < units.size(); taken = next++) {
      const size_t u = order[taken];
      if (!scratch) {
        for (size_t i : units[u]) {
          result.reports[i] = {"files", files[i].source, ConnectorReport::Status::Error, 0, 0,
                               "cannot allocate Hyperscan scratch space", 0, {}};
        }
        continue;
      }
      if (files[units[u].front()].entry.empty()) {
        const size_t i = units[u].front();
        FileScan scan(bundle_, regexes_, reads_, compact_, workload, files[i], options, scratch);
        result.reports[i] = scan.run(perFile[i], &lines[i]);
        telling[i] = scan.takeTelling();
      } else {
        scanArchive(files, units[u], workload, options, scratch, result.reports, perFile, telling, lines);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  anchorKernelTimes(perFile);
  // Each file's instances move into one vector sized once, and each file's blocks are freed as
  // soon as they are moved from, so the instances are never held twice (at high match densities
  // they are most of the memory: docs/performance.md).
  mergeByFile(perFile, result.instances);
  for (size_t i = 0; i < files.size(); ++i) {
    result.lines += lines[i];
    result.bytes += result.reports[i].bytes;
    for (auto& t : telling[i].lines()) t.first.sequence = (static_cast<uint64_t>(i) << 40) | (t.first.where.line & ((1ULL << 40) - 1));
    result.telling.merge(std::move(telling[i]));
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
      LogFile group;
      group.node = line.node;
      group.source = line.source;
      groups.push_back(std::move(group));
      members.emplace_back();
    }
    members[it->second].push_back(&line);
  }
  LogScanResult result;
  hs_scratch_t* scratch = nullptr;
  if (!allocScratch(bundle_, &scratch)) {
    result.reports.push_back({"memory", "logs", ConnectorReport::Status::Error, 0, 0,
                              "cannot allocate Hyperscan scratch space", 0, {}});
    return result;
  }
  std::unique_ptr<hs_scratch_t, decltype(&hs_free_scratch)> owned(scratch, hs_free_scratch);
  std::vector<InstanceBlocks> perGroup(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    uint64_t count = 0;
    FileScan scan(bundle_, regexes_, reads_, compact_, workload, groups[g], options, scratch, &members[g]);
    result.reports.push_back(scan.runLines(perGroup[g], &count));
    TellingLines found = scan.takeTelling();
    for (auto& t : found.lines()) t.first.sequence = (static_cast<uint64_t>(g) << 40) | (t.first.where.line & ((1ULL << 40) - 1));
    result.telling.merge(std::move(found));
    result.lines += count;
    result.bytes += result.reports.back().bytes;
  }
  anchorKernelTimes(perGroup);
  mergeByFile(perGroup, result.instances);
  return result;
}

}  // namespace attrib::runtime
