// hs_scan: the raw Hyperscan baseline of bench/run, the limit attrib's log scan is measured
// against. It compiles the same log patterns with the same flags `attribc build` uses
// (HS_FLAG_MULTILINE plus the pattern's i/s/u flags, never SINGLEMATCH: compiler/bundle_writer.cc
// scanFlags) into one block-mode database, and scans the same files the way attrib's LogScanner
// does: one hs_scan call per chunk of about 1 MiB of whole lines (LogReaderOptions::chunkBytes),
// one thread, one scratch. It does only that: no line index, no confirmation, no extraction, so
// the time is Hyperscan plus read(2).
//
//   hs_scan [--chunk BYTES] [--rounds N] [--line-index] [--nul-check] [--markers] [--telling-words]
//           [--line-classes] [--compare-markers] PATTERNS PATH...
//
// --line-classes adds what attribc build puts into every bundle's database after the patterns:
// the channel markers' literal expressions (ir/log_channels.h) and the telling words
// (ir/telling_words.h), with the same flags, and (with --line-index) the reader's read of every
// line's first bytes for a Program or Prefix marker as it indexes the line (LogChunk::addLine,
// evidence::prefixChannel), so bench/run can say what classifying lines costs the scan
// (--markers and --telling-words add one of the two).
//
// --line-index and --nul-check add, one at a time, the two passes attrib's reader and scanner
// make over every byte besides Hyperscan (one memchr call and one push_back per line, to index
// line starts; a memchr for NUL bytes per chunk), so bench/run can say what each costs. With the
// line index, a match's line is found the way attrib's scanner finds it.
//
// --rounds N scans the files N times in the process and keeps the fastest round.
// --compare-markers measures classifying lines on its own: N rounds (--rounds), each scanning
// with the line index and NUL check over the patterns alone and then with the markers too (and
// every line's first bytes read), and prints both sides' best rounds and the median of the
// rounds' ratios. Two processes' times differ by more than the few per cent measured here.
//
// PATTERNS has one pattern per line, "FLAGS<TAB>REGEX" (bench/patterns.py writes it); FLAGS may
// be empty. PATH is a file or a directory searched recursively for *.log, *.log.N and *.gz
// (gzip is read through zlib, like attrib). Prints one JSON object: bytes, files, matches,
// matched lines, compile and scan times, throughput.
#include <dirent.h>
#include "evidence/log_reader.h"
#include "ir/log_channels.h"
#include "ir/telling_words.h"
#include <fcntl.h>
#include <hs/hs.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "hs_scan: %s\n", message.c_str());
  std::exit(2);
}

unsigned scanFlags(const std::string& flags) {  // = attrib::scanFlags (compiler/bundle_writer.cc)
  unsigned out = HS_FLAG_MULTILINE;
  for (char f : flags) {
    if (f == 'i') out |= HS_FLAG_CASELESS;
    if (f == 's') out |= HS_FLAG_DOTALL;
    if (f == 'u') out |= HS_FLAG_UTF8 | HS_FLAG_UCP;
  }
  return out;
}

bool isLogName(const std::string& name) {
  auto ends = [&](const char* s) {
    size_t n = std::strlen(s);
    return name.size() >= n && name.compare(name.size() - n, n, s) == 0;
  };
  if (ends(".gz") || ends(".log")) return true;
  size_t dot = name.rfind('.');  // rotated: syslog.log.1
  if (dot == std::string::npos || dot + 1 == name.size()) return false;
  for (size_t i = dot + 1; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return false;
  return name.substr(0, dot).size() > 4 && name.compare(dot - 4, 4, ".log") == 0;
}

void collect(const std::string& path, std::vector<std::string>* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) die("cannot stat " + path);
  if (!S_ISDIR(st.st_mode)) {
    out->push_back(path);
    return;
  }
  DIR* dir = ::opendir(path.c_str());
  if (!dir) die("cannot open directory " + path);
  std::vector<std::string> entries;
  while (dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    entries.push_back(name);
  }
  ::closedir(dir);
  std::sort(entries.begin(), entries.end());
  for (const auto& name : entries) {
    std::string child = path + "/" + name;
    if (::stat(child.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) collect(child, out);
    else if (S_ISREG(st.st_mode) && isLogName(name)) out->push_back(child);
  }
}

// Plain read(2), or zlib for gzip: the decompressed bytes of one file.
class Source {
 public:
  explicit Source(const std::string& path) {
    unsigned char magic[2] = {};
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("cannot open " + path);
    bool gz = ::read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (gz) {
      ::close(fd);
      gz_ = gzopen(path.c_str(), "rb");
      if (!gz_) die("cannot open " + path);
      gzbuffer(gz_, 64 << 10);
    } else {
      ::lseek(fd, 0, SEEK_SET);
      (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
      fd_ = fd;
    }
  }
  ~Source() {
    if (gz_) gzclose(gz_);
    if (fd_ >= 0) ::close(fd_);
  }
  size_t read(char* dst, size_t n) {
    if (gz_) {
      int got = gzread(gz_, dst, static_cast<unsigned>(std::min<size_t>(n, 1u << 30)));
      if (got < 0) die("corrupt gzip data");
      return static_cast<size_t>(got);
    }
    for (;;) {
      ssize_t got = ::read(fd_, dst, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno != EINTR) die("read failed");
    }
  }

 private:
  int fd_ = -1;
  gzFile gz_ = nullptr;
};

struct Counts {
  const char* block = nullptr;
  size_t blockSize = 0;
  const std::vector<uint32_t>* lineStarts = nullptr;  // with --line-index: the block's index
  uint32_t line = 0;                                  // the line of the last match (with the index)
  unsigned long long matches = 0;
  std::vector<size_t> lineKeys;  // per block: each matched line's index, or its '\n' (may repeat)
};

// The line holding a match's last byte. With the line index, the way attrib's LogScanner finds it
// (runtime/log_scanner.cc onMatch: a short walk on from the last match's line, else a binary
// search), so that what a match costs here is what it costs there; else the next '\n'.
int onMatch(unsigned, unsigned long long, unsigned long long to, unsigned, void* context) {
  auto* c = static_cast<Counts*>(context);
  ++c->matches;
  const size_t last = to > 0 ? to - 1 : 0;
  if (c->lineStarts) {
    const auto& starts = *c->lineStarts;
    uint32_t line = c->line;
    if (line < starts.size() && starts[line] <= last) {
      uint32_t steps = 0;
      while (line + 1 < starts.size() && starts[line + 1] <= last && ++steps < 8) ++line;
      if (line + 1 < starts.size() && starts[line + 1] <= last)
        line = static_cast<uint32_t>(std::upper_bound(starts.begin() + line, starts.end(), last) - starts.begin()) - 1;
    } else {
      line = static_cast<uint32_t>(std::upper_bound(starts.begin(), starts.end(), last) - starts.begin()) - 1;
    }
    c->line = line;
    c->lineKeys.push_back(line);
    return 0;
  }
  const void* nl = last < c->blockSize ? std::memchr(c->block + last, '\n', c->blockSize - last) : nullptr;
  c->lineKeys.push_back(nl ? static_cast<const char*>(nl) - c->block : c->blockSize);
  return 0;
}

// What attrib's scan loop does besides Hyperscan, one pass at a time (see the file comment).
struct ScanOptions {
  bool lineIndex = false;
  bool nulCheck = false;
  bool prefixRead = false;  // each line's first bytes read for its channel, as it is indexed
  // With prefixRead: the database for a chunk whose every line has a Program or Prefix marker,
  // as attrib scans such a chunk without the literal markers (runtime/log_scanner.cc scanChunk).
  const hs_database_t* claimedDb = nullptr;
};

struct ScanResult {
  unsigned long long bytes = 0, lines = 0, calls = 0, indexed = 0, nuls = 0, prefixClaimed = 0, matches = 0;
  double seconds = 0;
};

// One pass over `files` with `db`, the way attrib's LogScanner reads and scans them.
ScanResult scanFiles(const hs_database_t* db, hs_scratch_t* scratch, const std::vector<std::string>& files, size_t chunk,
                     const ScanOptions& options) {
  // Like attrib's reader: a buffer of chunk + 1 MB; each scan covers the whole lines read so far.
  const size_t capacity = chunk + (1u << 20);
  std::unique_ptr<char[]> buffer(new char[capacity + 1]);
  attrib::evidence::LogChunk index;  // --line-index: its lineStarts (and with --markers its prefixChannels)
  ScanResult out;
  Counts counts;
  const auto scanStart = Clock::now();
  for (const auto& path : files) {
    Source source(path);
    size_t end = 0;
    bool eof = false;
    while (!eof || end > 0) {
      while (!eof && end < chunk) {
        size_t got = source.read(buffer.get() + end, capacity - end);
        if (got == 0) eof = true;
        end += got;
      }
      if (end == 0) break;
      // Like ChunkedReader::cutChunk: the chunk ends with the first line that reaches `chunk`
      // bytes (or with the data, at the end of the file).
      size_t cut = end;
      if (end >= chunk) {
        const void* nl = std::memchr(buffer.get() + chunk - 1, '\n', end - (chunk - 1));
        if (nl) cut = static_cast<const char*>(nl) - buffer.get() + 1;
      }
      if (cut == end && !eof) {
        const void* nl = memrchr(buffer.get(), '\n', end);
        if (nl) cut = static_cast<const char*>(nl) - buffer.get() + 1;  // else: no newline, scan it all
      }
      if (cut == end && eof && buffer[end - 1] != '\n') {
        buffer[end++] = '\n';  // complete the final line
        cut = end;
      }
      if (options.lineIndex) {  // = ChunkedReader::cutChunk's loop
        index.clearLines();
        for (size_t start = 0; start < cut;) {
          const void* nl = std::memchr(buffer.get() + start, '\n', cut - start);
          const size_t end = nl ? static_cast<const char*>(nl) - buffer.get() : cut;
          if (options.prefixRead) {
            index.addLine(buffer.get(), start, end);  // the reader's own: the line's prefix channel too
          } else {
            index.lineStarts.push_back(static_cast<uint32_t>(start));
          }
          start = nl ? end + 1 : cut;
        }
        out.indexed += index.lineCount();
        out.prefixClaimed += static_cast<unsigned long long>(
            std::count_if(index.prefixChannels.begin(), index.prefixChannels.end(), [](uint8_t c) { return c != 0; }));
      }
      if (options.nulCheck && std::memchr(buffer.get(), 0, cut)) {  // = FileScan::run's binary-data check
        out.nuls += static_cast<unsigned long long>(std::count(buffer.get(), buffer.get() + cut, '\0'));
      }
      counts.block = buffer.get();
      counts.blockSize = cut;
      counts.lineKeys.clear();
      counts.lineStarts = options.lineIndex ? &index.lineStarts : nullptr;
      counts.line = 0;
      const bool everyLineClaimed = options.prefixRead && options.claimedDb && index.lineCount() > 0 &&
                                    std::memchr(index.prefixChannels.data(), 0, index.prefixChannels.size()) == nullptr;
      if (hs_scan(everyLineClaimed ? options.claimedDb : db, buffer.get(), static_cast<unsigned>(cut), 0, scratch, onMatch,
                  &counts) != HS_SUCCESS)
        die("hs_scan failed in " + path);
      ++out.calls;
      // Hyperscan reports matches by increasing end offset, so the keys are mostly in order
      // already (as attrib's sortByLine relies on): sorted only when they are not.
      if (!std::is_sorted(counts.lineKeys.begin(), counts.lineKeys.end()))
        std::sort(counts.lineKeys.begin(), counts.lineKeys.end());
      out.lines += std::unique(counts.lineKeys.begin(), counts.lineKeys.end()) - counts.lineKeys.begin();
      out.bytes += cut;
      std::memmove(buffer.get(), buffer.get() + cut, end - cut);
      end -= cut;
    }
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - scanStart).count();
  out.matches = counts.matches;
  return out;
}

// Compiles one block-mode database, or dies with the pattern that failed.
hs_database_t* compile(const std::vector<std::string>& regexes, const std::vector<unsigned>& flags) {
  std::vector<const char*> expressions;
  std::vector<unsigned> ids;
  for (const auto& r : regexes) {
    expressions.push_back(r.c_str());
    ids.push_back(static_cast<unsigned>(ids.size()));
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_multi(expressions.data(), flags.data(), ids.data(), static_cast<unsigned>(expressions.size()),
                       HS_MODE_BLOCK, nullptr, &db, &error) != HS_SUCCESS) {
    std::string message = error && error->message ? error->message : "unknown error";
    int index = error ? error->expression : -1;
    die("cannot compile pattern " + std::to_string(index) + ": " + message);
  }
  return db;
}

}  // namespace

int main(int argc, char** argv) {
  size_t chunk = 1u << 20;  // = LogReaderOptions::chunkBytes
  bool lineIndex = false, nulCheck = false, markers = false, telling = false, compareMarkers = false;
  int rounds = 1;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--chunk" && i + 1 < argc) {
      chunk = std::strtoull(argv[++i], nullptr, 10);
      if (chunk == 0) die("--chunk must be positive");
    } else if (a == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
      if (rounds < 1) die("--rounds must be positive");
    } else if (a == "--line-index") {
      lineIndex = true;
    } else if (a == "--nul-check") {
      nulCheck = true;
    } else if (a == "--line-classes") {
      markers = telling = true;
    } else if (a == "--markers") {
      markers = true;
    } else if (a == "--telling-words") {
      telling = true;
    } else if (a == "--compare-markers") {
      compareMarkers = true;
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: hs_scan [--chunk BYTES] [--rounds N] [--line-index] [--nul-check] [--markers] [--telling-words]\n"
                  "               [--line-classes] [--compare-markers] PATTERNS PATH...\n");
      return 0;
    } else {
      args.push_back(a);
    }
  }
  if (args.size() < 2) die("usage: hs_scan [--chunk BYTES] PATTERNS PATH...");
  if (compareMarkers && (markers || telling)) die("--compare-markers adds the markers itself");

  // Patterns: FLAGS \t REGEX per line.
  std::ifstream in(args[0]);
  if (!in) die("cannot read " + args[0]);
  std::vector<std::string> regexes;
  std::vector<unsigned> flags;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    size_t tab = line.find('\t');
    if (tab == std::string::npos) die("pattern line without a tab: " + line);
    flags.push_back(scanFlags(line.substr(0, tab)));
    regexes.push_back(line.substr(tab + 1));
  }
  if (regexes.empty()) die("no patterns in " + args[0]);
  const std::vector<std::string> plainRegexes = regexes;
  const std::vector<unsigned> plainFlags = flags;
  if (markers || compareMarkers) {
    for (const auto& m : attrib::ir::markerExpressions()) {
      regexes.push_back(m.regex);
      flags.push_back(HS_FLAG_MULTILINE);
    }
  }
  if (telling) {
    for (const auto& t : attrib::ir::tellingWords()) {
      regexes.emplace_back(t.regex);
      flags.push_back(HS_FLAG_MULTILINE | HS_FLAG_CASELESS);
    }
  }

  const auto compileStart = Clock::now();
  hs_database_t* db = compile(regexes, flags);
  const double compileMs = std::chrono::duration<double, std::milli>(Clock::now() - compileStart).count();
  hs_scratch_t* scratch = nullptr;
  if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) die("cannot allocate scratch");
  size_t dbSize = 0;
  hs_database_size(db, &dbSize);

  std::vector<std::string> files;
  for (size_t i = 1; i < args.size(); ++i) collect(args[i], &files);

  if (compareMarkers) {
    // What classifying lines costs the scan loop, measured in one process: the line index and
    // NUL check over the patterns alone, against the same plus the channel markers in the
    // database and every line's first bytes read, the two alternated round by round so that
    // a slower machine moment weighs on both, each side's best round kept.
    hs_database_t* plain = compile(plainRegexes, plainFlags);
    if (hs_alloc_scratch(plain, &scratch) != HS_SUCCESS) die("cannot allocate scratch");
    const ScanOptions without{lineIndex, nulCheck, false};
    const ScanOptions with{lineIndex, nulCheck, lineIndex, plain};
    ScanResult bestWithout, bestWith;
    std::string allWithout, allWith;
    std::vector<double> ratios;  // per round: with / without
    for (int round = 0; round < rounds; ++round) {
      const ScanResult a = scanFiles(plain, scratch, files, chunk, without);
      const ScanResult b = scanFiles(db, scratch, files, chunk, with);
      if (round == 0 || a.seconds < bestWithout.seconds) bestWithout = a;
      if (round == 0 || b.seconds < bestWith.seconds) bestWith = b;
      allWithout += (round ? ", " : "") + std::to_string(a.seconds);
      allWith += (round ? ", " : "") + std::to_string(b.seconds);
      ratios.push_back(b.seconds / a.seconds);
    }
    std::sort(ratios.begin(), ratios.end());
    const double median = ratios.size() % 2 ? ratios[ratios.size() / 2]
                                            : (ratios[ratios.size() / 2 - 1] + ratios[ratios.size() / 2]) / 2;
    std::printf(
        "{\"rounds\": %d, \"files\": %zu, \"bytes\": %llu, \"indexed_lines\": %llu, \"prefix_claimed\": %llu, "
        "\"marker_matches\": %llu, \"without_s\": %.4f, \"with_s\": %.4f, \"share_pct\": %.2f, "
        "\"median_round_share_pct\": %.2f, \"without_rounds\": [%s], \"with_rounds\": [%s]}\n",
        rounds, files.size(), bestWith.bytes, bestWith.indexed, bestWith.prefixClaimed,
        bestWith.matches - bestWithout.matches, bestWithout.seconds, bestWith.seconds,
        100.0 * (bestWith.seconds / bestWithout.seconds - 1), 100.0 * (median - 1), allWithout.c_str(), allWith.c_str());
    hs_free_database(plain);
    hs_free_scratch(scratch);
    hs_free_database(db);
    return 0;
  }

  // As attrib: a chunk whose every line a prefix claims is scanned without the markers.
  hs_database_t* withoutMarkers = nullptr;
  if (markers && lineIndex) {
    std::vector<std::string> r = plainRegexes;
    std::vector<unsigned> f = plainFlags;
    for (size_t i = plainRegexes.size() + attrib::ir::markerExpressions().size(); i < regexes.size(); ++i) {
      r.push_back(regexes[i]);  // the telling words, with --line-classes
      f.push_back(flags[i]);
    }
    withoutMarkers = compile(r, f);
    if (hs_alloc_scratch(withoutMarkers, &scratch) != HS_SUCCESS) die("cannot allocate scratch");
  }
  const ScanOptions options{lineIndex, nulCheck, markers && lineIndex, withoutMarkers};
  ScanResult best = scanFiles(db, scratch, files, chunk, options);
  for (int round = 1; round < rounds; ++round) {
    ScanResult r = scanFiles(db, scratch, files, chunk, options);
    if (r.seconds < best.seconds) best = r;
  }
  std::printf(
      "{\"patterns\": %zu, \"db_bytes\": %zu, \"compile_ms\": %.1f, \"files\": %zu, \"bytes\": %llu, "
      "\"scan_calls\": %llu, \"matches\": %llu, \"matched_lines\": %llu, \"indexed_lines\": %llu, \"prefix_claimed\": %llu, \"nul_bytes\": %llu, "
      "\"scan_s\": %.4f, \"gb_per_s\": %.3f}\n",
      regexes.size(), dbSize, compileMs, files.size(), best.bytes, best.calls, best.matches, best.lines, best.indexed,
      best.prefixClaimed, best.nuls, best.seconds, best.seconds > 0 ? best.bytes / best.seconds / 1e9 : 0.0);
  hs_free_scratch(scratch);
  hs_free_database(db);
  if (withoutMarkers) hs_free_database(withoutMarkers);
  return 0;
}
