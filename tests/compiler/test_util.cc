#include "tests/compiler/test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "compiler/diagnostic_render.h"

namespace attrib::testing {

std::vector<std::string> Checked::lines() const {
  std::vector<std::string> out;
  for (const auto& d : sink->diagnostics()) {
    std::string text = renderText(d, compilation->sources());
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      std::string line = text.substr(start, end - start);
      start = end == std::string::npos ? text.size() : end + 1;
      // Keep header lines and notes; drop the quoted source and caret lines.
      if (line.rfind("  ", 0) != 0) out.push_back(line);
    }
    // Fix-its in clang's parseable form: fix-it:"FILE":{L:C-L:C}:"TEXT", then (safe) for --fix.
    for (const auto& f : d.fixits) {
      const SourceFile& file = compilation->sources().file(f.range.file);
      LineColumn b = file.lineColumn(f.range.begin), e = file.lineColumn(f.range.end);
      out.push_back(fmt::format("fix-it:\"{}\":{{{}:{}-{}:{}}}:\"{}\"{}", file.path(), b.line, b.column, e.line, e.column,
                                f.replacement, f.safe ? " (safe)" : ""));
    }
  }
  return out;
}

Checked check(const std::vector<std::pair<std::string, std::string>>& files) { return checkLayers({files}); }

Checked checkLayers(const std::vector<std::vector<std::pair<std::string, std::string>>>& layers) {
  Checked c;
  c.compilation = std::make_unique<Compilation>(*c.sink);
  for (size_t i = 0; i < layers.size(); ++i) {
    c.compilation->beginLayer(i == 0 && layers.size() > 1 ? "stdlib" : fmt::format("layer{}", i));
    for (const auto& [path, text] : layers[i]) c.compilation->addSource(path, text);
  }
  c.compilation->check();
  return c;
}

Checked checkClean(const std::string& text) {
  Checked c = check(text);
  EXPECT_EQ(c.errors(), 0u);
  EXPECT_EQ(c.warnings(), 0u);
  for (const auto& line : c.lines()) ADD_FAILURE() << line;
  return c;
}

std::vector<std::string> repositoryRuleFiles() {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  const fs::path source(ATTRIB_SOURCE_DIR);
  for (const fs::path& root : {source / "stdlib-rules", fs::path(ATTRIB_STDLIB_GENERATED_DIR), source / "examples",
                               source / "tests"}) {
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.path().extension() == ".attr" && entry.path().string().find("/diagnostics/") == std::string::npos) {
        files.push_back(entry.path().string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace attrib::testing
