// Extraction from log files: every log pattern of a bundle and the channel markers run over
// every file in one Hyperscan database, chunk by chunk (thousands of lines per hs_scan call,
// never one call per line). Only the lines Hyperscan matched are looked at again:
//   1. the line's channel (ir/log_channels.h): its marker, else its file's hint;
//   2. the record that holds it (evidence/log_record.h): the line and its continuation lines;
//   3. for each symptom that reads the record's channel, PCRE2 confirms the pattern on the
//      record's messages (prefixes stripped, lines joined by '\n': `^` is a message's start) and
//      extracts the named captures, the symptom's `when` clause decides, and one instance is
//      made per symptom and record, at the record's first line, with the record as its text
//      (a context symptom nothing reads the text of keeps only the line its match starts on:
//      runtime/context_text.h);
//   4. the instance's time, node and rank come from the record's prefixes, the file, and what
//      the file's other lines say about who printed what (see "Identity" below).
// The same pass finds the lines that hold telling words (ir/telling_words.h), kept per form
// for a verdict that no rule explains (runtime/telling_lines.h).
// Files are scanned in parallel, the largest first; the result is the same whatever the thread
// count and order, because instances are ordered by (file, line) afterwards. Plain files are
// scanned where they are mapped when the program enabled mapped reads (evidence/log_reader.h).
//
// Identity. An instance's node is, by precedence: a `node` capture; the host its line names
// (syslog/journal host, NCCL's host:pid:tid, UCX, Ray's ip, pdsh/talosctl labels, slurmstepd-<node>),
// as the workload's node of that name or short name; the file's node (its layout); the host the
// file's other lines name for the same srun task or rank; the file's only host; for kernel and
// system lines, the one host the file's shell prompts name (evidence/shell_prompt.h); the node
// the workload's layout gives an srun task
// (nodes[task / tasks_per_node]); else none. Its rank: a `rank` capture; "[rankN]"; the file's
// rank; an srun task when the layout says tasks are ranks (tasks_per_node == ranks_per_node);
// else none.
//
// Time. The record's own time (a line's timestamp, or a kernel time anchored to the wall clock
// by a line of the node that carries both); else the time of the nearest earlier line
// (estimated); else unknown (kTimeUnknown, read as null by predicates) — never the epoch.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "evidence/line_prefix.h"
#include "evidence/log_reader.h"
#include "runtime/bundle.h"
#include "runtime/evidence_types.h"
#include "runtime/instance.h"
#include "runtime/instance_blocks.h"
#include "runtime/regex_table.h"
#include "runtime/telling_lines.h"

struct hs_scratch;

namespace attrib::runtime {

struct LogScanOptions {
  unsigned threads = 0;  // 0 = one per core
  evidence::LogReaderOptions reader;
  size_t maxTextBytes = 4096;  // instance text beyond this is cut (with "...")
  // Instances of the routine context symptoms no predicate reads the text of keep only the
  // line their match starts on, cut at kCompactTextBytes (runtime/context_text.h). False keeps
  // every instance's whole record (the comparison the tests make).
  bool compactContextText = true;
};

struct LogScanResult {
  std::vector<Instance> instances;       // ordered by file (as given), then line
  std::vector<ConnectorReport> reports;  // one per file, in the order given
  TellingLines telling;                  // the most telling lines, for a verdict no rule explains
  uint64_t lines = 0;
  uint64_t bytes = 0;
};

class LogScanner {
 public:
  LogScanner(const Bundle& bundle, const RegexTable& regexes);

  // Scans `files` for `workload` (whose start anchors syslog years).
  LogScanResult scan(const std::vector<LogFile>& files, const Workload& workload, const LogScanOptions& options) const;
  // Scans lines held in memory, grouped by (node, source) in order of first appearance and
  // otherwise exactly like files (the same database, channels, records, confirmation and clauses).
  LogScanResult scanLines(const std::vector<LogLine>& lines, const Workload& workload,
                          const LogScanOptions& options) const;

 private:
  // The entries `unit` (indices into `files`) of one archive, in archive order.
  void scanArchive(const std::vector<LogFile>& files, const std::vector<size_t>& unit, const Workload& workload,
                   const LogScanOptions& options, hs_scratch* scratch, std::vector<ConnectorReport>& reports,
                   std::vector<InstanceBlocks>& perFile, std::vector<TellingLines>& telling,
                   std::vector<uint64_t>& lines) const;

  const Bundle& bundle_;
  const RegexTable& regexes_;
  std::vector<ir::ChannelMask> reads_;  // per symptom: the channels it reads
  std::vector<bool> compact_;           // per symptom: compactTextSymptoms(bundle.program)
};

}  // namespace attrib::runtime
