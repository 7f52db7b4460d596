// The work claims of a single worker over a SQLite sink: the sink's verdicts are the state
// (pending: not stored yet), every candidate is this worker's, and completing is writing. One
// `attrib run --watch` per SQLite database; several workers share a PostgreSQL sink instead
// (postgres_claims.h).
#pragma once

#include "sinks/sqlite_sink.h"
#include "sinks/work_claims.h"

namespace attrib::sinks {

class SqliteClaims : public WorkClaims {
 public:
  explicit SqliteClaims(SqliteSink& sink) : sink_(sink) {}
  const Sink* sink() const override { return &sink_; }
  bool pending(const std::vector<std::string>& ids, const std::string& digest, std::vector<std::string>* out,
               std::string* error) override;
  bool claim(const std::vector<std::string>& candidates, const std::string& digest, std::vector<Claim>* out,
             std::string* error) override;
  bool complete(const runtime::Verdict& verdict, const Claim& claim, std::string* error) override;
  void release(const Claim&) override {}

 private:
  SqliteSink& sink_;
};

}  // namespace attrib::sinks
