#include "tools/attrib/rule_set.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "attrib_version.h"
#include "compiler/bundle_writer.h"
#include "compiler/compilation.h"
#include "compiler/diagnostic_render.h"
#include "jit/jit_compiler.h"
#include "runtime/bundle.h"

// The stdlib bundle, compiled at build time by attribc and linked in (stdlib_bundle.S).
extern "C" const char attrib_stdlib_bundle[];
extern "C" const char attrib_stdlib_bundle_end[];

namespace attrib::tools {
namespace {

std::shared_ptr<const runtime::Engine> engineFrom(std::string_view bytes, const std::string& what,
                                                  const RuleSetOptions& options, std::string* error) {
  std::string why;
  auto bundle = runtime::loadBundle(bytes, &why);
  if (!bundle) {
    *error = fmt::format("{}: {}", what, why);
    return nullptr;
  }
  std::shared_ptr<const runtime::CompiledPredicates> compiled;
  runtime::EvaluatorInfo evaluator;
  if (options.jit) {
    jit::JitOptions jitOptions;
    jitOptions.cacheDir = options.jitCacheDir;
    std::string jitError;
    compiled = jit::compilePredicates(bundle->program, jitOptions, nullptr, &jitError);
    if (compiled) evaluator.name = "jit";
    else evaluator.fallbackReason = "the JIT is unavailable: " + jitError;
  }
  auto engine = runtime::Engine::create(bundle, &why, std::move(compiled), std::move(evaluator));
  if (!engine) *error = fmt::format("{}: {}", what, why);
  return engine;
}

}  // namespace

std::shared_ptr<const runtime::Engine> loadRuleSet(const std::string& path, const RuleSetOptions& options,
                                                   std::string* error) {
  if (path.empty()) {
    std::string_view stdlib(attrib_stdlib_bundle, static_cast<size_t>(attrib_stdlib_bundle_end - attrib_stdlib_bundle));
    return engineFrom(stdlib, "the embedded stdlib bundle", options, error);
  }
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    std::string head(8, '\0');
    in.read(head.data(), 8);
    if (runtime::looksLikeBundle(head)) {
      std::stringstream all;
      in.seekg(0);
      all << in.rdbuf();
      return engineFrom(all.str(), path, options, error);
    }
  }
  DiagnosticSink sink;
  Compilation compilation(sink);
  if (!compilation.addPath(path, error)) return nullptr;
  compilation.check();
  for (const auto& d : sink.diagnostics()) fmt::print(stderr, "{}", renderText(d, compilation.sources()));
  if (sink.errorCount() > 0) {
    *error = fmt::format("the rules in '{}' have errors (see above); run 'attribc check {}'", path, path);
    return nullptr;
  }
  BundleResult built = buildBundle(compilation, {"rules", "0.0.0"}, ATTRIB_VERSION);
  if (!built.ok) {
    *error = built.error;
    return nullptr;
  }
  return engineFrom(built.bytes, path, options, error);
}

}  // namespace attrib::tools
