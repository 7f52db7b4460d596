// libcurl, opened with dlopen the first time an HTTP connector runs: most runs of attrib read
// local files, and linking libcurl (with its TLS, Kerberos and LDAP libraries) cost every start
// about 4 ms (docs/performance.md). The pointers have the types of curl.h's own declarations.
#pragma once

#include <curl/curl.h>

#include <string>

namespace attrib::connectors::http {

struct CurlApi {
  decltype(&curl_global_init) global_init;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_perform) easy_perform;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
};

// The API, loaded and globally initialised once; nullptr with `error` (one line) when libcurl
// cannot be loaded.
const CurlApi* curlApi(std::string* error);

}  // namespace attrib::connectors::http
