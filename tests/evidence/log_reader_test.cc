#include "evidence/log_reader.h"

#include "evidence/line_channel.h"
#include "evidence/mapped_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace attrib::evidence {
namespace {

namespace fs = std::filesystem;

// gzip-compresses `text` as one member. With `fullFlush`, the deflate stream is flushed to a
// byte boundary after the text and left open: the caller appends what follows (garbage).
std::string gzip(const std::string& text, bool fullFlush = false) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, fullFlush ? Z_FULL_FLUSH : Z_FINISH), fullFlush ? Z_OK : Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// "line <i> <padding>" lines of varying length, each ending in '\n'.
std::string numberedLines(size_t count, uint32_t seed = 1) {
  std::mt19937 rng(seed);
  std::string text;
  for (size_t i = 0; i < count; ++i) {
    text += "line " + std::to_string(i) + " " + std::string(rng() % 60, static_cast<char>('a' + i % 26)) + "\n";
  }
  return text;
}

struct Line {
  std::string text;
  uint64_t offset;
  bool operator==(const Line&) const = default;
};

// The lines of `text` split at '\n' as the reader should deliver them.
std::vector<Line> splitLines(const std::string& text) {
  std::vector<Line> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back({text.substr(start, end - start), start});
    start = end + 1;
  }
  return lines;
}

std::ostream& operator<<(std::ostream& os, const Line& line) {
  return os << "{@" << line.offset << " \"" << line.text.substr(0, 40) << (line.text.size() > 40 ? "...\"" : "\"")
            << " (" << line.text.size() << " bytes)}";
}

struct ReadResult {
  std::vector<Line> lines;
  std::vector<size_t> chunkSizes;
  std::string error;
  uint64_t bytesRead = 0;
  uint64_t truncatedLines = 0;
  bool sawBinary = false;
  bool mapped = false;
};

// Reads a whole file, checking the chunk invariants on the way.
ReadResult readAll(const fs::path& path, const LogReaderOptions& options = {}) {
  ReadResult result;
  auto reader = LogReader::open(path.string(), options);
  EXPECT_NE(reader, nullptr);
  if (!reader) return result;
  LogChunk chunk;
  const char* buffer = nullptr;
  // The reader treats 0 as 1 for both options.
  const size_t bufferBound = std::max<size_t>(options.chunkBytes, 1) + std::max<size_t>(options.maxLineBytes, 1) + 1;
  uint64_t previousEnd = 0;
  while (reader->next(chunk)) {
    // Errors are reported when the stream ends, not while good chunks are still delivered.
    EXPECT_EQ(reader->error(), "");
    EXPECT_GT(chunk.lineCount(), 0u);
    EXPECT_FALSE(chunk.data.empty());
    EXPECT_EQ(chunk.data.back(), '\n');
    EXPECT_EQ(chunk.firstLine, result.lines.size());
    EXPECT_GE(chunk.offset, previousEnd);
    EXPECT_LE(chunk.data.size(), bufferBound);
    if (buffer == nullptr) buffer = chunk.data.data();
    if (reader->mapped()) {
      // A view of the mapping, at the chunk's place in the file: nothing was copied.
      EXPECT_EQ(chunk.data.data(), buffer + chunk.offset);
    } else {
      // One buffer, reused: memory does not grow with the file.
      EXPECT_GE(chunk.data.data(), buffer);
      EXPECT_LE(chunk.data.data() + chunk.data.size(), buffer + bufferBound);
    }
    EXPECT_EQ(chunk.lineStarts.at(0), 0u);
    EXPECT_EQ(chunk.prefixChannels.size(), chunk.lineCount());
    if (chunk.prefixChannels.size() != chunk.lineCount()) return result;
    for (size_t i = 0; i < chunk.lineCount(); ++i) {
      if (i > 0) {
        EXPECT_GT(chunk.lineStarts[i], chunk.lineStarts[i - 1]);
      }
      std::string_view line = chunk.line(i);
      EXPECT_EQ(line.find('\n'), std::string_view::npos);
      // Every reader path reads each line's prefix channel as it indexes the line.
      std::string_view unreturned = line.ends_with('\r') ? line.substr(0, line.size() - 1) : line;
      EXPECT_EQ(chunk.prefixChannel(i), prefixChannel(unreturned)) << "line " << i << ": " << line;
      result.lines.push_back({std::string(line), chunk.offset + chunk.lineStarts[i]});
    }
    previousEnd = chunk.offset + chunk.data.size();
    result.chunkSizes.push_back(chunk.data.size());
  }
  EXPECT_EQ(chunk.lineCount(), 0u);
  EXPECT_FALSE(reader->next(chunk));  // the end is sticky
  result.error = reader->error();
  result.bytesRead = reader->bytesRead();
  result.truncatedLines = reader->truncatedLines();
  result.sawBinary = reader->sawBinary();
  result.mapped = reader->mapped();
  return result;
}

class LogReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // As the attrib program does: plain files are then read through mappings.
    ASSERT_TRUE(enableMappedReads());
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("attrib_log_reader_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    ASSERT_TRUE(fs::create_directories(dir_));
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  fs::path write(const std::string& name, const std::string& bytes) {
    fs::path path = dir_ / name;
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good());
    return path;
  }

  // A reader of `text` written to `name`, read through a mapping in chunks of `chunkBytes`, with
  // its first chunk already in `first` (the truncation tests change the file under it).
  std::unique_ptr<LogReader> openMappedAtFirstChunk(const std::string& name, const std::string& text,
                                                    size_t chunkBytes, LogChunk& first) {
    LogReaderOptions options;
    options.chunkBytes = chunkBytes;
    auto reader = LogReader::open(write(name, text).string(), options);
    EXPECT_TRUE(reader->mapped());
    EXPECT_TRUE(reader->next(first));
    return reader;
  }

  fs::path dir_;
};

TEST_F(LogReaderTest, PlainFile) {
  const std::string text = "a\nbb\n\nccc\n";
  ReadResult r = readAll(write("plain.log", text));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, (std::vector<Line>{{"a", 0}, {"bb", 2}, {"", 5}, {"ccc", 6}}));
  EXPECT_EQ(r.chunkSizes, std::vector<size_t>{10});
  EXPECT_EQ(r.bytesRead, 10u);
  EXPECT_EQ(r.truncatedLines, 0u);
}

// The channel a line's first bytes name comes with the chunk, on every way a line ends: '\n',
// "\r\n", cut at maxLineBytes, and a final line without '\n' (readAll checks every line
// against evidence::prefixChannel; here, that the forms are the ones rsyslog and dmesg print).
TEST_F(LogReaderTest, ChunksCarryEachLinesPrefixChannel) {
  const std::string kernel = "Nov 29 10:42:00 gpu-0007 kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.";
  const std::string step = "Nov 29 10:42:07 gpu-0007 slurmstepd[81234]: error: Detected 1 oom_kill event";
  const std::string dmesg = "[74889.644138] mlx5_core 0000:0c:00.0: Port module event: module 0, Cable unplugged";
  const std::string app = "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered";
  LogReaderOptions options;
  options.maxLineBytes = 200;
  const std::string text = kernel + "\n" + step + "\r\n" + app + "\n" + kernel + std::string(300, 'x') + "\n" + dmesg;
  ReadResult r = readAll(write("mixed.log", text), options);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.lines.size(), 5u);
  auto channelOfLine = [&](size_t i) {
    std::string_view line = r.lines[i].text;
    return prefixChannel(line.ends_with('\r') ? line.substr(0, line.size() - 1) : line);
  };
  EXPECT_EQ(channelOfLine(0), ir::Channel::Kernel);
  EXPECT_EQ(channelOfLine(1), ir::Channel::Scheduler);  // its '\r' is not read
  EXPECT_EQ(channelOfLine(2), std::nullopt);
  EXPECT_EQ(channelOfLine(3), ir::Channel::Kernel);  // cut at 200 bytes
  EXPECT_EQ(channelOfLine(4), ir::Channel::Kernel);  // completed at the end
}

TEST_F(LogReaderTest, FinalLineWithoutNewlineIsCompleted) {
  ReadResult r = readAll(write("last.log", "a\nlast"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, (std::vector<Line>{{"a", 0}, {"last", 2}}));
  EXPECT_EQ(r.bytesRead, 6u);  // the added '\n' is not part of the file

  r = readAll(write("only.log", "x"));
  EXPECT_EQ(r.lines, (std::vector<Line>{{"x", 0}}));
  EXPECT_EQ(r.bytesRead, 1u);
}

TEST_F(LogReaderTest, CarriageReturnsAreKept) {
  ReadResult r = readAll(write("crlf.log", "a\r\nb\r\n\r\nc"));
  EXPECT_EQ(r.lines, (std::vector<Line>{{"a\r", 0}, {"b\r", 3}, {"\r", 6}, {"c", 8}}));
}

TEST_F(LogReaderTest, EmptyFile) {
  for (const char* name : {"empty.log", "empty.log.gz"}) {
    SCOPED_TRACE(name);
    auto reader = LogReader::open(write(name, "").string());
    LogChunk chunk;
    EXPECT_FALSE(reader->next(chunk));
    EXPECT_EQ(reader->error(), "");
    EXPECT_EQ(reader->bytesRead(), 0u);
  }
}

TEST_F(LogReaderTest, MissingFile) {
  const std::string path = (dir_ / "missing.log").string();
  auto reader = LogReader::open(path);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->error(), "");  // reported by next(), like every other error
  LogChunk chunk;
  EXPECT_FALSE(reader->next(chunk));
  EXPECT_EQ(reader->error(), "cannot open '" + path + "': No such file or directory");
  EXPECT_FALSE(reader->next(chunk));
  EXPECT_EQ(reader->bytesRead(), 0u);
}

TEST_F(LogReaderTest, DirectoryIsAnError) {
  ReadResult r = readAll(dir_);
  EXPECT_TRUE(r.lines.empty());
  EXPECT_EQ(r.error, "cannot read '" + dir_.string() + "': Is a directory");
}

TEST_F(LogReaderTest, Gzip) {
  const std::string text = numberedLines(5000);
  ReadResult r = readAll(write("app.log.gz", gzip(text)));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, splitLines(text));
  EXPECT_EQ(r.bytesRead, text.size());
}

TEST_F(LogReaderTest, GzipRecognisedByMagicBytes) {
  const std::string text = numberedLines(100);
  ReadResult r = readAll(write("rotated.log.1", gzip(text)));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, splitLines(text));
}

TEST_F(LogReaderTest, MultiMemberGzip) {
  // As `cat a.gz b.gz` and logrotate write them; a member may end in the middle of a line,
  // and may be empty.
  const std::string a = numberedLines(300, 1), b = "tail of a line\n", c = numberedLines(200, 2);
  const std::string text = a + "hea" + "d" + b + c;
  const std::string data = gzip(a + "hea") + gzip("") + gzip("d" + b) + gzip(c);
  ReadResult r = readAll(write("multi.log.gz", data));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, splitLines(text));
  EXPECT_EQ(r.bytesRead, text.size());

  // Small chunks and a member boundary inside every chunk.
  LogReaderOptions small;
  small.chunkBytes = 7;
  small.maxLineBytes = 200;
  r = readAll(write("multi2.log.gz", data), small);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, splitLines(text));
}

TEST_F(LogReaderTest, ZeroPaddingAfterGzipIsIgnored) {
  ReadResult r = readAll(write("padded.log.gz", gzip("a\nb\n") + std::string(100, '\0')));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, (std::vector<Line>{{"a", 0}, {"b", 2}}));
  // Zeros alone are not gzip.
  r = readAll(write("zeros.log.gz", std::string(100, '\0')));
  EXPECT_TRUE(r.lines.empty());
  EXPECT_EQ(r.error.rfind("corrupt gzip data at byte ", 0), 0u) << r.error;
}

TEST_F(LogReaderTest, ChunkBoundaries) {
  const std::string text = numberedLines(2000, 7);
  const std::vector<Line> expected = splitLines(text);
  const std::string gz = gzip(text);
  for (size_t chunkBytes : {1, 2, 7, 64, 100, 1000, 4096, 1 << 20}) {
    SCOPED_TRACE("chunkBytes " + std::to_string(chunkBytes));
    LogReaderOptions options;
    options.chunkBytes = chunkBytes;
    options.maxLineBytes = 128;
    for (const char* name : {"chunks.log", "chunks.log.gz"}) {
      SCOPED_TRACE(name);
      ReadResult r = readAll(write(name, name == std::string("chunks.log") ? text : gz), options);
      EXPECT_EQ(r.error, "");
      EXPECT_EQ(r.truncatedLines, 0u);
      ASSERT_EQ(r.lines.size(), expected.size());
      EXPECT_EQ(r.lines, expected);  // whole, once each, at their offsets
      EXPECT_EQ(r.bytesRead, text.size());
      // Every chunk but the last is full: it grows until it holds at least chunkBytes.
      size_t total = 0;
      for (size_t i = 0; i < r.chunkSizes.size(); ++i) {
        if (i + 1 < r.chunkSizes.size()) {
          EXPECT_GE(r.chunkSizes[i], chunkBytes);
        }
        total += r.chunkSizes[i];
      }
      EXPECT_EQ(total, text.size());
      if (chunkBytes <= 100) {
        EXPECT_GT(r.chunkSizes.size(), text.size() / (chunkBytes + 129));
      }
    }
  }
}

TEST_F(LogReaderTest, OneLinePerChunkWithTinyChunks) {
  LogReaderOptions options;
  options.chunkBytes = 1;
  options.maxLineBytes = 16;
  ReadResult r = readAll(write("tiny.log", "ab\n\ncd\nlast"), options);
  EXPECT_EQ(r.lines, (std::vector<Line>{{"ab", 0}, {"", 3}, {"cd", 4}, {"last", 7}}));
  EXPECT_EQ(r.chunkSizes, (std::vector<size_t>{3, 1, 3, 5}));
}

TEST_F(LogReaderTest, LongLinesAreCut) {
  LogReaderOptions options;
  options.chunkBytes = 16;
  options.maxLineBytes = 10;
  const std::string text = "short\n" + std::string(25, 'a') + "\nmid\n" + std::string(11, 'b') + "\n" +
                           std::string(10, 'c') + "\n" + std::string(30, 'd');
  ReadResult r = readAll(write("long.log", text), options);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, (std::vector<Line>{{"short", 0},
                                        {std::string(10, 'a'), 6},
                                        {"mid", 32},
                                        {std::string(10, 'b'), 36},
                                        {std::string(10, 'c'), 48},  // exactly the limit: kept whole
                                        {std::string(10, 'd'), 59}}));
  EXPECT_EQ(r.truncatedLines, 3u);
  EXPECT_EQ(r.bytesRead, text.size());
}

// The line after a cut line must start exactly where the file has it, wherever reads end.
TEST_F(LogReaderTest, LongLinesAcrossManyChunkSizes) {
  std::mt19937 rng(99);
  std::string text;
  for (int i = 0; i < 400; ++i) {
    const size_t length = rng() % 5 == 0 ? 40 + rng() % 200 : rng() % 30;
    text += std::string(length, static_cast<char>('a' + i % 26)) + "\n";
  }
  std::vector<Line> expected = splitLines(text);
  for (Line& line : expected) line.text.resize(std::min<size_t>(line.text.size(), 32));
  for (size_t chunkBytes : {1, 5, 33, 64, 500, 100000}) {
    SCOPED_TRACE("chunkBytes " + std::to_string(chunkBytes));
    LogReaderOptions options;
    options.chunkBytes = chunkBytes;
    options.maxLineBytes = 32;
    ReadResult r = readAll(write("mixed.log.gz", gzip(text)), options);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.lines, expected);
    EXPECT_EQ(r.bytesRead, text.size());
  }
}

TEST_F(LogReaderTest, TenMegabyteLineCostsOnlyTheLimit) {
  constexpr size_t kMiB = 1 << 20;
  const std::string text = "before\n" + std::string(10 * kMiB, 'x') + "\nafter the long line\nend\n";
  LogReaderOptions options;
  options.maxLineBytes = kMiB;
  options.chunkBytes = 256 << 10;
  for (const char* name : {"huge.log", "huge.log.gz"}) {
    SCOPED_TRACE(name);
    ReadResult r = readAll(write(name, name == std::string("huge.log") ? text : gzip(text)), options);
    EXPECT_EQ(r.error, "");
    ASSERT_EQ(r.lines.size(), 4u);
    EXPECT_EQ(r.lines[0], (Line{"before", 0}));
    EXPECT_EQ(r.lines[1].offset, 7u);
    EXPECT_EQ(r.lines[1].text.size(), kMiB);
    EXPECT_EQ(r.lines[1].text.find_first_not_of('x'), std::string::npos);
    EXPECT_EQ(r.lines[2], (Line{"after the long line", 7 + 10 * kMiB + 1}));
    EXPECT_EQ(r.lines[3], (Line{"end", 7 + 10 * kMiB + 21}));
    EXPECT_EQ(r.truncatedLines, 1u);
    EXPECT_EQ(r.bytesRead, text.size());
    // readAll checked that every chunk lies in one buffer of chunkBytes + maxLineBytes + 1.
    for (size_t size : r.chunkSizes) EXPECT_LE(size, options.chunkBytes + options.maxLineBytes + 1);
  }
}

TEST_F(LogReaderTest, LongLineAtEndWithoutNewline) {
  LogReaderOptions options;
  options.maxLineBytes = 4;
  ReadResult r = readAll(write("end.log", "ok\n0123456789"), options);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, (std::vector<Line>{{"ok", 0}, {"0123", 3}}));
  EXPECT_EQ(r.truncatedLines, 1u);
  EXPECT_EQ(r.bytesRead, 13u);
}

TEST_F(LogReaderTest, BinaryGarbage) {
  std::mt19937 rng(5);
  std::string bytes(1 << 20, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  bytes[0] = 'x';  // not gzip magic
  LogReaderOptions options;
  options.chunkBytes = 4096;
  options.maxLineBytes = 1 << 16;
  ReadResult r = readAll(write("garbage.bin", bytes), options);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.lines, splitLines(bytes));
  EXPECT_EQ(r.bytesRead, bytes.size());
}

TEST_F(LogReaderTest, GarbageNamedGzIsCorrupt) {
  ReadResult r = readAll(write("notgzip.log.gz", "plain text, not compressed\n"));
  EXPECT_TRUE(r.lines.empty());
  EXPECT_EQ(r.error.rfind("corrupt gzip data at byte ", 0), 0u) << r.error;
}

TEST_F(LogReaderTest, CorruptGzipDeliversTheGoodLinesFirst) {
  const std::string good = numberedLines(1000);
  // A byte-aligned deflate stream, then a block of the reserved type 3 (0xff): zlib stops at
  // the first byte after the good data.
  const std::string compressed = gzip(good, /*fullFlush=*/true);
  ReadResult r = readAll(write("corrupt.log.gz", compressed + std::string(64, '\xff')));
  EXPECT_EQ(r.lines, splitLines(good));
  EXPECT_EQ(r.error, "corrupt gzip data at byte " + std::to_string(compressed.size() + 1));
}

TEST_F(LogReaderTest, CorruptChecksum) {
  const std::string text = numberedLines(50);
  std::string data = gzip(text);
  data[data.size() - 6] ^= 0x55;  // inside the CRC-32 of the trailer
  ReadResult r = readAll(write("crc.log.gz", data));
  EXPECT_EQ(r.lines, splitLines(text));  // delivered before the trailer is checked
  EXPECT_EQ(r.error, "corrupt gzip data at byte " + std::to_string(data.size() - 4));
}

TEST_F(LogReaderTest, CorruptSecondMember) {
  const std::string text = "first member\n";
  const std::string first = gzip(text);
  std::string second = gzip("second\n");
  second[3] = '\x40';  // reserved header flag bit
  ReadResult r = readAll(write("member.log.gz", first + second));
  EXPECT_EQ(r.lines, (std::vector<Line>{{"first member", 0}}));
  EXPECT_EQ(r.error.rfind("corrupt gzip data at byte ", 0), 0u) << r.error;
}

TEST_F(LogReaderTest, TruncatedGzip) {
  const std::string text = numberedLines(20000);
  const std::string data = gzip(text);
  const std::vector<Line> all = splitLines(text);

  // Cut in the middle: the lines decoded so far arrive, the last one possibly partial.
  ReadResult r = readAll(write("half.log.gz", data.substr(0, data.size() / 2)));
  EXPECT_EQ(r.error, "truncated gzip file");
  ASSERT_GT(r.lines.size(), 1000u);
  ASSERT_LT(r.lines.size(), all.size());
  for (size_t i = 0; i + 1 < r.lines.size(); ++i) ASSERT_EQ(r.lines[i], all[i]);
  const Line& last = r.lines.back();
  EXPECT_EQ(last.offset, all[r.lines.size() - 1].offset);
  EXPECT_EQ(all[r.lines.size() - 1].text.rfind(last.text, 0), 0u);

  // Only the trailer missing: every line is there.
  r = readAll(write("trailer.log.gz", data.substr(0, data.size() - 3)));
  EXPECT_EQ(r.error, "truncated gzip file");
  EXPECT_EQ(r.lines, all);

  // Only part of the header.
  r = readAll(write("header.log.gz", data.substr(0, 5)));
  EXPECT_EQ(r.error, "truncated gzip file");
  EXPECT_TRUE(r.lines.empty());

  // A second member cut short.
  r = readAll(write("second.log.gz", gzip("one\n") + data.substr(0, 30)));
  EXPECT_EQ(r.error, "truncated gzip file");
  ASSERT_FALSE(r.lines.empty());
  EXPECT_EQ(r.lines[0], (Line{"one", 0}));
}

// Damaged gzip anywhere: an error or not, but never a crash, a hang or a line with a '\n'.
TEST_F(LogReaderTest, RandomlyDamagedGzip) {
  const std::string text = numberedLines(300, 3);
  const std::string first = gzip(text);
  const std::string data = first + gzip(numberedLines(50, 4));
  std::mt19937 rng(77);
  LogReaderOptions options;
  options.chunkBytes = 64;
  options.maxLineBytes = 48;
  for (int i = 0; i < 300; ++i) {
    std::string damaged = data;
    if (i % 3 == 0) {
      // Anywhere but the end of a member (a clean end) or the start (an empty file).
      size_t size = 1 + rng() % (damaged.size() - 1);
      damaged.resize(size == first.size() ? size + 1 : size);
    } else {
      for (int k = 0; k < 1 + i % 4; ++k) damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
    }
    ReadResult r = readAll(write("damaged.log.gz", damaged), options);
    if (i % 3 == 0) {
      EXPECT_EQ(r.error, "truncated gzip file");
    }
    if (!r.error.empty()) {
      EXPECT_TRUE(r.error == "truncated gzip file" || r.error.rfind("corrupt gzip data at byte ", 0) == 0) << r.error;
    }
  }
}

TEST_F(LogReaderTest, DegenerateOptions) {
  LogReaderOptions options;
  options.chunkBytes = 0;    // treated as 1: one line per chunk
  options.maxLineBytes = 0;  // treated as 1
  ReadResult r = readAll(write("degenerate.log", "abc\n\nd\n"), options);
  EXPECT_EQ(r.lines, (std::vector<Line>{{"a", 0}, {"", 4}, {"d", 5}}));
  EXPECT_EQ(r.truncatedLines, 1u);
}

// ---- Plain files read through a mapping (evidence/mapped_file.h) ----

// Every plain file is mapped, and what a mapping gives is exactly what read(2) gives: the same
// lines at the same offsets, the same cut lines, completed final lines, NUL detection and byte
// counts. The sizes include exact multiples of the page size without a final '\n', whose
// completing '\n' lies in the page after the file's last.
TEST_F(LogReaderTest, MappedAndCopiedReadsAgree) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::mt19937 rng(17);
  std::vector<std::pair<std::string, std::string>> texts = {
      {"lines", numberedLines(3000, 3)},
      {"no final newline", numberedLines(500, 4) + "the last line"},
      {"page without final newline", std::string(page - 1, 'p') + "q"},
      {"two pages, one line", std::string(2 * page, 'r')},
      {"page ending in newline", std::string(page - 1, 's') + "\n"},
      {"crlf", "a\r\nb\r\n\r\nlast\r"},
      {"newlines only", std::string(5000, '\n')},
      {"one byte", "x"},
  };
  std::string mixed;
  for (int i = 0; i < 600; ++i) {
    const size_t length = rng() % 7 == 0 ? 100 + rng() % 400 : rng() % 50;
    std::string line(length, static_cast<char>('a' + i % 26));
    if (i % 97 == 0 && length > 0) line[length / 2] = '\0';
    mixed += line + "\n";
  }
  texts.emplace_back("long lines and NULs", mixed);
  for (const auto& [what, text] : texts) {
    for (size_t chunkBytes : {1, 100, 4096, 1 << 20}) {
      for (size_t maxLineBytes : {64, 1 << 20}) {
        SCOPED_TRACE(what + ", chunkBytes " + std::to_string(chunkBytes) + ", maxLineBytes " + std::to_string(maxLineBytes));
        LogReaderOptions options;
        options.chunkBytes = chunkBytes;
        options.maxLineBytes = maxLineBytes;
        const fs::path path = write("plain.log", text);
        ReadResult mapped = readAll(path, options);
        options.mapFiles = false;
        ReadResult copied = readAll(path, options);
        EXPECT_TRUE(mapped.mapped);
        EXPECT_FALSE(copied.mapped);
        EXPECT_EQ(mapped.lines, copied.lines);
        EXPECT_EQ(mapped.chunkSizes, copied.chunkSizes);
        EXPECT_EQ(mapped.error, copied.error);
        EXPECT_EQ(mapped.bytesRead, copied.bytesRead);
        EXPECT_EQ(mapped.bytesRead, text.size());
        EXPECT_EQ(mapped.truncatedLines, copied.truncatedLines);
        EXPECT_EQ(mapped.sawBinary, copied.sawBinary);
      }
    }
  }
  // The mapping is private: completing the final line and cutting long lines never wrote to the file.
  const std::string text = "0123456789abcdef\nend";
  const fs::path path = write("private.log", text);
  LogReaderOptions options;
  options.maxLineBytes = 4;
  EXPECT_TRUE(readAll(path, options).mapped);
  std::ifstream in(path, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
}

// Compressed files, empty files and everything that is not a regular file keep the read(2) path.
TEST_F(LogReaderTest, OnlyPlainFilesAreMapped) {
  const std::string text = numberedLines(50);
  EXPECT_TRUE(readAll(write("a.log", text)).mapped);
  EXPECT_FALSE(readAll(write("a.log.gz", gzip(text))).mapped);
  ReadResult magic = readAll(write("b.log", gzip(text)));  // gzip recognised by its magic bytes
  EXPECT_FALSE(magic.mapped);
  EXPECT_EQ(magic.lines, splitLines(text));
  ReadResult empty = readAll(write("empty.log", ""));
  EXPECT_FALSE(empty.mapped);
  EXPECT_TRUE(empty.lines.empty());
  EXPECT_EQ(empty.error, "");
  ReadResult directory = readAll(dir_);
  EXPECT_FALSE(directory.mapped);
  EXPECT_NE(directory.error.find("cannot read"), std::string::npos) << directory.error;
  const fs::path fifo = dir_ / "pipe.log";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ReadResult pipe = readAll(fifo);
  EXPECT_FALSE(pipe.mapped);
  EXPECT_NE(pipe.error.find("a FIFO"), std::string::npos) << pipe.error;
}

// Past MappedFile::kMaxMappings readers open at once, files are read through read(2), alike.
TEST_F(LogReaderTest, ManyOpenReadersFallBackToReading) {
  const std::string text = numberedLines(20);
  const fs::path path = write("many.log", text);
  std::vector<std::unique_ptr<LogReader>> readers;
  size_t mapped = 0;
  for (size_t i = 0; i < MappedFile::kMaxMappings + 20; ++i) {
    readers.push_back(LogReader::open(path.string()));
    mapped += readers.back()->mapped() ? 1 : 0;
  }
  EXPECT_GE(mapped, MappedFile::kMaxMappings - 8);  // other tests' readers are closed; allow a few
  EXPECT_LE(mapped, MappedFile::kMaxMappings);
  for (auto& reader : readers) {
    LogChunk chunk;
    std::string seen;
    while (reader->next(chunk)) seen += chunk.data;
    EXPECT_EQ(seen, text);
    EXPECT_EQ(reader->error(), "");
  }
  readers.clear();
  EXPECT_TRUE(LogReader::open(path.string())->mapped());  // the slots were given back
}

// A file that another process truncates while it is mapped: the reader ends it where it now
// ends, says so, and the lines delivered before are whole. No SIGBUS reaches the process.
TEST_F(LogReaderTest, FileThatShrinksWhileMappedEndsWithAnError) {
  const std::string text = numberedLines(60000, 9);  // about 2.3 MB
  LogChunk chunk;
  auto reader = openMappedAtFirstChunk("shrinking.log", text, 64 << 10, chunk);
  ASSERT_FALSE(HasFailure());
  const fs::path path = dir_ / "shrinking.log";
  std::string seen(chunk.data);
  constexpr size_t kNewSize = 200000;
  ASSERT_EQ(::truncate(path.c_str(), kNewSize), 0);
  while (reader->next(chunk)) seen += chunk.data;
  EXPECT_EQ(reader->error(), "'" + path.string() + "' shrank while it was read (from " + std::to_string(text.size()) +
                                 " to " + std::to_string(kNewSize) + " bytes); the rest is not read");
  // Everything up to the new end, its last (now partial) line completed.
  EXPECT_EQ(seen, text.substr(0, kNewSize) + (text[kNewSize - 1] == '\n' ? "" : "\n"));
  EXPECT_EQ(reader->bytesRead(), kNewSize);
}

// The race the size check cannot see: the file is truncated while a chunk of it is in use.
// Touching the lost pages reads zeros instead of killing the process, and the reader stops.
TEST_F(LogReaderTest, PagesLostUnderAChunkReadAsZerosNotSigbus) {
  const std::string text = numberedLines(20000, 11);
  LogChunk chunk;
  auto reader = openMappedAtFirstChunk("lost.log", text, 256 << 10, chunk);
  ASSERT_FALSE(HasFailure());
  const fs::path path = dir_ / "lost.log";
  ASSERT_GT(chunk.data.size(), 3 * static_cast<size_t>(::sysconf(_SC_PAGESIZE)));
  ASSERT_EQ(::truncate(path.c_str(), 0), 0);
  size_t zeros = 0;
  for (char c : chunk.data) zeros += c == '\0' ? 1 : 0;  // would be SIGBUS without the guard
  EXPECT_EQ(zeros, chunk.data.size());
  EXPECT_FALSE(reader->next(chunk));
  EXPECT_NE(reader->error().find("shrank while it was read (from " + std::to_string(text.size()) + " to 0 bytes)"),
            std::string::npos)
      << reader->error();
}

// The guard handles only faults in its mappings: any other SIGBUS still ends the process.
TEST_F(LogReaderTest, OtherSigbusStillKills) {
  EXPECT_EXIT(
      {
        enableMappedReads();
        ::raise(SIGBUS);
      },
      // Killed by the signal, or by the handler installed before (AddressSanitizer's exits 1).
      [](int status) { return (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) || (WIFEXITED(status) && WEXITSTATUS(status) != 0); },
      "");
}

// Pages behind the reader are given back: reading a 48 MiB file keeps about one release step
// (2 MiB) and a chunk resident, not the file.
TEST_F(LogReaderTest, MappedFileDoesNotStayResident) {
  auto rssFileKiB = [] {
    std::ifstream status("/proc/self/status");
    std::string key;
    long value = 0;
    while (status >> key) {
      if (key == "RssFile:") {
        status >> value;
        return value;
      }
      status.ignore(1 << 10, '\n');
    }
    return -1L;
  };
  std::string text;
  const std::string line(99, 'm');
  while (text.size() < (48u << 20)) text += line + "\n";
  const fs::path path = write("big.log", text);
  text.clear();
  text.shrink_to_fit();
  const long before = rssFileKiB();
  ASSERT_GE(before, 0);
  auto reader = LogReader::open(path.string());
  ASSERT_TRUE(reader->mapped());
  LogChunk chunk;
  long most = before;
  uint64_t bytes = 0;
  while (reader->next(chunk)) {
    bytes += chunk.data.size();
    most = std::max(most, rssFileKiB());
  }
  EXPECT_EQ(bytes, reader->bytesRead());
  EXPECT_LT(most - before, 12L << 10) << "resident file pages grew by " << (most - before) << " KiB";
}

}  // namespace
}  // namespace attrib::evidence
