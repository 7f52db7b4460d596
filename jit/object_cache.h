// A directory of compiled predicate objects, so a warm start links machine code instead of
// generating and optimising it again. Entries are keyed by everything that decides the code
// (jit_compiler.cc: the program's IR, the CPU, LLVM's version, the runtime's data layout) and
// carry a checksum: a truncated or corrupted entry is reported and ignored, never linked.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attrib::jit {

class ObjectCache {
 public:
  explicit ObjectCache(std::string dir) : dir_(std::move(dir)) {}

  // The object stored under `key` (hex), if present and intact. A present but unusable entry
  // sets `note` to why.
  std::optional<std::string> load(const std::string& key, std::string* note) const;

  // Stores atomically (write to a temporary file, then rename), creating the directory. On
  // failure returns false with `note` saying why; the cache is only an optimisation.
  bool store(const std::string& key, std::string_view object, std::string* note) const;

  std::string pathOf(const std::string& key) const;

 private:
  std::string dir_;
};

}  // namespace attrib::jit
