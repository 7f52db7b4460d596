// A PostgreSQL connection (libpq) with the rules attrib keeps for every database it writes:
//
// - Values only ever travel as parameters ($1, $2, ...) of a statement, never spliced into SQL
//   text: exec() takes the SQL and its values apart, and the SQL should be a constant.
// - Errors are for people: one line, with the SQLSTATE when the server gave one
//   (Error::sqlstate, e.g. "40001" for a serialisation failure, "53100" for a full disk).
// - The conninfo (keyword=value or a postgresql:// URL) may hold a password: it never appears
//   in an error message. describe() names the server without it.
// - Opening is bounded in time: connect_timeout defaults to 5 s unless the conninfo sets it.
//
// A Connection is not thread-safe: one thread uses it at a time (a pool hands them out).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace attrib::pg {

struct Error {
  std::string sqlstate;  // five characters, or "" (the connection failed, no server answer)
  std::string message;   // one line, never a password
  bool empty() const { return message.empty(); }
};

// A statement parameter in text form; nullopt is SQL NULL.
class Value {
 public:
  Value(std::nullopt_t) {}
  Value(std::string s) : text_(std::move(s)) {}
  Value(std::string_view s) : text_(std::string(s)) {}
  Value(const char* s) : text_(std::string(s)) {}
  Value(int64_t v) : text_(std::to_string(v)) {}
  Value(int v) : text_(std::to_string(v)) {}
  Value(uint64_t v) : text_(std::to_string(v)) {}
  Value(double v);
  Value(bool v) : text_(v ? "true" : "false") {}
  template <typename T>
  Value(const std::optional<T>& v) {
    if (v) text_ = Value(*v).text_;
  }
  const std::optional<std::string>& text() const { return text_; }

 private:
  std::optional<std::string> text_;
};

// Null: an empty string (the SQLite sink's convention for "not known").
inline Value optionalText(const std::string& s) { return s.empty() ? Value(std::nullopt) : Value(s); }

// The answer to one statement: rows in text form, or the error.
class Result {
 public:
  Result() = default;
  Result(pg_result* r, Error e);
  Result(Result&&) noexcept;
  Result& operator=(Result&&) noexcept;
  ~Result();

  bool ok() const { return error_.empty(); }
  const Error& error() const { return error_; }
  int rows() const;
  bool isNull(int row, int col) const;
  std::string text(int row, int col) const;
  int64_t integer(int row, int col) const;  // 0 when null
  int64_t affected() const;                 // rows an INSERT/UPDATE/DELETE touched

 private:
  pg_result* result_ = nullptr;
  Error error_;
};

struct ConnectOptions {
  int connectTimeoutSeconds = 5;  // when the conninfo does not say
  std::string applicationName = "attrib";
};

class Connection {
 public:
  // Connects; nullptr with a one-line `error` (no password in it) when it cannot.
  static std::unique_ptr<Connection> open(const std::string& conninfo, Error* error, const ConnectOptions& options = {});
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one statement with its parameters ($1...). Never put a value into `sql`.
  Result exec(std::string_view sql, const std::vector<Value>& params = {});
  // Several statements without parameters (schema migrations); no rows come back.
  Result script(std::string_view sql);

  // "host:port/dbname as user": the server, for messages (never the password).
  const std::string& describe() const { return describe_; }
  // False when the connection is gone (the server restarted, the network broke).
  bool healthy() const;
  // Connects again with the same conninfo (after !healthy()).
  bool reset(Error* error);

 private:
  Connection(pg_conn* conn, std::string secret);
  Error failure(std::string_view what) const;  // from the connection's last message
  pg_conn* conn_;
  std::string secret_;  // the password, to scrub from any message; never printed
  std::string describe_;
};

// A transaction on `connection`: BEGIN now, ROLLBACK when it ends without commit(). A failed
// statement inside leaves it aborted: end it (return) and retry the whole transaction.
class Transaction {
 public:
  // `mode`: e.g. "ISOLATION LEVEL SERIALIZABLE" (constant text); "" for READ COMMITTED.
  explicit Transaction(Connection& connection, std::string_view mode = "");
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  const Result& begun() const { return begin_; }  // check .ok() before using it
  Result commit();

 private:
  Connection& connection_;
  Result begin_;
  bool open_ = false;
};

// Serialisation failures and deadlocks: the transaction may succeed if run again.
bool retryable(const Error& error);

// What `conninfo` names, without its password ("host:port/dbname as user"), or "" when it
// cannot be parsed (and then `error` says why, without quoting it).
std::string describeConninfo(const std::string& conninfo, std::string* error = nullptr);

// `conninfo` (either form) as keyword=value with `password` as its password (a password it had is
// replaced); "" when it cannot be parsed (and then `error` says why, without quoting it).
std::string withPassword(const std::string& conninfo, const std::string& password, std::string* error = nullptr);

}  // namespace attrib::pg
