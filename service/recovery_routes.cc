// The NVIDIA Recovery adapter's route, POST /v1/attribution (recovery_adapter.h), in a file of
// its own so that service.cc only calls it.
#include "service/service.h"

namespace attrib::service {

void Service::recoveryRoutes() {
  RecoveryOptions o;
  o.store = store_.get();
  o.collector = options_.collector;
  o.diagnose = [this](evidence::WorkloadEvidence e) { return diagnose(std::move(e)); };
  o.hasRules = [this](const std::string& prefix) {
    const auto& symptoms = engine()->bundle().program.symptoms;
    return std::any_of(symptoms.begin(), symptoms.end(), [&](const auto& s) { return s.name.rfind(prefix, 0) == 0; });
  };
  recovery_ = std::make_unique<RecoveryAdapter>(std::move(o));
  router_.add("POST", "/v1/attribution", Route{[this](const Call& c) { return recovery_->attribution(c); }});
}

}  // namespace attrib::service
