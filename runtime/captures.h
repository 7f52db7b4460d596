// An instance's named captures: (name, value) pairs in pattern order, in one heap block.
//
// A dense log gives 10^5-10^6 instances, most of them with one to three short captures. Held as
// a std::vector of std::string pairs they cost 24 bytes in the instance, 64 bytes per pair and
// two mallocs as the vector grew (docs/performance.md, "Captures in one block, metric and
// scheduler fields apart"). Here the instance holds two pointers, and one allocation holds the
// pairs as (data, size) views followed by the bytes they view.
//
// Layout contract, read in place by compiled predicates (jit/data_layout.h): the object is
// {begin, end} pointers to Entry, and an Entry is {name, value}, each {const char* data, size_t
// size}. The views point into the block, which belongs to the object: a move hands the block
// over (views stay valid), a copy makes a block of its own.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace attrib::runtime {

class Captures {
 public:
  struct Text {
    const char* data = nullptr;
    size_t size = 0;
    std::string_view view() const { return {data, size}; }
  };
  struct Entry {
    Text nameText, valueText;
    std::string_view name() const { return nameText.view(); }
    std::string_view value() const { return valueText.view(); }
  };
  using Pairs = std::vector<std::pair<std::string_view, std::string_view>>;

  Captures() = default;
  Captures(std::initializer_list<std::pair<std::string_view, std::string_view>> pairs) { assign(Pairs(pairs)); }
  Captures(const Captures& other) { assign(other.pairs()); }
  Captures(Captures&& other) noexcept : begin_(other.begin_), end_(other.end_) { other.begin_ = other.end_ = nullptr; }
  Captures& operator=(const Captures& other);
  Captures& operator=(Captures&& other) noexcept;
  ~Captures() { release(); }

  // Replaces the captures with copies of `pairs` (which may view this object's own bytes).
  void assign(const Pairs& pairs);
  // Adds a pair at the end; rebuilds the block, so for the few captures derived symptoms set.
  void append(std::string_view name, std::string_view value);

  const Entry* begin() const { return begin_; }
  const Entry* end() const { return end_; }
  size_t size() const { return static_cast<size_t>(end_ - begin_); }
  bool empty() const { return begin_ == end_; }
  const Entry& operator[](size_t i) const { return begin_[i]; }

  // The value of the first capture called `name`.
  std::optional<std::string_view> find(std::string_view name) const {
    for (const Entry& e : *this) {
      if (e.name() == name) return e.value();
    }
    return std::nullopt;
  }
  Pairs pairs() const;
  friend bool operator==(const Captures& a, const Captures& b) { return a.pairs() == b.pairs(); }

 private:
  void release();
  Entry* begin_ = nullptr;  // the start of the block, or null when there are no captures
  Entry* end_ = nullptr;
};

}  // namespace attrib::runtime
