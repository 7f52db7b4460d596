#include <fmt/format.h>

#include <cstdio>

#include "attribc_version.h"
#include "compiler/compilation.h"
#include "compiler/diagnostic_render.h"
#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"

namespace attrib::tools {

int runCheck(const CheckOptions& options) {
  DiagnosticSink sink;
  for (const auto& w : options.warnings) {
    if (w == "error") {
      sink.setWarningsAsErrors(true);
    } else if (w.rfind("no-", 0) == 0) {
      const DiagKindInfo* kind = findDiagKindBySlug(w.substr(3));
      if (!kind || kind->severity != Severity::Warning) {
        printError(fmt::format("unknown warning '-W{}'; see docs/diagnostics.md for the list", w));
        return kExitUsage;
      }
      sink.disableWarning(kind->kind);
    } else {
      printError(fmt::format("unknown option '-W{}'; use -Werror or -Wno-<warning>", w));
      return kExitUsage;
    }
  }
  Compilation compilation(sink);
  if (int status = readPaths(compilation, options.paths); status != kExitOk) return status;
  compilation.check();

  if (options.format == "json") {
    fmt::print("{}", renderJsonLines(sink.diagnostics(), compilation.sources()));
  } else if (options.format == "sarif") {
    fmt::print("{}", renderSarif(sink.diagnostics(), compilation.sources(), ATTRIB_VERSION));
  } else {
    printDiagnosticsText(compilation, options.color);
    if (sink.errorCount() == 0 && sink.warningCount() == 0) {
      size_t files = compilation.sources().size();
      fmt::print(stderr, "attribc: {} file{} checked, no problems found\n", files, files == 1 ? "" : "s");
    }
  }
  std::fflush(stdout);
  return sink.errorCount() > 0 ? kExitProblems : kExitOk;
}

}  // namespace attrib::tools
