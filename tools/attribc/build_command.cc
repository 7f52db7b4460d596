#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "attribc_version.h"
#include "compiler/bundle_writer.h"
#include "compiler/compilation.h"
#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"

namespace attrib::tools {

int runBuild(const BuildOptions& options) {
  DiagnosticSink sink;
  Compilation compilation(sink);
  if (int status = readAndCheck(compilation, options.rules, options.color, "no bundle was written"); status != kExitOk) {
    return status;
  }
  LowerOptions lower;
  lower.name = options.name;
  lower.version = options.version;
  BundleResult bundle = buildBundle(compilation, lower, ATTRIB_VERSION);
  if (!bundle.ok) {
    printError(bundle.error);
    return kExitProblems;
  }
  // Write a sibling and rename it over the output, so a failed write never leaves half a bundle.
  std::string tmp = options.output + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << bundle.bytes;
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp);
      printError(fmt::format("cannot write '{}'", options.output));
      return kExitUsage;
    }
  }
  if (std::rename(tmp.c_str(), options.output.c_str()) != 0) {
    std::filesystem::remove(tmp);
    printError(fmt::format("cannot write '{}'", options.output));
    return kExitUsage;
  }
  fmt::print(stderr, "attribc: wrote {} ({} bytes): {} symptoms, {} log patterns ({} distinct), {} rules, {} outcomes, {}\n",
             options.output, bundle.bytes.size(), bundle.symptoms, bundle.patterns, bundle.expressions, bundle.rules,
             bundle.outcomes, bundle.digest);
  return kExitOk;
}

}  // namespace attrib::tools
