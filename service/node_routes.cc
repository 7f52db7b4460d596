// GET /v1/nodes and GET /v1/nodes/{node}/history: node histories and the repeat-offender
// suspects, read through the HistoryReader the Service was given (docs/history.md).
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "history/duration.h"
#include "history/history_json.h"
#include "httpd/message.h"
#include "ir/civil_time.h"
#include "service/service.h"

namespace attrib::service {
namespace {

// A path segment percent-decoded ('+' is itself in a path), refused when it is not a node
// name: empty, longer than 255 bytes, a bad escape or a control byte (NUL included).
std::string nodeName(const std::string& segment) {
  std::string out;
  if (!httpd::percentDecode(segment, /*plusIsSpace=*/false, &out)) {
    throw Failure(400, "node: a '%' must be followed by two hex digits");
  }
  for (char c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) throw Failure(400, "node: a node name has no control characters");
  }
  if (out.empty() || out.size() > 255) throw Failure(400, "node: a node name has 1 to 255 bytes");
  return out;
}

int64_t clockNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

httpd::Response rawJson(std::string body) {
  httpd::Response r;
  r.body = std::move(body);
  return r;
}

}  // namespace

void Service::nodeRoutes() {
  // ?since=14d (the window; default the policy's) and ?now=RFC3339 (default the clock).
  auto window = [this](const Call& c, int64_t* now) {
    *now = clockNow();
    if (auto t = c.request.head.param("now")) {
      auto parsed = parseRfc3339(*t);
      if (!parsed) throw Failure(400, "'now' must be an RFC 3339 time");
      *now = *parsed;
    }
    history::PolicyOptions policy = options_.historyPolicy;
    if (auto s = c.request.head.param("since")) {
      auto d = history::parseDuration(*s);
      if (!d) throw Failure(400, "'since' must be a duration: a positive number and s, m, h, d or w (14d)");
      policy.windowNs = *d;
    }
    return policy;
  };
  auto read = [this](history::HistoryQuery q) {
    if (!options_.history) throw Failure(404, "no node history here: start attrib serve with --history-db");
    std::vector<history::NodeEvent> events;
    std::string error;
    // The store's message names its file or server: the client learns only that it could not be
    // read. Not "overloaded": retrying soon helps only if the store comes back.
    if (!options_.history->events(q, &events, &error)) {
      throw Failure(503, "the history store could not be read", {}, "history_unavailable");
    }
    return history::groupByNode(std::move(events));
  };
  router_.add("GET", "/v1/nodes/{node}/history", Route{[window, read](const Call& c) {
    std::string node = nodeName(c.params.at(0));
    int64_t now;
    history::PolicyOptions policy = window(c, &now);
    history::HistoryQuery q;
    q.node = node;
    q.since = now - policy.windowNs;
    auto histories = read(q);
    history::NodeHistory empty{node, {}, {}};
    return rawJson(history::historyJson(histories.empty() ? empty : histories[0]));
  }, true, true, false});
  router_.add("GET", "/v1/nodes", Route{[window, read](const Call& c) {
    int64_t now;
    history::PolicyOptions policy = window(c, &now);
    std::string suspect = c.request.head.param("suspect").value_or("false");
    if (suspect != "true" && suspect != "false") throw Failure(400, "'suspect' must be true or false");
    history::HistoryQuery q;
    q.since = now - policy.windowNs;
    auto suspicions = history::evaluate(read(q), now, policy);
    return rawJson(history::suspicionsJson(suspicions, now, policy, suspect == "false"));
  }, true, true, false});
}

}  // namespace attrib::service
