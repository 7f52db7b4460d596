#include "tools/attribc/output.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "compiler/diagnostic_render.h"
#include "tools/stdlib/embedded_stdlib.h"

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

int readRules(Compilation& compilation, const RuleInputs& rules) {
  if (rules.noStdlib && rules.paths.empty() && rules.bases.empty()) {
    printError("no rules to work on: give rule files or directories, or leave out --no-stdlib");
    return kExitUsage;
  }
  if (!rules.noStdlib) addStdlibLayer(compilation);
  for (const auto& base : rules.bases) {
    compilation.beginLayer(base);
    if (int status = readPaths(compilation, {base}); status != kExitOk) return status;
  }
  if (!rules.paths.empty()) {
    compilation.beginLayer(rules.paths.size() == 1 ? rules.paths[0] : fmt::format("{}", fmt::join(rules.paths, ", ")));
    if (int status = readPaths(compilation, rules.paths); status != kExitOk) return status;
  }
  return kExitOk;
}

size_t topLayer(const Compilation& compilation) { return compilation.layerCount() - 1; }

bool writeAtomically(const std::string& path, const std::string& text, std::string* error) {
  std::string tmp = path + ".attribc.tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp);
      *error = fmt::format("cannot write '{}': the disk may be full or read-only", path);
      return false;
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) ::chmod(tmp.c_str(), st.st_mode & 07777);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::filesystem::remove(tmp);
    *error = fmt::format("cannot replace '{}': {}", path, std::strerror(errno));
    return false;
  }
  return true;
}

int readAndCheck(Compilation& compilation, const RuleInputs& rules, ColorMode color, const std::string& consequence) {
  if (int status = readRules(compilation, rules); status != kExitOk) return status;
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
