#include "runtime/engine.h"

#include <chrono>

namespace attrib::runtime {

std::shared_ptr<const Engine> Engine::create(std::shared_ptr<const Bundle> bundle, std::string* error) {
  auto regexes = std::make_shared<RegexTable>();
  if (!regexes->build(bundle->program, error)) return nullptr;
  std::shared_ptr<Engine> engine(new Engine());
  engine->bundle_ = std::move(bundle);
  engine->regexes_ = std::move(regexes);
  return engine;
}

Verdict Engine::diagnose(WorkloadEvidence input, const DiagnoseOptions& options) const {
  auto started = std::chrono::steady_clock::now();
  LogScanner scanner(*bundle_, *regexes_);
  LogScanResult scanned = scanner.scan(input.logs, input.workload, options.scan);
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
  return Attributor(bundle_, regexes_).attribute(std::move(evidence), options.limits);
}

}  // namespace attrib::runtime
