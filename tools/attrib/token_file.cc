#include "tools/attrib/token_file.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>

namespace attrib::tools {

bool readTokenFile(const std::string& path, std::string* token, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) {
    *error = fmt::format("cannot read the token file {}", path);
    return false;
  }
  char buffer[4096];
  size_t n = std::fread(buffer, 1, sizeof buffer, f);
  std::fclose(f);
  token->assign(buffer, n);
  while (!token->empty() && std::isspace(static_cast<unsigned char>(token->back()))) token->pop_back();
  if (token->empty()) {
    *error = fmt::format("the token file {} is empty", path);
    return false;
  }
  return true;
}

}  // namespace attrib::tools
