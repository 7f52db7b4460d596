// The subcommands of attribc. Each returns the process exit code:
//   0 success, 1 problems found in the rules (or files fmt would change), 2 usage or I/O error.
#pragma once

#include <string>
#include <vector>

namespace attrib::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;
inline constexpr int kExitUsage = 2;

enum class ColorMode { Auto, Always, Never };

// The rule set a command works on, in layers (docs/language.md, "Layers"): the embedded stdlib
// (unless --no-stdlib), then each --base in order, then `paths`. Without paths, the stdlib alone.
struct RuleInputs {
  std::vector<std::string> paths;
  std::vector<std::string> bases;
  bool noStdlib = false;
};

struct CheckOptions {
  RuleInputs rules;
  std::string format = "text";          // text | json | sarif
  std::vector<std::string> warnings;    // -W values: error, no-<slug>
  ColorMode color = ColorMode::Auto;
  bool fix = false;  // apply the fix-its marked safe, rewriting the files, then check again
};

struct FmtOptions {
  std::vector<std::string> paths;
  bool check = false;  // report files that would change; exit 1 if any
  bool write = false;  // rewrite files in place
  ColorMode color = ColorMode::Auto;
};

struct BuildOptions {
  RuleInputs rules;
  std::string output = "rules.attrb";
  std::string name = "rules";
  std::string version = "0.0.0";
  ColorMode color = ColorMode::Auto;
};

struct TestOptions {
  RuleInputs rules;
  bool verbose = false;
  std::string filter;              // only tests whose name matches (a glob with * and ?, else a substring)
  std::vector<std::string> only;   // only tests in these files or below these directories
  ColorMode color = ColorMode::Auto;
};

struct DocOptions {
  RuleInputs rules;
  std::string title = "The rule catalogue";
  ColorMode color = ColorMode::Auto;
};

struct ExplainOptions {
  RuleInputs rules;
  std::string ir;    // print the predicate IR of this declaration
  std::string llvm;  // print the LLVM IR of this declaration
  bool unoptimised = false;
  ColorMode color = ColorMode::Auto;
};

struct BenchPatternsOptions {
  RuleInputs rules;
  std::vector<std::string> logs;  // files or directories (searched recursively); gzip is read
  int reps = 3;                   // each figure is the best of this many scans
  int top = 20;                   // patterns measured alone and listed, costliest first (0: none)
  std::string format = "text";    // text | json
  ColorMode color = ColorMode::Auto;
};

struct StdlibOptions {
  std::string exportDir;  // `attribc stdlib export DIR`
  bool list = false;      // `attribc stdlib list`
};

struct LspOptions {
  bool noStdlib = false;
  std::string stdlibDir;  // where the stdlib is written for definitions; empty: the cache default
};

int runCheck(const CheckOptions& options);
int runLsp(const LspOptions& options);
int runStdlib(const StdlibOptions& options);
int runExplain(const ExplainOptions& options);
int runBenchPatterns(const BenchPatternsOptions& options);
int runDoc(const DocOptions& options);
int runTest(const TestOptions& options);
int runBuild(const BuildOptions& options);
int runFmt(const FmtOptions& options);

}  // namespace attrib::tools
