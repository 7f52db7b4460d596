// Streaming reader of one log file: plain or gzip-compressed, read in large chunks of whole
// lines so the scanner can hand each chunk to Hyperscan in one call. Memory stays bounded by
// the chunk size whatever the file size.
//
// Contract:
// - Each chunk holds whole lines separated by '\n' (a final line without '\n' is completed; a
//   '\r' before '\n' is kept as part of the line and callers may strip it).
// - A line longer than `maxLineBytes` is cut: its first maxLineBytes bytes are delivered as a
//   line (flagged in `truncatedLines`), the rest is skipped. So one 10 MB line of garbage costs
//   no more memory than the limit.
// - Offsets are byte offsets in the decompressed stream: `chunk.offset` is the offset of the
//   chunk's first byte; line i starts at chunk.offset + lineStarts[i].
// - Errors (unreadable file, corrupt gzip) end the stream: next() returns false and error()
//   says why in one line. Lines delivered before the error stay valid for the caller.
//
// Details:
// - A chunk grows until it holds at least chunkBytes (the last one may hold less), so it may
//   exceed chunkBytes by up to maxLineBytes + 1 to finish its last line. A cut line ends its
//   chunk; the skipped rest lies between that chunk and the next, so offsets stay exact. A cut
//   line counts as one line in `firstLine` numbering, and its skipped rest as read bytes.
// - Memory (read(2)): one buffer of chunkBytes + maxLineBytes + 1 bytes (reused for every chunk) plus 64
//   KiB of compressed input, whatever the file; lineStarts and prefixChannels take 5 bytes per line of a chunk.
//   Options of 0 count as 1; chunkBytes is capped at 2 GiB and maxLineBytes at 1 GiB.
// - gzip: a name ending in ".gz" or a file starting with the gzip magic bytes is decompressed
//   (a ".gz" file holding plain text is therefore corrupt gzip). Members are decompressed one
//   after another; zero bytes after a member are ignored as gzip(1) does, anything else must be
//   another member.
// - Errors, exactly: "cannot open '<path>': <strerror>" (open() still returns a reader, whose
//   first next() reports it), "cannot read '<path>': <strerror>" (e.g. a directory),
//   "corrupt gzip data at byte N" (N: offset in the compressed file where zlib noticed the
//   damage, give or take the few bytes zlib reads ahead), "truncated gzip file" (the file ends
//   inside a member). error() stays empty until next() has returned false. The bytes decoded
//   before an error are delivered first, the last partial line completed as at the end of a file.
// - An empty file (whatever its name) yields no chunks and no error.
// - Plain files are mapped (evidence/mapped_file.h) once the program has enabled mapped reads,
//   unless `mapFiles` is false: a regular file that is not empty, not named ".gz" and does not
//   start with the gzip magic bytes. A chunk is then a view of the mapping, not of a buffer: no
//   copy, and the same chunks, lines, offsets and errors as read(2) gives. Such a file is read up
//   to its size when it was opened (bytes appended later are not read). One that shrinks while
//   it is read ends where it now ends, or where its pages were lost, with the error "'<path>'
//   shrank while it was read (from A to B bytes); the rest is not read"; the lines delivered
//   before stay valid. Pages behind the reader are given back as it goes, so resident memory
//   stays about a chunk whatever the file's size.
// - bytesRead() counts the decompressed stream up to the end of the last chunk (at the end: the
//   whole stream, including skipped rests of cut lines, excluding a '\n' added to a final line).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/line_channel.h"
#include "ir/log_channels.h"

namespace attrib::evidence {

class ArchiveReader;

// "a FIFO", "a character device", ... for a st_mode.
const char* fileTypeName(unsigned mode);

struct LogChunk {
  std::string_view data;              // whole lines, each ending in '\n'
  uint64_t offset = 0;                // offset of data[0] in the (decompressed) file
  uint64_t firstLine = 0;             // 0-based number of the first line in the file
  std::vector<uint32_t> lineStarts;   // start of each line in `data`, ascending
  // Per line (as many as lineStarts): the channel its first bytes name (evidence::prefixChannel
  // of the line without its '\r'), as ir::Channel + 1, or 0 for none. Read while the line is
  // indexed, when its bytes are in the first-level cache: a later pass over every line's first
  // bytes costs about four times as much (a cache miss per line).
  std::vector<uint8_t> prefixChannels;
  size_t lineCount() const { return lineStarts.size(); }
  std::string_view line(size_t i) const;  // without its '\n'
  std::optional<ir::Channel> prefixChannel(size_t i) const {
    if (prefixChannels[i] == 0) return std::nullopt;
    return static_cast<ir::Channel>(prefixChannels[i] - 1);
  }
  // Appends the line base[begin, end) (end at its '\n', which is not read) to lineStarts and
  // prefixChannels; `base` is data's first byte. Inline: the reader's indexing loop calls it
  // for every line.
  void addLine(const char* base, size_t begin, size_t end) {
    lineStarts.push_back(static_cast<uint32_t>(begin));
    if (end > begin && base[end - 1] == '\r') --end;
    const std::optional<ir::Channel> c = evidence::prefixChannel(std::string_view(base + begin, end - begin));
    prefixChannels.push_back(c ? static_cast<uint8_t>(static_cast<uint8_t>(*c) + 1) : 0);
  }
  void clearLines() {
    lineStarts.clear();
    prefixChannels.clear();
  }
};

struct LogReaderOptions {
  size_t chunkBytes = 1u << 20;     // target chunk size (fits in L2 while it is indexed and scanned)
  size_t maxLineBytes = 1u << 20;   // longer lines are cut (see above)
  bool mapFiles = true;             // map plain files when mapped reads are enabled (see above)
};

class LogReader {
 public:
  // Opens `path`; a name ending in ".gz" (or gzip magic bytes) is decompressed.
  static std::unique_ptr<LogReader> open(const std::string& path, const LogReaderOptions& options = {});
  // A file's bytes held in memory (the Service receives files this way), read exactly as open()
  // reads a file: `name` decides gzip by its suffix like a path; `error`, when not empty, is
  // reported after the bytes as a read error would be ("cannot open '...': ..." when there are
  // none).
  static std::unique_ptr<LogReader> openMemory(std::shared_ptr<const std::string> bytes, const std::string& name,
                                               std::string error, const LogReaderOptions& options = {});
  // The current entry of `archive` (evidence/archive_reader.h), read exactly as open() reads a
  // file of that name. The reader is valid until the archive moves to its next entry.
  static std::unique_ptr<LogReader> openArchiveEntry(ArchiveReader& archive, const std::string& name,
                                                     const LogReaderOptions& options = {});
  virtual ~LogReader() = default;

  // The next chunk; false at the end of the file or on error. The chunk's data stays valid
  // until the next call.
  virtual bool next(LogChunk& chunk) = 0;
  // Empty unless reading failed: "cannot open: ...", "corrupt gzip data at byte N", ...
  virtual const std::string& error() const = 0;
  virtual uint64_t bytesRead() const = 0;       // decompressed bytes delivered so far
  virtual uint64_t truncatedLines() const = 0;  // lines cut at maxLineBytes
  // Whether NUL bytes were seen in the lines delivered so far: binary data in a text log.
  virtual bool sawBinary() const = 0;
  // Whether the chunks are views of a mapped file (see above) rather than of a buffer.
  virtual bool mapped() const = 0;
};

}  // namespace attrib::evidence
