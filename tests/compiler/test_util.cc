#include "tests/compiler/test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

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
  }
  return out;
}

Checked check(const std::vector<std::pair<std::string, std::string>>& files) {
  Checked c;
  c.compilation = std::make_unique<Compilation>(*c.sink);
  for (const auto& [path, text] : files) c.compilation->addSource(path, text);
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
  for (const char* dir : {"stdlib-rules", "examples", "tests"}) {
    fs::path root = fs::path(ATTRIB_SOURCE_DIR) / dir;
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
