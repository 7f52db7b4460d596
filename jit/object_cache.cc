#include "jit/object_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/sha256.h"

namespace attrib::jit {
namespace {

// "ATTRJIT1", then the SHA-256 of the object, then the object.
constexpr std::string_view kMagic = "ATTRJIT1";
constexpr size_t kHeader = 8 + 32;

}  // namespace

std::string ObjectCache::pathOf(const std::string& key) const { return dir_ + "/" + key + extension_; }

std::optional<std::string> ObjectCache::load(const std::string& key, std::string* note) const {
  std::ifstream in(pathOf(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream all;
  all << in.rdbuf();
  std::string bytes = all.str();
  if (bytes.size() < kHeader || std::string_view(bytes).substr(0, 8) != kMagic) {
    *note = fmt::format("ignored {} entry {}: not a cache entry", what_, pathOf(key));
    return std::nullopt;
  }
  std::string object = bytes.substr(kHeader);
  if (sha256(object) != std::string_view(bytes).substr(8, 32)) {
    *note = fmt::format("ignored {} entry {}: checksum mismatch (truncated or corrupted)", what_, pathOf(key));
    return std::nullopt;
  }
  return object;
}

bool ObjectCache::store(const std::string& key, std::string_view object, std::string* note) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    *note = fmt::format("cannot create {} directory {}: {}", what_, dir_, ec.message());
    return false;
  }
  std::string temp = fmt::format("{}.tmp{}", pathOf(key), ::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << kMagic << sha256(object) << object;
    out.flush();
    if (!out) {
      *note = fmt::format("cannot write {} entry {}", what_, temp);
      std::filesystem::remove(temp, ec);
      return false;
    }
  }
  std::filesystem::rename(temp, pathOf(key), ec);
  if (ec) {
    *note = fmt::format("cannot write {} entry {}: {}", what_, pathOf(key), ec.message());
    std::filesystem::remove(temp, ec);
    return false;
  }
  return true;
}

}  // namespace attrib::jit
