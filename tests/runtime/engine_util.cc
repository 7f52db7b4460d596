#include "tests/runtime/engine_util.h"

#include <gtest/gtest.h>

#include "compiler/bundle_writer.h"
#include "compiler/compilation.h"
#include "compiler/diagnostic_render.h"
#include "compiler/literals.h"
#include "runtime/bundle.h"

namespace attrib::testing {

std::shared_ptr<const runtime::Engine> engineFor(const std::string& rules, std::string* bundleBytes) {
  DiagnosticSink sink;
  Compilation c(sink);
  c.addSource("t.attr", rules);
  c.check();
  for (const auto& d : sink.diagnostics()) {
    if (d.severity == Severity::Error) ADD_FAILURE() << renderText(d, c.sources());
  }
  if (sink.errorCount()) return nullptr;
  BundleResult built = buildBundle(c, {"test", "1.0"}, "test");
  EXPECT_TRUE(built.ok) << built.error;
  if (bundleBytes) *bundleBytes = built.bytes;
  std::string error;
  auto bundle = runtime::loadBundle(built.bytes, &error);
  EXPECT_TRUE(bundle) << error;
  if (!bundle) return nullptr;
  auto engine = runtime::Engine::create(bundle, &error);
  EXPECT_TRUE(engine) << error;
  return engine;
}

int64_t at(const std::string& rfc3339) {
  auto t = parseTimestamp(rfc3339);
  EXPECT_TRUE(t) << rfc3339;
  return t.value_or(0);
}

runtime::LogLine line(const std::string& node, const std::string& source, const std::string& time,
                      const std::string& text) {
  runtime::LogLine l;
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
