#include "evidence/workload_json.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "evidence/line_prefix.h"
#include "ir/civil_time.h"
#include "json/bounded_parse.h"

namespace attrib::evidence {
using nlohmann::json;

// RFC 3339 text or a number of seconds since the epoch.
bool parseTimeValue(const json& v, int64_t* out) {
  if (v.is_number()) {
    double seconds = v.get<double>();
    if (!std::isfinite(seconds) || std::fabs(seconds) > 9.2e9) return false;
    *out = static_cast<int64_t>(seconds * 1e9);
    return true;
  }
  if (!v.is_string()) return false;
  std::string s = v.get<std::string>();
  LinePrefix p = parseLinePrefix(s);
  if (!p.time || p.length < s.size()) {
    // parseLinePrefix accepts trailing text; a timestamp field must be only a timestamp.
    std::string_view rest = std::string_view(s).substr(p.length);
    if (!p.time || rest.find_first_not_of(" ") != std::string_view::npos) return false;
  }
  *out = *p.time;
  return true;
}

bool parseWorkloadJson(const std::string& text, Workload* w, std::string* error) {
  json j;
  std::string why;
  if (!attrib::json::parse(text, &j, &why)) {
    // Too deep is said as such; anything else that is not JSON keeps the one message.
    *error = why.rfind("nests", 0) == 0 ? "workload.json " + why : "workload.json is not a JSON object";
    return false;
  }
  return workloadFromJson(j, w, error);
}

bool workloadFromJson(const json& j, Workload* w, std::string* error) {
  if (!j.is_object()) {
    *error = "workload.json is not a JSON object";
    return false;
  }
  auto member = [&](const char* key) -> const json* {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  };
  auto str = [&](const char* key, std::string* out) {
    const json* v = member(key);
    if (!v) return true;
    if (v->is_string()) { *out = v->get<std::string>(); return true; }
    if (v->is_number_integer()) { *out = v->dump(); return true; }
    *error = fmt::format("workload.json: \"{}\" must be a string", key);
    return false;
  };
  auto integer = [&](const char* key, std::optional<int64_t>* out) {
    const json* v = member(key);
    if (!v) return true;
    if (v->is_number_integer() && !(v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX))) {
      *out = v->get<int64_t>();
      return true;
    }
    *error = fmt::format("workload.json: \"{}\" must be an integer", key);
    return false;
  };
  auto time = [&](const char* key, std::optional<int64_t>* out) {
    const json* v = member(key);
    if (!v) return true;
    int64_t t;
    if (parseTimeValue(*v, &t)) { *out = t; return true; }
    *error = fmt::format("workload.json: \"{}\" must be an RFC 3339 time such as 2026-01-01T10:00:00Z", key);
    return false;
  };
  std::string state;
  if (!str("id", &w->id) || !str("scheduler", &w->scheduler) || !str("name", &w->name) || !str("user", &w->user) ||
      !str("partition", &w->partition) || !str("state", &state) || !integer("exit_code", &w->exitCode) ||
      !integer("signal", &w->signal) || !time("start", &w->start) || !time("end", &w->end) ||
      !integer("ranks_per_node", &w->ranksPerNode) || !integer("ranks", &w->ranks) ||
      !integer("tasks_per_node", &w->tasksPerNode) || !str("reason", &w->reason)) {
    return false;
  }
  if (!state.empty()) {
    std::string upper = state;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == "CANCELED") upper = "CANCELLED";
    if (!ir::stateFromName(upper, &w->state)) {
      *error = fmt::format("workload.json: unknown state \"{}\"", state.substr(0, 64));
      return false;
    }
  }
  if (const json* nodes = member("nodes")) {
    if (!nodes->is_array()) {
      *error = "workload.json: \"nodes\" must be a list of node names";
      return false;
    }
    for (const auto& n : *nodes) {
      if (!n.is_string()) {
        *error = "workload.json: \"nodes\" must be a list of node names";
        return false;
      }
      w->nodes.push_back(n.get<std::string>());
    }
  }
  return true;
}

std::string workloadToJson(const Workload& w) {
  json j = json::object();
  j["id"] = w.id;
  auto text = [&](const char* key, const std::string& v) {
    if (!v.empty()) j[key] = v;
  };
  auto integer = [&](const char* key, const std::optional<int64_t>& v) {
    if (v) j[key] = *v;
  };
  text("scheduler", w.scheduler);
  text("name", w.name);
  text("user", w.user);
  text("partition", w.partition);
  if (w.state != ir::State::Unknown) j["state"] = ir::stateName(w.state);
  integer("exit_code", w.exitCode);
  integer("signal", w.signal);
  if (w.start) j["start"] = formatTimestamp(*w.start);
  if (w.end) j["end"] = formatTimestamp(*w.end);
  j["nodes"] = w.nodes;
  integer("ranks_per_node", w.ranksPerNode);
  integer("ranks", w.ranks);
  integer("tasks_per_node", w.tasksPerNode);
  text("reason", w.reason);
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace attrib::evidence
