// hs_scan: the raw Hyperscan baseline of bench/run, the limit attrib's log scan is measured
// against. It compiles the same log patterns with the same flags `attribc build` uses
// (HS_FLAG_MULTILINE plus the pattern's i/s/u flags, never SINGLEMATCH: compiler/bundle_writer.cc
// scanFlags) into one block-mode database, and scans the same files the way attrib's LogScanner
// does: one hs_scan call per chunk of about 1 MiB of whole lines (LogReaderOptions::chunkBytes),
// one thread, one scratch. It does only that: no line index, no confirmation, no extraction, so
// the time is Hyperscan plus read(2).
//
//   hs_scan [--chunk BYTES] [--line-index] [--nul-check] [--line-classes] PATTERNS PATH...
//
// --line-classes adds what attribc build puts into every bundle's database after the patterns:
// the channel markers' literal expressions (ir/log_channels.h) and the telling words
// (ir/telling_words.h), with the same flags, and (with --line-index) the reader's read of every
// line's first bytes for a Program or Prefix marker as it indexes the line (LogChunk::addLine,
// evidence::prefixChannel), so bench/run can
// say what classifying lines costs the scan (--markers and --telling-words add one of the two).
//
// --line-index and --nul-check add, one at a time, the two passes attrib's reader and scanner
// make over every byte besides Hyperscan (runtime/log_reader.cc cutChunk: one memchr call and one
// push_back per line, to index line starts; runtime/log_scanner.cc: a memchr for NUL bytes per
// chunk), so bench/run can say what each costs.
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
  unsigned long long matches = 0;
  std::vector<size_t> lineEnds;  // per block: the '\n' ending each matched line (may repeat)
};

int onMatch(unsigned, unsigned long long, unsigned long long to, unsigned, void* context) {
  auto* c = static_cast<Counts*>(context);
  ++c->matches;
  size_t last = to > 0 ? to - 1 : 0;  // the line holding the match's last byte
  const void* nl = last < c->blockSize ? std::memchr(c->block + last, '\n', c->blockSize - last) : nullptr;
  c->lineEnds.push_back(nl ? static_cast<const char*>(nl) - c->block : c->blockSize);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  size_t chunk = 1u << 20;  // = LogReaderOptions::chunkBytes
  bool lineIndex = false, nulCheck = false, markers = false, telling = false;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--chunk" && i + 1 < argc) {
      chunk = std::strtoull(argv[++i], nullptr, 10);
      if (chunk == 0) die("--chunk must be positive");
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
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: hs_scan [--chunk BYTES] [--line-index] [--nul-check] [--line-classes] PATTERNS PATH...\n");
      return 0;
    } else {
      args.push_back(a);
    }
  }
  if (args.size() < 2) die("usage: hs_scan [--chunk BYTES] PATTERNS PATH...");

  // Patterns: FLAGS \t REGEX per line.
  std::ifstream in(args[0]);
  if (!in) die("cannot read " + args[0]);
  std::vector<std::string> regexes;
  std::vector<unsigned> flags, ids;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    size_t tab = line.find('\t');
    if (tab == std::string::npos) die("pattern line without a tab: " + line);
    flags.push_back(scanFlags(line.substr(0, tab)));
    regexes.push_back(line.substr(tab + 1));
    ids.push_back(static_cast<unsigned>(ids.size()));
  }
  if (regexes.empty()) die("no patterns in " + args[0]);
  if (markers) {
    for (const auto& m : attrib::ir::markerExpressions()) {
      regexes.push_back(m.regex);
      flags.push_back(HS_FLAG_MULTILINE);
      ids.push_back(static_cast<unsigned>(ids.size()));
    }
  }
  if (telling) {
    for (const auto& t : attrib::ir::tellingWords()) {
      regexes.emplace_back(t.regex);
      flags.push_back(HS_FLAG_MULTILINE | HS_FLAG_CASELESS);
      ids.push_back(static_cast<unsigned>(ids.size()));
    }
  }
  std::vector<const char*> expressions;
  for (const auto& r : regexes) expressions.push_back(r.c_str());

  auto compileStart = Clock::now();
  hs_database_t* db = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_multi(expressions.data(), flags.data(), ids.data(), static_cast<unsigned>(expressions.size()),
                       HS_MODE_BLOCK, nullptr, &db, &error) != HS_SUCCESS) {
    std::string message = error && error->message ? error->message : "unknown error";
    int index = error ? error->expression : -1;
    die("cannot compile pattern " + std::to_string(index) + ": " + message);
  }
  double compileMs = std::chrono::duration<double, std::milli>(Clock::now() - compileStart).count();
  hs_scratch_t* scratch = nullptr;
  if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) die("cannot allocate scratch");
  size_t dbSize = 0;
  hs_database_size(db, &dbSize);

  std::vector<std::string> files;
  for (size_t i = 1; i < args.size(); ++i) collect(args[i], &files);

  // Like attrib's reader: a buffer of chunk + 1 MB; each scan covers the whole lines read so far.
  const size_t capacity = chunk + (1u << 20);
  std::unique_ptr<char[]> buffer(new char[capacity + 1]);
  Counts counts;
  attrib::evidence::LogChunk index;  // --line-index: its lineStarts (and with --markers its prefixChannels)
  unsigned long long bytes = 0, lines = 0, calls = 0, indexed = 0, nuls = 0, prefixClaimed = 0;
  auto scanStart = Clock::now();
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
      if (lineIndex) {  // = ChunkedReader::cutChunk's loop
        index.clearLines();
        for (size_t start = 0; start < cut;) {
          const void* nl = std::memchr(buffer.get() + start, '\n', cut - start);
          const size_t end = nl ? static_cast<const char*>(nl) - buffer.get() : cut;
          if (markers) {
            index.addLine(buffer.get(), start, end);  // the reader's own: the line's prefix channel too
          } else {
            index.lineStarts.push_back(static_cast<uint32_t>(start));
          }
          start = nl ? end + 1 : cut;
        }
        indexed += index.lineCount();
        prefixClaimed += static_cast<unsigned long long>(
            std::count_if(index.prefixChannels.begin(), index.prefixChannels.end(), [](uint8_t c) { return c != 0; }));
      }
      if (nulCheck && std::memchr(buffer.get(), 0, cut)) {  // = FileScan::run's binary-data check
        nuls += static_cast<unsigned long long>(std::count(buffer.get(), buffer.get() + cut, '\0'));
      }
      counts.block = buffer.get();
      counts.blockSize = cut;
      counts.lineEnds.clear();
      if (hs_scan(db, buffer.get(), static_cast<unsigned>(cut), 0, scratch, onMatch, &counts) != HS_SUCCESS)
        die("hs_scan failed in " + path);
      ++calls;
      std::sort(counts.lineEnds.begin(), counts.lineEnds.end());
      lines += std::unique(counts.lineEnds.begin(), counts.lineEnds.end()) - counts.lineEnds.begin();
      bytes += cut;
      std::memmove(buffer.get(), buffer.get() + cut, end - cut);
      end -= cut;
    }
  }
  double scanS = std::chrono::duration<double>(Clock::now() - scanStart).count();
  std::printf(
      "{\"patterns\": %zu, \"db_bytes\": %zu, \"compile_ms\": %.1f, \"files\": %zu, \"bytes\": %llu, "
      "\"scan_calls\": %llu, \"matches\": %llu, \"matched_lines\": %llu, \"indexed_lines\": %llu, \"prefix_claimed\": %llu, \"nul_bytes\": %llu, "
      "\"scan_s\": %.4f, \"gb_per_s\": %.3f}\n",
      regexes.size(), dbSize, compileMs, files.size(), bytes, calls, counts.matches, lines, indexed, prefixClaimed, nuls, scanS,
      scanS > 0 ? bytes / scanS / 1e9 : 0.0);
  hs_free_scratch(scratch);
  hs_free_database(db);
  return 0;
}
