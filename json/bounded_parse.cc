#include "json/bounded_parse.h"

#include <fmt/format.h>

#include <vector>

namespace attrib::json {
namespace {

using nlohmann::json;

// Builds the DOM as nlohmann's own SAX DOM parser does (which lives in its detail namespace),
// with a bound on the depth: past it the handler stops the parse at once. The parse itself is
// iterative, and so is the destruction of a half-built value (nlohmann >= 3.10).
class BoundedDom final : public nlohmann::json_sax<json> {
 public:
  BoundedDom(json& root, int maxDepth) : root_(root), maxDepth_(maxDepth) {}

  bool null() override { return add(nullptr); }
  bool boolean(bool v) override { return add(v); }
  bool number_integer(number_integer_t v) override { return add(v); }
  bool number_unsigned(number_unsigned_t v) override { return add(v); }
  bool number_float(number_float_t v, const string_t&) override { return add(v); }
  bool string(string_t& v) override { return add(std::move(v)); }
  bool binary(binary_t& v) override { return add(json::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(json::value_t::object); }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::value_t::array); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    // nlohmann's message quotes the bytes it read last ("last read: '...'"), which are the
    // client's: keep only what went wrong and where.
    std::string what = e.what();
    size_t at = what.find("syntax error ");
    std::string reason = at == std::string::npos ? "" : what.substr(at);
    if (size_t quote = reason.find("; last read"); quote != std::string::npos) reason.resize(quote);
    error_ = fmt::format("is not JSON (at byte {}{}{})", position, reason.empty() ? "" : ": ", reason.substr(0, 120));
    return false;
  }

  bool tooDeep() const { return tooDeep_; }
  const std::string& error() const { return error_; }

 private:
  template <typename V>
  bool add(V&& v) {
    if (stack_.empty()) {
      root_ = json(std::forward<V>(v));
      return true;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.get_ref<json::array_t&>().emplace_back(std::forward<V>(v));
    } else {
      parent[key_] = json(std::forward<V>(v));
    }
    return true;
  }
  bool open(json::value_t type) {
    if (static_cast<int>(stack_.size()) >= maxDepth_) {
      tooDeep_ = true;
      return false;
    }
    json* slot;
    if (stack_.empty()) {
      root_ = json(type);
      slot = &root_;
    } else if (json& parent = *stack_.back(); parent.is_array()) {
      slot = &parent.get_ref<json::array_t&>().emplace_back(type);
    } else {
      slot = &(parent[key_] = json(type));
    }
    stack_.push_back(slot);
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  json& root_;
  int maxDepth_;
  std::vector<json*> stack_;
  std::string key_;
  bool tooDeep_ = false;
  std::string error_;
};

}  // namespace

bool parse(std::string_view text, nlohmann::json* out, std::string* error, int maxDepth) {
  json value;
  BoundedDom dom(value, maxDepth);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &dom, json::input_format_t::json, /*strict=*/true);
  } catch (const std::exception&) {
    // sax_parse reports through parse_error; anything else (allocation) is refused as a whole.
    *error = "could not be parsed";
    return false;
  }
  if (!ok) {
    if (dom.tooDeep()) {
      *error = fmt::format("nests deeper than {} levels of arrays and objects", maxDepth);
    } else {
      *error = dom.error().empty() ? "is not JSON" : dom.error();
    }
    return false;
  }
  *out = std::move(value);
  return true;
}

}  // namespace attrib::json
