#include "report/html.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace attrib::report::html {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlongs, no surrogates,
// nothing above U+10FFFF), or 0.
size_t utf8Length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  if (n == 2 && c < 0xC2) return 0;
  if (n == 3) {
    unsigned char d = byte(i + 1);
    if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F)) return 0;
  }
  if (n == 4) {
    unsigned char d = byte(i + 1);
    if (c > 0xF4 || (c == 0xF0 && d < 0x90) || (c == 0xF4 && d > 0x8F)) return 0;
  }
  return n;
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = utf8Length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (n == 1) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        case '\t':
        case '\n': out += static_cast<char>(c); break;
        default:
          if (c < 0x20) {
            // U+2400 + c: the control picture (NUL is U+2400, ESC U+241B, CR U+240D).
            out += fmt::format("&#x{:X};", 0x2400 + c);
          } else if (c == 0x7F) {
            out += "&#x2421;";
          } else {
            out += static_cast<char>(c);
          }
      }
    } else if (n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
      out += kReplacement;  // a C1 control (U+0080..U+009F): not text
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string inlineMarkdown(std::string_view text) {
  std::string out;
  bool inCode = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '`') continue;
    out += escape(text.substr(start, i - start));
    if (i < text.size()) {
      // A lone backtick with no partner stays a backtick.
      if (!inCode && text.find('`', i + 1) == std::string_view::npos) {
        out += '`';
      } else {
        out += inCode ? "</code>" : "<code>";
        inCode = !inCode;
      }
    }
    start = i + 1;
  }
  if (inCode) out += "</code>";
  return out;
}

std::optional<std::string> linkableUrl(std::string_view url) {
  auto startsWith = [&](std::string_view prefix) {
    if (url.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(url[i])) != prefix[i]) return false;
    }
    return true;
  };
  size_t scheme = startsWith("https://") ? 8 : startsWith("http://") ? 7 : 0;
  if (scheme == 0 || url.size() == scheme) return std::nullopt;
  for (char ch : url) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7F) return std::nullopt;
  }
  return std::string(url);
}

std::string scriptSafeJson(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string num(double value) {
  if (!std::isfinite(value)) return "0";
  double rounded = std::round(value * 100) / 100;
  if (rounded == 0) return "0";
  std::string s = fmt::format("{:.2f}", rounded);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

void Writer::attributes(const Attr* begin, const Attr* end) {
  for (const Attr* a = begin; a != end; ++a) {
    out_ += ' ';
    out_ += a->name;
    out_ += "=\"";
    out_ += escape(a->value);
    out_ += '"';
  }
}

Writer& Writer::open(std::string_view tag, std::initializer_list<Attr> attrs) {
  out_ += '<';
  out_ += tag;
  attributes(attrs.begin(), attrs.end());
  out_ += '>';
  open_.emplace_back(tag);
  return *this;
}

Writer& Writer::open(std::string_view tag, const std::vector<Attr>& attrs) {
  out_ += '<';
  out_ += tag;
  attributes(attrs.data(), attrs.data() + attrs.size());
  out_ += '>';
  open_.emplace_back(tag);
  return *this;
}

Writer& Writer::close() {
  if (open_.empty()) return *this;
  out_ += "</";
  out_ += open_.back();
  out_ += '>';
  open_.pop_back();
  return *this;
}

Writer& Writer::element(std::string_view tag, std::initializer_list<Attr> attrs, std::string_view content) {
  open(tag, attrs);
  text(content);
  return close();
}

Writer& Writer::empty(std::string_view tag, std::initializer_list<Attr> attrs) {
  out_ += '<';
  out_ += tag;
  attributes(attrs.begin(), attrs.end());
  out_ += "/>";
  return *this;
}

Writer& Writer::empty(std::string_view tag, const std::vector<Attr>& attrs) {
  out_ += '<';
  out_ += tag;
  attributes(attrs.data(), attrs.data() + attrs.size());
  out_ += "/>";
  return *this;
}

Writer& Writer::text(std::string_view content) {
  out_ += escape(content);
  return *this;
}

Writer& Writer::raw(std::string_view markup) {
  out_ += markup;
  return *this;
}

std::string Writer::take() {
  while (!open_.empty()) close();
  return std::move(out_);
}

}  // namespace attrib::report::html
