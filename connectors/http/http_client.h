// HTTP GET for connectors (Kubernetes, Loki, Prometheus, slurmrestd), on libcurl: headers, a
// per-request deadline, a cap on the body, TLS settings (CA, client certificate, or no
// verification when a config says so), and HTTP over a unix socket. Never throws; every failure
// is a one-line error.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attrib::connectors::http {

struct TlsOptions {
  std::string caFile, caPem;            // trust these CAs (file or PEM text); empty: the system's
  std::string certFile, certPem;        // client certificate (file or PEM text)
  std::string keyFile, keyPem;          // its key
  bool insecureSkipVerify = false;
};

struct Request {
  std::string url;
  std::string formBody;  // non-empty: POST it as application/x-www-form-urlencoded
  bool post = false;     // POST `body` (with the Content-Type given in `headers`)
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string unixSocket;  // non-empty: connect to this socket (the URL still gives path and Host)
  std::chrono::milliseconds timeout{30'000};
  size_t maxBody = 64u << 20;
  TlsOptions tls;
};

struct Response {
  bool ok = false;      // a response arrived (whatever its status)
  long status = 0;      // HTTP status
  std::string body;
  std::string contentType;
  std::string retryAfter;  // the Retry-After header, when the response had one
  bool truncated = false;  // the body was larger than maxBody and was cut
  std::string error;       // why no response arrived (connection refused, timeout, TLS, ...)
};

// GET, or POST when the request has a form body or `post` is set.
Response get(const Request& request);

// application/x-www-form-urlencoded value encoding, for query parameters.
std::string urlEncode(const std::string& s);

}  // namespace attrib::connectors::http
