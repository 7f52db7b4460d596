#include "compiler/compilation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
