#include "tools/stdlib/embedded_stdlib.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace {

// Written by cmake/EmbedStdlib.cmake: (name, begin, end) rows, ended by a row of nulls. Names
// are NUL-terminated; each text runs from begin to end.
struct EmbeddedRow {
  const char* name;
  const char* begin;
  const char* end;
};

}  // namespace

extern "C" const EmbeddedRow attrib_stdlib_files[];

namespace attrib::tools {

const std::vector<StdlibFile>& embeddedStdlib() {
  static const std::vector<StdlibFile> files = [] {
    std::vector<StdlibFile> out;
    for (const EmbeddedRow* row = attrib_stdlib_files; row->name; ++row) {
      out.push_back({row->name, std::string_view(row->begin, static_cast<size_t>(row->end - row->begin))});
    }
    std::sort(out.begin(), out.end(), [](const StdlibFile& a, const StdlibFile& b) { return a.name < b.name; });
    return out;
  }();
  return files;
}

std::string stdlibPath(std::string_view name) { return std::string(kStdlibPrefix) + std::string(name); }

void addStdlibLayer(Compilation& compilation) {
  compilation.beginLayer("stdlib");
  for (const auto& f : embeddedStdlib()) {
    if (f.name.size() > 5 && f.name.substr(f.name.size() - 5) == ".attr") {
      compilation.addSource(stdlibPath(f.name), std::string(f.text));
    } else {
      compilation.attachFile(stdlibPath(f.name), std::string(f.text));
    }
  }
}

bool exportStdlib(const std::string& dir, size_t* written, std::string* error) {
  namespace fs = std::filesystem;
  *written = 0;
  for (const auto& f : embeddedStdlib()) {
    fs::path path = fs::path(dir) / std::string(f.name);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      *error = fmt::format("cannot create '{}': {}", path.parent_path().string(), ec.message());
      return false;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << f.text;
    out.flush();
    if (!out) {
      *error = fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno));
      return false;
    }
    ++*written;
  }
  return true;
}

}  // namespace attrib::tools
