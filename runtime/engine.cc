#include "runtime/engine.h"

#include <chrono>

#include "runtime/family_hint.h"

namespace attrib::runtime {

namespace {
constexpr size_t kCandidates = 5;
}  // namespace

std::shared_ptr<const Engine> Engine::create(std::shared_ptr<const Bundle> bundle, std::string* error,
                                             std::shared_ptr<const CompiledPredicates> compiled,
                                             EvaluatorInfo evaluator) {
  auto regexes = std::make_shared<RegexTable>();
  if (!regexes->build(bundle->program, error)) return nullptr;
  std::shared_ptr<Engine> engine(new Engine());
  engine->bundle_ = std::move(bundle);
  engine->regexes_ = std::move(regexes);
  engine->compiled_ = std::move(compiled);
  engine->attributor_ = std::make_unique<const Attributor>(engine->bundle_, engine->regexes_, engine->compiled_);
  engine->scanner_ = std::make_unique<const LogScanner>(*engine->bundle_, *engine->regexes_);
  engine->evaluator_ = std::move(evaluator);
  if (!engine->compiled_) engine->evaluator_.name = "interpreter";
  return engine;
}

Verdict Engine::diagnose(WorkloadEvidence input, const DiagnoseOptions& options) const {
  auto started = std::chrono::steady_clock::now();
  const LogScanner& scanner = *scanner_;
  LogScanResult scanned = scanner.scan(input.logs, input.workload, options.scan);
  if (!input.lines.empty()) {
    LogScanResult memory = scanner.scanLines(input.lines, input.workload, options.scan);
    // In-memory lines come after every file in the evidence order.
    for (auto& inst : memory.instances) {
      inst.sequence += static_cast<uint64_t>(input.logs.size() + 1) << 40;
      scanned.instances.push_back(std::move(inst));
    }
    for (auto& t : memory.telling.lines()) t.first.sequence += static_cast<uint64_t>(input.logs.size() + 1) << 40;
    scanned.telling.merge(std::move(memory.telling));
    scanned.reports.insert(scanned.reports.end(), memory.reports.begin(), memory.reports.end());
    scanned.lines += memory.lines;
    scanned.bytes += memory.bytes;
  }
  Evidence evidence;
  evidence.workload = std::move(input.workload);
  evidence.logInstances = std::move(scanned.instances);
  evidence.metrics = std::move(input.metrics);
  evidence.reports = std::move(input.reports);
  evidence.reports.insert(evidence.reports.end(), scanned.reports.begin(), scanned.reports.end());
  evidence.linesScanned = scanned.lines;
  evidence.bytesScanned = scanned.bytes;
  evidence.scanMs =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  Verdict verdict = attributor_->attribute(std::move(evidence), options.limits);
  // A verdict no rule explains still says where to look (never as a cause).
  if (verdict.outcomes.empty()) {
    verdict.candidates = scanned.telling.best(kCandidates);
    verdict.familyHint = familyHint(verdict.candidates, verdict.workload.state);
  }
  verdict.stats.evaluator = evaluator_.name;
  verdict.stats.evaluatorNote = evaluator_.fallbackReason;
  return verdict;
}

}  // namespace attrib::runtime
