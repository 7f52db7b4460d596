// attribc: checks, formats (and, in later versions, builds, tests and explains) .attr rules.
// The command line lives here; everything it runs is in the compiler library.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "attribc_version.h"
#include "tools/cli_parse.h"
#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"

namespace {

using attrib::tools::ColorMode;

const std::map<std::string, ColorMode> kColorModes = {
    {"auto", ColorMode::Auto}, {"always", ColorMode::Always}, {"never", ColorMode::Never}};

// The rule set of check, build, test, doc and explain: the stdlib, the --base layers, the paths.
void addRuleInputs(CLI::App* cmd, attrib::tools::RuleInputs& rules) {
  cmd->add_option("paths", rules.paths,
                  "Rule files, or directories searched recursively for *.attr, compiled on top of the stdlib "
                  "(none: the stdlib alone)");
  cmd->add_option("--base", rules.bases,
                  "A rule set layered between the stdlib and PATHs (repeatable, lowest first; docs/language.md, "
                  "\"Layers\")")
      ->allow_extra_args(false);
  cmd->add_flag("--no-stdlib", rules.noStdlib, "Leave out the embedded stdlib: PATHs alone");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attribc: check, format and compile attrib .attr rule files", "attribc"};
  app.set_version_flag("--version", std::string("attribc ") + ATTRIB_VERSION);
  app.require_subcommand(0, 1);
  app.footer("Run 'attribc COMMAND --help' for the options of a command. Docs: docs/language.md, docs/diagnostics.md");

  attrib::tools::CheckOptions check;
  CLI::App* checkCmd = app.add_subcommand("check", "Check rule files and report every problem");
  addRuleInputs(checkCmd, check.rules);
  checkCmd->add_flag("--fix", check.fix,
                     "Apply the safe fix-its to the files (not to the stdlib), then check again (docs/diagnostics.md)");
  checkCmd->add_option("--format", check.format, "Diagnostics as text (stderr), json (one object per line) or sarif")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  checkCmd->add_option("-W", check.warnings, "-Werror: warnings are errors; -Wno-SLUG: silence one warning")
      ->allow_extra_args(false);
  checkCmd->add_option("--color", check.color, "Colour text diagnostics: auto, always, never")
      ->transform(CLI::CheckedTransformer(kColorModes, CLI::ignore_case));

  attrib::tools::FmtOptions fmtOptions;
  CLI::App* fmtCmd = app.add_subcommand("fmt", "Print rule files in canonical form (comments are kept)");
  fmtCmd->add_option("paths", fmtOptions.paths, "Rule files, or directories searched recursively for *.attr")->required();
  auto* checkFlag = fmtCmd->add_flag("--check", fmtOptions.check, "List files that are not formatted; exit 1 if any");
  fmtCmd->add_flag("-w,--write", fmtOptions.write, "Rewrite the files in place")->excludes(checkFlag);
  fmtCmd->add_option("--color", fmtOptions.color, "Colour diagnostics: auto, always, never")
      ->transform(CLI::CheckedTransformer(kColorModes, CLI::ignore_case));

  attrib::tools::BuildOptions build;
  CLI::App* buildCmd = app.add_subcommand("build", "Compile rule files into a bundle (.attrb) for attrib");
  addRuleInputs(buildCmd, build.rules);
  buildCmd->add_option("-o,--output", build.output, "The bundle to write")->capture_default_str();
  buildCmd->add_option("--name", build.name, "The rule set's name, reported in verdicts")->capture_default_str();
  buildCmd->add_option("--version", build.version, "The rule set's version, reported in verdicts")->capture_default_str();
  buildCmd->add_option("--color", build.color, "Colour diagnostics: auto, always, never")
      ->transform(CLI::CheckedTransformer(kColorModes, CLI::ignore_case));

  attrib::tools::TestOptions test;
  CLI::App* testCmd = app.add_subcommand("test", "Run the inline test blocks of rule files; ends with 'N passed, M failed'");
  addRuleInputs(testCmd, test.rules);
  testCmd->add_option("--filter", test.filter, "Only tests whose name matches PATTERN (a glob with * and ?, else a substring)");
  testCmd->add_option("--only", test.only, "Only the tests in this file or below this directory (repeatable)")
      ->allow_extra_args(false);
  testCmd->add_flag("-v,--verbose", test.verbose, "List passing tests too");
  testCmd->add_option("--color", test.color, "Colour diagnostics: auto, always, never")
      ->transform(CLI::CheckedTransformer(kColorModes, CLI::ignore_case));

  attrib::tools::DocOptions doc;
  CLI::App* docCmd = app.add_subcommand("doc", "Print a Markdown catalogue of symptoms, rules and outcomes");
  addRuleInputs(docCmd, doc.rules);
  docCmd->add_option("--title", doc.title, "The catalogue's title")->capture_default_str();

  attrib::tools::ExplainOptions explain;
  CLI::App* explainCmd =
      app.add_subcommand("explain", "Print what a rule's predicates compile to: predicate IR or the JIT's LLVM IR");
  addRuleInputs(explainCmd, explain.rules);
  explainCmd->add_option("--ir", explain.ir, "Print the predicate IR of this rule, outcome, symptom or filter");
  explainCmd->add_option("--llvm", explain.llvm, "Print the LLVM IR (optimised at O2) the JIT runs for it");
  explainCmd->add_flag("--unoptimised", explain.unoptimised, "With --llvm: the IR as generated, before optimisation");
  explainCmd->add_option("--color", explain.color, "Colour diagnostics: auto, always, never")
      ->transform(CLI::CheckedTransformer(kColorModes, CLI::ignore_case));

  attrib::tools::BenchPatternsOptions benchPatterns;
  CLI::App* benchPatternsCmd = app.add_subcommand(
      "bench-patterns", "Measure what each log pattern costs Hyperscan on given logs, costliest first");
  addRuleInputs(benchPatternsCmd, benchPatterns.rules);
  benchPatternsCmd->add_option("--logs", benchPatterns.logs, "Log files or directories to scan (held in memory, at most 2 GiB)")
      ->required();
  benchPatternsCmd->add_option("--reps", benchPatterns.reps, "Scans per figure; the best counts")->capture_default_str();
  benchPatternsCmd->add_option("--top", benchPatterns.top, "Patterns to list, costliest first (0: only the whole database's figures)")->capture_default_str();
  benchPatternsCmd->add_option("--format", benchPatterns.format, "Output: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  benchPatternsCmd->add_option("--color", benchPatterns.color, "Colour diagnostics: auto, always, never")
      ->transform(CLI::CheckedTransformer(kColorModes, CLI::ignore_case));

  attrib::tools::StdlibOptions stdlib;
  CLI::App* stdlibCmd = app.add_subcommand("stdlib", "The stdlib embedded in attribc and attrib: list or export its sources");
  stdlibCmd->require_subcommand(1);
  CLI::App* stdlibList = stdlibCmd->add_subcommand("list", "Print the names of the stdlib's files");
  CLI::App* stdlibExport = stdlibCmd->add_subcommand("export", "Write the stdlib's sources below DIR");
  stdlibExport->add_option("dir", stdlib.exportDir, "The directory to write to (created if needed)")->required();

  attrib::tools::LspOptions lsp;
  CLI::App* lspCmd = app.add_subcommand("lsp", "Serve the Language Server Protocol on stdin/stdout, for editors (editors/vscode)");
  lspCmd->add_flag("--no-stdlib", lsp.noStdlib, "Check the workspace's rules alone, without the embedded stdlib");
  lspCmd->add_option("--stdlib-dir", lsp.stdlibDir,
                     "Where the stdlib's files are written so that definitions in them open (default: "
                     "$XDG_CACHE_HOME/attrib/stdlib-HASH)");

  CLI::App* helpCmd = app.add_subcommand("help", "Show this help, or a command's help: attribc help COMMAND");
  std::string helpTopic;
  helpCmd->add_option("command", helpTopic, "The command to explain");

  if (auto status = attrib::tools::parseCommandLine(app, argc, argv)) return *status;

  if (*checkCmd) return attrib::tools::runCheck(check);
  if (*fmtCmd) return attrib::tools::runFmt(fmtOptions);
  if (*buildCmd) return attrib::tools::runBuild(build);
  if (*testCmd) return attrib::tools::runTest(test);
  if (*docCmd) return attrib::tools::runDoc(doc);
  if (*explainCmd) return attrib::tools::runExplain(explain);
  if (*benchPatternsCmd) return attrib::tools::runBenchPatterns(benchPatterns);
  if (*lspCmd) return attrib::tools::runLsp(lsp);
  if (*stdlibCmd) {
    stdlib.list = stdlibList->parsed();
    return attrib::tools::runStdlib(stdlib);
  }
  if (*helpCmd && !helpTopic.empty()) {
    CLI::App* sub = nullptr;
    try {
      sub = app.get_subcommand(helpTopic);
    } catch (const CLI::OptionNotFound&) {
      attrib::tools::printError(fmt::format("no command '{}'; the commands are check, fmt, build, test, doc, explain, bench-patterns, stdlib, lsp, help", helpTopic));
      return attrib::tools::kExitUsage;
    }
    fmt::print("{}", sub->help());
    return attrib::tools::kExitOk;
  }
  // App::help() would describe the `help` subcommand itself once it was selected.
  fmt::print("{}", app.get_formatter()->make_help(&app, "attribc", CLI::AppFormatMode::Normal));
  return *helpCmd ? attrib::tools::kExitOk : attrib::tools::kExitUsage;
}
