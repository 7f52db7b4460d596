#include "service/service.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "evidence/workload_json.h"
#include "ir/civil_time.h"
#include "json/bounded_parse.h"
#include "json/field.h"
#include "runtime/verdict.h"

namespace attrib::service {

extern const char* const kOpenApiYaml;

namespace {

using nlohmann::json;
using attrib::json::Field;
using Clock = std::chrono::steady_clock;
using httpd::Response;

// YAML -> JSON for the OpenAPI document: quoted scalars stay strings; plain ones become numbers
// or booleans when they read as such.
json yamlToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : n) out[kv.first.as<std::string>()] = yamlToJson(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& v : n) out.push_back(yamlToJson(v));
      return out;
    }
    case YAML::NodeType::Scalar: {
      std::string s = n.Scalar();
      if (n.Tag() != "!") {
        if (s == "true" || s == "false") return s == "true";
        char* end = nullptr;
        long long i = std::strtoll(s.c_str(), &end, 10);
        if (!s.empty() && *end == 0) return i;
        double d = std::strtod(s.c_str(), &end);
        if (!s.empty() && *end == 0) return d;
      }
      return s;
    }
    default: return nullptr;
  }
}

// Equal in time independent of where the strings differ.
bool sameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() != b.size();
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// A store call that did not succeed, as the client's answer.
void check(const StoreStatus& s) {
  if (s) return;
  std::vector<httpd::Header> headers;
  if (s.status == 507 || s.status == 429) headers.push_back({"Retry-After", "5"});
  throw Failure(s.status, s.message, std::move(headers), s.code);
}

// Session ids are 32 hex digits; anything else names no session.
const std::string& sessionId(const Call& c, const char* what) {
  const std::string& id = c.params.at(0);
  bool hex = id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!hex) throw Failure(404, fmt::format("no such {} (it may have expired)", what));
  return id;
}

json countsJson(const SessionCounts& c) {
  return {{"lines", c.lines}, {"samples", c.samples}, {"files", c.files}, {"reports", c.reports}};
}

}  // namespace

std::string checkOptions(const ServiceOptions& o) {
  if (o.maxBodyBytes < 1) return "--max-body must be at least 1 byte";
  if (o.maxInFlight < 1) return "--max-in-flight must be at least 1";
  if (o.threads < 1) return "--threads must be at least 1";
  if (o.maxConnections < 1) return "--max-connections must be at least 1";
  if (o.headerTimeout.count() <= 0) return "--header-timeout must be more than 0 seconds";
  if (o.bodyTimeout.count() <= 0) return "--body-timeout must be more than 0 seconds";
  if (o.idleTimeout.count() <= 0) return "--idle-timeout must be more than 0 seconds";
  if (o.maxSessions < 1) return "--max-sessions must be at least 1";
  if (o.maxObservationsPerSession < 1) return "the observations per session must be at least 1";
  if (o.maxSessionBytes < 1) return "--max-session-bytes must be at least 1 byte";
  if (o.sessionTtl.count() <= 0) return "--session-ttl must be at least 1 second";
  return "";
}

Service::Service(std::shared_ptr<const runtime::Engine> engine, ServiceOptions options)
    : engine_(std::move(engine)), options_(std::move(options)), inFlight_(std::max<size_t>(1, options_.maxInFlight)) {
  store_ = options_.store;
  if (!store_) {
    SessionLimits limits;
    limits.maxSessions = options_.maxSessions;
    limits.maxObservationsPerSession = options_.maxObservationsPerSession;
    limits.maxSessionFileBytes = options_.maxSessionFileBytes;
    limits.maxBytes = options_.maxSessionBytes;
    limits.ttl = options_.sessionTtl;
    store_ = memorySessionStore(limits);
  }
  openapi_ = yamlToJson(YAML::Load(kOpenApiYaml)).dump();
  routes();
  httpd::ServerOptions server;
  server.maxConnections = options_.maxConnections;
  server.headerTimeout = options_.headerTimeout;
  server.bodyTimeout = options_.bodyTimeout;
  server.idleTimeout = options_.idleTimeout;
  server.workers = std::max(1u, options_.threads);
  server.errorResponse = [](int status, const std::string& message) { return errorResponse(status, message); };
  server.onExchange = [this](const httpd::Exchange& e) { record(e); };
  server_ = std::make_unique<httpd::Server>([this](const httpd::Head& h) { return admit(h); }, std::move(server));
}

Service::~Service() = default;

int Service::bind(const std::string& host, int port, std::string* error) { return server_->bind(host, port, error); }
void Service::serve() { server_->serve(); }
void Service::stop() { server_->stop(); }

httpd::Admission Service::admit(const httpd::Head& head) {
  httpd::Admission a;
  auto found = router_.find(head.method, head.path);
  a.route = found.pattern.empty() ? "unmatched" : found.pattern;
  if (found.status == 404) {
    a.answer = errorResponse(404, "no such route");
    return a;
  }
  if (found.status == 405) {
    a.answer = errorResponse(405, fmt::format("{} takes {}", found.pattern, found.allow));
    a.answer->headers.push_back({"Allow", found.allow});
    return a;
  }
  const Route& route = *found.value;
  if (route.authenticate && !options_.token.empty() && !sameSecret(head.header("Authorization"), "Bearer " + options_.token)) {
    a.answer = errorResponse(401, "a bearer token is required (Authorization: Bearer ...)");
    return a;
  }
  // Full already: refused before the body is read. The slot itself is taken once the body is
  // in, so that a client sending its body slowly holds a connection, never a handler's slot.
  if (route.counted && inFlight_.now() >= inFlight_.limit()) {
    a.answer = errorResponse(503, "too many requests in flight; retry later");
    return a;
  }
  a.maxBodyBytes = route.takesBody ? options_.maxBodyBytes : 0;
  a.respond = [this, handler = &route.handler, params = std::move(found.params), counted = route.counted](httpd::Request& request) {
    // Held by a guard: given back however the handler ends.
    std::shared_ptr<void> slot = counted ? inFlight_.acquire() : nullptr;
    if (counted && !slot) return errorResponse(503, "too many requests in flight; retry later");
    return runHandler(*handler, Call{request, params}, [this](const std::string&) {
      std::lock_guard<std::mutex> lock(metricsMu_);
      ++internalErrors_;
    });
  };
  return a;
}

Response Service::call(const std::string& method, const std::string& target, const std::string& body) {
  httpd::Request request;
  request.head.method = method;
  request.head.target = target;
  size_t q = target.find('?');
  request.head.path = target.substr(0, q);
  request.head.query = q == std::string::npos ? "" : target.substr(q + 1);
  request.body = body;
  request.head.contentLength = body.size();
  httpd::Admission a = admit(request.head);
  if (a.answer) return *a.answer;
  if (body.size() > a.maxBodyBytes) return errorResponse(413, "the request body is larger than the limit");
  return a.respond(request);
}

void Service::record(const httpd::Exchange& e) {
  if (options_.accessLog) {
    options_.accessLog(json{{"time", std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::system_clock::now().time_since_epoch()).count()},
                            {"method", e.method.empty() ? "-" : e.method},
                            {"route", e.route.empty() ? "-" : e.route},
                            {"status", e.status},
                            {"ms", std::round(e.ms * 100) / 100},
                            {"bytes_in", e.bytesIn},
                            {"bytes_out", e.bytesOut},
                            {"peer", e.peer}}
                           .dump(-1, ' ', false, json::error_handler_t::replace));
  }
  std::lock_guard<std::mutex> lock(metricsMu_);
  ++requests_[fmt::format("{} {}", e.route.empty() ? "-" : e.route, e.status)];
  latencySeconds_ += e.ms / 1000;
  ++latencyCount_;
}

std::string Service::attribute(const evidence::Workload& workload, wire::Observations observations, runtime::Verdict* out) {
  evidence::WorkloadEvidence evidence;
  evidence.workload = workload;
  evidence.logs = wire::logFiles(observations);
  evidence.lines = std::move(observations.lines);
  evidence.metrics = std::move(observations.metrics);
  evidence.reports = std::move(observations.reports);
  runtime::Verdict v = diagnose(std::move(evidence));
  std::string text = runtime::toJson(v);
  if (out) *out = std::move(v);
  return text;
}

runtime::Verdict Service::diagnose(evidence::WorkloadEvidence evidence) {
  runtime::Verdict v = engine()->diagnose(std::move(evidence));
  std::lock_guard<std::mutex> lock(metricsMu_);
  ++verdicts_[runtime::verdictFamily(v)];
  bytesScanned_ += v.stats.bytesScanned;
  return v;
}

std::string Service::metricsText() {
  size_t sessions = store_->sessions();
  uint64_t bytes = store_->bytes();
  std::string out = "# TYPE attrib_requests_total counter\n";
  std::lock_guard<std::mutex> lock(metricsMu_);
  for (const auto& [k, n] : requests_) {
    size_t sp = k.rfind(' ');
    out += fmt::format("attrib_requests_total{{route=\"{}\",status=\"{}\"}} {}\n", k.substr(0, sp), k.substr(sp + 1), n);
  }
  out += "# TYPE attrib_request_seconds summary\n";
  out += fmt::format("attrib_request_seconds_sum {}\nattrib_request_seconds_count {}\n", latencySeconds_, latencyCount_);
  out += "# TYPE attrib_verdicts_total counter\n";
  for (const auto& [family, n] : verdicts_) out += fmt::format("attrib_verdicts_total{{family=\"{}\"}} {}\n", family, n);
  out += fmt::format("# TYPE attrib_scan_bytes_total counter\nattrib_scan_bytes_total {}\n", bytesScanned_);
  out += fmt::format("# TYPE attrib_internal_errors_total counter\nattrib_internal_errors_total {}\n", internalErrors_);
  out += fmt::format("# TYPE attrib_sessions gauge\nattrib_sessions {}\n", sessions);
  out += fmt::format("# TYPE attrib_session_bytes gauge\nattrib_session_bytes {}\n", bytes);
  out += fmt::format("# TYPE attrib_in_flight gauge\nattrib_in_flight {}\n", inFlight_.now());
  return out;
}

void Service::routes() {
  // GETs and the POSTs that act on what the Service holds take no body.
  auto add = [this](const char* method, const char* pattern, Handler h, bool authenticate = true, bool counted = true) {
    bool takesBody = std::string_view(method) == "POST" && std::string_view(pattern) != "/v1/rulesets/reload" &&
                     std::string_view(pattern) != "/v1/sessions/{id}/attribute";
    router_.add(method, pattern, Route{std::move(h), authenticate, counted, takesBody});
  };
  add("GET", "/openapi.json", [this](const Call&) {
    Response r;
    r.body = openapi_;
    return r;
  }, false, false);
  add("GET", "/healthz", [](const Call&) { return jsonResponse({{"status", "ok"}}); }, false, false);
  add("GET", "/readyz", [this](const Call&) { return jsonResponse({{"status", "ready"}, {"evaluator", engine()->evaluator().name}}); },
      false, false);
  auto describe = [](const runtime::Engine& e) {
    const auto& b = e.bundle();
    return json{{"name", b.program.name}, {"version", b.program.version}, {"digest", b.digest}, {"evaluator", e.evaluator().name}};
  };
  add("GET", "/v1/rulesets", [this, describe](const Call&) {
    // The limits tell clients such as `attrib run` how to split their evidence.
    return jsonResponse({{"rulesets", json::array({describe(*engine())})},
                         {"limits",
                          {{"max_body_bytes", options_.maxBodyBytes},
                           {"max_observations_per_session", options_.maxObservationsPerSession},
                           {"max_session_file_bytes", options_.maxSessionFileBytes},
                           {"max_session_bytes", options_.maxSessionBytes}}}});
  });
  add("POST", "/v1/rulesets/reload", [this, describe](const Call&) {
    if (!options_.reload) throw Failure(404, "this service was not started with reloadable rules");
    std::string error;
    auto fresh = options_.reload(&error);
    if (!fresh) throw Failure(400, "the rules could not be loaded; the old ones stay: " + error);
    std::atomic_store(&engine_, std::shared_ptr<const runtime::Engine>(fresh));
    return jsonResponse({{"rulesets", json::array({describe(*fresh)})}});
  });
  add("GET", "/metrics", [this](const Call&) {
    Response r;
    r.contentType = "text/plain; version=0.0.4";
    r.body = metricsText();
    return r;
  });
  add("POST", "/v1/sessions", [this](const Call& c) {
    evidence::Workload workload;
    std::string error;
    if (!evidence::parseWorkloadJson(c.request.body, &workload, &error)) throw Failure(400, error);
    std::string id;
    check(store_->create(std::move(workload), &id));
    return jsonResponse({{"id", id}}, 201);
  });
  add("POST", "/v1/sessions/{id}/observations", [this](const Call& c) {
    const std::string& id = sessionId(c, "session");
    std::string format = c.request.head.param("format").value_or("attrib");
    wire::Observations parsed;
    std::optional<evidence::Workload> scheduler;
    std::string error;
    // `scheduler`: the scheduler's state as it now is (workload.json format) replaces the
    // session's context; anything else is evidence.
    if (format == "scheduler") {
      scheduler.emplace();
      if (!evidence::parseWorkloadJson(c.request.body, &*scheduler, &error)) throw Failure(400, error);
    } else if (!wire::parseObservations(format, c.request.body, &parsed, &error)) {
      throw Failure(400, error);
    }
    SessionCounts counts;
    uint64_t sequence = 0;
    check(store_->append(id, std::move(parsed), std::move(scheduler), &counts, &sequence));
    return jsonResponse(countsJson(counts));
  });
  add("POST", "/v1/sessions/{id}/attribute", [this](const Call& c) {
    const std::string& id = sessionId(c, "session");
    evidence::Workload workload;
    wire::Observations copy;
    std::shared_ptr<void> hold;
    check(store_->snapshot(id, &workload, &copy, &hold));
    std::string verdict = attribute(workload, std::move(copy));
    hold.reset();
    store_->setVerdict(id, verdict);
    Response r;
    r.body = std::move(verdict);
    return r;
  });
  add("GET", "/v1/sessions/{id}", [this](const Call& c) {
    const std::string& id = sessionId(c, "session");
    std::string workloadId, verdict;
    SessionCounts counts;
    check(store_->describe(id, &workloadId, &counts, &verdict));
    json out = countsJson(counts);
    out["id"] = id;
    out["workload"] = workloadId;
    Response r;
    r.body = out.dump(-1, ' ', false, json::error_handler_t::replace);
    // The verdict is the Service's own JSON: spliced in as it is, not parsed again.
    r.body.pop_back();
    r.body += ",\"verdict\":" + (verdict.empty() ? std::string("null") : verdict) + "}";
    return r;
  });
  add("POST", "/v1/attribute", [this](const Call& c) {
    json body = bodyObject(c.request);
    Field root(body);
    evidence::Workload workload;
    std::string error;
    if (root["workload"].given() && !evidence::workloadFromJson(root["workload"].raw(), &workload, &error)) {
      throw Failure(400, "workload: " + error);
    }
    wire::Observations all;
    Field observations = root["observations"];
    if (observations.present() && !observations.isArray()) throw Failure(400, "'observations' must be a list of {format, data}");
    for (size_t i = 0; observations.present() && i < observations.size(); ++i) {
      Field o = observations[i];
      if (!o.isObject() || !o["data"].present()) throw Failure(400, fmt::format("observations[{}]: 'data' is required", i));
      std::string format = o["format"].stringOr("attrib");
      // `data` is the format's text, or for the JSON formats the document itself (whose depth
      // the body's parse has bounded).
      std::string data = o["data"].isString() ? o["data"].string() : o["data"].raw().dump(-1, ' ', false, json::error_handler_t::replace);
      if (!wire::parseObservations(format, data, &all, &error)) throw Failure(400, fmt::format("observations[{}]: {}", i, error));
    }
    wire::Observations whole;  // every file must be there from its first byte
    if (!wire::mergeObservations(&whole, std::move(all), &error)) throw Failure(400, "observations: " + error);
    Response r;
    r.body = attribute(workload, std::move(whole));
    return r;
  });
  v1Routes();
  nodeRoutes();
  recoveryRoutes();
}

// The reference product's V1 API, so its existing clients work unchanged:
//   POST /latest/attributor                      {workload, metadata} -> {attributor_id}
//   POST /latest/attributor/{id}/observation     {context: {source, format, time_interval}, body: "<JSON>"}
//   GET  /latest/attributor/{id}/attribution     {attributions: [NodeAttribution...]}
void Service::v1Routes() {
  router_.add("POST", "/latest/attributor", Route{[this](const Call& c) {
    json body = bodyObject(c.request);
    Field root(body);
    if (!root["workload"].isObject()) throw Failure(400, "'workload' (an object) is required");
    Field w = root["workload"];
    evidence::Workload workload;
    workload.id = w["id"].stringOr("");
    workload.scheduler = w["type"].stringOr("slurm");
    if (workload.scheduler.empty()) workload.scheduler = "slurm";
    workload.name = w["name"].stringOr("");
    workload.user = w["username"].stringOr("");
    std::string status = w["status"].stringOr("");
    for (char& ch : status) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (!status.empty() && !ir::stateFromName(status, &workload.state)) {
      throw Failure(400, "workload.status: unknown state '" + status.substr(0, 64) + "'");
    }
    for (auto [key, slot] : {std::pair{"job_start_time", &workload.start}, std::pair{"job_end_time", &workload.end}}) {
      std::string text = w[key].stringOr("");
      if (text.empty()) continue;
      *slot = attrib::parseRfc3339(text);
      if (!*slot) throw Failure(400, fmt::format("workload.{}: not an ISO-8601 time", key));
    }
    if (w["nodes"].given()) {
      for (size_t i = 0; i < w["nodes"].size(); ++i) workload.nodes.push_back(w["nodes"][i].string());
    }
    workload.ranks = w["nranks"].optionalInteger();
    workload.ranksPerNode = w["ranks_per_node"].optionalInteger();
    workload.exitCode = w["exit_code_signal"].optionalInteger();
    std::string id;
    check(store_->create(std::move(workload), &id));
    return jsonResponse({{"attributor_id", id}});
  }});
  router_.add("POST", "/latest/attributor/{id}/observation", Route{[this](const Call& c) {
    const std::string& id = sessionId(c, "attributor");
    wire::Observations parsed;
    std::string error;
    if (!wire::parseV1Observation(c.request.body, &parsed, &error)) throw Failure(400, error);
    SessionCounts counts;
    uint64_t sequence = 0;
    StoreStatus s = store_->append(id, std::move(parsed), std::nullopt, &counts, &sequence);
    if (s.status == 404) throw Failure(404, "no such attributor (it may have expired)");
    check(s);
    return jsonResponse({{"observation_id", sequence}});
  }});
  router_.add("GET", "/latest/attributor/{id}/attribution", Route{[this](const Call& c) {
    const std::string& id = sessionId(c, "attributor");
    evidence::Workload workload;
    wire::Observations copy;
    std::shared_ptr<void> hold;
    StoreStatus s = store_->snapshot(id, &workload, &copy, &hold);
    if (s.status == 404) throw Failure(404, "no such attributor (it may have expired)");
    check(s);
    runtime::Verdict verdict;
    attribute(workload, std::move(copy), &verdict);
    hold.reset();
    // One NodeAttribution per bad node; its nested list says why (non-empty: faulty), each
    // with the verdict's outcome and family (the first outcome; "unknown" when none).
    std::string outcome = verdict.outcomes.empty() ? "unknown" : verdict.outcomes[0].name;
    std::string family = verdict.outcomes.empty() ? "unknown" : verdict.outcomes[0].family;
    json items = json::array();
    for (const auto& node : verdict.badNodes) {
      json reasons = json::array();
      for (const auto& symptom : node.symptoms) {
        reasons.push_back({{"symptom", symptom},
                           {"outcome", outcome},
                           {"family", family},
                           {"confidence", std::round(verdict.confidence * 1000) / 1000}});
      }
      items.push_back({{"type", "NodeAttribution"}, {"node", node.node}, {"attributions", reasons}});
    }
    return jsonResponse({{"attributions", items}});
  }, true, true, false});
}

}  // namespace attrib::service
