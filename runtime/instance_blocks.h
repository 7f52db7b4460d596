// Instances as a scan makes them, kept in blocks that are never reallocated.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "runtime/instance.h"

namespace attrib::runtime {

// A growing std::vector<Instance> moves every instance it holds into fresh memory each time it
// doubles, and a file's list was then moved once more into the scan's one list: on bench/run's
// dense input (230,004 instances of 264 bytes) that touched about 330 MB of fresh pages, most of
// the dense scan's page faults (docs/performance.md, "Instances made in place"). Here an instance
// is moved in once, stays where it is while the file is read, and is moved once more, into the
// final list, by moveInto(), which frees each block as it empties it.
//
// Blocks grow from 16 instances to 4,096 (about 1 MB), so a file with one instance holds one
// small block, and a dense file's blocks cost one allocation per 4,096 instances.
class InstanceBlocks {
 public:
  InstanceBlocks() = default;
  // A list moved from is empty (size() 0), not a list of empty blocks that says it holds some.
  InstanceBlocks(InstanceBlocks&& other) noexcept
      : blocks_(std::move(other.blocks_)), size_(std::exchange(other.size_, 0)) {
    other.blocks_.clear();
  }
  InstanceBlocks& operator=(InstanceBlocks&& other) noexcept {
    blocks_ = std::move(other.blocks_);
    size_ = std::exchange(other.size_, 0);
    other.blocks_.clear();
    return *this;
  }
  InstanceBlocks(const InstanceBlocks&) = delete;
  InstanceBlocks& operator=(const InstanceBlocks&) = delete;

  Instance& push(Instance&& inst) {
    if (blocks_.empty() || blocks_.back().size() == blocks_.back().capacity()) {
      blocks_.emplace_back();
      blocks_.back().reserve(blocks_.size() == 1 ? kFirstBlock
                                                 : std::min(kLastBlock, 2 * blocks_[blocks_.size() - 2].capacity()));
    }
    ++size_;
    return blocks_.back().emplace_back(std::move(inst));
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Calls f on every instance, in the order they were pushed.
  template <class F>
  void forEach(F&& f) {
    for (auto& block : blocks_) {
      for (auto& inst : block) f(inst);
    }
  }
  template <class F>
  void forEach(F&& f) const {
    for (const auto& block : blocks_) {
      for (const auto& inst : block) f(inst);
    }
  }

  // Appends every instance to `out`, in order, and leaves this list empty. `out` should have
  // room reserved: this list's memory is freed block by block, so the instances are never held
  // twice over.
  void moveInto(std::vector<Instance>& out) {
    for (auto& block : blocks_) {
      for (auto& inst : block) out.push_back(std::move(inst));
      std::vector<Instance>().swap(block);
    }
    blocks_.clear();
    size_ = 0;
  }

 private:
  static constexpr size_t kFirstBlock = 16;
  static constexpr size_t kLastBlock = 4096;
  std::vector<std::vector<Instance>> blocks_;  // each filled up to its capacity, never beyond
  size_t size_ = 0;
};

}  // namespace attrib::runtime
