#include "runtime/captures.h"

#include <cstring>
#include <new>

namespace attrib::runtime {

Captures& Captures::operator=(const Captures& other) {
  if (this != &other) assign(other.pairs());
  return *this;
}

Captures& Captures::operator=(Captures&& other) noexcept {
  if (this != &other) {
    release();
    begin_ = other.begin_;
    end_ = other.end_;
    other.begin_ = other.end_ = nullptr;
  }
  return *this;
}

void Captures::release() {
  ::operator delete(begin_);
  begin_ = end_ = nullptr;
}

Captures::Pairs Captures::pairs() const {
  Pairs out;
  out.reserve(size());
  for (const Entry& e : *this) out.emplace_back(e.name(), e.value());
  return out;
}

void Captures::assign(const Pairs& pairs) {
  // The new block is filled before the old one is freed: `pairs` may view the old one.
  Entry* block = nullptr;
  if (!pairs.empty()) {
    size_t bytes = 0;
    for (const auto& [name, value] : pairs) bytes += name.size() + value.size();
    block = static_cast<Entry*>(::operator new(pairs.size() * sizeof(Entry) + bytes));
    char* at = reinterpret_cast<char*>(block + pairs.size());
    auto place = [&at](std::string_view s) {
      Text t{at, s.size()};
      if (!s.empty()) std::memcpy(at, s.data(), s.size());
      at += s.size();
      return t;
    };
    for (size_t i = 0; i < pairs.size(); ++i) {
      Text name = place(pairs[i].first);
      Text value = place(pairs[i].second);
      new (block + i) Entry{name, value};
    }
  }
  release();
  begin_ = block;
  end_ = block ? block + pairs.size() : nullptr;
}

void Captures::append(std::string_view name, std::string_view value) {
  Pairs all = pairs();
  all.emplace_back(name, value);
  assign(all);
}

}  // namespace attrib::runtime
