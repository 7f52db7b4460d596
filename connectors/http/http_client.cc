#include "connectors/http/http_client.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <cctype>
#include <mutex>
#include <string_view>

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

void initialiseCurl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
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
  initialiseCurl();
  Response r;
  CURL* curl = curl_easy_init();
  if (!curl) {
    r.error = "cannot start an HTTP client";
    return r;
  }
  Sink sink{&r.body, request.maxBody};
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : request.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  char errors[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  if (!request.unixSocket.empty()) curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, request.unixSocket.c_str());
  if (request.post) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  } else if (!request.formBody.empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.formBody.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.formBody.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r.retryAfter);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onData);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<long long>(request.timeout.count(), 10'000)));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errors);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  const TlsOptions& tls = request.tls;
  if (!tls.caFile.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, tls.caFile.c_str());
  curl_blob caBlob{const_cast<char*>(tls.caPem.data()), tls.caPem.size(), CURL_BLOB_COPY};
  if (!tls.caPem.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &caBlob);
  if (!tls.certFile.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT, tls.certFile.c_str());
  curl_blob certBlob{const_cast<char*>(tls.certPem.data()), tls.certPem.size(), CURL_BLOB_COPY};
  if (!tls.certPem.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &certBlob);
  if (!tls.keyFile.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY, tls.keyFile.c_str());
  curl_blob keyBlob{const_cast<char*>(tls.keyPem.data()), tls.keyPem.size(), CURL_BLOB_COPY};
  if (!tls.keyPem.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &keyBlob);
  if (tls.insecureSkipVerify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  CURLcode rc = curl_easy_perform(curl);
  r.truncated = sink.truncated;
  if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && sink.truncated)) {
    r.ok = true;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    char* type = nullptr;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
    if (type) r.contentType = type;
  } else {
    std::string where = request.url.substr(0, request.url.find('?'));
    if (!request.unixSocket.empty()) where += " (unix socket " + request.unixSocket + ")";
    r.error = fmt::format("{}: {}", where, errors[0] ? errors : curl_easy_strerror(rc));
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return r;
}

}  // namespace attrib::connectors::http
