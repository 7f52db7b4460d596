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
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>
#include <cstdlib>
#include <mutex>

#include "ir/codec.h"
#include "ir/sha256.h"
#include "jit/data_layout.h"
#include "jit/helpers.h"
#include "jit/object_cache.h"

namespace attrib::jit {
namespace {

// Bump when generated code changes meaning, so stale cache entries are never linked.
constexpr const char* kCodegenVersion = "attrib-jit-1";

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
  llvm::PassBuilder passes(machine);
  passes.registerModuleAnalyses(mam);
  passes.registerCGSCCAnalyses(cgam);
  passes.registerFunctionAnalyses(fam);
  passes.registerLoopAnalyses(lam);
  passes.crossRegisterProxies(lam, fam, cgam, mam);
  passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(module, mam);
}

std::string hex(std::string_view raw) {
  std::string out;
  for (unsigned char c : raw) out += fmt::format("{:02x}", c);
  return out;
}

// Generates and optimises the module for `program` (all predicates, or only `only`).
std::unique_ptr<llvm::Module> buildModule(const ir::Program& program, const DataLayout& layout,
                                          llvm::LLVMContext& context, llvm::TargetMachine& machine,
                                          const PredicateRef* only, bool optimised, JitReport* report,
                                          std::string* error) {
  auto started = Clock::now();
  auto module = generateModule(program, layout, context, only);
  module->setDataLayout(machine.createDataLayout());
  module->setTargetTriple(machine.getTargetTriple().str());
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os)) {
    *error = "internal error: the generated predicate code does not verify: " + os.str();
    return nullptr;
  }
  if (report) report->generateMs = msSince(started);
  if (optimised) {
    started = Clock::now();
    optimise(*module, &machine);
    if (report) report->optimiseMs = msSince(started);
  }
  return module;
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
  report->cacheHit = object.has_value();

  if (!object) {
    auto machine = host.builder.createTargetMachine();
    if (!machine) {
      *error = "LLVM cannot create a target machine: " + describe(machine.takeError());
      return nullptr;
    }
    llvm::LLVMContext context;
    auto module = buildModule(program, layout, context, **machine, nullptr, true, report, error);
    if (!module) return nullptr;
    auto codegenStarted = Clock::now();
    llvm::orc::SimpleCompiler compiler(**machine);
    auto compiled = compiler(*module);
    if (!compiled) {
      *error = "LLVM cannot compile the predicates: " + describe(compiled.takeError());
      return nullptr;
    }
    object = (*compiled)->getBuffer().str();
    report->codegenMs = msSince(codegenStarted);
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
  if (auto err = session->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(*object, "attrib_predicates.o"))) {
    *error = "LLVM cannot load the compiled predicates: " + describe(std::move(err));
    return nullptr;
  }
  llvm::orc::SymbolLookupSet lookup;
  for (const auto& name : names) lookup.add(session->mangleAndIntern(name));
  auto found = session->getExecutionSession().lookup(llvm::orc::makeJITDylibSearchOrder(&dylib), std::move(lookup));
  if (!found) {
    *error = "LLVM cannot link the compiled predicates: " + describe(found.takeError());
    return nullptr;
  }
  auto address = [&](const PredicateRef& ref) {
    auto it = found->find(session->mangleAndIntern(predicateSymbol(ref)));
    return reinterpret_cast<runtime::PredicateFn>(static_cast<uintptr_t>(it->second.getAddress()));
  };
  auto out = std::make_shared<runtime::CompiledPredicates>();
  out->symptomWhen.assign(program.symptoms.size(), nullptr);
  out->filterWhere.resize(program.filters.size());
  for (size_t f = 0; f < program.filters.size(); ++f) out->filterWhere[f].assign(program.filters[f].statements.size(), nullptr);
  out->ruleWhere.assign(program.rules.size(), nullptr);
  out->outcomeWhen.assign(program.outcomes.size(), nullptr);
  forEachPredicate(program, [&](const PredicateRef& ref, const ir::Expr&, int32_t) {
    using K = PredicateRef::Kind;
    switch (ref.kind) {
      case K::SymptomWhen: out->symptomWhen[ref.index] = address(ref); break;
      case K::FilterWhere: out->filterWhere[ref.index][ref.statement] = address(ref); break;
      case K::RuleWhere: out->ruleWhere[ref.index] = address(ref); break;
      case K::OutcomeWhen: out->outcomeWhen[ref.index] = address(ref); break;
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
  auto module = buildModule(program, layout, context, **machine, &ref, optimised, nullptr, error);
  if (!module) return false;
  llvm::raw_string_ostream os(*out);
  module->print(os, nullptr);
  os.flush();
  return true;
}

}  // namespace attrib::jit
