// Verdicts into a PostgreSQL database: the SQLite sink's schema (docs/sinks.md, "Schema
// (version 1)"; types adapted) for fleets where many `attrib` processes write one history.
//
// Guarantees:
// - One transaction per verdict: a reader, or a writer killed at any instant, sees a verdict
//   whole or not at all.
// - Idempotent: a verdict is keyed by (workload id, ruleset digest); writing it again replaces
//   the previous one and all its rows. Two writers at once are safe: the workload row's lock
//   orders writers of one key, different keys do not wait for each other; a serialisation
//   failure or deadlock is retried (three times).
// - Versioned: schema_version, migrated forward in one transaction under an advisory lock (two
//   processes opening a new database at once do not race); a newer schema is refused.
// - Bounded, if asked: PostgresOptions::maxBytes caps the tables' total size, checked inside the
//   verdict's transaction (a verdict that would pass it is rolled back and is an error). A full
//   disk or an exceeded quota on the server is the same kind of error, with its SQLSTATE.
// - The conninfo's password never appears in an error (pg/connection.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sinks/sink.h"

namespace attrib::pg {
class Connection;
}

namespace attrib::sinks {

struct PostgresOptions {
  uint64_t maxBytes = 0;  // the sink's tables never grow past this (0: no limit)
  int connectTimeoutSeconds = 5;
};

class PostgresSink : public Sink {
 public:
  // Connects (conninfo: keyword=value or a postgresql:// URL) and creates or migrates the
  // schema; nullptr with a one-line `error` when it cannot.
  static std::unique_ptr<PostgresSink> open(const std::string& conninfo, std::string* error, const PostgresOptions& options = {});
  ~PostgresSink() override;

  bool write(const runtime::Verdict& verdict, std::string* error) override;

  // Runs first inside a verdict's transaction, on the sink's connection; false refuses the write
  // (the transaction is rolled back, nothing is stored) with `error`, and `retry` when the whole
  // transaction may succeed if run again. The work claims (postgres_claims.h) fence a verdict
  // with it: the claim is completed in the verdict's own transaction, or neither happens.
  using Guard = std::function<bool(pg::Connection& db, std::string* error, bool* retry)>;
  bool write(const runtime::Verdict& verdict, std::string* error, const Guard& guard);

  // Whether a verdict for this workload and rule set is stored.
  bool contains(const std::string& workloadId, const std::string& rulesetDigest);

  static constexpr int kSchemaVersion = 1;

 private:
  PostgresSink(std::unique_ptr<pg::Connection> connection, PostgresOptions options);
  // One attempt; false with `error` (and `retry` when running it again may succeed).
  bool writeOnce(const runtime::Verdict& verdict, std::string* error, bool* retry, const Guard& guard);
  std::unique_ptr<pg::Connection> db_;
  PostgresOptions options_;
};

// A sink's database as given (a postgresql:// URL or keyword=value), checked, with `password`
// put in when it is not empty: false with a one-line `error` that never quotes the conninfo.
bool postgresConninfo(const std::string& conninfo, const std::string& password, std::string* out, std::string* error);

}  // namespace attrib::sinks
