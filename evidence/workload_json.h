// workload.json: the execution context of one workload as JSON (docs/workloads.md), read by
// `attrib diagnose`, sent by `attrib run` to a remote Service as a session's context, and
// accepted by the Service. All fields are optional; a field of the wrong type, an unknown state
// or a time that is not RFC 3339 (or seconds since the epoch) is an error naming the field.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "evidence/workload.h"

namespace attrib::evidence {

// Parses workload.json text; on failure returns false with a one-line `error`. The text is
// parsed with json::parse's depth limit: nesting deeper than 64 levels is an error, never a
// deep recursion.
bool parseWorkloadJson(const std::string& text, Workload* out, std::string* error);
// The same from a value already parsed (with json::parse; e.g. a member of a request).
bool workloadFromJson(const nlohmann::json& value, Workload* out, std::string* error);

// A time as workload.json and metrics files write it: RFC 3339 text (any form the line-prefix
// parser reads, and nothing after it) or a number of seconds since the epoch.
bool parseTimeValue(const nlohmann::json& value, int64_t* out);

// The workload.json text of `workload`, which parseWorkloadJson reads back to the same values.
std::string workloadToJson(const Workload& workload);

}  // namespace attrib::evidence
