// Routes of an HTTP server: (method, path pattern) -> a value of the application's. A pattern
// is a path whose segments may be `{name}`, matching one non-empty segment ("/v1/sessions/{id}").
// A path that matches with another method is a 405 with the methods it has (Allow), one that
// matches nothing a 404.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attrib::httpd {

template <typename Value>
class Router {
 public:
  struct Found {
    int status = 404;             // 200: `value` is set; 404; 405: `allow` lists the methods
    const Value* value = nullptr;
    std::string pattern;          // the matched pattern (also for 405)
    std::vector<std::string> params;  // the {name} segments, in order
    std::string allow;            // "GET, POST"
  };

  void add(std::string method, std::string pattern, Value value) {
    std::vector<std::string> segments;
    for (std::string_view s : split(pattern)) segments.emplace_back(s);
    routes_.push_back({std::move(method), std::move(segments), std::move(pattern), std::move(value)});
  }

  Found find(std::string_view method, std::string_view path) const {
    Found found;
    std::vector<std::string_view> segments = split(path);
    for (const auto& r : routes_) {
      std::vector<std::string> params;
      if (!matches(r.segments, segments, &params)) continue;
      if (r.method == method) {
        found.status = 200;
        found.value = &r.value;
        found.pattern = r.pattern;
        found.params = std::move(params);
        return found;
      }
      found.status = 405;
      found.pattern = r.pattern;
      if (found.allow.find(r.method) == std::string::npos) found.allow += (found.allow.empty() ? "" : ", ") + r.method;
    }
    return found;
  }

  // Every (method, pattern), in the order added.
  std::vector<std::pair<std::string, std::string>> list() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& r : routes_) out.emplace_back(r.method, r.pattern);
    return out;
  }

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    std::string pattern;
    Value value;
  };

  template <typename S>
  static std::vector<std::string_view> split(const S& path) {
    std::vector<std::string_view> out;
    std::string_view p = path;
    size_t at = 0;
    while (at <= p.size()) {
      size_t slash = p.find('/', at);
      if (slash == std::string_view::npos) slash = p.size();
      out.push_back(p.substr(at, slash - at));
      at = slash + 1;
    }
    return out;
  }
  static bool matches(const std::vector<std::string>& pattern, const std::vector<std::string_view>& path,
                      std::vector<std::string>* params) {
    if (pattern.size() != path.size()) return false;
    for (size_t i = 0; i < pattern.size(); ++i) {
      bool wild = pattern[i].size() > 2 && pattern[i].front() == '{' && pattern[i].back() == '}';
      if (wild) {
        if (path[i].empty()) return false;
        params->emplace_back(path[i]);
      } else if (pattern[i] != path[i]) {
        return false;
      }
    }
    return true;
  }

  std::vector<Route> routes_;
};

}  // namespace attrib::httpd
