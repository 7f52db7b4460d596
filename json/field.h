// Typed, named access to a parsed JSON value from outside. A Field is a view of one value and
// of where it sits ("observations[1].data"); every read checks the type and, when it is wrong,
// throws FieldError whose message names the field and the type it must have:
//   'observations[1].format' must be a string
// Whoever owns the input catches FieldError (and only it) and answers with its message: a 400
// for a request, a one-line error for a file. Absent members are Fields too (present() is
// false), so optional fields read with a fallback and required ones throw "is required".
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attrib::json {

class FieldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Field {
 public:
  // The root: `path` is empty (then errors about the root itself say `what`, e.g. "the body").
  explicit Field(const nlohmann::json& value, std::string what = "the body") : value_(&value), what_(std::move(what)) {}

  const std::string& path() const { return path_; }
  bool present() const { return value_ != nullptr; }
  // Present and not null.
  bool given() const { return value_ && !value_->is_null(); }
  bool isString() const { return value_ && value_->is_string(); }
  bool isObject() const { return value_ && value_->is_object(); }
  bool isArray() const { return value_ && value_->is_array(); }
  bool isNumber() const { return value_ && value_->is_number(); }
  // The value itself (present() must hold), for code that hands it on whole.
  const nlohmann::json& raw() const;

  // The member `key`; throws unless this is an object. An absent member: present() is false.
  Field operator[](std::string_view key) const;
  // Items of an array (throws unless this is one).
  size_t size() const;
  Field operator[](size_t index) const;
  // Calls f(key, Field) for each member of an object (throws unless this is one).
  template <typename F>
  void forEachMember(F&& f) const {
    requireObject();
    for (auto it = value_->begin(); it != value_->end(); ++it) f(it.key(), member(it.key(), &it.value()));
  }

  // Typed reads: the value must be present and of the type, else FieldError.
  const std::string& string() const;
  int64_t integer() const;           // a JSON integer that fits in int64
  uint64_t count() const;            // a non-negative JSON integer
  double number() const;             // any JSON number
  bool boolean() const;
  const Field& object() const;       // requires an object; returns *this
  const Field& array() const;        // requires an array; returns *this
  // Optional reads: absent or null gives the fallback; any other wrong type throws.
  std::string stringOr(std::string_view fallback) const;
  std::optional<int64_t> optionalInteger() const;
  std::optional<uint64_t> optionalCount() const;

  // Throws FieldError "'path' <problem>" (or "<what> <problem>" at the root).
  [[noreturn]] void fail(std::string_view problem) const;
  // "'path'" or, at the root, `what`: to build messages of one's own.
  std::string name() const;

 private:
  Field(const nlohmann::json* value, std::string path, const std::string& what) : value_(value), path_(std::move(path)), what_(what) {}
  Field member(std::string_view key, const nlohmann::json* value) const;
  void requireObject() const;
  void require(bool ok, std::string_view type) const;

  const nlohmann::json* value_;  // null: absent
  std::string path_;
  std::string what_;
};

}  // namespace attrib::json
