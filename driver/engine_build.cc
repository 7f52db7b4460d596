#include "driver/engine_build.h"

#include "compiler/bundle_writer.h"

namespace attrib::driver {

std::shared_ptr<const runtime::Engine> engineFromBundle(std::shared_ptr<const runtime::Bundle> bundle,
                                                        const EngineOptions& options, std::string* error) {
  std::shared_ptr<const runtime::CompiledPredicates> compiled;
  runtime::EvaluatorInfo evaluator;
  if (options.jit || options.requireJit) {
    jit::JitOptions jitOptions;
    jitOptions.cacheDir = options.jitCacheDir;
    std::string jitError;
    compiled = jit::compilePredicates(bundle->program, jitOptions, options.jitReport, &jitError);
    if (compiled) {
      evaluator.name = "jit";
    } else if (options.requireJit) {
      *error = "the JIT is unavailable: " + jitError;
      return nullptr;
    } else {
      evaluator.fallbackReason = "the JIT is unavailable: " + jitError;
    }
  }
  return runtime::Engine::create(std::move(bundle), error, std::move(compiled), std::move(evaluator));
}

std::shared_ptr<const runtime::Engine> engineFromBytes(std::string_view bytes, const EngineOptions& options,
                                                       std::string* error) {
  auto bundle = runtime::loadBundle(bytes, error);
  return bundle ? engineFromBundle(std::move(bundle), options, error) : nullptr;
}

std::shared_ptr<const runtime::Engine> engineFromCompilation(const Compilation& compilation, const LowerOptions& name,
                                                             const std::string& compilerVersion,
                                                             const EngineOptions& options, std::string* error,
                                                             std::string* bundleBytes) {
  BundleResult built = buildBundle(compilation, name, compilerVersion);
  if (!built.ok) {
    *error = built.error;
    return nullptr;
  }
  if (bundleBytes) *bundleBytes = built.bytes;
  return engineFromBytes(built.bytes, options, error);
}

}  // namespace attrib::driver
