// A loaded rule set ready to diagnose workloads: the bundle, its compiled regexes, the log
// scanner and the attribution phases. Immutable after creation and safe to share between
// threads (the service swaps engines atomically on reload).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/attribution.h"
#include "runtime/bundle.h"
#include "runtime/log_scanner.h"
#include "runtime/regex_table.h"
#include "runtime/verdict.h"
#include "runtime/evidence_types.h"

namespace attrib::runtime {

struct DiagnoseOptions {
  LogScanOptions scan;
  AttributionLimits limits;
};

class Engine {
 public:
  // nullptr and `error` when the bundle's regexes cannot be compiled. `compiled` holds the
  // bundle's predicates as native code (jit/); without it every predicate is interpreted.
  // `evaluator` is what the verdicts' stats report.
  static std::shared_ptr<const Engine> create(std::shared_ptr<const Bundle> bundle, std::string* error,
                                              std::shared_ptr<const CompiledPredicates> compiled = nullptr,
                                              EvaluatorInfo evaluator = {});

  const Bundle& bundle() const { return *bundle_; }
  const EvaluatorInfo& evaluator() const { return evaluator_; }
  const Attributor& attributor() const { return *attributor_; }
  Verdict diagnose(WorkloadEvidence evidence, const DiagnoseOptions& options = {}) const;

 private:
  Engine() = default;
  std::shared_ptr<const Bundle> bundle_;
  std::shared_ptr<const RegexTable> regexes_;
  std::shared_ptr<const CompiledPredicates> compiled_;
  std::unique_ptr<const Attributor> attributor_;  // over the three above; plans made once
  std::unique_ptr<const LogScanner> scanner_;     // over bundle_ and regexes_; its analyses made once
  EvaluatorInfo evaluator_;
};

}  // namespace attrib::runtime
