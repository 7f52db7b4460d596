#include "service/in_flight.h"

namespace attrib::service {

std::shared_ptr<void> InFlight::acquire() {
  size_t n = count_.load();
  do {
    if (n >= limit_) return nullptr;
  } while (!count_.compare_exchange_weak(n, n + 1));
  // The counter is shared with the slot, so a slot may outlive the InFlight that gave it.
  auto counter = counter_;
  return std::shared_ptr<void>(counter.get(), [counter](void*) { --*counter; });
}

}  // namespace attrib::service
