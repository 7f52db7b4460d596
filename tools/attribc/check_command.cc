#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <set>

#include "attribc_version.h"
#include "compiler/compilation.h"
#include "compiler/diagnostic_render.h"
#include "compiler/fixits.h"
#include "tools/stdlib/embedded_stdlib.h"
#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"

namespace attrib::tools {
namespace {

// "2 files checked", "1 file checked against the stdlib", "the stdlib's 15 files checked".
std::string checkedWhat(const Compilation& c, const RuleInputs& rules) {
  bool stdlibOnly = rules.paths.empty() && rules.bases.empty();
  size_t firstOwn = rules.noStdlib || stdlibOnly ? 0 : 1, files = 0;
  for (FileId id = 0; id < c.sources().size(); ++id) files += c.layerOf(id) >= firstOwn ? 1 : 0;
  if (stdlibOnly) return fmt::format("the stdlib's {} files checked", files);
  std::string what = fmt::format("{} file{} checked", files, files == 1 ? "" : "s");
  return rules.noStdlib ? what : what + " against the stdlib";
}

// -Werror and -Wno-SLUG; kExitUsage after printing an unknown one.
int configure(DiagnosticSink& sink, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) {
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
  return kExitOk;
}

struct Checked {
  std::unique_ptr<DiagnosticSink> sink = std::make_unique<DiagnosticSink>();
  std::unique_ptr<Compilation> compilation;
};

int checkOnce(const CheckOptions& options, Checked* out) {
  if (int status = configure(*out->sink, options.warnings); status != kExitOk) return status;
  out->compilation = std::make_unique<Compilation>(*out->sink);
  if (int status = readRules(*out->compilation, options.rules); status != kExitOk) return status;
  out->compilation->check();
  return kExitOk;
}

}  // namespace

int runCheck(const CheckOptions& options) {
  Checked checked;
  if (int status = checkOnce(options, &checked); status != kExitOk) return status;
  if (options.fix) {
    // A fix can make the next one visible (a regex joined, then its flags checked): a few rounds.
    size_t fixed = 0;
    std::set<std::string> files;
    for (int round = 0; round < 4; ++round) {
      size_t applied = 0;
      const SourceManager& sources = checked.compilation->sources();
      for (FileId id = 0; id < sources.size(); ++id) {
        const SourceFile& file = sources.file(id);
        if (file.path().rfind(kStdlibPrefix, 0) == 0) continue;  // embedded: nothing to write
        FixedText result = applySafeFixits(file.text(), id, checked.sink->diagnostics());
        if (result.applied == 0) continue;
        std::string error;
        if (!writeAtomically(file.path(), result.text, &error)) {
          printError(error);
          return kExitUsage;
        }
        applied += result.applied;
        files.insert(file.path());
      }
      if (applied == 0) break;
      fixed += applied;
      checked = Checked{};
      if (int status = checkOnce(options, &checked); status != kExitOk) return status;
    }
    fmt::print(stderr, "attribc: --fix applied {} fix-it{} in {} file{}\n", fixed, fixed == 1 ? "" : "s", files.size(),
               files.size() == 1 ? "" : "s");
  }
  DiagnosticSink& sink = *checked.sink;
  Compilation& compilation = *checked.compilation;
  if (options.format == "json") {
    fmt::print("{}", renderJsonLines(sink.diagnostics(), compilation.sources()));
  } else if (options.format == "sarif") {
    fmt::print("{}", renderSarif(sink.diagnostics(), compilation.sources(), ATTRIB_VERSION));
  } else {
    printDiagnosticsText(compilation, options.color);
    if (sink.errorCount() == 0 && sink.warningCount() == 0) {
      fmt::print(stderr, "attribc: {}, no problems found\n", checkedWhat(compilation, options.rules));
    }
  }
  std::fflush(stdout);
  return sink.errorCount() > 0 ? kExitProblems : kExitOk;
}

}  // namespace attrib::tools
