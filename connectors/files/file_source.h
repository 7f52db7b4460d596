// Local log files as an evidence source: glob patterns templated by the workload, confined to
// configured root directories. A pattern such as
//   /shared/logs/${job}/${node}/*.log*          (source: the file's base name)
//   /var/log/slurm/job-${job}.out                (source: applog)
// is expanded per node (when it names ${node}) and globbed; every match is resolved (symlinks
// and `..` included) and must stay inside one of the roots, or it is refused and reported.
// Plain, gzip and rotated files are read by the runtime's log reader; this finds them.
#pragma once

#include <string>
#include <vector>

#include "evidence/log_input.h"
#include "evidence/workload_evidence.h"

namespace attrib::connectors::files {

struct FilePattern {
  std::string glob;    // placeholders: ${id}, ${job} (the id after its last '/'), ${name}, ${node}
  std::string source;  // the log source; empty: the file name up to its first '.' (syslog.log.1 -> syslog)
};

struct FileSourceOptions {
  std::vector<std::string> roots;  // directories reading is confined to (required)
  std::vector<FilePattern> patterns;
  size_t maxFiles = 100'000;
};

// The log files of `workload`, sorted by path, each with its node (from ${node}, else from a
// path component equal to one of the workload's nodes), its rank when the file name says
// ("rank3.log", "rank-12.out", "worker_rank_7.log") and its source. One report per pattern:
// matches refused for leaving the roots make it `partial` with the first such path; no match
// makes it `empty`.
std::vector<evidence::LogFile> findLogFiles(const FileSourceOptions& options, const evidence::Workload& workload,
                                           std::vector<evidence::ConnectorReport>* reports);

}  // namespace attrib::connectors::files
