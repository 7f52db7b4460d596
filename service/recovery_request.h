// NVIDIA Recovery's WorkloadAttributionRequest (POST /v1/attribution), read through the
// request-parsing layer: every field typed (json::Field), every list bounded, every time RFC
// 3339. The field list is the public one (docs.nvidia.com/recovery, the Attribution Adapter's
// page); its value sets are mostly not public, so what this Service accepts is its own choice,
// documented in docs/service.md ("NVIDIA Recovery adapter"). Throws json::FieldError or
// Failure(400) naming the field; nothing else.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "service/endpoint.h"

namespace attrib::service {

struct RecoveryLimits {
  size_t maxNodes = 4096;     // scope.nodes
  size_t maxRanks = 131072;   // scope.ranks
  int64_t maxTimeoutMs = 120'000;  // a larger timeout_ms is clamped to this (and said)
};

struct WorkloadAttributionRequest {
  std::string schemaVersion;
  std::string workloadId;
  enum class Phase { Fast, Slow } phase = Phase::Fast;
  // failure_context
  int64_t detectedAt = 0;        // ns
  std::string detectionSignal;   // as sent (e.g. STRAGGLER)
  // scope
  std::vector<std::string> nodes;
  std::vector<int64_t> ranks;
  std::optional<int64_t> start, end;  // ns
  // workload_context
  std::optional<int64_t> jobEndTime;  // ns
  std::string workflowId;
  std::optional<int64_t> attemptIndex;
  int64_t timeoutMs = 0;       // after clamping
  bool timeoutClamped = false;  // timeout_ms was above RecoveryLimits::maxTimeoutMs
  std::optional<std::string> continueSession;
  std::string userId;
  std::vector<std::string> ignoredFields;  // members this Service does not read, by path
};

// The schema versions this Service reads.
const std::vector<std::string>& recoverySchemaVersions();

// Parses a request body; see above.
WorkloadAttributionRequest parseRecoveryRequest(const std::string& body, const RecoveryLimits& limits = {});

// True for a STRAGGLER detection_signal (case-insensitive).
bool isStragglerSignal(const std::string& signal);

}  // namespace attrib::service
