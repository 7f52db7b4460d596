#include "compiler/source.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attrib {

SourceRange SourceRange::cover(const SourceRange& a, const SourceRange& b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  return {a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
  }
}

LineColumn SourceFile::lineColumn(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  uint32_t index = static_cast<uint32_t>(it - lineStarts_.begin()) - 1;
  return {index + 1, offset - lineStarts_[index] + 1};
}

std::string_view SourceFile::line(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  uint32_t begin = lineStarts_[line - 1];
  uint32_t end = line < lineStarts_.size() ? lineStarts_[line] : static_cast<uint32_t>(text_.size());
  std::string_view view(text_.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r')) view.remove_suffix(1);
  return view;
}

FileId SourceManager::add(std::string path, std::string text) {
  files_.push_back(std::make_unique<SourceFile>(std::move(path), std::move(text)));
  return static_cast<FileId>(files_.size() - 1);
}

namespace {
std::string normal(const std::string& path) { return std::filesystem::path(path).lexically_normal().string(); }
}  // namespace

void SourceManager::attach(std::string path, std::string text) { attached_[normal(path)] = std::move(text); }

bool SourceManager::hasAuxiliary(const std::string& path) const {
  if (attached_.count(normal(path))) return true;
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && std::ifstream(path, std::ios::binary).good();
}

std::optional<std::string> SourceManager::readAuxiliary(const std::string& path) const {
  if (auto it = attached_.find(normal(path)); it != attached_.end()) return it->second;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

}  // namespace attrib
