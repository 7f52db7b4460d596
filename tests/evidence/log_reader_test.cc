#include "evidence/log_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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
    // One buffer, reused: memory does not grow with the file.
    if (buffer == nullptr) buffer = chunk.data.data();
    EXPECT_GE(chunk.data.data(), buffer);
    EXPECT_LE(chunk.data.data() + chunk.data.size(), buffer + bufferBound);
    EXPECT_EQ(chunk.lineStarts.at(0), 0u);
    for (size_t i = 0; i < chunk.lineCount(); ++i) {
      if (i > 0) {
        EXPECT_GT(chunk.lineStarts[i], chunk.lineStarts[i - 1]);
      }
      std::string_view line = chunk.line(i);
      EXPECT_EQ(line.find('\n'), std::string_view::npos);
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
  return result;
}

class LogReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
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

}  // namespace
}  // namespace attrib::evidence
