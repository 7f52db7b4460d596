#include "jit/data_layout.h"

#include <fmt/format.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <optional>
#include <utility>

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

// runtime::Captures keeps {begin, end} pointers at the start, and an entry's name and value
// are {data, size} (runtime/captures.h); checked on a live object like the library's types.
bool capturesLayoutHolds() {
  runtime::Captures c{{"name", "value"}, {"n", "v"}};
  const void* words[2];
  std::memcpy(words, reinterpret_cast<const char*>(&c), sizeof words);
  if (words[0] != c.begin() || words[1] != c.end()) return false;
  const char* bytes = reinterpret_cast<const char*>(c.begin());
  const char* data;
  size_t size;
  std::memcpy(&data, bytes + offsetof(runtime::Captures::Entry, valueText), sizeof data);
  std::memcpy(&size, bytes + offsetof(runtime::Captures::Entry, valueText) + 8, sizeof size);
  return offsetof(runtime::Captures::Entry, nameText) == 0 && std::string_view(data, size) == "value";
}

// std::shared_ptr keeps its element pointer at the start.
bool sharedPtrLayoutHolds() {
  auto p = std::make_shared<const runtime::MetricOrSchedulerFields>();
  const void* word;
  std::memcpy(&word, reinterpret_cast<const char*>(&p), sizeof word);
  return word == p.get();
}

}  // namespace

std::string DataLayout::fingerprint() const {
  return fmt::format("i{}:{},{},{}/{},{},e{},{}:s{},{},{},{},{},{}:o{}/{},{}/{},{}/{},{}/{}:v{},{},{}:c{},{}", instanceSize, symptom,
                     time, timeUnknown, sequence, filtered, extra, value, node.offset, gpu.offset, source.offset, text.offset,
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
  if (!sharedPtrLayoutHolds()) {
    *error = "this C++ standard library lays out std::shared_ptr in a way the JIT does not read";
    return false;
  }
  if (!capturesLayoutHolds()) {
    *error = "runtime::Captures is laid out in a way the JIT does not read";
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
  l.node.offset = offsetIn(&inst, &inst.node);
  l.gpu.offset = offsetIn(&inst, &inst.gpu);
  l.source.offset = offsetIn(&inst, &inst.source);
  l.text.offset = offsetIn(&inst, &inst.text);
  // An optional member of `object`, its engaged flag `flag` bytes after its value.
  auto optionalIn = [](const void* object, const auto& member, uint32_t flag) {
    uint32_t at = offsetIn(object, &member);
    return OptionalField{at, at + flag};
  };
  l.rank = optionalIn(&inst, inst.rank, 8);
  l.extra = offsetIn(&inst, &inst.extraFields);
  runtime::MetricOrSchedulerFields extra;
  l.value = offsetIn(&extra, &extra.value);
  l.metric.offset = offsetIn(&extra, &extra.metric);
  l.reason.offset = offsetIn(&extra, &extra.reason);
  l.exitCode = optionalIn(&extra, extra.exitCode, 8);
  l.signal = optionalIn(&extra, extra.signal, 8);
  l.state = optionalIn(&extra, extra.state, 1);
  if (sizeof extra > sizeof inst) {  // the zeroed stand-in instance stands in for absent fields too
    *error = "runtime::MetricOrSchedulerFields is larger than runtime::Instance";
    return false;
  }
  l.captures = offsetIn(&inst, &inst.captures);
  l.captureSize = sizeof(runtime::Captures::Entry);
  l.captureValue = offsetof(runtime::Captures::Entry, valueText);
  runtime::EvalContext ctx;
  l.contextSlots = offsetIn(&ctx, &ctx.slots[0]);
  l.contextSeriesPos = offsetIn(&ctx, &ctx.seriesPos);
  *out = l;
  return true;
}

}  // namespace attrib::jit
