// Log evidence before it is scanned: whole files (read from disk or delivered as bytes) and
// single lines delivered in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "evidence/provenance.h"

namespace attrib::evidence {

struct LogFile {
  std::string path;    // the file; for an archive's entry, the archive
  std::string entry;   // the entry's name in the archive at `path`, or "" for a plain file
  std::string node;    // the node the file belongs to ("" when its lines must say)
  // What the file is, as a hint for its lines that say nothing about themselves: a channel
  // name, a source word (applog, syslog, dmesg, ...) or a file name (evidence/line_channel.h
  // channelHint); empty: the hint comes from `name`, else `path`.
  std::string source;
  std::string name;    // how connector reports name it (e.g. "gpu-0001/syslog.log.1.gz"); default node/source
  std::optional<int64_t> rank;  // the rank the whole file belongs to (from its path), when known;
                                // a line's own rank prefix wins
  // The file's bytes when they were delivered rather than read here (the Service's file
  // observations): scanned exactly like the file at `path`, which then only names it. A read
  // error the sender met is reported after them; `modified` stands for the file's mtime.
  std::shared_ptr<const std::string> bytes;
  std::string readError;
  std::optional<int64_t> modified;
};

// A log line delivered in memory (tests, the service's observations) rather than in a file.
// Time and rank, when given, are used as they are; otherwise the line's prefix is parsed.
struct LogLine {
  std::string node;
  std::string source;
  std::optional<int64_t> time;
  std::optional<int64_t> rank;
  std::string gpu;
  std::string text;
  Provenance where;
};

}  // namespace attrib::evidence
