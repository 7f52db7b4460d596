#include "runtime/instance.h"

#include <algorithm>
#include <numeric>

namespace attrib::runtime {

namespace {
const std::string& none() {
  static const std::string empty;
  return empty;
}
}  // namespace

const std::string& Place::connector() const { return source ? source->connector : none(); }
const std::string& Place::location() const { return source ? source->location : none(); }

Place Place::make(std::string connector, std::string location, uint64_t offset, uint64_t line) {
  Place p;
  p.source = std::make_shared<const Source>(Source{std::move(connector), std::move(location)});
  p.offset = offset;
  p.line = line;
  return p;
}

const MetricOrSchedulerFields& Instance::extra() const {
  static const MetricOrSchedulerFields empty;
  return extraFields ? *extraFields : empty;
}

Place Place::of(const evidence::Provenance& p) { return make(p.connector, p.location, p.offset, p.line); }

void sortEarlierFirst(std::vector<Instance>& instances) {
  if (std::is_sorted(instances.begin(), instances.end(), earlier)) return;
  // order[i]: the index of the instance that belongs at position i. Ties on (time, sequence)
  // are broken by the original index, which is what makes std::sort stable here.
  std::vector<uint32_t> order(instances.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Instance& x = instances[a];
    const Instance& y = instances[b];
    if (x.time != y.time) return x.time < y.time;
    if (x.sequence != y.sequence) return x.sequence < y.sequence;
    return a < b;
  });
  // Applies the permutation cycle by cycle; a placed position is marked by order[j] = j.
  for (uint32_t i = 0; i < order.size(); ++i) {
    if (order[i] == i) continue;
    Instance held = std::move(instances[i]);
    uint32_t j = i;
    while (true) {
      const uint32_t k = order[j];
      order[j] = j;
      if (k == i) {
        instances[j] = std::move(held);
        break;
      }
      instances[j] = std::move(instances[k]);
      j = k;
    }
  }
}

}  // namespace attrib::runtime
