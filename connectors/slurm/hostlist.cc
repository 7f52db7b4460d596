#include "connectors/slurm/hostlist.h"

#include <fmt/format.h>

#include <charconv>

namespace attrib::connectors::slurm {
namespace {

// The top-level items of an expression: split on commas outside brackets.
bool splitItems(std::string_view expr, std::vector<std::string_view>* items, std::string* error) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < expr.size(); ++i) {
    char c = expr[i];
    if (c == '[') {
      if (++depth > 1) {
        *error = fmt::format("nested '[' at column {} in hostlist '{}'", i + 1, expr);
        return false;
      }
    } else if (c == ']') {
      if (--depth < 0) {
        *error = fmt::format("unmatched ']' at column {} in hostlist '{}'", i + 1, expr);
        return false;
      }
    } else if (c == ',' && depth == 0) {
      items->push_back(expr.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) {
    *error = fmt::format("unclosed '[' in hostlist '{}'", expr);
    return false;
  }
  items->push_back(expr.substr(start));
  return true;
}

bool parseNumber(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

// The values of one bracket body: "001-004,010" -> 001 002 003 004 010.
bool expandRanges(std::string_view body, std::string_view expr, std::vector<std::string>* out, size_t limit,
                  std::string* error) {
  size_t start = 0;
  while (true) {
    size_t comma = body.find(',', start);
    std::string_view range = body.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t dash = range.find('-');
    std::string_view lo = range.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? lo : range.substr(dash + 1);
    uint64_t a, b;
    if (!parseNumber(lo, &a) || !parseNumber(hi, &b)) {
      *error = fmt::format("bad range '{}' in hostlist '{}'", range, expr);
      return false;
    }
    if (b < a) {
      *error = fmt::format("range '{}' runs backwards in hostlist '{}'", range, expr);
      return false;
    }
    if (b - a >= limit || out->size() + (b - a) >= limit) {
      *error = fmt::format("hostlist '{}' expands to more than {} names", expr, limit);
      return false;
    }
    for (uint64_t v = a; v <= b; ++v) out->push_back(fmt::format("{:0{}}", v, lo.size()));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return true;
}

}  // namespace

bool expandHostlist(std::string_view expression, std::vector<std::string>* hosts, std::string* error,
                    size_t limit) {
  std::vector<std::string_view> items;
  if (!splitItems(expression, &items, error)) return false;
  std::vector<std::string> out;
  for (std::string_view item : items) {
    if (item.empty()) continue;  // "a,,b" and a trailing comma, as scontrol does
    // A cross product over the item's bracket groups, left to right.
    std::vector<std::string> partial = {""};
    size_t pos = 0;
    while (pos < item.size()) {
      size_t open = item.find('[', pos);
      std::string_view literal = item.substr(pos, open == std::string_view::npos ? std::string_view::npos : open - pos);
      for (auto& p : partial) p += literal;
      if (open == std::string_view::npos) break;
      size_t close = item.find(']', open);
      std::vector<std::string> values;
      if (!expandRanges(item.substr(open + 1, close - open - 1), expression, &values, limit, error)) return false;
      if (partial.size() * values.size() + out.size() > limit) {
        *error = fmt::format("hostlist '{}' expands to more than {} names", expression, limit);
        return false;
      }
      std::vector<std::string> next;
      next.reserve(partial.size() * values.size());
      for (const auto& p : partial) {
        for (const auto& v : values) next.push_back(p + v);
      }
      partial = std::move(next);
      pos = close + 1;
    }
    for (auto& p : partial) out.push_back(std::move(p));
    if (out.size() > limit) {
      *error = fmt::format("hostlist '{}' expands to more than {} names", expression, limit);
      return false;
    }
  }
  *hosts = std::move(out);
  return true;
}

}  // namespace attrib::connectors::slurm
