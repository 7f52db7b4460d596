// libpq, opened with dlopen the first time a PostgreSQL connection string is read: most runs of
// attrib never touch PostgreSQL, and linking libpq (with its Kerberos and LDAP libraries) cost
// every start about 2 ms (docs/performance.md). The pointers have the types, and the names, of
// libpq-fe.h's own declarations.
#pragma once

#include <libpq-fe.h>

#include <string>

namespace attrib::pg {

struct LibpqApi {
  decltype(&::PQconninfoParse) PQconninfoParse;
  decltype(&::PQconninfoFree) PQconninfoFree;
  decltype(&::PQfreemem) PQfreemem;
  decltype(&::PQconnectdbParams) PQconnectdbParams;
  decltype(&::PQstatus) PQstatus;
  decltype(&::PQerrorMessage) PQerrorMessage;
  decltype(&::PQfinish) PQfinish;
  decltype(&::PQreset) PQreset;
  decltype(&::PQexec) PQexec;
  decltype(&::PQexecParams) PQexecParams;
  decltype(&::PQresultStatus) PQresultStatus;
  decltype(&::PQresultErrorField) PQresultErrorField;
  decltype(&::PQresultErrorMessage) PQresultErrorMessage;
  decltype(&::PQclear) PQclear;
  decltype(&::PQntuples) PQntuples;
  decltype(&::PQgetisnull) PQgetisnull;
  decltype(&::PQgetvalue) PQgetvalue;
  decltype(&::PQgetlength) PQgetlength;
  decltype(&::PQcmdTuples) PQcmdTuples;
};

// The API, loaded once; nullptr with `error` (one line) when libpq cannot be loaded.
const LibpqApi* libpqApi(std::string* error);

}  // namespace attrib::pg
