// The node history of a SQLite verdict database (the schema of sqlite_sink.h, docs/sinks.md):
// history::HistoryReader over its verdicts and bad_nodes tables. Opens read-only and never
// creates, migrates or writes; refuses a file that is not an attrib verdict database or has a
// newer schema, with one line saying so.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "history/node_history.h"

struct sqlite3;

namespace attrib::sinks {

class SqliteHistoryReader : public history::HistoryReader {
 public:
  static std::unique_ptr<SqliteHistoryReader> open(const std::string& path, std::string* error);
  ~SqliteHistoryReader() override;
  bool events(const history::HistoryQuery& query, std::vector<history::NodeEvent>* out, std::string* error) override;

 private:
  SqliteHistoryReader(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  std::mutex mu_;  // one query at a time on the connection
  sqlite3* db_;
  std::string path_;
};

}  // namespace attrib::sinks
