// One sample of a metric series, as a metrics source delivers it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "evidence/provenance.h"

namespace attrib::evidence {

struct MetricSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by name
  std::string node, gpu;
  int64_t time = 0;
  double value = 0;
  Provenance where;
};

}  // namespace attrib::evidence
