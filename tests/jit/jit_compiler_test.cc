// The JIT as the runtime uses it: every stdlib verdict is the same with and without it, the
// object cache turns a cold start into a warm one and survives damage, and predicates the JIT
// compiles behave like the interpreter's on hand-written cases from the language's edge.
#include "jit/jit_compiler.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/bundle_writer.h"
#include "compiler/compilation.h"
#include "compiler/diagnostic_render.h"
#include "driver/engine_build.h"
#include "jit/llvm_backend.h"
#include "runtime/bundle.h"
#include "runtime/engine.h"
#include "tests/runtime/engine_util.h"
#include "tests/runtime/workload_dirs.h"

namespace attrib::jit {
namespace {

namespace fs = std::filesystem;
using testing::evidenceOf;
using testing::workloadDirs;

// Each element is a layer (its paths) on the ones before it (the stdlib first).
std::shared_ptr<const runtime::Bundle> bundleOf(const std::vector<std::vector<std::string>>& layers) {
  DiagnosticSink sink;
  Compilation compilation(sink);
  std::string error;
  for (const auto& layer : layers) {
    compilation.beginLayer(layer.front());
    for (const auto& p : layer) EXPECT_TRUE(compilation.addPath(p, &error)) << error;
  }
  compilation.check();
  EXPECT_EQ(sink.errorCount(), 0u);
  BundleResult built = buildBundle(compilation, {"test", "1.0"}, "test");
  EXPECT_TRUE(built.ok) << built.error;
  auto bundle = runtime::loadBundle(built.bytes, &error);
  EXPECT_TRUE(bundle) << error;
  return bundle;
}

const std::shared_ptr<const runtime::Bundle>& stdlib() {
  static auto bundle = testing::stdlibBundle();
  return bundle;
}

std::string deterministic(runtime::Verdict v) {
  EXPECT_TRUE(v.stats.evaluatorNote.empty()) << v.stats.evaluatorNote;
  v.stats.evaluator.clear();
  runtime::RenderOptions render;
  render.timings = false;
  return runtime::toJson(v, render);
}

TEST(JitVerdicts, EveryExampleAndScenarioIsByteIdenticalWithAndWithoutTheJit) {
  JitReport report;
  std::string error;
  driver::EngineOptions jit;
  jit.requireJit = true;
  jit.jitReport = &report;
  auto jitted = driver::engineFromBundle(stdlib(), jit, &error);
  ASSERT_TRUE(jitted) << error;
  EXPECT_GT(report.predicates, 100u);
  auto interpreted = driver::engineFromBundle(stdlib(), {}, &error);
  ASSERT_TRUE(interpreted) << error;
  auto dirs = workloadDirs();
  ASSERT_GE(dirs.size(), 50u) << "the examples and the accuracy suite should all be here";
  for (const auto& dir : dirs) {
    runtime::Verdict a = jitted->diagnose(evidenceOf(dir));
    runtime::Verdict b = interpreted->diagnose(evidenceOf(dir));
    EXPECT_EQ(a.stats.evaluator, "jit");
    EXPECT_EQ(b.stats.evaluator, "interpreter");
    EXPECT_EQ(deterministic(a), deterministic(b)) << dir;
  }
}

// When the JIT cannot run, the engine interprets and every verdict says so, and why.
TEST(JitVerdicts, AFallbackToTheInterpreterIsReportedInTheVerdict) {
  std::string error;
  auto engine = runtime::Engine::create(stdlib(), &error, nullptr,
                                        {"jit", "the JIT is unavailable: LLVM cannot target this machine"});
  ASSERT_TRUE(engine) << error;
  EXPECT_EQ(engine->evaluator().name, "interpreter") << "no compiled predicates: nothing else can run";
  runtime::Verdict v = engine->diagnose(evidenceOf(fs::path(ATTRIB_SOURCE_DIR) / "examples" / "host-oom"));
  EXPECT_EQ(v.stats.evaluator, "interpreter");
  std::string json = runtime::toJson(v);
  EXPECT_NE(json.find("\"evaluator_note\": \"the JIT is unavailable: LLVM cannot target this machine\""),
            std::string::npos)
      << json;
}

class JitCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attrib-jit-cache-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    if (!fs::exists(dir_)) return out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path());
    return out;
  }
  JitOptions options() const {
    JitOptions o;
    o.cacheDir = dir_.string();
    return o;
  }
  // The verdict on one scenario, to show compiled code from any path behaves the same.
  std::string verdictWith(std::shared_ptr<const runtime::CompiledPredicates> compiled) {
    std::string error;
    auto engine = runtime::Engine::create(stdlib(), &error, std::move(compiled), {"jit", ""});
    return deterministic(engine->diagnose(evidenceOf(fs::path(ATTRIB_SOURCE_DIR) / "examples" / "xid79-nccl-cascade")));
  }
  fs::path dir_;
};

TEST_F(JitCache, ColdStartWritesOneEntryAndWarmStartLinksItWithoutCompiling) {
  JitReport cold, warm;
  std::string error;
  auto first = compilePredicates(stdlib()->program, options(), &cold, &error);
  ASSERT_TRUE(first) << error;
  EXPECT_FALSE(cold.cacheHit);
  EXPECT_GT(cold.threads, 0u);
  EXPECT_TRUE(cold.cacheNote.empty()) << cold.cacheNote;
  ASSERT_EQ(entries().size(), 1u);
  auto second = compilePredicates(stdlib()->program, options(), &warm, &error);
  ASSERT_TRUE(second) << error;
  EXPECT_TRUE(warm.cacheHit);
  EXPECT_EQ(warm.threads, 0u) << "a warm start compiles nothing";
  EXPECT_EQ(warm.optimiseMs, 0);
  EXPECT_EQ(warm.codegenMs, 0);
  EXPECT_EQ(entries().size(), 1u);
  EXPECT_EQ(verdictWith(first), verdictWith(second));
  EXPECT_FALSE(cold.linkedByLlvm) << cold.loaderNote;
  EXPECT_FALSE(warm.linkedByLlvm) << "the own loader refused LLVM's code: " << warm.loaderNote;
}

// ctest runs every test in its own process, so whether libLLVM was loaded is this test's alone.
TEST_F(JitCache, AWarmStartLoadsTheCachedCodeWithoutEverLoadingLlvm) {
  if (llvmBackendLoaded()) GTEST_SKIP() << "another test in this process loaded LLVM; run this one alone";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the cold start, in a process of its own
    std::string error;
    _exit(compilePredicates(stdlib()->program, options(), nullptr, &error) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_EQ(entries().size(), 1u);
  EXPECT_FALSE(llvmBackendLoaded());
  JitReport warm;
  std::string error;
  auto compiled = compilePredicates(stdlib()->program, options(), &warm, &error);
  ASSERT_TRUE(compiled) << error;
  EXPECT_TRUE(warm.cacheHit) << warm.cacheNote;
  EXPECT_FALSE(warm.linkedByLlvm) << warm.loaderNote;
  std::string verdict = verdictWith(compiled);
  EXPECT_FALSE(llvmBackendLoaded()) << "a cache hit mapped libLLVM";
  // The same verdict as code LLVM itself linked (which loads it).
  JitOptions llvmLinked = options();
  llvmLinked.llvmLinker = true;
  JitReport byLlvm;
  auto linked = compilePredicates(stdlib()->program, llvmLinked, &byLlvm, &error);
  ASSERT_TRUE(linked) << error;
  EXPECT_TRUE(byLlvm.linkedByLlvm);
  EXPECT_TRUE(llvmBackendLoaded());
  EXPECT_EQ(verdict, verdictWith(linked));
}

TEST_F(JitCache, AMissingLlvmModuleIsAnErrorOnAColdStartAndNothingOnAWarmOne) {
  if (llvmBackendLoaded()) GTEST_SKIP() << "another test in this process loaded LLVM; run this one alone";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string error;
    _exit(compilePredicates(stdlib()->program, options(), nullptr, &error) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ::setenv("ATTRIB_JIT_LLVM_MODULE", (dir_ / "no-such-module.so").c_str(), 1);
  JitReport warm;
  std::string error;
  EXPECT_TRUE(compilePredicates(stdlib()->program, options(), &warm, &error)) << error;
  auto site = bundleOf({testing::stdlibPaths(), {std::string(ATTRIB_SOURCE_DIR) + "/examples/site-rules"}});
  EXPECT_FALSE(compilePredicates(site->program, options(), nullptr, &error));
  EXPECT_NE(error.find("cannot load the JIT's LLVM module"), std::string::npos) << error;
  EXPECT_NE(error.find("no-such-module.so"), std::string::npos) << error;
  ::unsetenv("ATTRIB_JIT_LLVM_MODULE");
}

TEST_F(JitCache, ADifferentProgramGetsItsOwnEntry) {
  std::string error;
  ASSERT_TRUE(compilePredicates(stdlib()->program, options(), nullptr, &error)) << error;
  auto site = bundleOf({testing::stdlibPaths(), {std::string(ATTRIB_SOURCE_DIR) + "/examples/site-rules"}});
  JitReport report;
  ASSERT_TRUE(compilePredicates(site->program, options(), &report, &error)) << error;
  EXPECT_FALSE(report.cacheHit) << "the site rules change the program, so the key";
  EXPECT_EQ(entries().size(), 2u);
}

TEST_F(JitCache, CorruptedEntryIsReportedIgnoredAndReplaced) {
  std::string error;
  ASSERT_TRUE(compilePredicates(stdlib()->program, options(), nullptr, &error)) << error;
  ASSERT_EQ(entries().size(), 1u);
  fs::path entry = entries()[0];
  std::string bytes;
  {
    std::ifstream in(entry, std::ios::binary);
    std::stringstream all;
    all << in.rdbuf();
    bytes = all.str();
  }
  for (const auto& damaged : {bytes.substr(0, bytes.size() / 2),                       // truncated
                              bytes.substr(0, 100) + std::string(1, bytes[100] ^ 0x5a) + bytes.substr(101),  // a flipped byte
                              std::string("not a cache entry at all")}) {
    { std::ofstream(entry, std::ios::binary | std::ios::trunc) << damaged; }
    JitReport report;
    auto compiled = compilePredicates(stdlib()->program, options(), &report, &error);
    ASSERT_TRUE(compiled) << error;
    EXPECT_FALSE(report.cacheHit);
    EXPECT_NE(report.cacheNote.find("ignored the JIT cache entry"), std::string::npos) << report.cacheNote;
    EXPECT_EQ(verdictWith(compiled), verdictWith(compilePredicates(stdlib()->program, {}, nullptr, &error)));
    // Replaced by a good entry: the next start is warm again.
    JitReport again;
    ASSERT_TRUE(compilePredicates(stdlib()->program, options(), &again, &error));
    EXPECT_TRUE(again.cacheHit) << again.cacheNote;
  }
}

TEST_F(JitCache, UnwritableCacheDirectoryIsANoteNotAFailure) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes through permissions";
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  JitReport report;
  std::string error;
  auto compiled = compilePredicates(stdlib()->program, options(), &report, &error);
  ASSERT_TRUE(compiled) << error;
  EXPECT_NE(report.cacheNote.find("cannot write the JIT cache entry"), std::string::npos) << report.cacheNote;
}

TEST_F(JitCache, CacheDirectoryThatIsAFileIsANoteNotAFailure) {
  { std::ofstream(dir_) << "a file where the cache directory should be"; }
  JitReport report;
  std::string error;
  auto compiled = compilePredicates(stdlib()->program, options(), &report, &error);
  ASSERT_TRUE(compiled) << error;
  EXPECT_FALSE(report.cacheNote.empty());
  fs::remove(dir_);
}

TEST(JitExplain, PrintsTheOptimisedAndTheGeneratedLlvmIrOfOnePredicate) {
  const auto& program = stdlib()->program;
  ASSERT_FALSE(program.rules.empty());
  int32_t rule = -1;
  for (size_t r = 0; r < program.rules.size(); ++r) {
    if (program.rules[r].hasWhere) {
      rule = static_cast<int32_t>(r);
      break;
    }
  }
  ASSERT_GE(rule, 0);
  PredicateRef ref{PredicateRef::Kind::RuleWhere, rule, 0};
  std::string optimised, generated, error;
  ASSERT_TRUE(predicateLlvmIr(program, ref, true, &optimised, &error)) << error;
  ASSERT_TRUE(predicateLlvmIr(program, ref, false, &generated, &error)) << error;
  EXPECT_NE(optimised.find("define i32 @attrib_dispatch"), std::string::npos) << optimised;
  EXPECT_NE(generated.find(predicateSymbol(ref)), std::string::npos) << generated;
  EXPECT_LT(optimised.size(), generated.size()) << "O2 shrinks the generated code";
}

// Hand-written predicates at the language's edges, through a whole engine: the JIT'd verdict
// must match the interpreter's, and the rule must actually fire (or not) as written.
TEST(JitEdgeCases, OverflowNanMissingCapturesAndEmptyWindowsBehaveLikeTheInterpreter) {
  const std::string rules = R"(
package edge

symptom big "A big number" {
  on log
  match /big (?P<n>-?\d+) (?P<f>\S+)( (?P<opt>\w+))?/
  family unknown
  severity error
  blame node
}

symptom temp "Temperature" {
  on metric TEMP
  when avg(value) over 1m > 50 and rate(value) over 1s > 0 or max(value) over 5m != max(value) over 5m
  family unknown
  severity warning
  blame gpu
}

rule overflow_is_null "Overflowing arithmetic is null" {
  when big as a, big as b
  where int(a.n) * int(b.n) > 0 or int(a.n) + 9223372036854775807 < 0
  then mark b as interesting
}

rule nan_compares_false "NaN compares false" {
  when big as a, big as b
  where float(a.f) == float(a.f) and float(b.f) != 1.5
  then mark a as bad
}

rule missing_capture "A missing capture is null" {
  when big as a, big as b
  where not (a.opt == b.opt) and len(b.f) >= 0
  then explain b by a
}

outcome edge "Edge" {
  when count(big as x where int(x.n) / 0 == 0) == 0 and exists(big as y where lower(y.f) == "nan")
  family unknown
  action investigate
  confidence 0.5
}
)";
  auto engine = testing::engineFor(rules);
  ASSERT_TRUE(engine);
  std::string error;
  auto bundle = std::shared_ptr<const runtime::Bundle>(std::shared_ptr<const runtime::Engine>(engine), &engine->bundle());
  driver::EngineOptions jit;
  jit.requireJit = true;
  auto jitted = driver::engineFromBundle(bundle, jit, &error);
  ASSERT_TRUE(jitted) << error;
  evidence::WorkloadEvidence ev;
  ev.workload.nodes = {"n1", "n2"};
  ev.lines = {testing::line("n1", "applog", "2026-01-01T00:00:00Z", "big 9223372036854775807 NaN"),
              testing::line("n1", "applog", "2026-01-01T00:00:01Z", "big -9223372036854775808 inf extra"),
              testing::line("n2", "applog", "2026-01-01T00:00:02Z", "big 3 1.5 tail"),
              testing::line("n2", "applog", "2026-01-01T00:00:03Z", "big 0 nan")};
  for (int i = 0; i < 5; ++i) {
    evidence::MetricSample s;
    s.name = "TEMP";
    s.node = "n1";
    s.gpu = "0";
    s.time = testing::at("2026-01-01T00:00:00Z") + i * 20'000'000'000LL;
    s.value = i == 2 ? std::numeric_limits<double>::quiet_NaN() : 40.0 + 10 * i;
    ev.metrics.push_back(s);
  }
  runtime::Verdict a = jitted->diagnose(ev);
  runtime::Verdict b = engine->diagnose(ev);
  EXPECT_EQ(a.stats.evaluator, "jit");
  EXPECT_EQ(deterministic(a), deterministic(b));
  EXPECT_NE(deterministic(a).find("edge.edge"), std::string::npos) << deterministic(a);
}

}  // namespace
}  // namespace attrib::jit
