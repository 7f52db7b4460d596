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

struct CheckOptions {
  std::vector<std::string> paths;
  std::string format = "text";          // text | json | sarif
  std::vector<std::string> warnings;    // -W values: error, no-<slug>
  ColorMode color = ColorMode::Auto;
};

struct FmtOptions {
  std::vector<std::string> paths;
  bool check = false;  // report files that would change; exit 1 if any
  bool write = false;  // rewrite files in place
  ColorMode color = ColorMode::Auto;
};

struct BuildOptions {
  std::vector<std::string> paths;
  std::string output = "rules.attrb";
  std::string name = "rules";
  std::string version = "0.0.0";
  ColorMode color = ColorMode::Auto;
};

struct TestOptions {
  std::vector<std::string> paths;
  bool verbose = false;
  ColorMode color = ColorMode::Auto;
};

struct DocOptions {
  std::vector<std::string> paths;
  std::string title = "The rule catalogue";
  ColorMode color = ColorMode::Auto;
};

struct ExplainOptions {
  std::vector<std::string> paths;
  std::string ir;    // print the predicate IR of this declaration
  std::string llvm;  // print the LLVM IR of this declaration
  bool unoptimised = false;
  ColorMode color = ColorMode::Auto;
};

int runCheck(const CheckOptions& options);
int runExplain(const ExplainOptions& options);
int runDoc(const DocOptions& options);
int runTest(const TestOptions& options);
int runBuild(const BuildOptions& options);
int runFmt(const FmtOptions& options);

}  // namespace attrib::tools
