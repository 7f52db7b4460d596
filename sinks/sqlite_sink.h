// Verdicts into a SQLite database, for dashboards and questions such as "which nodes were blamed
// most this week" (docs/sinks.md has the schema and example queries).
//
// Guarantees:
// - One transaction per verdict: a reader, or a crash at any instant, sees a verdict whole or
//   not at all (WAL journal, synchronous=NORMAL: a power loss may lose the last verdicts, never
//   corrupt the file).
// - Idempotent: a verdict is keyed by (workload id, ruleset digest); writing it again replaces
//   the previous one and its rows, so re-running never duplicates.
// - The schema is versioned (table schema_version) and migrated forward on open; a database from
//   a newer attrib is refused rather than written wrongly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sinks/sink.h"

struct sqlite3;

namespace attrib::sinks {

struct SqliteOptions {
  uint64_t maxBytes = 0;  // the database never grows past this (0: no limit); a verdict that
                          // does not fit is an error and is not stored
};

class SqliteSink : public Sink {
 public:
  // Opens (creating it and its schema if needed) the database at `path`; nullptr with a
  // one-line `error` when it cannot be opened or migrated.
  static std::unique_ptr<SqliteSink> open(const std::string& path, std::string* error,
                                          const SqliteOptions& options = {});
  ~SqliteSink() override;

  bool write(const runtime::Verdict& verdict, std::string* error) override;

  // Whether a verdict for this workload and rule set is already stored (the orchestrator's
  // "never attribute twice").
  bool contains(const std::string& workloadId, const std::string& rulesetDigest);

  static constexpr int kSchemaVersion = 1;

 private:
  explicit SqliteSink(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

}  // namespace attrib::sinks
