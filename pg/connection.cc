#include "pg/connection.h"


#include <charconv>
#include <cmath>
#include <cstdlib>

#include "pg/libpq_api.h"

namespace attrib::pg {
namespace {

// libpq, once parse() has loaded it: every connection, result and error starts there.
const LibpqApi& pq() { return *libpqApi(nullptr); }

// One line: newlines and tabs become "; " and spaces, the "ERROR:  " prefix goes, and the
// password (when known) is replaced wherever it appears.
std::string oneLine(std::string_view in, const std::string& secret) {
  std::string s(in);
  if (!secret.empty()) {
    for (size_t at; (at = s.find(secret)) != std::string::npos;) s.replace(at, secret.size(), "***");
  }
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      if (!out.empty() && out.back() != ' ') out += "; ";
    } else if (c == '\t' || c == '\r') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
  for (const char* prefix : {"ERROR:  ", "FATAL:  "}) {
    if (out.rfind(prefix, 0) == 0) out.erase(0, std::string_view(prefix).size());
  }
  return out;
}

// libpq's parse errors quote the part they could not read, which may be the password: every
// quoted stretch goes.
std::string withoutQuotes(std::string_view in) {
  std::string out;
  bool quoted = false;
  for (char c : in) {
    if (c == '"') {
      if (!quoted) out += "\"...\"";
      quoted = !quoted;
    } else if (!quoted) {
      out += c;
    }
  }
  return out;
}

struct Parsed {
  std::string describe, password;
};

bool parse(const std::string& conninfo, Parsed* out, std::string* error) {
  if (!libpqApi(error)) return false;
  char* message = nullptr;
  PQconninfoOption* options = pq().PQconninfoParse(conninfo.c_str(), &message);
  if (!options) {
    std::string why = message ? oneLine(withoutQuotes(message), "") : "out of memory";
    pq().PQfreemem(message);
    if (error) *error = "the PostgreSQL connection string cannot be read: " + why;
    return false;
  }
  std::string host, hostaddr, port, dbname, user;
  for (PQconninfoOption* o = options; o->keyword; ++o) {
    if (!o->val) continue;
    std::string_view k = o->keyword;
    if (k == "host") host = o->val;
    else if (k == "hostaddr") hostaddr = o->val;
    else if (k == "port") port = o->val;
    else if (k == "dbname") dbname = o->val;
    else if (k == "user") user = o->val;
    else if (k == "password") out->password = o->val;
  }
  pq().PQconninfoFree(options);
  // A dbname that is itself a conninfo is not expanded by PQconninfoParse; we never pass one.
  std::string where = !host.empty() ? host : !hostaddr.empty() ? hostaddr : "the default socket";
  if (!port.empty()) where += ":" + port;
  if (!dbname.empty()) where += "/" + dbname;
  if (!user.empty()) where += " as " + user;
  out->describe = where;
  return true;
}

Error resultError(const pg_result* r, const std::string& secret) {
  Error e;
  const char* state = pq().PQresultErrorField(r, PG_DIAG_SQLSTATE);
  if (state) e.sqlstate = state;
  const char* primary = pq().PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
  e.message = oneLine(primary ? primary : pq().PQresultErrorMessage(r), secret);
  if (e.message.empty()) e.message = "the statement failed";
  return e;
}

}  // namespace

Value::Value(double v) {
  if (std::isnan(v)) {
    text_ = "NaN";
  } else if (std::isinf(v)) {
    text_ = v > 0 ? "Infinity" : "-Infinity";
  } else {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    text_ = std::string(buf, r.ptr);
  }
}

Result::Result(pg_result* r, Error e) : result_(r), error_(std::move(e)) {}
Result::Result(Result&& o) noexcept : result_(o.result_), error_(std::move(o.error_)) { o.result_ = nullptr; }
Result& Result::operator=(Result&& o) noexcept {
  if (this != &o) {
    if (result_) pq().PQclear(result_);
    result_ = o.result_;
    error_ = std::move(o.error_);
    o.result_ = nullptr;
  }
  return *this;
}
Result::~Result() {
  if (result_) pq().PQclear(result_);
}
int Result::rows() const { return result_ ? pq().PQntuples(result_) : 0; }
bool Result::isNull(int row, int col) const { return !result_ || pq().PQgetisnull(result_, row, col); }
std::string Result::text(int row, int col) const {
  if (isNull(row, col)) return "";
  return std::string(pq().PQgetvalue(result_, row, col), static_cast<size_t>(pq().PQgetlength(result_, row, col)));
}
int64_t Result::integer(int row, int col) const { return isNull(row, col) ? 0 : std::strtoll(pq().PQgetvalue(result_, row, col), nullptr, 10); }
int64_t Result::affected() const {
  const char* n = result_ ? pq().PQcmdTuples(result_) : "";
  return *n ? std::strtoll(n, nullptr, 10) : 0;
}

std::string describeConninfo(const std::string& conninfo, std::string* error) {
  Parsed p;
  if (!parse(conninfo, &p, error)) return "";
  return p.describe;
}

std::unique_ptr<Connection> Connection::open(const std::string& conninfo, Error* error, const ConnectOptions& options) {
  Parsed parsed;
  if (!parse(conninfo, &parsed, &error->message)) return nullptr;
  std::string timeout = std::to_string(options.connectTimeoutSeconds);
  // Entries before "dbname" are defaults the conninfo may override (libpq reads the arrays in
  // order and expands the conninfo where dbname stands).
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), options.applicationName.c_str(), conninfo.c_str(), nullptr};
  pg_conn* conn = pq().PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  std::unique_ptr<Connection> c(new Connection(conn, parsed.password));
  c->describe_ = parsed.describe;
  if (!conn || pq().PQstatus(conn) != CONNECTION_OK) {
    *error = c->failure("cannot connect to PostgreSQL at " + parsed.describe);
    return nullptr;
  }
  // Messages and times in a form the code can read, whatever the server's defaults.
  Result r = c->script("SET client_min_messages = warning; SET TIME ZONE 'UTC'");
  if (!r.ok()) {
    *error = r.error();
    return nullptr;
  }
  return c;
}

Connection::Connection(pg_conn* conn, std::string secret) : conn_(conn), secret_(std::move(secret)) {}
Connection::~Connection() {
  if (conn_) pq().PQfinish(conn_);
}

Error Connection::failure(std::string_view what) const {
  Error e;
  std::string why = conn_ ? oneLine(pq().PQerrorMessage(conn_), secret_) : "out of memory";
  e.message = std::string(what) + (why.empty() ? "" : ": " + why);
  return e;
}

Result Connection::exec(std::string_view sql, const std::vector<Value>& params) {
  std::string text(sql);
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.text() ? p.text()->c_str() : nullptr);
  pg_result* r = pq().PQexecParams(conn_, text.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0);
  if (!r) return Result(nullptr, failure("the statement could not be sent"));
  ExecStatusType status = pq().PQresultStatus(r);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return Result(r, {});
  Error e = resultError(r, secret_);
  pq().PQclear(r);
  if (pq().PQstatus(conn_) == CONNECTION_BAD && e.sqlstate.empty()) e = failure("the connection to PostgreSQL was lost");
  return Result(nullptr, std::move(e));
}

Result Connection::script(std::string_view sql) {
  std::string text(sql);
  pg_result* r = pq().PQexec(conn_, text.c_str());
  if (!r) return Result(nullptr, failure("the statement could not be sent"));
  ExecStatusType status = pq().PQresultStatus(r);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return Result(r, {});
  Error e = resultError(r, secret_);
  pq().PQclear(r);
  return Result(nullptr, std::move(e));
}

bool Connection::healthy() const { return pq().PQstatus(conn_) == CONNECTION_OK; }

bool Connection::reset(Error* error) {
  pq().PQreset(conn_);
  if (pq().PQstatus(conn_) == CONNECTION_OK) {
    Result r = script("SET client_min_messages = warning; SET TIME ZONE 'UTC'");
    if (r.ok()) return true;
    *error = r.error();
    return false;
  }
  *error = failure("cannot reconnect to PostgreSQL at " + describe_);
  return false;
}

Transaction::Transaction(Connection& connection, std::string_view mode) : connection_(connection) {
  begin_ = connection_.script(mode.empty() ? std::string("BEGIN") : "BEGIN " + std::string(mode));
  open_ = begin_.ok();
}

Transaction::~Transaction() {
  if (open_) connection_.script("ROLLBACK");
}

Result Transaction::commit() {
  open_ = false;
  return connection_.script("COMMIT");
}

bool retryable(const Error& error) { return error.sqlstate == "40001" || error.sqlstate == "40P01"; }

std::string withPassword(const std::string& conninfo, const std::string& password, std::string* error) {
  Parsed parsed;
  if (!parse(conninfo, &parsed, error)) return "";
  char* message = nullptr;
  PQconninfoOption* options = pq().PQconninfoParse(conninfo.c_str(), &message);
  pq().PQfreemem(message);
  if (!options) return "";
  auto quoted = [](std::string_view v) {
    std::string out = "'";
    for (char c : v) {
      if (c == '\\' || c == '\'') out += '\\';
      out += c;
    }
    return out + "'";
  };
  std::string out;
  for (PQconninfoOption* o = options; o->keyword; ++o) {
    if (!o->val || std::string_view(o->keyword) == "password") continue;
    out += std::string(o->keyword) + "=" + quoted(o->val) + " ";
  }
  pq().PQconninfoFree(options);
  return out + "password=" + quoted(password);
}

}  // namespace attrib::pg
