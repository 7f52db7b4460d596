#include <fmt/format.h>

#include <cstdio>

#include "compiler/compilation.h"
#include "compiler/formatter.h"
#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"

namespace attrib::tools {

int runFmt(const FmtOptions& options) {
  if (options.check && options.write) {
    printError("--check and -w cannot be used together");
    return kExitUsage;
  }
  DiagnosticSink sink;
  Compilation compilation(sink);
  if (int status = readPaths(compilation, options.paths); status != kExitOk) return status;
  // Formatting needs only a clean parse of each file; names are not resolved.
  std::vector<ParseResult> parsed;
  for (FileId id = 0; id < compilation.sources().size(); ++id) {
    parsed.push_back(parseFile(compilation.sources(), id, sink));
  }
  if (sink.errorCount() > 0) {
    printDiagnosticsText(compilation, options.color);
    printError("files with syntax errors are not formatted");
    return kExitProblems;
  }
  int status = kExitOk;
  for (FileId id = 0; id < parsed.size(); ++id) {
    const SourceFile& file = compilation.sources().file(id);
    std::optional<std::string> formatted = formatFile(parsed[id]);
    if (!formatted) continue;
    bool changed = *formatted != file.text();
    if (options.check) {
      if (changed) {
        fmt::print("{}\n", file.path());
        status = kExitProblems;
      }
    } else if (options.write) {
      std::string error;
      if (changed && !writeAtomically(file.path(), *formatted, &error)) {
        printError(error);
        return kExitUsage;
      }
    } else {
      fmt::print("{}", *formatted);
    }
  }
  if (options.check && status != kExitOk) {
    fmt::print(stderr, "attribc: the files above are not formatted; run 'attribc fmt -w' on them\n");
  }
  return status;
}

}  // namespace attrib::tools
