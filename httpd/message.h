// What an HTTP exchange carries between httpd::Server and the application: the request's head
// (given to the application before any byte of the body is read), the whole request, the
// response, and the record of one answered request for access logs and metrics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attrib::httpd {

// Percent-decodes `s` into `*out` ('+' as a space when `plusIsSpace`, as in a query; a path keeps
// it). A '%' not followed by two hex digits is copied as it is, and the result is then false, so
// a query reads it leniently and a path segment can refuse it.
bool percentDecode(std::string_view s, bool plusIsSpace, std::string* out);

struct Header {
  std::string name, value;
};

struct Head {
  std::string method;   // as sent: "GET", "POST"
  std::string target;   // path and query, as sent
  std::string path;     // the target up to '?'
  std::string query;    // after '?', not decoded
  std::vector<Header> headers;
  std::optional<uint64_t> contentLength;  // the announced length (absent: chunked or no body)
  bool chunked = false;
  std::string peer;     // the client's address
  // The first header of that name (case-insensitive), or "".
  std::string header(std::string_view name) const;
  // The query parameter `name`, percent-decoded; absent: nullopt.
  std::optional<std::string> param(std::string_view name) const;
  bool hasBody() const { return chunked || contentLength.value_or(0) > 0; }
};

struct Request {
  Head head;
  std::string body;
};

struct Response {
  int status = 200;
  std::string contentType = "application/json";
  std::string body;
  std::vector<Header> headers;  // beyond Content-Type, Content-Length and Connection
};

// One answered request (or one the server refused on its own, with an empty route).
struct Exchange {
  std::string method, route, peer;
  int status = 0;
  uint64_t bytesIn = 0;   // body bytes read
  uint64_t bytesOut = 0;  // body bytes written
  double ms = 0;          // from the request's first byte to the response written
};

}  // namespace attrib::httpd
