#include <fmt/format.h>

#include "attribc_version.h"
#include "compiler/bundle_writer.h"
#include "compiler/compilation.h"
#include "runtime/bundle.h"
#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"
#include "tools/attribc/rule_tests.h"

namespace attrib::tools {

int runTest(const TestOptions& options) {
  DiagnosticSink sink;
  Compilation compilation(sink);
  if (int status = readAndCheck(compilation, options.paths, options.color, "tests were not run"); status != kExitOk) {
    return status;
  }
  BundleResult built = buildBundle(compilation, {"test", "0.0.0"}, ATTRIB_VERSION);
  std::string error;
  std::shared_ptr<const runtime::Bundle> bundle = built.ok ? runtime::loadBundle(built.bytes, &error) : nullptr;
  std::shared_ptr<const runtime::Engine> engine = bundle ? runtime::Engine::create(bundle, &error) : nullptr;
  if (!engine) {
    printError(built.ok ? error : built.error);
    return kExitProblems;
  }
  size_t passed = 0, failed = 0;
  for (const auto& r : runRuleTests(compilation, *engine)) {
    if (r.passed) {
      ++passed;
      if (options.verbose) fmt::print("ok    {}:{}: {}\n", r.file, r.line, r.name);
      continue;
    }
    ++failed;
    fmt::print("FAIL  {}:{}: {}\n", r.file, r.line, r.name);
    for (const auto& f : r.failures) fmt::print("      {}\n", f);
  }
  fmt::print("{} passed, {} failed\n", passed, failed);
  return failed ? kExitProblems : kExitOk;
}

}  // namespace attrib::tools
