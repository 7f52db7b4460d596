#include <fmt/format.h>

#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"
#include "tools/stdlib/embedded_stdlib.h"

namespace attrib::tools {

int runStdlib(const StdlibOptions& options) {
  if (options.list) {
    for (const auto& f : embeddedStdlib()) fmt::print("{}\n", f.name);
    return kExitOk;
  }
  size_t written = 0;
  std::string error;
  if (!exportStdlib(options.exportDir, &written, &error)) {
    printError(error);
    return kExitUsage;
  }
  fmt::print(stderr, "attribc: wrote the stdlib's {} files below {}\n", written, options.exportDir);
  return kExitOk;
}

}  // namespace attrib::tools
