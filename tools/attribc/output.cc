#include "tools/attribc/output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "compiler/diagnostic_render.h"

namespace attrib::tools {

void printError(const std::string& message) { fmt::print(stderr, "attribc: error: {}\n", message); }

bool useColor(ColorMode mode) {
  if (mode == ColorMode::Always) return true;
  if (mode == ColorMode::Never) return false;
  const char* noColor = std::getenv("NO_COLOR");
  return isatty(STDERR_FILENO) && !(noColor && *noColor);
}

void printDiagnosticsText(Compilation& compilation, ColorMode color) {
  TextRenderOptions options;
  options.color = useColor(color);
  const auto& diagnostics = compilation.diagnostics().diagnostics();
  for (const auto& d : diagnostics) fmt::print(stderr, "{}", renderText(d, compilation.sources(), options));
  size_t errors = compilation.diagnostics().errorCount(), warnings = compilation.diagnostics().warningCount();
  if (errors || warnings) {
    std::string summary;
    if (errors) summary = fmt::format("{} error{}", errors, errors == 1 ? "" : "s");
    if (warnings) summary += fmt::format("{}{} warning{}", errors ? " and " : "", warnings, warnings == 1 ? "" : "s");
    fmt::print(stderr, "{} generated.\n", summary);
  }
}

int readPaths(Compilation& compilation, const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    std::string error;
    if (!compilation.addPath(path, &error)) {
      printError(error);
      return kExitUsage;
    }
  }
  return kExitOk;
}

int readAndCheck(Compilation& compilation, const std::vector<std::string>& paths, ColorMode color,
                 const std::string& consequence) {
  if (int status = readPaths(compilation, paths); status != kExitOk) return status;
  compilation.check();
  DiagnosticSink& sink = compilation.diagnostics();
  if (sink.errorCount() > 0 || sink.warningCount() > 0) printDiagnosticsText(compilation, color);
  if (sink.errorCount() > 0) {
    printError(fmt::format("the rules have errors; {}", consequence));
    return kExitProblems;
  }
  return kExitOk;
}

}  // namespace attrib::tools
