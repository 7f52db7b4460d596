#include "jit/jit_compiler.h"

#include <fmt/format.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <mutex>
#include <thread>

#include "ir/codec.h"
#include "ir/sha256.h"
#include "jit/data_layout.h"
#include "jit/helpers.h"
#include "jit/object_cache.h"

namespace attrib::jit {
namespace {

// Bump when generated code changes meaning, so stale cache entries are never linked.
constexpr const char* kCodegenVersion = "attrib-jit-7";

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string describe(llvm::Error err) {
  std::string out;
  llvm::handleAllErrors(std::move(err), [&](const llvm::ErrorInfoBase& e) { out += e.message(); });
  return out;
}

void initialiseLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

struct HostTarget {
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple()};
  std::string triple, cpu, features;
};

bool detectHost(HostTarget* out, std::string* error) {
  initialiseLlvm();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    *error = "LLVM cannot target this machine: " + describe(builder.takeError());
    return false;
  }
  builder->setCodeGenOptLevel(llvm::CodeGenOpt::Default);  // O2
  out->triple = builder->getTargetTriple().str();
  out->cpu = builder->getCPU();
  out->features = builder->getFeatures().getString();
  out->builder = std::move(*builder);
  return true;
}

void optimise(llvm::Module& module, llvm::TargetMachine* machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // O2 without the vectorisers and the loop unroller: predicates are branchy loops full of
  // calls, where those passes cost compile time and buy nothing.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = false;
  tuning.SLPVectorization = false;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = false;
  tuning.MergeFunctions = false;
  tuning.CallGraphProfile = false;  // no profiles to lay code out by
  // The new pass manager honours `optnone` (the cold predicates: codegen.h) only through this
  // instrumentation.
  llvm::PassInstrumentationCallbacks instrumentation;
  llvm::OptNoneInstrumentation optNone(false);
  optNone.registerCallbacks(instrumentation);
  llvm::PassBuilder passes(machine, tuning, llvm::None, &instrumentation);
  passes.registerModuleAnalyses(mam);
  passes.registerCGSCCAnalyses(cgam);
  passes.registerFunctionAnalyses(fam);
  passes.registerLoopAnalyses(lam);
  passes.crossRegisterProxies(lam, fam, cgam, mam);
  passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(module, mam);
  markPredicatesInlinable(module);
  llvm::ModulePassManager inliner;
  inliner.addPass(llvm::AlwaysInlinerPass());
  inliner.run(module, mam);
}

std::string hex(std::string_view raw) {
  std::string out;
  for (unsigned char c : raw) out += fmt::format("{:02x}", c);
  return out;
}

// Generates and optimises the module for `program` (all predicates, or only `only`).
struct PhaseTimes {
  double generateMs = 0, optimiseMs = 0, codegenMs = 0;
};

std::unique_ptr<llvm::Module> buildModule(const ir::Program& program, const DataLayout& layout,
                                          llvm::LLVMContext& context, llvm::TargetMachine& machine,
                                          const std::string& dispatchName,
                                          const std::function<bool(const PredicateRef&)>& include, bool optimised,
                                          PhaseTimes* times, std::string* error) {
  auto started = Clock::now();
  auto module = generateModule(program, layout, context, machine.createDataLayout(), dispatchName, include);
  module->setTargetTriple(machine.getTargetTriple().str());
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os)) {
    *error = "internal error: the generated predicate code does not verify: " + os.str();
    return nullptr;
  }
  if (times) times->generateMs = msSince(started);
  if (optimised) {
    started = Clock::now();
    optimise(*module, &machine);
    if (times) times->optimiseMs = msSince(started);
  }
  return module;
}

// One object file holding the predicates for which `include` holds. Runs on any thread: it
// owns its LLVM context and target machine.
bool compileObject(const ir::Program& program, const DataLayout& layout, llvm::orc::JITTargetMachineBuilder builder,
                   const std::string& dispatchName, const std::function<bool(const PredicateRef&)>& include,
                   std::string* object, PhaseTimes* times, std::string* error) {
  auto machine = builder.createTargetMachine();
  if (!machine) {
    *error = "LLVM cannot create a target machine: " + describe(machine.takeError());
    return false;
  }
  llvm::LLVMContext context;
  auto module = buildModule(program, layout, context, **machine, dispatchName, include, true, times, error);
  if (!module) return false;
  auto started = Clock::now();
  // The IR is already optimised at O2; fast instruction selection halves the back end's time
  // and costs little on code that is mostly loads, compares and calls.
  (*machine)->setFastISel(true);
  llvm::orc::SimpleCompiler compiler(**machine);
  auto compiled = compiler(*module);
  if (!compiled) {
    *error = "LLVM cannot compile the predicates: " + describe(compiled.takeError());
    return false;
  }
  *object = (*compiled)->getBuffer().str();
  times->codegenMs = msSince(started);
  return true;
}

std::string dispatchSymbol(size_t part) { return fmt::format("attrib_dispatch_{}", part); }

// Several object files in one cache entry: a count, then each object's size and bytes.
std::string packObjects(const std::vector<std::string>& objects) {
  ir::Writer w;
  w.varint(objects.size());
  for (const auto& o : objects) w.bytes(o);
  return std::move(w.str());
}

bool unpackObjects(std::string_view packed, std::vector<std::string>* objects) {
  ir::Reader r(packed);
  uint64_t count = 0;
  if (!r.varint(&count) || count > 64) return false;
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view o;
    if (!r.bytes(&o)) return false;
    objects->emplace_back(o);
  }
  return r.remaining() == 0;
}

// Splits the predicates into `parts` groups of about equal cost (largest first, each into the
// lightest group), so parallel compilation finishes together.
std::vector<int> partition(const ir::Program& program, size_t parts) {
  std::vector<std::pair<size_t, int>> costs;  // (cost, ordinal)
  int ordinal = 0;
  forEachPredicate(program, [&](const PredicateRef&, const ir::Expr& e, int32_t) {
    costs.push_back({predicateCost(e), ordinal++});
  });
  std::sort(costs.begin(), costs.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<size_t> load(parts, 0);
  std::vector<int> group(costs.size(), 0);
  for (const auto& [cost, i] : costs) {
    size_t lightest = std::min_element(load.begin(), load.end()) - load.begin();
    group[i] = static_cast<int>(lightest);
    load[lightest] += cost;
  }
  return group;
}

}  // namespace

std::string defaultCacheDir() {
  if (const char* dir = std::getenv("ATTRIB_JIT_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/attrib/jit";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/attrib/jit";
  return {};
}

std::shared_ptr<const runtime::CompiledPredicates> compilePredicates(const ir::Program& program,
                                                                     const JitOptions& options, JitReport* report,
                                                                     std::string* error) {
  auto started = Clock::now();
  JitReport local;
  if (!report) report = &local;
  *report = {};
  DataLayout layout;
  if (!probeDataLayout(&layout, error)) return nullptr;
  HostTarget host;
  if (!detectHost(&host, error)) return nullptr;

  std::vector<std::string> names;
  forEachPredicate(program, [&](const PredicateRef& ref, const ir::Expr&, int32_t) { names.push_back(predicateSymbol(ref)); });
  report->predicates = names.size();

  std::string key = hex(sha256(fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}", kCodegenVersion, LLVM_VERSION_STRING,
                                               host.triple, host.cpu, host.features, layout.fingerprint(),
                                               ir::encode(program))));
  std::optional<ObjectCache> cache;
  if (!options.cacheDir.empty()) cache.emplace(options.cacheDir);
  std::optional<std::string> object;
  if (cache) object = cache->load(key, &report->cacheNote);

  std::vector<std::string> objects;
  if (object && !unpackObjects(*object, &objects)) {
    report->cacheNote = "ignored a JIT cache entry that does not hold object files";
    object.reset();
    objects.clear();
  }
  report->cacheHit = object.has_value();
  if (!object) {
    // Compile in parallel: one group of predicates per core (up to 4), each its own module.
    size_t parts = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
    parts = std::min(parts, std::max<size_t>(1, names.size() / 16));
    std::vector<int> group = partition(program, parts);
    objects.assign(parts, {});
    std::vector<PhaseTimes> times(parts);
    std::vector<std::string> errors(parts);
    std::vector<char> ok(parts, 0);
    std::map<std::string, int> ordinalOf;  // symbol -> position in forEachPredicate's order
    for (size_t i = 0; i < names.size(); ++i) ordinalOf[names[i]] = static_cast<int>(i);
    auto work = [&](size_t part) {
      auto include = [&](const PredicateRef& ref) {
        return group[ordinalOf.at(predicateSymbol(ref))] == static_cast<int>(part);
      };
      ok[part] = compileObject(program, layout, host.builder, dispatchSymbol(part), include, &objects[part], &times[part],
                               &errors[part]);
    };
    std::vector<std::thread> threads;
    for (size_t part = 1; part < parts; ++part) threads.emplace_back(work, part);
    work(0);
    for (auto& t : threads) t.join();
    for (size_t part = 0; part < parts; ++part) {
      if (!ok[part]) {
        *error = errors[part];
        return nullptr;
      }
      report->generateMs = std::max(report->generateMs, times[part].generateMs);
      report->optimiseMs = std::max(report->optimiseMs, times[part].optimiseMs);
      report->codegenMs = std::max(report->codegenMs, times[part].codegenMs);
    }
    report->threads = parts;
    object = packObjects(objects);
    if (cache) {
      std::string note;
      if (!cache->store(key, *object, &note) && report->cacheNote.empty()) report->cacheNote = note;
    }
  }
  report->objectBytes = object->size();

  auto linkStarted = Clock::now();
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(host.builder).create();
  if (!jit) {
    *error = "LLVM cannot start a JIT session: " + describe(jit.takeError());
    return nullptr;
  }
  std::shared_ptr<llvm::orc::LLJIT> session(std::move(*jit));
  llvm::orc::SymbolMap helpers;
  for (const auto& h : helperSymbols()) {
    helpers[session->mangleAndIntern(h.name)] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(h.address), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  }
  auto& dylib = session->getMainJITDylib();
  if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(helpers)))) {
    *error = "LLVM cannot define the JIT's helper symbols: " + describe(std::move(err));
    return nullptr;
  }
  // Optimised code may call the C library (memcmp, memset) on its own.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      session->getDataLayout().getGlobalPrefix());
  if (!process) {
    *error = "LLVM cannot resolve process symbols: " + describe(process.takeError());
    return nullptr;
  }
  dylib.addGenerator(std::move(*process));
  for (const auto& o : objects) {
    if (auto err = session->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(o, "attrib_predicates.o"))) {
      *error = "LLVM cannot load the compiled predicates: " + describe(std::move(err));
      return nullptr;
    }
  }
  llvm::orc::SymbolLookupSet lookup;
  for (size_t part = 0; part < objects.size(); ++part) lookup.add(session->mangleAndIntern(dispatchSymbol(part)));
  auto found = session->getExecutionSession().lookup(llvm::orc::makeJITDylibSearchOrder(&dylib), std::move(lookup));
  if (!found) {
    *error = "LLVM cannot link the compiled predicates: " + describe(found.takeError());
    return nullptr;
  }
  std::vector<runtime::PredicateFn> dispatchers;
  for (size_t part = 0; part < objects.size(); ++part) {
    auto it = found->find(session->mangleAndIntern(dispatchSymbol(part)));
    dispatchers.push_back(reinterpret_cast<runtime::PredicateFn>(static_cast<uintptr_t>(it->second.getAddress())));
  }
  // Which object holds each predicate: the partition is recomputed, deterministically, from
  // the program (a cached object was built from the same partition: the key covers it).
  std::vector<int> group = partition(program, objects.size());
  auto out = std::make_shared<runtime::CompiledPredicates>();
  out->symptomWhen.assign(program.symptoms.size(), {});
  out->filterWhere.resize(program.filters.size());
  for (size_t f = 0; f < program.filters.size(); ++f) out->filterWhere[f].assign(program.filters[f].statements.size(), {});
  out->ruleWhere.assign(program.rules.size(), {});
  out->outcomeWhen.assign(program.outcomes.size(), {});
  int32_t id = 0;
  forEachPredicate(program, [&](const PredicateRef& ref, const ir::Expr&, int32_t) {
    runtime::CompiledPredicate compiled{dispatchers[group[id]], id};
    ++id;
    using K = PredicateRef::Kind;
    switch (ref.kind) {
      case K::SymptomWhen: out->symptomWhen[ref.index] = compiled; break;
      case K::FilterWhere: out->filterWhere[ref.index][ref.statement] = compiled; break;
      case K::RuleWhere: out->ruleWhere[ref.index] = compiled; break;
      case K::OutcomeWhen: out->outcomeWhen[ref.index] = compiled; break;
    }
  });
  out->owner = session;
  report->linkMs = msSince(linkStarted);
  report->totalMs = msSince(started);
  return out;
}

bool predicateLlvmIr(const ir::Program& program, const PredicateRef& ref, bool optimised, std::string* out,
                     std::string* error) {
  DataLayout layout;
  if (!probeDataLayout(&layout, error)) return false;
  HostTarget host;
  if (!detectHost(&host, error)) return false;
  auto machine = host.builder.createTargetMachine();
  if (!machine) {
    *error = "LLVM cannot create a target machine: " + describe(machine.takeError());
    return false;
  }
  llvm::LLVMContext context;
  auto only = [&](const PredicateRef& r) {
    return r.kind == ref.kind && r.index == ref.index && r.statement == ref.statement;
  };
  auto module = buildModule(program, layout, context, **machine, "attrib_dispatch", only, optimised, nullptr, error);
  if (!module) return false;
  llvm::raw_string_ostream os(*out);
  module->print(os, nullptr);
  os.flush();
  return true;
}

}  // namespace attrib::jit
