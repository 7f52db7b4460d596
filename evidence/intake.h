// Evidence as people have it: files, directories of any layout, archives and standard input,
// turned into the evidence of one workload (docs/workloads.md, "Intake").
//
// What a path is:
//   - a regular file: a log (any name; `.gz` and rotated files included), or the workload's
//     context when it is named workload.json;
//   - a directory: walked recursively, every regular file a log, in one of the layouts below;
//   - an archive (.tar, .tar.gz, .tgz, .tar.xz, .tar.bz2, .tar.zst, .zip): its entries, read in
//     place (nothing is extracted), in the same layouts;
//   - bytes delivered in memory (standard input): an archive when they look like one, else a log.
// Layouts (a directory, or an archive's top level):
//   - a workload directory (it holds workload.json or logs/): workload.json is the context,
//     logs/<node>/... are logs of that node (files directly in logs/ have none), metrics/*.jsonl
//     are metric samples, other files are logs of no node;
//   - a sosreport (it holds sos_commands/): the logs under var/log, sos_commands/kernel, logs,
//     nvidia, infiniband, slurm, kubernetes and containers, all of the node its `hostname` file
//     names; the rest of the report is configuration and is skipped;
//   - anything else: every file is a log of no node.
// A log's node comes from its layout when the layout gives one, else from the one node its first
// 4 KiB name (kubectl describe's "Node:", a journal export's "_HOSTNAME="), else from its lines
// (the scanner: syslog hosts, NCCL's host:pid:tid, ...); its hint (what its lines that say
// nothing about themselves are) from its name.
//
// What is not read is said, never silent: each refused or unreadable file gets a connector report
// with the reason (a symbolic link leading out of the path given, a dangling link or a link loop,
// a FIFO, socket or device, an archive entry with an absolute name or a ".." component, a link in
// an archive, an unreadable directory); files that are not logs (images, model weights, JSON
// documents, binary data) are counted in one report per path. Reading stays inside each path
// given: links inside it are followed only to what lies inside it too.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "evidence/workload_evidence.h"

namespace attrib::evidence {

struct IntakeOptions {
  size_t maxFiles = 100'000;                    // logs taken, archives' entries included
  uint64_t maxWorkloadJsonBytes = 1 << 20;      // a larger workload.json is refused
  uint64_t maxMetricsFileBytes = uint64_t{256} << 20;
};

struct PathOptions {
  std::string node;    // the node of every log under the path (a connector's ${node}); "" = the layout's
  std::string source;  // the hint of every log under the path; "" = from each file's name
  // Reading is confined to this directory (a connector's roots); "" = the path itself.
  std::string root;
};

class Intake {
 public:
  explicit Intake(IntakeOptions options = {});
  ~Intake();
  Intake(const Intake&) = delete;
  Intake& operator=(const Intake&) = delete;

  // A path named by a user or a connector: a file, a directory or an archive.
  void addPath(const std::string& path, const PathOptions& options = {});
  // Bytes delivered rather than named (standard input), called `name` in reports.
  void addBytes(const std::string& name, std::shared_ptr<const std::string> bytes, const PathOptions& options = {});
  // A workload.json given explicitly; it wins over one found in a layout. False with `error`
  // when it cannot be read or parsed.
  bool setWorkloadFile(const std::string& path, std::string* error);

  // The evidence found. False with `error` only when a workload.json found in a layout exists
  // but cannot be read at all (the verdict would describe the wrong workload).
  bool finish(WorkloadEvidence* out, std::string* error);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace attrib::evidence
