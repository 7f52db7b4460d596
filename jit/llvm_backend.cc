// The LLVM half of the JIT (llvm_backend.h): predicate IR -> LLVM IR (codegen.h) -> O2 (new
// pass manager) -> object code, ORC's linker as the fallback for objects the own loader refuses,
// and the IR `attribc explain` prints. Built into libattrib_jit_llvm.so, never into a program.
#include "jit/llvm_backend.h"

#include <fmt/format.h>
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
#include <mutex>
#include <optional>

#include "jit/codegen.h"

namespace attrib::jit {
namespace {

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

// LLVM's description of this host, at O2.
std::optional<llvm::orc::JITTargetMachineBuilder> detectHost(std::string* error) {
  initialiseLlvm();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    *error = "LLVM cannot target this machine: " + describe(builder.takeError());
    return std::nullopt;
  }
  builder->setCodeGenOptLevel(llvm::CodeGenOpt::Default);  // O2
  return std::move(*builder);
}

// A target machine for this host (O2), or nullptr with `error`.
std::unique_ptr<llvm::TargetMachine> hostMachine(std::string* error) {
  auto host = detectHost(error);
  if (!host) return nullptr;
  auto machine = host->createTargetMachine();
  if (!machine) {
    *error = "LLVM cannot create a target machine: " + describe(machine.takeError());
    return nullptr;
  }
  return std::move(*machine);
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

// Generates the module for the predicates of `program` for which `include` holds, and optimises
// it when `optimised`.
std::unique_ptr<llvm::Module> buildModule(const ir::Program& program, const DataLayout& layout,
                                          llvm::LLVMContext& context, llvm::TargetMachine& machine,
                                          const std::string& dispatchName,
                                          const std::function<bool(const PredicateRef&)>& include, bool optimised,
                                          CompileTimes* times, std::string* error) {
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
bool compileObject(const ir::Program& program, const DataLayout& layout, const std::string& dispatchName,
                   const std::function<bool(const PredicateRef&)>& include, std::string* object, CompileTimes* times,
                   std::string* error) {
  auto machine = hostMachine(error);
  if (!machine) return false;
  llvm::LLVMContext context;
  auto module = buildModule(program, layout, context, *machine, dispatchName, include, true, times, error);
  if (!module) return false;
  auto started = Clock::now();
  // The IR is already optimised at O2; fast instruction selection halves the back end's time
  // and costs little on code that is mostly loads, compares and calls.
  machine->setFastISel(true);
  llvm::orc::SimpleCompiler compiler(*machine);
  auto compiled = compiler(*module);
  if (!compiled) {
    *error = "LLVM cannot compile the predicates: " + describe(compiled.takeError());
    return false;
  }
  *object = (*compiled)->getBuffer().str();
  times->codegenMs = msSince(started);
  return true;
}

bool describeHost(std::string* out, std::string* error) {
  auto host = detectHost(error);
  if (!host) return false;
  *out = host->getTargetTriple().str() + "\n" + host->getCPU() + "\n" + host->getFeatures().getString();
  return true;
}

// ORC's own linker: the fallback for objects the own loader (object_loader.h) refuses.
bool linkObjects(const std::vector<std::string>& objects, const std::vector<HelperSymbol>& helperList,
                 const std::vector<std::string>& symbols, std::vector<void*>* addresses,
                 std::shared_ptr<const void>* owner, std::string* error) {
  auto host = detectHost(error);
  if (!host) return false;
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*host)).create();
  if (!jit) {
    *error = "LLVM cannot start a JIT session: " + describe(jit.takeError());
    return false;
  }
  std::shared_ptr<llvm::orc::LLJIT> session(std::move(*jit));
  llvm::orc::SymbolMap helpers;
  for (const auto& h : helperList) {
    helpers[session->mangleAndIntern(h.name)] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(h.address), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  }
  auto& dylib = session->getMainJITDylib();
  if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(helpers)))) {
    *error = "LLVM cannot define the JIT's helper symbols: " + describe(std::move(err));
    return false;
  }
  // Optimised code may call the C library (memcmp, memset) on its own.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      session->getDataLayout().getGlobalPrefix());
  if (!process) {
    *error = "LLVM cannot resolve process symbols: " + describe(process.takeError());
    return false;
  }
  dylib.addGenerator(std::move(*process));
  for (const auto& o : objects) {
    if (auto err = session->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(o, "attrib_predicates.o"))) {
      *error = "LLVM cannot load the compiled predicates: " + describe(std::move(err));
      return false;
    }
  }
  llvm::orc::SymbolLookupSet lookup;
  for (const auto& s : symbols) lookup.add(session->mangleAndIntern(s));
  auto found = session->getExecutionSession().lookup(llvm::orc::makeJITDylibSearchOrder(&dylib), std::move(lookup));
  if (!found) {
    *error = "LLVM cannot link the compiled predicates: " + describe(found.takeError());
    return false;
  }
  addresses->clear();
  for (const auto& s : symbols) {
    auto it = found->find(session->mangleAndIntern(s));
    addresses->push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(it->second.getAddress())));
  }
  *owner = session;
  return true;
}

bool predicateIr(const ir::Program& program, const DataLayout& layout, const PredicateRef& ref, bool optimised,
                 std::string* out, std::string* error) {
  auto machine = hostMachine(error);
  if (!machine) return false;
  llvm::LLVMContext context;
  auto only = [&](const PredicateRef& r) {
    return r.kind == ref.kind && r.index == ref.index && r.statement == ref.statement;
  };
  auto module = buildModule(program, layout, context, *machine, "attrib_dispatch", only, optimised, nullptr, error);
  if (!module) return false;
  llvm::raw_string_ostream os(*out);
  module->print(os, nullptr);
  os.flush();
  return true;
}

}  // namespace

}  // namespace attrib::jit

extern "C" __attribute__((visibility("default"))) const attrib::jit::LlvmBackend* attrib_jit_llvm_backend() {
  using namespace attrib::jit;
  static const LlvmBackend backend{kLlvmBackendAbi, describeHost, compileObject, linkObjects, predicateIr};
  return &backend;
}
