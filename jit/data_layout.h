// Where compiled predicates find things in the runtime's structures (runtime/instance.h,
// runtime/interpreter.h). The generated code reads instances and the evaluation context in
// place, with plain loads at these offsets, instead of boxing values per call.
//
// Offsets are measured on live objects at start-up, not assumed, and so are the two library
// layouts the code relies on: std::string as {data pointer at 0, size at 8} and
// std::optional<T> as {value at 0, engaged flag after it}. When the standard library lays them
// out differently the probe fails and the runtime uses the interpreter instead. The same holds
// for runtime::Captures, read as {begin pointer at 0, end pointer at 8}, and for
// std::shared_ptr, read as its element pointer at 0.
#pragma once

#include <cstdint>
#include <string>

namespace attrib::jit {

struct StringField {
  uint32_t offset = 0;  // of the std::string; its data pointer is at +0, its size at +8
};

struct OptionalField {
  uint32_t value = 0;    // offset of the value
  uint32_t engaged = 0;  // offset of the byte that is 1 when the optional holds a value
};

struct DataLayout {
  // runtime::Instance
  uint32_t instanceSize = 0;
  uint32_t symptom = 0;   // int32
  uint32_t time = 0;      // int64
  uint32_t timeUnknown = 0;  // bool: `time` is null
  uint32_t sequence = 0;  // uint64
  uint32_t filtered = 0;  // bool
  StringField node, gpu, source, text;
  OptionalField rank;     // std::optional<int64_t>
  // std::shared_ptr<const runtime::MetricOrSchedulerFields>; null for log evidence, whose
  // fields then read as a zeroed struct would (null)
  uint32_t extra = 0;
  // runtime::MetricOrSchedulerFields, reached through `extra`
  uint32_t value = 0;     // double
  StringField metric, reason;
  OptionalField exitCode, signal;  // std::optional<int64_t>
  OptionalField state;             // std::optional<ir::State> (one byte)
  // captures: runtime::Captures, read as {begin, end} pointers to (name, value) entries
  uint32_t captures = 0;
  uint32_t captureSize = 0;   // sizeof the pair
  uint32_t captureValue = 0;  // offset of the value string in the pair (the name is at 0)
  // runtime::EvalContext
  uint32_t contextSlots = 0;      // const Instance* [kMaxSlots]
  uint32_t contextSeriesPos = 0;  // size_t

  // A stable description of every offset, part of the JIT cache key.
  std::string fingerprint() const;
};

// The layout of this build's runtime, or false with `error` saying which assumption failed.
bool probeDataLayout(DataLayout* out, std::string* error);

}  // namespace attrib::jit
