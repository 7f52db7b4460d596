// driver/engine_build.h: every way rules become an engine, and what a bad bundle or a missing
// JIT gives.
#include "driver/engine_build.h"

#include <gtest/gtest.h>

#include "compiler/diagnostic.h"
#include "tests/runtime/engine_util.h"

namespace attrib {
namespace {

const char* kRules = R"(
package t
symptom fault { on log match /disk failed on (?<dev>sd[a-z]+)/ family storage severity error blame node when dev != "sdz" }
outcome disk { when root is fault family storage action drain_node confidence 0.9 }
)";

runtime::Verdict diagnoseDisk(const runtime::Engine& engine) {
  return testing::diagnose(engine, {testing::line("n1", "syslog", "2026-01-01T00:00:00Z", "disk failed on sdb"),
                                    testing::line("n2", "syslog", "2026-01-01T00:00:01Z", "disk failed on sdz")});
}

TEST(EngineBuild, FromACompilationInterpretsUnlessTheJitIsAsked) {
  DiagnosticSink sink;
  Compilation c(sink);
  c.addSource("t.attr", kRules);
  c.check();
  ASSERT_EQ(sink.errorCount(), 0u);
  std::string error, bytes;
  auto interpreted = driver::engineFromCompilation(c, {"t", "1"}, "test", {}, &error, &bytes);
  ASSERT_TRUE(interpreted) << error;
  EXPECT_EQ(interpreted->evaluator().name, "interpreter");
  EXPECT_EQ(interpreted->bundle().program.name, "t");
  EXPECT_FALSE(bytes.empty());

  // The bytes handed back are the bundle: loading them gives the same engine, here with the JIT.
  driver::EngineOptions jit;
  jit.requireJit = true;
  jit::JitReport report;
  jit.jitReport = &report;
  auto jitted = driver::engineFromBytes(bytes, jit, &error);
  ASSERT_TRUE(jitted) << error;
  EXPECT_EQ(jitted->evaluator().name, "jit");
  EXPECT_GT(report.predicates, 0u);

  for (const runtime::Engine* e : {interpreted.get(), jitted.get()}) {
    runtime::Verdict v = diagnoseDisk(*e);
    SCOPED_TRACE(v.stats.evaluator);
    ASSERT_TRUE(v.root);
    EXPECT_EQ(v.root->node, "n1");  // the when-clause left n2's sdz out
    EXPECT_EQ(testing::countOf(v, "t.fault"), 1u);
    ASSERT_EQ(v.outcomes.size(), 1u);
    EXPECT_EQ(v.outcomes[0].name, "t.disk");
  }
}

TEST(EngineBuild, ABadBundleIsOneLineAndNoEngine) {
  std::string bytes;
  ASSERT_TRUE(testing::engineFor(kRules, &bytes));
  for (std::string bad : {std::string(), std::string("not a bundle"), bytes.substr(0, bytes.size() / 2)}) {
    std::string error;
    EXPECT_FALSE(driver::engineFromBytes(bad, {}, &error));
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x40;
  std::string error;
  EXPECT_FALSE(driver::engineFromBytes(flipped, {}, &error));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
}

}  // namespace
}  // namespace attrib
