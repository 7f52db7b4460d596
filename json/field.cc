#include "json/field.h"

#include <fmt/format.h>

#include <limits>

namespace attrib::json {

std::string Field::name() const { return path_.empty() ? what_ : fmt::format("'{}'", path_); }

void Field::fail(std::string_view problem) const { throw FieldError(fmt::format("{} {}", name(), problem)); }

void Field::require(bool ok, std::string_view type) const {
  if (!value_) fail(fmt::format("({}) is required", type));
  if (!ok) fail(fmt::format("must be {}", type));
}

const nlohmann::json& Field::raw() const {
  if (!value_) fail("is required");
  return *value_;
}

Field Field::member(std::string_view key, const nlohmann::json* value) const {
  return Field(value, path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key), what_);
}

void Field::requireObject() const { require(value_ && value_->is_object(), "an object"); }

Field Field::operator[](std::string_view key) const {
  requireObject();
  auto it = value_->find(key);
  return member(key, it == value_->end() ? nullptr : &*it);
}

size_t Field::size() const {
  require(value_ && value_->is_array(), "a list");
  return value_->size();
}

Field Field::operator[](size_t index) const {
  require(value_ && value_->is_array(), "a list");
  const nlohmann::json* item = index < value_->size() ? &(*value_)[index] : nullptr;
  return Field(item, fmt::format("{}[{}]", path_, index), what_);
}

const std::string& Field::string() const {
  require(value_ && value_->is_string(), "a string");
  return value_->get_ref<const std::string&>();
}

int64_t Field::integer() const {
  bool ok = value_ && value_->is_number_integer() &&
            !(value_->is_number_unsigned() && value_->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()));
  require(ok, "an integer");
  return value_->get<int64_t>();
}

uint64_t Field::count() const {
  bool ok = value_ && (value_->is_number_unsigned() || (value_->is_number_integer() && value_->get<int64_t>() >= 0));
  require(ok, "a non-negative integer");
  return value_->get<uint64_t>();
}

double Field::number() const {
  require(value_ && value_->is_number(), "a number");
  return value_->get<double>();
}

bool Field::boolean() const {
  require(value_ && value_->is_boolean(), "true or false");
  return value_->get<bool>();
}

const Field& Field::object() const {
  requireObject();
  return *this;
}

const Field& Field::array() const {
  require(value_ && value_->is_array(), "a list");
  return *this;
}

std::string Field::stringOr(std::string_view fallback) const {
  if (!given()) return std::string(fallback);
  return string();
}

std::optional<int64_t> Field::optionalInteger() const {
  if (!given()) return std::nullopt;
  return integer();
}

std::optional<uint64_t> Field::optionalCount() const {
  if (!given()) return std::nullopt;
  return count();
}

}  // namespace attrib::json
