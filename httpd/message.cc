#include "httpd/message.h"

#include <strings.h>

namespace attrib::httpd {
namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decode(std::string_view s) {
  std::string out;
  percentDecode(s, /*plusIsSpace=*/true, &out);
  return out;
}

}  // namespace

bool percentDecode(std::string_view s, bool plusIsSpace, std::string* out) {
  out->clear();
  out->reserve(s.size());
  bool wellFormed = true;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+' && plusIsSpace) {
      *out += ' ';
    } else if (s[i] != '%') {
      *out += s[i];
    } else if (i + 2 < s.size() && hexValue(s[i + 1]) >= 0 && hexValue(s[i + 2]) >= 0) {
      *out += static_cast<char>(hexValue(s[i + 1]) * 16 + hexValue(s[i + 2]));
      i += 2;
    } else {
      *out += '%';
      wellFormed = false;
    }
  }
  return wellFormed;
}

std::string Head::header(std::string_view name) const {
  for (const auto& h : headers) {
    if (h.name.size() == name.size() && ::strncasecmp(h.name.data(), name.data(), name.size()) == 0) return h.value;
  }
  return "";
}

std::optional<std::string> Head::param(std::string_view name) const {
  std::string_view q = query;
  while (!q.empty()) {
    size_t amp = q.find('&');
    std::string_view pair = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view() : q.substr(amp + 1);
    size_t eq = pair.find('=');
    if (decode(pair.substr(0, eq)) == name) return eq == std::string_view::npos ? "" : decode(pair.substr(eq + 1));
  }
  return std::nullopt;
}

}  // namespace attrib::httpd
