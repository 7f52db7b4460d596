// HTTP GET for connectors (Kubernetes, Loki, Prometheus), on libcurl: headers, a per-request
// deadline, a cap on the body, and TLS settings (CA, client certificate, or no verification when
// a config says so). Never throws; every failure is a one-line error.
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
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds timeout{30'000};
  size_t maxBody = 64u << 20;
  TlsOptions tls;
};

struct Response {
  bool ok = false;      // a response arrived (whatever its status)
  long status = 0;      // HTTP status
  std::string body;
  std::string contentType;
  bool truncated = false;  // the body was larger than maxBody and was cut
  std::string error;       // why no response arrived (connection refused, timeout, TLS, ...)
};

// GET, or POST when the request has a form body.
Response get(const Request& request);

// application/x-www-form-urlencoded value encoding, for query parameters.
std::string urlEncode(const std::string& s);

}  // namespace attrib::connectors::http
