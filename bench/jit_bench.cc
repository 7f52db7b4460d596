// The JIT benchmark (bench/jit runs it; docs/performance.md reports it). In one run:
//   1. cold compile of every predicate of the stdlib bundle (no cache): generate, optimise, codegen, link
//   2. warm start: the same with the object cache filled (load only: attrib's own loader, no LLVM)
//   3. a predicate-heavy workload (bench/predicates.attr over generated evidence) attributed with
//      the interpreter and with the JIT: refine time of each and their ratio, and whether the
//      two verdicts are byte-identical
// Usage: jit_bench STDLIB_BUNDLE PREDICATES_BUNDLE [--reps N] [--scale F]
#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <sstream>
#include <string>
#include <vector>

#include "jit/jit_compiler.h"
#include "runtime/bundle.h"
#include "runtime/engine.h"
#include "runtime/interpreter.h"
#include "runtime/log_scanner.h"
#include "runtime/regex_table.h"
#include "runtime/verdict.h"

namespace {

using namespace attrib;
using Clock = std::chrono::steady_clock;

// CPU time of the whole process (all threads), in ms.
double cpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::shared_ptr<const runtime::Bundle> load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream all;
  all << in.rdbuf();
  std::string error;
  auto bundle = runtime::loadBundle(all.str(), &error);
  if (!bundle) {
    fmt::print(stderr, "jit_bench: {}: {}\n", path, error);
    std::exit(1);
  }
  return bundle;
}

// Evidence for bench/predicates.attr: link errors, collective timeouts and progress lines on
// `nodes` nodes, and a temperature and an ECC series per GPU.
evidence::WorkloadEvidence workloadEvidence(double scale) {
  std::mt19937_64 rng(7);
  const int nodes = 32, gpus = 8;
  const int64_t start = 1'700'000'000'000'000'000LL, second = 1'000'000'000LL;
  const int duration = static_cast<int>(3600 * scale);
  evidence::WorkloadEvidence ev;
  ev.workload.id = "bench";
  ev.workload.scheduler = "static";
  ev.workload.state = ir::State::Failed;
  ev.workload.start = start;
  ev.workload.end = start + duration * second;
  for (int n = 0; n < nodes; ++n) ev.workload.nodes.push_back(fmt::format("gpu-{:04}", n));
  auto line = [&](int node, int64_t t, int rank, std::string text) {
    evidence::LogLine l;
    l.node = ev.workload.nodes[node];
    l.source = "applog";
    l.time = t;
    l.rank = rank;
    l.text = std::move(text);
    ev.lines.push_back(std::move(l));
  };
  const int links = static_cast<int>(150 * scale), timeouts = static_cast<int>(1500 * scale),
            steps = static_cast<int>(6000 * scale);
  for (int i = 0; i < links; ++i) {
    int node = static_cast<int>(rng() % nodes);
    line(node, start + static_cast<int64_t>(rng() % duration) * second, node * gpus,
         fmt::format("mlx5 link error port {} count={}", rng() % 2 + 1, rng() % 20));
  }
  for (int i = 0; i < timeouts; ++i) {
    int rank = static_cast<int>(rng() % (nodes * gpus));
    line(rank / gpus, start + static_cast<int64_t>(rng() % duration) * second, rank,
         fmt::format("Watchdog caught collective operation timeout: seq={} op={} ms={}", rng() % 40,
                     rng() % 3 ? "allreduce" : "barrier", 600000 + rng() % 2 * 1000));
  }
  for (int i = 0; i < steps; ++i) {
    int rank = static_cast<int>(rng() % (nodes * gpus));
    line(rank / gpus, start + static_cast<int64_t>(rng() % duration) * second, rank,
         fmt::format("step {} loss={}.{} time={}ms", i, rng() % 10, rng() % 100, 80 + rng() % 300));
  }
  // One sample every 2 s per GPU on 4 nodes.
  for (int n = 0; n < 4; ++n) {
    for (int g = 0; g < gpus; ++g) {
      double temp = 75, ecc = 0;
      for (int t = 0; t < duration; t += 2) {
        temp = std::clamp(temp + static_cast<double>(rng() % 5) - 2.0, 60.0, 99.0);
        if (rng() % 200 == 0) ecc += 1;
        for (auto [name, value] : {std::pair{"DCGM_FI_DEV_GPU_TEMP", temp}, std::pair{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", ecc}}) {
          evidence::MetricSample s;
          s.name = name;
          s.node = ev.workload.nodes[n];
          s.gpu = std::to_string(g);
          s.labels = {{"gpu", s.gpu}, {"Hostname", s.node}};
          s.time = start + t * second;
          s.value = value;
          ev.metrics.push_back(std::move(s));
        }
      }
    }
  }
  return ev;
}

// The predicate work of attribution without its bookkeeping: every rule's where-clause over
// every pair of its candidates, and every metric symptom's when-clause at every sample of every
// series, through one evaluator. Returns (evaluations, how many held).
struct Throughput {
  uint64_t evaluations = 0, held = 0;
  double ms = 0, rulesMs = 0;
};

struct PredicateWorkload {
  std::vector<runtime::Instance> instances;
  runtime::InstanceIndex index;
  std::vector<std::vector<runtime::Instance>> series;  // one per (metric symptom, node, gpu)
};

PredicateWorkload predicateWorkload(const runtime::Bundle& bundle, const runtime::RegexTable& regexes,
                                    const evidence::WorkloadEvidence& ev) {
  PredicateWorkload w;
  runtime::LogScanner scanner(bundle, regexes);
  w.instances = scanner.scanLines(ev.lines, ev.workload, {}).instances;
  std::stable_sort(w.instances.begin(), w.instances.end(), runtime::earlier);
  w.index.rebuild(w.instances, bundle.program.symptoms.size());
  std::map<std::tuple<int32_t, std::string, std::string>, std::vector<runtime::Instance>> series;
  for (size_t s = 0; s < bundle.program.symptoms.size(); ++s) {
    const auto& symptom = bundle.program.symptoms[s];
    if (symptom.stream != ir::StreamKind::Metric) continue;
    for (const auto& m : ev.metrics) {
      if (m.name != symptom.metric) continue;
      runtime::Instance c;
      c.symptom = static_cast<int32_t>(s);
      c.time = m.time;
      c.node = m.node;
      c.gpu = m.gpu;
      c.source = "metric";
      runtime::MetricOrSchedulerFields fields;
      fields.metric = m.name;
      fields.value = m.value;
      c.extraFields = std::make_shared<const runtime::MetricOrSchedulerFields>(std::move(fields));
      series[{static_cast<int32_t>(s), m.node, m.gpu}].push_back(std::move(c));
    }
  }
  for (auto& [key, samples] : series) w.series.push_back(std::move(samples));
  return w;
}

Throughput evaluate(const runtime::Bundle& bundle, const runtime::RegexTable& regexes, const evidence::Workload& workload,
                    const PredicateWorkload& w, const runtime::CompiledPredicates* compiled) {
  const ir::Program& program = bundle.program;
  runtime::Interpreter interpreter;
  runtime::PredicateScratch scratch;
  Throughput t;
  auto started = Clock::now();
  auto holds = [&](runtime::CompiledPredicate fn, const ir::Expr& e, runtime::EvalContext& ctx) {
    ++t.evaluations;
    bool h;
    if (compiled) {
      scratch.reset();
      h = fn(&ctx, &scratch);
    } else {
      h = interpreter.test(e, ctx);
    }
    t.held += h;
  };
  runtime::EvalContext base;
  base.program = &program;
  base.regexes = &regexes;
  base.workload = &workload;
  base.index = &w.index;
  for (size_t r = 0; r < program.rules.size(); ++r) {
    const auto& rule = program.rules[r];
    if (!rule.hasWhere || rule.bindings.size() != 2) continue;
    std::vector<const runtime::Instance*> a, b;
    for (int32_t s : program.symptomSets[rule.bindings[0]]) for (int32_t i : w.index.bySymptom[s]) a.push_back(&w.instances[i]);
    for (int32_t s : program.symptomSets[rule.bindings[1]]) for (int32_t i : w.index.bySymptom[s]) b.push_back(&w.instances[i]);
    runtime::EvalContext ctx = base;
    ctx.bindings = 2;
    for (const auto* x : a) {
      for (const auto* y : b) {
        if (x == y) continue;
        ctx.slots[0] = x;
        ctx.slots[1] = y;
        holds(compiled ? compiled->ruleWhere[r] : runtime::CompiledPredicate{}, rule.where, ctx);
      }
    }
  }
  t.rulesMs = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  for (const auto& samples : w.series) {
    int32_t s = samples.front().symptom;
    std::vector<const runtime::Instance*> view;
    for (const auto& c : samples) view.push_back(&c);
    runtime::EvalContext ctx = base;
    ctx.index = nullptr;
    ctx.series = &view;
    for (size_t i = 0; i < view.size(); ++i) {
      ctx.seriesPos = i;
      ctx.slots[0] = view[i];
      holds(compiled ? compiled->symptomWhen[s] : runtime::CompiledPredicate{}, program.symptoms[s].when, ctx);
    }
  }
  t.ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return t;
}

std::string deterministic(runtime::Verdict v) {
  v.stats.evaluator.clear();
  runtime::RenderOptions render;
  render.timings = false;
  return runtime::toJson(v, render);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: jit_bench STDLIB_BUNDLE PREDICATES_BUNDLE [--reps N] [--scale F]\n");
    return 2;
  }
  int reps = 5;
  double scale = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--reps") reps = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--scale") scale = std::atof(argv[i + 1]);
  }
  auto stdlib = load(argv[1]);
  std::string error;

  // 1. Cold compile.
  std::vector<double> total, generate, optimise, codegen, link, cpu;
  jit::JitReport report;
  for (int r = 0; r < reps; ++r) {
    double cpuStarted = cpuMs();
    auto compiledStdlib = jit::compilePredicates(stdlib->program, {}, &report, &error);
    cpu.push_back(cpuMs() - cpuStarted);
    if (!compiledStdlib) {
      fmt::print(stderr, "jit_bench: the JIT failed: {}\n", error);
      return 1;
    }
    total.push_back(report.totalMs);
    generate.push_back(report.generateMs);
    optimise.push_back(report.optimiseMs);
    codegen.push_back(report.codegenMs);
    link.push_back(report.linkMs);
  }
  size_t predicates = report.predicates, objectBytes = report.objectBytes, threads = report.threads;

  // 2. Warm start.
  std::string cacheDir = fmt::format("{}/attrib-jit-bench-{}", std::filesystem::temp_directory_path().string(), getpid());
  jit::JitOptions cached;
  cached.cacheDir = cacheDir;
  jit::compilePredicates(stdlib->program, cached, &report, &error);
  std::vector<double> warm;
  bool allHits = true;
  for (int r = 0; r < reps * 2; ++r) {
    jit::compilePredicates(stdlib->program, cached, &report, &error);
    allHits = allHits && report.cacheHit;
    warm.push_back(report.totalMs);
  }
  std::filesystem::remove_all(cacheDir);

  // 3. Predicate-heavy attribution.
  auto heavy = load(argv[2]);
  auto compiled = jit::compilePredicates(heavy->program, {}, &report, &error);
  if (!compiled) {
    fmt::print(stderr, "jit_bench: the JIT failed: {}\n", error);
    return 1;
  }
  auto interp = runtime::Engine::create(heavy, &error);
  auto jitted = runtime::Engine::create(heavy, &error, compiled, {"jit", ""});
  evidence::WorkloadEvidence input = workloadEvidence(scale);
  size_t lines = input.lines.size(), samples = input.metrics.size();
  std::vector<double> interpMs, jitMs;
  std::string interpVerdict, jitVerdict;
  for (int r = 0; r < std::max(1, reps / 2); ++r) {
    for (auto* engine : {interp.get(), jitted.get()}) {
      auto started = Clock::now();
      runtime::Verdict v = engine->diagnose(input);
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
      (engine == interp.get() ? interpMs : jitMs).push_back(ms);
      (engine == interp.get() ? interpVerdict : jitVerdict) = deterministic(std::move(v));
    }
  }
  double ratio = median(interpMs) / median(jitMs);

  runtime::RegexTable regexes;
  if (!regexes.build(heavy->program, &error)) {
    fmt::print(stderr, "jit_bench: {}\n", error);
    return 1;
  }
  PredicateWorkload work = predicateWorkload(*heavy, regexes, input);
  std::vector<double> interpEval, jitEval;
  Throughput ti, tj;
  for (int r = 0; r < std::max(1, reps / 2); ++r) {
    ti = evaluate(*heavy, regexes, input.workload, work, nullptr);
    tj = evaluate(*heavy, regexes, input.workload, work, compiled.get());
    interpEval.push_back(ti.ms);
    jitEval.push_back(tj.ms);
  }
  double evalRatio = median(interpEval) / median(jitEval);
  auto rate = [](const Throughput& t, double ms) { return static_cast<double>(t.evaluations) / (ms / 1000) / 1e6; };
  auto verdictOf = [](bool pass) { return pass ? "PASS" : "MISS"; };
  fmt::print("attrib JIT benchmark (medians of {} runs; LLVM O2, cached objects loaded by attrib, not LLVM)\n\n", reps);
  fmt::print("stdlib: {} predicates, {} KB of object code\n", predicates, objectBytes / 1024);
  fmt::print("  {:<34} {:>9.1f} ms   (generate {:.1f}, optimise {:.1f}, codegen {:.1f}, link {:.1f}; {} threads, {:.0f} ms CPU)   target < 150 ms   {}\n",
             "cold compile, no cache", median(total), median(generate), median(optimise), median(codegen),
             median(link), threads, median(cpu), verdictOf(median(total) < 150));
  fmt::print("  {:<34} {:>9.1f} ms   ({})   target < 10 ms   {}\n", "warm start, cache hit", median(warm),
             allHits ? "every run hit the cache" : "SOME RUNS MISSED THE CACHE", verdictOf(allHits && median(warm) < 10));
  bool agree = ti.evaluations == tj.evaluations && ti.held == tj.held;
  fmt::print("\npredicate-heavy workload (bench/predicates.attr): {} log lines, {} metric samples\n", lines, samples);
  fmt::print("  predicate evaluation ({} where/when evaluations, {} held):\n", ti.evaluations, ti.held);
  fmt::print("  {:<34} {:>9.1f} ms   {:6.2f} M/s   1.00x\n", "interpreter", median(interpEval), rate(ti, median(interpEval)));
  fmt::print("  {:<34} {:>9.1f} ms   {:6.2f} M/s   {:.2f}x   target >= 5x   {}\n", "jit", median(jitEval),
             rate(tj, median(jitEval)), evalRatio, verdictOf(evalRatio >= 5));
  fmt::print("  (rule where-clauses: interpreter {:.1f} ms, jit {:.1f} ms; metric windows: interpreter {:.1f} ms, jit {:.1f} ms)\n",
             ti.rulesMs, tj.rulesMs, ti.ms - ti.rulesMs, tj.ms - tj.rulesMs);
  fmt::print("  both evaluators held on the same evaluations: {}\n", agree ? "yes" : "NO");
  fmt::print("  end to end (attrib diagnose: scan, extract, filter, rules, outcomes, verdict):\n");
  fmt::print("  {:<34} {:>9.1f} ms   1.00x\n", "interpreter", median(interpMs));
  fmt::print("  {:<34} {:>9.1f} ms   {:.2f}x\n", "jit", median(jitMs), ratio);
  fmt::print("  verdicts byte-identical: {}\n", interpVerdict == jitVerdict ? "yes" : "NO");
  return interpVerdict == jitVerdict && agree ? 0 : 1;
}
