#include "jit/data_layout.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/compiled_predicates.h"
#include "runtime/instance.h"

namespace attrib::jit {
namespace {

uint32_t offsetIn(const void* object, const void* member) {
  return static_cast<uint32_t>(static_cast<const char*>(member) - static_cast<const char*>(object));
}

// std::string keeps {data pointer, size} at the start, for both short and long strings.
bool stringLayoutHolds() {
  for (size_t length : {3, 100}) {
    std::string s(length, 'x');
    const char* data;
    size_t size;
    std::memcpy(&data, reinterpret_cast<const char*>(&s), sizeof data);
    std::memcpy(&size, reinterpret_cast<const char*>(&s) + 8, sizeof size);
    if (data != s.data() || size != s.size()) return false;
  }
  return true;
}

// std::optional<T> keeps the value at offset 0 and a 0/1 engaged byte at `flag`.
template <typename T>
bool optionalLayoutHolds(T sample, uint32_t flag) {
  std::optional<T> empty, full = sample;
  if (sizeof(std::optional<T>) <= flag) return false;
  unsigned char e, f;
  std::memcpy(&e, reinterpret_cast<const char*>(&empty) + flag, 1);
  std::memcpy(&f, reinterpret_cast<const char*>(&full) + flag, 1);
  T stored;
  std::memcpy(&stored, reinterpret_cast<const char*>(&full), sizeof(T));
  return e == 0 && f == 1 && stored == sample;
}

// std::vector keeps {begin, end} pointers at the start.
bool vectorLayoutHolds() {
  std::vector<std::pair<std::string, std::string>> v(3);
  const void* words[2];
  std::memcpy(words, reinterpret_cast<const char*>(&v), sizeof words);
  return words[0] == v.data() && words[1] == v.data() + v.size();
}

}  // namespace

std::string DataLayout::fingerprint() const {
  return fmt::format("i{}:{},{},{}/{},{},{}:s{},{},{},{},{},{}:o{}/{},{}/{},{}/{},{}/{}:v{},{},{}:c{},{}", instanceSize, symptom,
                     time, timeUnknown, sequence, filtered, value, node.offset, gpu.offset, source.offset, text.offset,
                     metric.offset, reason.offset, rank.value, rank.engaged, exitCode.value, exitCode.engaged,
                     signal.value, signal.engaged, state.value, state.engaged, captures, captureSize,
                     captureValue, contextSlots, contextSeriesPos);
}

bool probeDataLayout(DataLayout* out, std::string* error) {
  if (sizeof(void*) != 8 || sizeof(size_t) != 8) {
    *error = "the JIT needs a 64-bit target";
    return false;
  }
  if (!stringLayoutHolds()) {
    *error = "this C++ standard library lays out std::string in a way the JIT does not read";
    return false;
  }
  if (!optionalLayoutHolds<int64_t>(-42, 8) || !optionalLayoutHolds<ir::State>(ir::State::Preempted, 1)) {
    *error = "this C++ standard library lays out std::optional in a way the JIT does not read";
    return false;
  }
  if (!vectorLayoutHolds()) {
    *error = "this C++ standard library lays out std::vector in a way the JIT does not read";
    return false;
  }
  runtime::Instance inst;
  DataLayout l;
  l.instanceSize = sizeof(runtime::Instance);
  l.symptom = offsetIn(&inst, &inst.symptom);
  l.time = offsetIn(&inst, &inst.time);
  l.timeUnknown = offsetIn(&inst, &inst.timeUnknown);
  l.sequence = offsetIn(&inst, &inst.sequence);
  l.filtered = offsetIn(&inst, &inst.filtered);
  l.value = offsetIn(&inst, &inst.value);
  l.node.offset = offsetIn(&inst, &inst.node);
  l.gpu.offset = offsetIn(&inst, &inst.gpu);
  l.source.offset = offsetIn(&inst, &inst.source);
  l.text.offset = offsetIn(&inst, &inst.text);
  l.metric.offset = offsetIn(&inst, &inst.metric);
  l.reason.offset = offsetIn(&inst, &inst.reason);
  auto optional = [&](const auto& member, uint32_t flag) {
    uint32_t at = offsetIn(&inst, &member);
    return OptionalField{at, at + flag};
  };
  l.rank = optional(inst.rank, 8);
  l.exitCode = optional(inst.exitCode, 8);
  l.signal = optional(inst.signal, 8);
  l.state = optional(inst.state, 1);
  l.captures = offsetIn(&inst, &inst.captures);
  std::pair<std::string, std::string> capture;
  l.captureSize = sizeof capture;
  l.captureValue = offsetIn(&capture, &capture.second);
  if (offsetIn(&capture, &capture.first) != 0) {
    *error = "this C++ standard library lays out std::pair in a way the JIT does not read";
    return false;
  }
  runtime::EvalContext ctx;
  l.contextSlots = offsetIn(&ctx, &ctx.slots[0]);
  l.contextSeriesPos = offsetIn(&ctx, &ctx.seriesPos);
  *out = l;
  return true;
}

}  // namespace attrib::jit
