#include "compiler/compilation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <map>
#include <set>
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
  // Opened without blocking (a FIFO would wait for a writer forever) and checked before a byte
  // is read: only a regular file is a rule file (a link to one is fine; a link to /dev/zero,
  // a FIFO or a socket is refused), and at most kMaxRuleFileBytes of it, even if it grows.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *error = fmt::format("cannot read '{}': {}", path, std::strerror(errno));
    return false;
  }
  struct stat st {};
  const char* kind = nullptr;
  if (::fstat(fd, &st) != 0) kind = "cannot be examined";
  else if (S_ISFIFO(st.st_mode)) kind = "is a FIFO, not a regular file";
  else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) kind = "is a device, not a regular file";
  else if (S_ISSOCK(st.st_mode)) kind = "is a socket, not a regular file";
  else if (!S_ISREG(st.st_mode)) kind = "is not a regular file";
  if (kind) {
    ::close(fd);
    *error = fmt::format("cannot read '{}': it {}", path, kind);
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxRuleFileBytes) {
    ::close(fd);
    *error = fmt::format("cannot read '{}': {} bytes is larger than the {} MiB limit for rule files", path,
                         static_cast<uint64_t>(st.st_size), kMaxRuleFileBytes >> 20);
    return false;
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = fmt::format("cannot read '{}': {}", path, std::strerror(errno));
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > kMaxRuleFileBytes) {
      ::close(fd);
      *error = fmt::format("cannot read '{}': it grew past the {} MiB limit for rule files while being read", path,
                           kMaxRuleFileBytes >> 20);
      return false;
    }
  }
  ::close(fd);
  addSource(path, std::move(text));
  return true;
}

size_t Compilation::beginLayer(std::string name) {
  layers_.push_back(std::move(name));
  return layers_.size() - 1;
}

FileId Compilation::addSource(std::string path, std::string text) {
  if (layers_.empty()) layers_.emplace_back();
  layerOfFile_.push_back(layers_.size() - 1);
  return sources_.add(std::move(path), std::move(text));
}

void Compilation::check() {
  for (FileId id = static_cast<FileId>(parsed_.size()); id < sources_.size(); ++id) {
    parsed_.push_back(parseFile(sources_, id, diagnostics_));
    parsed_.back().module->layer = layerOf(id);
  }
  replacePackages();
  std::vector<ast::Module*> modules;
  for (auto& p : parsed_) {
    if (isActive(p.module->file)) modules.push_back(p.module.get());
  }
  index_ = checkProgram(modules, sources_, diagnostics_);
  diagnostics_.sort();
}

void Compilation::replacePackages() {
  active_.assign(parsed_.size(), true);
  // The highest layer declaring each package; the root package is never replaced (its names
  // cannot be imported, so layers only add to it).
  std::map<std::string, size_t> top;
  for (const auto& p : parsed_) {
    std::string pkg = p.module->packageName();
    if (pkg.empty()) continue;
    auto [it, inserted] = top.emplace(pkg, p.module->layer);
    if (!inserted) it->second = std::max(it->second, p.module->layer);
  }
  // Per replaced package: the files that replace it and the files replaced.
  struct Replacement {
    std::vector<const ast::Module*> by, replaced;
  };
  std::map<std::string, Replacement> replacements;
  for (const auto& p : parsed_) {
    std::string pkg = p.module->packageName();
    if (pkg.empty() || top.at(pkg) == 0) continue;
    if (p.module->layer < top.at(pkg)) {
      active_[p.module->file] = false;
      replacements[pkg].replaced.push_back(p.module.get());
    } else {
      replacements[pkg].by.push_back(p.module.get());
    }
  }
  auto pathOf = [&](const ast::Module* m) -> const std::string& { return sources_.file(m->file).path(); };
  for (auto& [pkg, r] : replacements) {
    if (r.replaced.empty()) continue;
    // A copy of the package (`attribc stdlib export`, then `--rules` on the copy) changes nothing.
    std::multiset<std::string_view> before, after;
    for (const auto* m : r.replaced) before.insert(sources_.file(m->file).text());
    for (const auto* m : r.by) after.insert(sources_.file(m->file).text());
    if (before == after) continue;
    auto byPath = [&](const ast::Module* a, const ast::Module* b) { return pathOf(a) < pathOf(b); };
    const ast::Module* first = *std::min_element(r.by.begin(), r.by.end(), byPath);
    const ast::Module* old = *std::min_element(r.replaced.begin(), r.replaced.end(), byPath);
    std::string where = layerName(old->layer).empty() ? "a lower layer" : layerName(old->layer);
    diagnostics_
        .report(DiagKind::ReplacedPackage, first->package->range,
                fmt::format("package '{}' replaces the package of that name in {}, whose declarations ({} file{}) "
                            "are then not used; to change single declarations, 'override' them instead",
                            pkg, where, r.replaced.size(), r.replaced.size() == 1 ? "" : "s"))
        .note(old->package->range, "the replaced package is declared here");
  }
}

std::vector<const ast::Module*> Compilation::declarationOrder() const {
  std::vector<const ast::Module*> modules;
  for (const auto& p : parsed_) {
    if (isActive(p.module->file)) modules.push_back(p.module.get());
  }
  std::sort(modules.begin(), modules.end(), [&](const ast::Module* a, const ast::Module* b) {
    if (a->layer != b->layer) return a->layer > b->layer;
    return sources_.file(a->file).path() < sources_.file(b->file).path();
  });
  return modules;
}

}  // namespace attrib
