#include "tests/runtime/engine_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "compiler/compilation.h"
#include "compiler/diagnostic_render.h"
#include "compiler/literals.h"
#include "driver/engine_build.h"
#include "runtime/bundle.h"

namespace attrib::testing {

namespace {

// Builds and loads the checked compilation's bundle, named `name`.
std::shared_ptr<const runtime::Engine> engineOf(Compilation& c, const DiagnosticSink& sink, const LowerOptions& name,
                                               std::string* bundleBytes) {
  for (const auto& d : sink.diagnostics()) {
    if (d.severity == Severity::Error) ADD_FAILURE() << renderText(d, c.sources());
  }
  if (sink.errorCount()) return nullptr;
  std::string error;
  auto engine = driver::engineFromCompilation(c, name, "test", {}, &error, bundleBytes);
  EXPECT_TRUE(engine) << error;
  return engine;
}

}  // namespace

std::shared_ptr<const runtime::Engine> engineFor(const std::string& rules, std::string* bundleBytes) {
  DiagnosticSink sink;
  Compilation c(sink);
  c.addSource("t.attr", rules);
  c.check();
  return engineOf(c, sink, {"test", "1.0"}, bundleBytes);
}

std::vector<std::string> stdlibPaths() {
  return {std::string(ATTRIB_SOURCE_DIR) + "/stdlib-rules", ATTRIB_STDLIB_GENERATED_DIR};
}

std::shared_ptr<const runtime::Bundle> stdlibBundle() {
  static std::shared_ptr<const runtime::Bundle> bundle = []() -> std::shared_ptr<const runtime::Bundle> {
    std::ifstream in(ATTRIB_STDLIB_BUNDLE, std::ios::binary);
    if (!in) {
      ADD_FAILURE() << "cannot read the stdlib bundle " << ATTRIB_STDLIB_BUNDLE << " (build the stdlib_bundle target)";
      return nullptr;
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string error;
    auto loaded = runtime::loadBundle(bytes, &error);
    EXPECT_TRUE(loaded) << ATTRIB_STDLIB_BUNDLE << ": " << error;
    return loaded;
  }();
  return bundle;
}

std::shared_ptr<const runtime::Engine> stdlibEngine() {
  static std::shared_ptr<const runtime::Engine> engine = []() -> std::shared_ptr<const runtime::Engine> {
    auto bundle = stdlibBundle();
    if (!bundle) return nullptr;
    std::string error;
    auto loaded = driver::engineFromBundle(bundle, {}, &error);
    EXPECT_TRUE(loaded) << ATTRIB_STDLIB_BUNDLE << ": " << error;
    return loaded;
  }();
  return engine;
}

runtime::Verdict diagnose(const runtime::Engine& engine, std::vector<evidence::LogLine> lines,
                          evidence::Workload workload, std::vector<evidence::MetricSample> metrics) {
  evidence::WorkloadEvidence evidence;
  evidence.workload = std::move(workload);
  evidence.lines = std::move(lines);
  evidence.metrics = std::move(metrics);
  return engine.diagnose(std::move(evidence));
}

uint64_t countOf(const runtime::Verdict& v, const std::string& symptom) {
  for (const auto& [name, n] : v.symptomCounts) {
    if (name == symptom) return n;
  }
  return 0;
}

std::shared_ptr<const runtime::Engine> unknownEngine() {
  return engineFor(R"(symptom never "Never" {
  on log
  match /this line is never printed by anything/
  family unknown
  severity error
  blame node
}
)");
}

evidence::LogFile logFile(const std::string& path, const std::string& node, const std::string& source,
                         const std::string& name, std::optional<int64_t> rank) {
  evidence::LogFile file;
  file.path = path;
  file.node = node;
  file.source = source;
  file.name = name;
  file.rank = rank;
  return file;
}

int64_t at(const std::string& rfc3339) {
  auto t = parseTimestamp(rfc3339);
  EXPECT_TRUE(t) << rfc3339;
  return t.value_or(0);
}

evidence::LogLine line(const std::string& node, const std::string& source, const std::string& time,
                      const std::string& text) {
  evidence::LogLine l;
  l.node = node;
  l.source = source;
  if (!time.empty()) l.time = at(time);
  l.text = text;
  l.where.connector = "test";
  static uint64_t counter = 0;
  l.where.line = ++counter;
  return l;
}

}  // namespace attrib::testing
