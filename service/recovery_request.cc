#include "service/recovery_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>

#include "ir/civil_time.h"
#include "json/bounded_parse.h"
#include "json/field.h"

namespace attrib::service {
namespace {

using attrib::json::Field;

// Members not in `known` are not read: their paths are said in the answer, never dropped silently.
void noteUnknown(const Field& object, std::initializer_list<const char*> known, const std::string& prefix,
                 std::vector<std::string>* ignored) {
  object.forEachMember([&](const std::string& key, const Field&) {
    bool isKnown = std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; });
    if (!isKnown && ignored->size() < 32) ignored->push_back(prefix + key.substr(0, 64));
  });
}

// A bounded string: non-empty (unless `emptyOk`), at most `max` bytes, no control characters.
std::string text(const Field& f, size_t max, bool emptyOk = false) {
  const std::string& s = f.string();
  if (s.empty() && !emptyOk) f.fail("must not be empty");
  if (s.size() > max) f.fail(fmt::format("must be at most {} bytes", max));
  if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    f.fail("must not hold control characters");
  }
  return s;
}

int64_t time(const Field& f) {
  auto t = attrib::parseRfc3339(f.string());
  if (!t) f.fail("must be an RFC 3339 time (2026-12-01T10:00:00Z)");
  return *t;
}

std::optional<int64_t> optionalTime(const Field& f) {
  if (!f.given()) return std::nullopt;
  return time(f);
}

}  // namespace

const std::vector<std::string>& recoverySchemaVersions() {
  static const std::vector<std::string> versions = {"1", "1.0", "v1"};
  return versions;
}

bool isStragglerSignal(const std::string& signal) {
  std::string lower;
  for (char c : signal) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "straggler";
}

WorkloadAttributionRequest parseRecoveryRequest(const std::string& body, const RecoveryLimits& limits) {
  nlohmann::json parsed;
  std::string why;
  if (!json::parse(body, &parsed, &why)) {
    throw Failure(400, why.rfind("nests", 0) == 0 ? "the body " + why : "the body is not a JSON object");
  }
  if (!parsed.is_object()) throw Failure(400, "the body is not a JSON object");
  Field root(parsed);
  WorkloadAttributionRequest r;
  noteUnknown(root, {"schema_version", "workload_id", "phase", "failure_context", "scope", "workload_context", "timeout_ms",
                     "continue_session", "user_id"},
              "", &r.ignoredFields);

  // Checked first: a request of another schema is refused before its other fields are judged.
  r.schemaVersion = text(root["schema_version"], 32);
  const auto& versions = recoverySchemaVersions();
  if (std::find(versions.begin(), versions.end(), r.schemaVersion) == versions.end()) {
    root["schema_version"].fail(fmt::format("is '{}', which this Service does not read (it reads {})", r.schemaVersion,
                                            fmt::join(versions, ", ")));
  }
  r.workloadId = text(root["workload_id"], 512);
  std::string phase = root["phase"].string();
  if (phase == "fast") r.phase = WorkloadAttributionRequest::Phase::Fast;
  else if (phase == "slow") r.phase = WorkloadAttributionRequest::Phase::Slow;
  else root["phase"].fail(fmt::format("must be fast or slow, not '{}'", phase.substr(0, 32)));

  Field failure = root["failure_context"];
  failure.object();
  noteUnknown(failure, {"detected_at", "detection_signal"}, "failure_context.", &r.ignoredFields);
  r.detectedAt = time(failure["detected_at"]);
  r.detectionSignal = text(failure["detection_signal"], 64);
  if (r.detectionSignal.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != std::string::npos) {
    failure["detection_signal"].fail("must be a word of letters, digits, '_', '.' or '-' (e.g. STRAGGLER)");
  }

  Field scope = root["scope"];
  scope.object();
  noteUnknown(scope, {"nodes", "ranks", "start_time", "end_time"}, "scope.", &r.ignoredFields);
  Field nodes = scope["nodes"];
  nodes.array();
  if (nodes.size() == 0) nodes.fail("must name at least one node");
  if (nodes.size() > limits.maxNodes) nodes.fail(fmt::format("names {} nodes; at most {} are read", nodes.size(), limits.maxNodes));
  std::set<std::string> seen;
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string node = text(nodes[i], 255);
    if (seen.insert(node).second) r.nodes.push_back(std::move(node));
  }
  if (scope["ranks"].given()) {
    Field ranks = scope["ranks"];
    ranks.array();
    if (ranks.size() > limits.maxRanks) ranks.fail(fmt::format("names {} ranks; at most {} are read", ranks.size(), limits.maxRanks));
    for (size_t i = 0; i < ranks.size(); ++i) {
      uint64_t rank = ranks[i].count();
      if (rank > static_cast<uint64_t>(INT32_MAX)) ranks[i].fail("is not a rank (too large)");
      r.ranks.push_back(static_cast<int64_t>(rank));
    }
  }
  r.start = optionalTime(scope["start_time"]);
  r.end = optionalTime(scope["end_time"]);
  if (r.start && r.end && *r.start > *r.end) scope["start_time"].fail("is after 'scope.end_time'");

  if (root["workload_context"].given()) {
    Field context = root["workload_context"];
    context.object();
    noteUnknown(context, {"job_end_time", "workflow_id", "attempt_index"}, "workload_context.", &r.ignoredFields);
    r.jobEndTime = optionalTime(context["job_end_time"]);
    if (context["workflow_id"].given()) r.workflowId = text(context["workflow_id"], 512, true);
    if (context["attempt_index"].given()) {
      uint64_t attempt = context["attempt_index"].count();
      if (attempt > 1'000'000) context["attempt_index"].fail("must be at most 1000000");
      r.attemptIndex = static_cast<int64_t>(attempt);
    }
  }

  // Without scope.end_time the window ends with the job, else at the detection (recovery_adapter.cc).
  if (r.start && !r.end) {
    int64_t end = r.jobEndTime ? *r.jobEndTime : r.detectedAt;
    if (*r.start > end) {
      scope["start_time"].fail(r.jobEndTime ? "is after the window's end (workload_context.job_end_time)"
                                            : "is after the window's end (failure_context.detected_at)");
    }
  }

  Field timeout = root["timeout_ms"];
  int64_t ms = timeout.integer();
  if (ms < 1) timeout.fail(fmt::format("must be at least 1 (milliseconds), not {}", ms));
  r.timeoutClamped = ms > limits.maxTimeoutMs;
  r.timeoutMs = std::min(ms, limits.maxTimeoutMs);

  if (root["continue_session"].given()) r.continueSession = text(root["continue_session"], 64);
  if (root["user_id"].given()) r.userId = text(root["user_id"], 256, true);
  return r;
}

}  // namespace attrib::service
