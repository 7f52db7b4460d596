// The node history of a PostgreSQL verdict database (the schema of postgres_sink.h, which is the
// SQLite sink's, docs/sinks.md): history::HistoryReader over its verdicts and bad_nodes tables,
// with the events, order and limits of the SQLite reader (sqlite_history.h).
//
// Read-only: the session is READ ONLY, so it never creates, migrates or writes (a database
// without the sink's schema stays without it). Refuses, with one line, a server it cannot reach,
// a database without the sink's schema and one with a newer schema. A connection lost between
// queries is opened again once. The conninfo's password never appears in a message.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "history/node_history.h"

namespace attrib::pg {
class Connection;
}

namespace attrib::sinks {

class PostgresHistoryReader : public history::HistoryReader {
 public:
  // conninfo: keyword=value or a postgresql:// URL (pg/connection.h).
  static std::unique_ptr<PostgresHistoryReader> open(const std::string& conninfo, std::string* error,
                                                     int connectTimeoutSeconds = 5);
  ~PostgresHistoryReader() override;
  bool events(const history::HistoryQuery& query, std::vector<history::NodeEvent>* out, std::string* error) override;

 private:
  explicit PostgresHistoryReader(std::unique_ptr<pg::Connection> db);
  std::mutex mu_;  // one query at a time on the connection (pg::Connection is not thread-safe)
  std::unique_ptr<pg::Connection> db_;
};

}  // namespace attrib::sinks
