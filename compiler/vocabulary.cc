#include "compiler/vocabulary.h"

#include <fmt/format.h>

#include <algorithm>

#include "ir/log_channels.h"

namespace attrib {

const std::vector<std::string>& failureFamilies() {
  static const std::vector<std::string> v = {
      "accelerator-gpu", "accelerator-memory", "accelerator-fabric", "network-fabric", "host-hardware",
      "kernel-fatal", "host-oom", "device-oom", "storage", "communication", "scheduler-timeout",
      "scheduler-preemption", "scheduler-cancel", "node-failure", "orchestration", "software-framework",
      "user-code", "numerics", "unknown"};
  return v;
}

const std::vector<std::string>& logSources() { return ir::sourceWords(); }

const std::vector<std::string>& terminalStates() {
  static const std::vector<std::string> v = {"COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL",
                                             "OUT_OF_MEMORY", "PREEMPTED", "EVICTED", "BOOT_FAIL", "DEADLINE",
                                             "RUNNING", "UNKNOWN"};
  return v;
}

const std::vector<std::string>& knownActions() {
  static const std::vector<std::string> v = {
      "none", "restart", "resubmit", "drain_node", "reboot_node", "reset_gpu", "replace_gpu", "check_fabric",
      "check_storage", "fix_code", "fix_config", "increase_memory", "increase_time_limit", "investigate", "stop"};
  return v;
}

std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  // Optimal string alignment distance: edits plus adjacent transpositions (xid97 -> xid79 is 1).
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
    return d[a.size()][b.size()];
  };
  std::string best;
  size_t bestDistance = std::max<size_t>(1, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    if (c.size() > word.size() + bestDistance || word.size() > c.size() + bestDistance) continue;
    size_t d = distance(word, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best;
}

const std::vector<std::string>& severities() {
  static const std::vector<std::string> v = {"critical", "error", "warning", "info"};
  return v;
}

const std::vector<std::string>& blames() {
  static const std::vector<std::string> v = {"gpu", "node", "rank", "workload", "none"};
  return v;
}

const std::vector<std::string>& roles() {
  static const std::vector<std::string> v = {"cause", "consequence", "context"};
  return v;
}

const std::vector<std::string>& ruleStatuses() {
  static const std::vector<std::string> v = {"experimental", "test", "stable", "deprecated"};
  return v;
}

const std::vector<std::string>& rulePhases() {
  static const std::vector<std::string> v = {"early", "main", "final", "post_outcome"};
  return v;
}

std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string m = closestMatch(word, candidates);
  return m.empty() ? "" : fmt::format("; did you mean '{}'?", m);
}

bool contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

}  // namespace attrib
