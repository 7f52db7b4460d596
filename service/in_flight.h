// The bound on requests in flight. A slot is held by an RAII object, so it is given back
// however the request ends: answered, failed, thrown through, or abandoned by its client.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

namespace attrib::service {

class InFlight {
 public:
  explicit InFlight(size_t limit) : limit_(limit) {}
  // A held slot; releasing it (destroying the last copy) frees it. Null when all are taken.
  std::shared_ptr<void> acquire();
  size_t now() const { return count_.load(); }
  size_t limit() const { return limit_; }

 private:
  size_t limit_;
  std::shared_ptr<std::atomic<size_t>> counter_ = std::make_shared<std::atomic<size_t>>(0);
  std::atomic<size_t>& count_ = *counter_;
};

}  // namespace attrib::service
