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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attribc: check, format and compile attrib .attr rule files", "attribc"};
  app.set_version_flag("--version", std::string("attribc ") + ATTRIB_VERSION);
  app.require_subcommand(0, 1);
  app.footer("Run 'attribc COMMAND --help' for the options of a command. Docs: docs/language.md, docs/diagnostics.md");

  attrib::tools::CheckOptions check;
  CLI::App* checkCmd = app.add_subcommand("check", "Check rule files and report every problem");
  checkCmd->add_option("paths", check.paths, "Rule files, or directories searched recursively for *.attr")->required();
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
  buildCmd->add_option("paths", build.paths, "Rule files, or directories searched recursively for *.attr")->required();
  buildCmd->add_option("-o,--output", build.output, "The bundle to write")->capture_default_str();
  buildCmd->add_option("--name", build.name, "The rule set's name, reported in verdicts")->capture_default_str();
  buildCmd->add_option("--version", build.version, "The rule set's version, reported in verdicts")->capture_default_str();
  buildCmd->add_option("--color", build.color, "Colour diagnostics: auto, always, never")
      ->transform(CLI::CheckedTransformer(kColorModes, CLI::ignore_case));

  attrib::tools::TestOptions test;
  CLI::App* testCmd = app.add_subcommand("test", "Run the inline test blocks of rule files; ends with 'N passed, M failed'");
  testCmd->add_option("paths", test.paths, "Rule files, or directories searched recursively for *.attr")->required();
  testCmd->add_flag("-v,--verbose", test.verbose, "List passing tests too");
  testCmd->add_option("--color", test.color, "Colour diagnostics: auto, always, never")
      ->transform(CLI::CheckedTransformer(kColorModes, CLI::ignore_case));

  attrib::tools::DocOptions doc;
  CLI::App* docCmd = app.add_subcommand("doc", "Print a Markdown catalogue of symptoms, rules and outcomes");
  docCmd->add_option("paths", doc.paths, "Rule files, or directories searched recursively for *.attr")->required();
  docCmd->add_option("--title", doc.title, "The catalogue's title")->capture_default_str();

  attrib::tools::ExplainOptions explain;
  CLI::App* explainCmd =
      app.add_subcommand("explain", "Print what a rule's predicates compile to: predicate IR or the JIT's LLVM IR");
  explainCmd->add_option("paths", explain.paths, "Rule files, or directories searched recursively for *.attr")->required();
  explainCmd->add_option("--ir", explain.ir, "Print the predicate IR of this rule, outcome, symptom or filter");
  explainCmd->add_option("--llvm", explain.llvm, "Print the LLVM IR (optimised at O2) the JIT runs for it");
  explainCmd->add_flag("--unoptimised", explain.unoptimised, "With --llvm: the IR as generated, before optimisation");
  explainCmd->add_option("--color", explain.color, "Colour diagnostics: auto, always, never")
      ->transform(CLI::CheckedTransformer(kColorModes, CLI::ignore_case));

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
  if (*helpCmd && !helpTopic.empty()) {
    CLI::App* sub = nullptr;
    try {
      sub = app.get_subcommand(helpTopic);
    } catch (const CLI::OptionNotFound&) {
      attrib::tools::printError(fmt::format("no command '{}'; the commands are check, fmt, build, test, doc, explain, help", helpTopic));
      return attrib::tools::kExitUsage;
    }
    fmt::print("{}", sub->help());
    return attrib::tools::kExitOk;
  }
  // App::help() would describe the `help` subcommand itself once it was selected.
  fmt::print("{}", app.get_formatter()->make_help(&app, "attribc", CLI::AppFormatMode::Normal));
  return *helpCmd ? attrib::tools::kExitOk : attrib::tools::kExitUsage;
}
