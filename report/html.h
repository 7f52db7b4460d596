// HTML and SVG generation for attrib's pages (the report of a verdict, the dashboard). No
// templating engine: pages are built in code with a Writer, and every piece of text, whatever
// its bytes, goes through escape() on its way in. Logs are hostile input: a log line holding
// `<script>`, `</svg>`, quotes or bytes that are not UTF-8 must come out as the text it was.
//
// Contract: markup comes only from this file's Writer (element and attribute names are code
// constants) and from raw() with text the caller wrote itself; everything else is escaped.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attrib::report::html {

// Text for element content or a quoted attribute value: & < > " ' become character references;
// bytes that are not well-formed UTF-8 become U+FFFD (as in the JSON verdict); control
// characters other than tab and newline (and DEL, and the C1 controls) become their Unicode
// control pictures or U+FFFD, so none reaches the page as markup or vanishes unseen.
std::string escape(std::string_view text);

// Like escape(), then `code` spans written `like this` become <code> elements: for the
// project's own Markdown cells (docs/verdict.md tables), never for evidence.
std::string inlineMarkdown(std::string_view text);

// The URL itself when it may be a link's href: http:// or https:// (any case) with no control
// characters or spaces; nullopt otherwise (javascript:, data:, relative and other schemes are
// shown as text, never followed).
std::optional<std::string> linkableUrl(std::string_view url);

// JSON text made safe inside <script type="application/json">: '<', '>' and '&' become \u003c,
// \u003e and \u0026 (still the same JSON), so no "</script>" or "<!--" can end the block.
std::string scriptSafeJson(std::string_view json);

// A number for SVG coordinates: at most two decimals, no exponent, "-0" as "0".
std::string num(double value);

struct Attr {
  std::string_view name;  // a code constant
  std::string value;      // escaped by the Writer
};

// Builds a document in order. open() pushes an element, close() ends the innermost one, so
// tags always nest; text() escapes. The result is returned by take(), with every element still
// open closed.
class Writer {
 public:
  Writer& open(std::string_view tag, std::initializer_list<Attr> attrs = {});
  Writer& open(std::string_view tag, const std::vector<Attr>& attrs);
  Writer& close();
  // An element with only text inside: <tag attrs>text</tag>.
  Writer& element(std::string_view tag, std::initializer_list<Attr> attrs, std::string_view text);
  Writer& element(std::string_view tag, std::string_view text) { return element(tag, {}, text); }
  // A void or self-closed element (<br>, <circle .../>): nothing inside.
  Writer& empty(std::string_view tag, std::initializer_list<Attr> attrs = {});
  Writer& empty(std::string_view tag, const std::vector<Attr>& attrs);
  Writer& text(std::string_view text);
  // Markup the caller wrote itself (style sheets, scripts, escaped fragments); never evidence.
  Writer& raw(std::string_view markup);
  size_t depth() const { return open_.size(); }
  size_t size() const { return out_.size(); }
  std::string take();

 private:
  void attributes(const Attr* begin, const Attr* end);
  std::string out_;
  std::vector<std::string> open_;
};

}  // namespace attrib::report::html
