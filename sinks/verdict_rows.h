// A verdict as the rows of the sinks' schema (docs/sinks.md, "Schema (version 1)"): the one
// mapping from a verdict to tables and columns, shared by the SQLite and PostgreSQL sinks, which
// differ only in how they bind values and create tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/verdict.h"

namespace attrib::sinks {

// A column's value: NULL, an integer, a real or text (JSON columns are text).
using Field = std::variant<std::monostate, int64_t, double, std::string>;

struct TableRows {
  const char* table;
  std::vector<const char*> columns;
  std::vector<std::vector<Field>> rows;
};

struct VerdictRows {
  TableRows workload;  // one row; key (workload_id, ruleset_digest)
  TableRows verdict;   // one row; verdict_id is assigned by the database
  // bad_nodes, symptoms, evidence, connector_reports: their rows without verdict_id, which the
  // sink puts first once it knows it.
  std::vector<TableRows> children;
};

// `createdNs`: the verdict's creation time (nanoseconds since the epoch); `attribVersion`: the
// attrib that wrote it.
VerdictRows verdictRows(const runtime::Verdict& verdict, int64_t createdNs, const std::string& attribVersion);

// "INSERT INTO table(c1, ...) VALUES (P1, ...)" with P = placeholder(i) for i = 1..n; the
// table and column names are the schema's constants, never values.
template <typename Placeholder>
std::string insertSql(const char* table, const std::vector<const char*>& columns, Placeholder placeholder) {
  std::string sql = std::string("INSERT INTO ") + table + "(";
  std::string values;
  for (size_t i = 0; i < columns.size(); ++i) {
    sql += (i ? ", " : "") + std::string(columns[i]);
    values += (i ? ", " : "") + placeholder(i + 1);
  }
  return sql + ") VALUES (" + values + ")";
}

// `text` when it is well-formed UTF-8; else a copy with each ill-formed sequence replaced by
// U+FFFD exactly as the verdict JSON writes it (runtime/verdict.cc). verdictRows() passes every
// text value through it, so every text column holds valid UTF-8 (PostgreSQL refuses anything
// else, and a JSON column could not be written), and the history readers pass a queried node
// name through it, so a name with such bytes finds what was stored for it.
std::string validUtf8(std::string_view text);

// The nanoseconds since the epoch now.
int64_t nowNs();

}  // namespace attrib::sinks
