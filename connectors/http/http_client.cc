#include "connectors/http/http_client.h"

#include <fmt/format.h>

#include <cctype>
#include <string_view>

#include "connectors/http/curl_api.h"

namespace attrib::connectors::http {
namespace {

struct Sink {
  std::string* body;
  size_t max;
  bool truncated = false;
};

size_t onData(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t n = size * count;
  size_t room = sink->max > sink->body->size() ? sink->max - sink->body->size() : 0;
  if (n > room) {
    sink->body->append(data, room);
    sink->truncated = true;
    return 0;  // stop the transfer: we have all we keep
  }
  sink->body->append(data, n);
  return n;
}

// Keeps the Retry-After header of the (last) response.
size_t onHeader(char* data, size_t size, size_t count, void* user) {
  size_t n = size * count;
  std::string_view line(data, n);
  constexpr std::string_view kName = "retry-after:";
  if (line.size() > kName.size()) {
    bool match = true;
    for (size_t i = 0; i < kName.size() && match; ++i) match = std::tolower(static_cast<unsigned char>(line[i])) == kName[i];
    if (match) {
      std::string value(line.substr(kName.size()));
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.erase(value.begin());
      *static_cast<std::string*>(user) = value;
    }
  }
  return n;
}

}  // namespace

std::string urlEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

Response get(const Request& request) {
  Response r;
  const CurlApi* api = curlApi(&r.error);
  if (!api) return r;
  const CurlApi& c = *api;
  CURL* curl = c.easy_init();
  if (!curl) {
    r.error = "cannot start an HTTP client";
    return r;
  }
  Sink sink{&r.body, request.maxBody};
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : request.headers) headers = c.slist_append(headers, (k + ": " + v).c_str());
  char errors[CURL_ERROR_SIZE] = {0};
  c.easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  if (!request.unixSocket.empty()) c.easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, request.unixSocket.c_str());
  if (request.post) {
    c.easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    c.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    headers = c.slist_append(headers, "Expect:");  // no 100-continue round trip
  } else if (!request.formBody.empty()) {
    c.easy_setopt(curl, CURLOPT_POSTFIELDS, request.formBody.c_str());
    c.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.formBody.size()));
  }
  c.easy_setopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
  c.easy_setopt(curl, CURLOPT_HEADERDATA, &r.retryAfter);
  c.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  c.easy_setopt(curl, CURLOPT_WRITEFUNCTION, onData);
  c.easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  c.easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  c.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<long long>(request.timeout.count(), 10'000)));
  c.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  c.easy_setopt(curl, CURLOPT_ERRORBUFFER, errors);
  c.easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
  c.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  const TlsOptions& tls = request.tls;
  if (!tls.caFile.empty()) c.easy_setopt(curl, CURLOPT_CAINFO, tls.caFile.c_str());
  curl_blob caBlob{const_cast<char*>(tls.caPem.data()), tls.caPem.size(), CURL_BLOB_COPY};
  if (!tls.caPem.empty()) c.easy_setopt(curl, CURLOPT_CAINFO_BLOB, &caBlob);
  if (!tls.certFile.empty()) c.easy_setopt(curl, CURLOPT_SSLCERT, tls.certFile.c_str());
  curl_blob certBlob{const_cast<char*>(tls.certPem.data()), tls.certPem.size(), CURL_BLOB_COPY};
  if (!tls.certPem.empty()) c.easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &certBlob);
  if (!tls.keyFile.empty()) c.easy_setopt(curl, CURLOPT_SSLKEY, tls.keyFile.c_str());
  curl_blob keyBlob{const_cast<char*>(tls.keyPem.data()), tls.keyPem.size(), CURL_BLOB_COPY};
  if (!tls.keyPem.empty()) c.easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &keyBlob);
  if (tls.insecureSkipVerify) {
    c.easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    c.easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  CURLcode rc = c.easy_perform(curl);
  r.truncated = sink.truncated;
  if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && sink.truncated)) {
    r.ok = true;
    c.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    char* type = nullptr;
    c.easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
    if (type) r.contentType = type;
  } else {
    std::string where = request.url.substr(0, request.url.find('?'));
    if (!request.unixSocket.empty()) where += " (unix socket " + request.unixSocket + ")";
    r.error = fmt::format("{}: {}", where, errors[0] ? errors : c.easy_strerror(rc));
  }
  c.slist_free_all(headers);
  c.easy_cleanup(curl);
  return r;
}

}  // namespace attrib::connectors::http
