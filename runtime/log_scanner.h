// Extraction from log files: every log pattern of a bundle runs over every file in one
// Hyperscan database, chunk by chunk (thousands of lines per hs_scan call, never one call per
// line). Only the lines Hyperscan matched are looked at again: PCRE2 confirms the match on the
// line alone and extracts named captures, the line prefix is parsed for time and rank, and the
// symptom's `when` clause decides. Files are scanned in parallel; the result is the same
// whatever the thread count, because instances are ordered by (file, line) afterwards.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/bundle.h"
#include "runtime/instance.h"
#include "evidence/log_reader.h"
#include "runtime/regex_table.h"
#include "runtime/evidence_types.h"
#include "evidence/line_prefix.h"

namespace attrib::runtime {

struct LogScanOptions {
  unsigned threads = 0;  // 0 = one per core
  evidence::LogReaderOptions reader;
  size_t maxTextBytes = 4096;  // instance text beyond this is cut (with "...")
};

struct LogScanResult {
  std::vector<Instance> instances;       // ordered by file (as given), then line
  std::vector<ConnectorReport> reports;  // one per file, in the order given
  uint64_t lines = 0;
  uint64_t bytes = 0;
};

class LogScanner {
 public:
  LogScanner(const Bundle& bundle, const RegexTable& regexes) : bundle_(bundle), regexes_(regexes) {}

  // Scans `files` for `workload` (whose start anchors syslog years).
  LogScanResult scan(const std::vector<LogFile>& files, const Workload& workload, const LogScanOptions& options) const;
  // Scans lines held in memory, grouped by (node, source) in order of first appearance and
  // otherwise exactly like files (the same database, confirmation and clauses).
  LogScanResult scanLines(const std::vector<LogLine>& lines, const Workload& workload,
                          const LogScanOptions& options) const;

 private:
  const Bundle& bundle_;
  const RegexTable& regexes_;
};

}  // namespace attrib::runtime
