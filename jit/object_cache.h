// A directory of compiled predicate objects, so a warm start links machine code instead of
// generating and optimising it again. Entries are keyed by everything that decides the code
// (jit_compiler.cc: the program's IR, the CPU, LLVM's version, the runtime's data layout) and
// carry a checksum: a truncated or corrupted entry is reported and ignored, never linked.
// attrib's cache of compiled rule bundles (tools/attrib/rule_set.cc) is the same kind of
// directory, with its own name and file extension.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attrib::jit {

class ObjectCache {
 public:
  // `what` names the cache in notes ("the JIT cache"), `extension` its files (".o").
  explicit ObjectCache(std::string dir, std::string what = "the JIT cache", std::string extension = ".o")
      : dir_(std::move(dir)), what_(std::move(what)), extension_(std::move(extension)) {}

  // The object stored under `key` (hex), if present and intact. A present but unusable entry
  // sets `note` to why.
  std::optional<std::string> load(const std::string& key, std::string* note) const;

  // Stores atomically (write to a temporary file, then rename), creating the directory. On
  // failure returns false with `note` saying why; the cache is only an optimisation.
  bool store(const std::string& key, std::string_view object, std::string* note) const;

  std::string pathOf(const std::string& key) const;

 private:
  std::string dir_, what_, extension_;
};

}  // namespace attrib::jit
