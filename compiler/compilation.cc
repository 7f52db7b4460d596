#include "compiler/compilation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attrib {

namespace fs = std::filesystem;

bool Compilation::addPath(const std::string& path, std::string* error) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    *error = fmt::format("cannot read '{}': no such file or directory", path);
    return false;
  }
  if (!fs::is_directory(status)) return addFile(path, error);
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".attr" && it->is_regular_file(ec)) files.push_back(it->path().string());
  }
  if (ec) {
    *error = fmt::format("cannot list '{}': {}", path, ec.message());
    return false;
  }
  if (files.empty()) {
    *error = fmt::format("no .attr files under '{}'", path);
    return false;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    if (!addFile(f, error)) return false;
  }
  return true;
}

bool Compilation::addFile(const std::string& path, std::string* error) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxRuleFileBytes) {
    *error = fmt::format("cannot read '{}': {} bytes is larger than the {} MiB limit for rule files", path, size,
                         kMaxRuleFileBytes >> 20);
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = fmt::format("cannot read '{}': {}", path, std::strerror(errno));
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    *error = fmt::format("cannot read '{}': read error", path);
    return false;
  }
  addSource(path, std::move(text).str());
  return true;
}

FileId Compilation::addSource(std::string path, std::string text) {
  return sources_.add(std::move(path), std::move(text));
}

void Compilation::check() {
  for (FileId id = static_cast<FileId>(parsed_.size()); id < sources_.size(); ++id) {
    parsed_.push_back(parseFile(sources_, id, diagnostics_));
  }
  std::vector<ast::Module*> modules;
  for (auto& p : parsed_) modules.push_back(p.module.get());
  index_ = checkProgram(modules, sources_, diagnostics_);
  diagnostics_.sort();
}

}  // namespace attrib
