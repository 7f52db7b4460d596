// A bearer token read from a file (attrib serve, attrib dashboard): secrets come from files,
// never from the command line where `ps` shows them.
#pragma once

#include <string>

namespace attrib::tools {

// The file's first 4 KiB with trailing white space removed; false with a one-line `error` when
// the file cannot be read or holds no token.
bool readTokenFile(const std::string& path, std::string* token, std::string* error);

}  // namespace attrib::tools
