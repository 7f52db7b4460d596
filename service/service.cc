#include "service/service.h"

#include <fmt/format.h>
#include <httplib.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "evidence/workload_json.h"
#include "ir/civil_time.h"
#include "runtime/verdict.h"

namespace attrib::service {

extern const char* const kOpenApiYaml;

namespace {


using nlohmann::json;
using Clock = std::chrono::steady_clock;

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

const char* codeName(int status) {
  switch (status) {
    case 400: return "bad_request";
    case 401: return "unauthorized";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 413: return "payload_too_large";
    case 429: return "too_many_sessions";
    case 503: return "overloaded";
    default: return status >= 500 ? "internal" : "error";
  }
}

void fail(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json{{"error", {{"code", codeName(status)}, {"message", message}}}}.dump(), "application/json");
}

std::string newId() {
  static std::mutex mu;
  static std::mt19937_64 rng(std::random_device{}());
  std::lock_guard<std::mutex> lock(mu);
  return fmt::format("{:016x}{:016x}", rng(), rng());
}

// Equal in time independent of where the strings differ.
bool sameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() != b.size();
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

Service::Service(std::shared_ptr<const runtime::Engine> engine, ServiceOptions options)
    : engine_(std::move(engine)), options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
  unsigned threads = std::max(1u, options_.threads);
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_payload_max_length(options_.maxBodyBytes);
  server_->set_read_timeout(30, 0);
  server_->set_write_timeout(30, 0);
  server_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {
      fail(res, res.status, res.status == 413 ? "the request body is larger than the limit" : "no such route");
    }
  });
  server_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    fail(res, 500, "internal error");  // no details: they could carry evidence or secrets
  });
  routes();
}

Service::~Service() = default;

int Service::bind(const std::string& host, int port, std::string* error) {
  int bound = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound < 0) *error = fmt::format("cannot listen on {}:{}", host, port);
  return bound;
}

void Service::serve() { server_->listen_after_bind(); }
void Service::stop() { server_->stop(); }

void Service::expire() {
  auto now = Clock::now();
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (now - it->second.used > options_.sessionTtl) it = sessions_.erase(it);
    else ++it;
  }
}

Service::Session* Service::findSession(const std::string& id) {
  expire();
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

bool Service::addObservations(Session& session, wire::Observations& parsed, const char* what, std::string* error) {
  size_t total = session.observations.lines.size() + session.observations.metrics.size() + parsed.lines.size() +
                 parsed.metrics.size();
  if (total > options_.maxObservationsPerSession) {
    *error = fmt::format("{} holds at most {} observations", what, options_.maxObservationsPerSession);
    return false;
  }
  if (session.observations.fileBytes() + parsed.fileBytes() > options_.maxSessionFileBytes) {
    *error = fmt::format("{} holds at most {} bytes of files", what, options_.maxSessionFileBytes);
    return false;
  }
  std::string why;
  if (!wire::mergeObservations(&session.observations, std::move(parsed), &why)) {
    *error = why;
    return false;
  }
  session.used = Clock::now();
  return true;
}

bool Service::snapshot(const std::string& id, evidence::Workload* workload, wire::Observations* observations) {
  std::lock_guard<std::mutex> lock(mu_);
  Session* session = findSession(id);
  if (!session) return false;
  *workload = session->workload;
  *observations = session->observations;
  session->used = Clock::now();
  return true;
}

std::string Service::attribute(const evidence::Workload& workload, wire::Observations observations) {
  evidence::WorkloadEvidence evidence;
  evidence.workload = workload;
  evidence.logs = wire::logFiles(observations);
  evidence.lines = std::move(observations.lines);
  evidence.metrics = std::move(observations.metrics);
  evidence.reports = std::move(observations.reports);
  runtime::Verdict v = engine()->diagnose(std::move(evidence));
  {
    std::lock_guard<std::mutex> lock(metricsMu_);
    ++verdicts_[v.outcomes.empty() ? "unknown" : v.outcomes[0].family];
    bytesScanned_ += v.stats.bytesScanned;
  }
  return runtime::toJson(v);
}

void Service::routes() {
  // Every route goes through here: authentication, the in-flight bound, metrics.
  auto guarded = [this](const std::string& route, bool authenticate, auto handler) {
    return [this, route, authenticate, handler](const httplib::Request& req, httplib::Response& res) {
      auto started = Clock::now();
      size_t inFlight = ++inFlight_;
      if (inFlight > options_.maxInFlight) {
        res.set_header("Retry-After", "1");
        fail(res, 503, "too many requests in flight; retry later");
      } else if (authenticate && !options_.token.empty() &&
                 !sameSecret(req.get_header_value("Authorization"), "Bearer " + options_.token)) {
        fail(res, 401, "a bearer token is required (Authorization: Bearer ...)");
      } else {
        handler(req, res);
      }
      --inFlight_;
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
      if (options_.accessLog) {
        options_.accessLog(json{{"time", std::chrono::duration_cast<std::chrono::milliseconds>(
                                             std::chrono::system_clock::now().time_since_epoch()).count()},
                                {"method", req.method},
                                {"route", route},
                                {"status", res.status > 0 ? res.status : 200},
                                {"ms", std::round(ms * 100) / 100},
                                {"bytes_in", req.body.size()},
                                {"bytes_out", res.body.size()},
                                {"peer", req.remote_addr}}
                               .dump());
      }
      std::lock_guard<std::mutex> lock(metricsMu_);
      ++requests_[fmt::format("{} {}", route, res.status > 0 ? res.status : 200)];  // httplib sets 200 after us
      latencySeconds_ += std::chrono::duration<double>(Clock::now() - started).count();
      ++latencyCount_;
    };
  };
  auto& s = *server_;
  std::string openapi = yamlToJson(YAML::Load(kOpenApiYaml)).dump();
  s.Get("/openapi.json", guarded("/openapi.json", false, [openapi](const httplib::Request&, httplib::Response& res) {
    res.set_content(openapi, "application/json");
  }));
  s.Get("/healthz", guarded("/healthz", false, [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"status":"ok"})", "application/json");
  }));
  s.Get("/readyz", guarded("/readyz", false, [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"status", "ready"}, {"evaluator", engine()->evaluator().name}}.dump(), "application/json");
  }));
  auto describe = [](const runtime::Engine& e) {
    const auto& b = e.bundle();
    return json{{"name", b.program.name}, {"version", b.program.version}, {"digest", b.digest}, {"evaluator", e.evaluator().name}};
  };
  s.Get("/v1/rulesets", guarded("/v1/rulesets", true, [this, describe](const httplib::Request&, httplib::Response& res) {
    // The limits tell clients such as `attrib run` how to split their evidence.
    res.set_content(json{{"rulesets", json::array({describe(*engine())})},
                         {"limits",
                          {{"max_body_bytes", options_.maxBodyBytes},
                           {"max_observations_per_session", options_.maxObservationsPerSession},
                           {"max_session_file_bytes", options_.maxSessionFileBytes}}}}
                        .dump(),
                    "application/json");
  }));
  s.Post("/v1/rulesets/reload", guarded("/v1/rulesets/reload", true, [this, describe](const httplib::Request&, httplib::Response& res) {
    if (!options_.reload) return fail(res, 404, "this service was not started with reloadable rules");
    std::string error;
    auto fresh = options_.reload(&error);
    if (!fresh) return fail(res, 400, "the rules could not be loaded; the old ones stay: " + error);
    std::atomic_store(&engine_, std::shared_ptr<const runtime::Engine>(fresh));
    res.set_content(json{{"rulesets", json::array({describe(*fresh)})}}.dump(), "application/json");
  }));
  s.Get("/metrics", guarded("/metrics", true, [this](const httplib::Request&, httplib::Response& res) {
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
    {
      std::lock_guard<std::mutex> sessions(mu_);
      out += fmt::format("# TYPE attrib_sessions gauge\nattrib_sessions {}\n", sessions_.size());
    }
    res.set_content(out, "text/plain; version=0.0.4");
  }));
  s.Post("/v1/sessions", guarded("/v1/sessions", true, [this](const httplib::Request& req, httplib::Response& res) {
    evidence::Workload workload;
    std::string error;
    if (!evidence::parseWorkloadJson(req.body, &workload, &error)) return fail(res, 400, error);
    std::lock_guard<std::mutex> lock(mu_);
    expire();
    if (sessions_.size() >= options_.maxSessions) {
      return fail(res, 429, fmt::format("at most {} sessions; attribute or let old ones expire", options_.maxSessions));
    }
    std::string id = newId();
    sessions_[id] = {std::move(workload), {}, "", Clock::now()};
    res.status = 201;
    res.set_content(json{{"id", id}}.dump(), "application/json");
  }));
  s.Post(R"(/v1/sessions/([0-9a-f]+)/observations)",
         guarded("/v1/sessions/{id}/observations", true, [this](const httplib::Request& req, httplib::Response& res) {
           std::string format = req.has_param("format") ? req.get_param_value("format") : "attrib";
           wire::Observations parsed;
           std::string error;
           evidence::Workload scheduler;
           // `scheduler`: the scheduler's state as it now is (workload.json format) replaces the
           // session's context; anything else is evidence.
           if (format == "scheduler") {
             if (!evidence::parseWorkloadJson(req.body, &scheduler, &error)) return fail(res, 400, error);
           } else if (!wire::parseObservations(format, req.body, &parsed, &error)) {
             return fail(res, 400, error);
           }
           std::lock_guard<std::mutex> lock(mu_);
           Session* found = findSession(req.matches[1]);
           if (!found) return fail(res, 404, "no such session (it may have expired)");
           Session& session = *found;
           if (!addObservations(session, parsed, "a session", &error)) return fail(res, 413, error);
           if (format == "scheduler") {
             if (scheduler.id.empty()) scheduler.id = session.workload.id;
             session.workload = std::move(scheduler);
           }
           res.set_content(json{{"lines", session.observations.lines.size()},
                                {"samples", session.observations.metrics.size()},
                                {"files", session.observations.files.size()},
                                {"reports", session.observations.reports.size()}}
                               .dump(),
                           "application/json");
         }));
  s.Post(R"(/v1/sessions/([0-9a-f]+)/attribute)",
         guarded("/v1/sessions/{id}/attribute", true, [this](const httplib::Request& req, httplib::Response& res) {
           evidence::Workload workload;
           wire::Observations copy;
           if (!snapshot(req.matches[1], &workload, &copy)) return fail(res, 404, "no such session (it may have expired)");
           std::string verdict = attribute(workload, std::move(copy));
           {
             std::lock_guard<std::mutex> lock(mu_);
             auto it = sessions_.find(req.matches[1]);
             if (it != sessions_.end()) it->second.verdict = verdict;
           }
           res.set_content(verdict, "application/json");
         }));
  s.Get(R"(/v1/sessions/([0-9a-f]+))", guarded("/v1/sessions/{id}", true, [this](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    const Session* session = findSession(req.matches[1]);
    if (!session) return fail(res, 404, "no such session (it may have expired)");
    json out = {{"id", req.matches[1].str()},
                {"workload", session->workload.id},
                {"lines", session->observations.lines.size()},
                {"samples", session->observations.metrics.size()},
                {"files", session->observations.files.size()},
                {"reports", session->observations.reports.size()},
                {"verdict", session->verdict.empty() ? json() : json::parse(session->verdict)}};
    res.set_content(out.dump(), "application/json");
  }));
  s.Post("/v1/attribute", guarded("/v1/attribute", true, [this](const httplib::Request& req, httplib::Response& res) {
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) return fail(res, 400, "the body is not a JSON object");
    evidence::Workload workload;
    std::string error;
    if (body.contains("workload") && !evidence::parseWorkloadJson(body["workload"].dump(), &workload, &error)) {
      return fail(res, 400, "workload: " + error);
    }
    wire::Observations all;
    if (body.contains("observations")) {
      if (!body["observations"].is_array()) return fail(res, 400, "'observations' must be a list of {format, data}");
      for (size_t i = 0; i < body["observations"].size(); ++i) {
        const json& o = body["observations"][i];
        if (!o.is_object() || !o.contains("data")) return fail(res, 400, fmt::format("observations[{}]: 'data' is required", i));
        std::string format = o.value("format", "attrib");
        std::string data = o["data"].is_string() ? o["data"].get<std::string>() : o["data"].dump();
        if (!wire::parseObservations(format, data, &all, &error)) return fail(res, 400, fmt::format("observations[{}]: {}", i, error));
      }
    }
    wire::Observations whole;  // every file must be there from its first byte
    if (!wire::mergeObservations(&whole, std::move(all), &error)) return fail(res, 400, "observations: " + error);
    all = std::move(whole);
    res.set_content(attribute(workload, std::move(all)), "application/json");
  }));
  v1Routes(guarded);
}

// The reference product's V1 API, so its existing clients work unchanged:
//   POST /latest/attributor                      {workload, metadata} -> {attributor_id}
//   POST /latest/attributor/{id}/observation     {context: {source, format, time_interval}, body: "<JSON>"}
//   GET  /latest/attributor/{id}/attribution     {attributions: [NodeAttribution...]}
template <typename Guard>
void Service::v1Routes(Guard& guarded) {
  auto& s = *server_;
  s.Post("/latest/attributor", guarded("/latest/attributor", true, [this](const httplib::Request& req, httplib::Response& res) {
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("workload") || !body["workload"].is_object()) {
      return fail(res, 400, "'workload' (an object) is required");
    }
    const json& w = body["workload"];
    auto text = [&](const char* k) { return w.contains(k) && w[k].is_string() ? w[k].get<std::string>() : std::string(); };
    evidence::Workload workload;
    workload.id = text("id");
    workload.scheduler = text("type").empty() ? "slurm" : text("type");
    workload.name = text("name");
    workload.user = text("username");
    std::string status = text("status");
    for (char& c : status) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!status.empty() && !ir::stateFromName(status, &workload.state)) return fail(res, 400, "workload.status: unknown state '" + status + "'");
    for (auto [key, slot] : {std::pair{"job_start_time", &workload.start}, std::pair{"job_end_time", &workload.end}}) {
      if (text(key).empty()) continue;
      *slot = attrib::parseRfc3339(text(key));
      if (!*slot) return fail(res, 400, fmt::format("workload.{}: not an ISO-8601 time", key));
    }
    if (w.contains("nodes") && w["nodes"].is_array()) {
      for (const auto& n : w["nodes"]) if (n.is_string()) workload.nodes.push_back(n.get<std::string>());
    }
    if (w.contains("nranks") && w["nranks"].is_number_integer()) workload.ranks = w["nranks"].get<int64_t>();
    if (w.contains("ranks_per_node") && w["ranks_per_node"].is_number_integer()) workload.ranksPerNode = w["ranks_per_node"].get<int64_t>();
    if (w.contains("exit_code_signal") && w["exit_code_signal"].is_number_integer()) workload.exitCode = w["exit_code_signal"].get<int64_t>();
    std::lock_guard<std::mutex> lock(mu_);
    expire();
    if (sessions_.size() >= options_.maxSessions) return fail(res, 429, "too many attributors");
    std::string id = newId();
    sessions_[id] = {std::move(workload), {}, "", Clock::now()};
    res.set_content(json{{"attributor_id", id}}.dump(), "application/json");
  }));
  s.Post(R"(/latest/attributor/([0-9a-f]+)/observation)",
         guarded("/latest/attributor/{id}/observation", true, [this](const httplib::Request& req, httplib::Response& res) {
           json body = json::parse(req.body, nullptr, false);
           if (!body.is_object() || !body.contains("body") || !body["body"].is_string()) {
             return fail(res, 400, "'body' (a JSON string) is required");
           }
           const json context = body.contains("context") && body["context"].is_object() ? body["context"] : json::object();
           std::string format = context.value("format", "raw_loki_streams");
           std::string source = context.value("source", "");
           wire::Observations parsed;
           std::string error;
           if (format == "raw_loki_streams") {
             // V1's stream values carry a JSON payload {body, severity, attributes: {hostname, appname}}.
             json streams = json::parse(body["body"].get<std::string>(), nullptr, false);
             if (streams.is_object() && streams.contains("streams")) streams = streams["streams"];
             if (!streams.is_array()) return fail(res, 400, "body: not a list of Loki streams");
             for (size_t i = 0; i < streams.size(); ++i) {
               const json& st = streams[i];
               if (!st.is_object() || !st.contains("values") || !st["values"].is_array()) {
                 return fail(res, 400, fmt::format("body[{}]: 'values' is required", i));
               }
               const json labels = st.contains("stream") && st["stream"].is_object() ? st["stream"] : json::object();
               for (const auto& v : st["values"]) {
                 if (!v.is_array() || v.size() < 2 || !v[0].is_string() || !v[1].is_string()) {
                   return fail(res, 400, fmt::format("body[{}].values: must be [\"<ns>\", \"<payload>\"]", i));
                 }
                 evidence::LogLine line;
                 const std::string& ts = v[0].get_ref<const std::string&>();
                 int64_t t = 0;
                 auto [p, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
                 if (ec != std::errc() || p != ts.data() + ts.size()) return fail(res, 400, fmt::format("body[{}]: bad timestamp '{}'", i, ts));
                 line.time = t;
                 json payload = json::parse(v[1].get<std::string>(), nullptr, false);
                 if (payload.is_object() && payload.contains("body") && payload["body"].is_string()) {
                   line.text = payload["body"].get<std::string>();
                   if (payload.contains("attributes") && payload["attributes"].is_object()) {
                     line.node = payload["attributes"].value("hostname", "");
                   }
                 } else {
                   line.text = v[1].get<std::string>();
                 }
                 if (line.node.empty()) line.node = labels.value("hostname", labels.value("node", ""));
                 line.source = source.empty() ? labels.value("source", "applog") : source;
                 line.where.connector = "v1";
                 parsed.lines.push_back(std::move(line));
               }
             }
           } else if (!wire::parseObservations(format == "prometheus_metrics" ? "prometheus_matrix" : format, body["body"].get<std::string>(),
                                         &parsed, &error)) {
             return fail(res, 400, "body: " + error);
           }
           std::lock_guard<std::mutex> lock(mu_);
           Session* session = findSession(req.matches[1]);
           if (!session) return fail(res, 404, "no such attributor (it may have expired)");
           if (!addObservations(*session, parsed, "an attributor", &error)) return fail(res, 413, error);
           res.set_content(json{{"observation_id", ++session->observationCount}}.dump(), "application/json");
         }));
  s.Get(R"(/latest/attributor/([0-9a-f]+)/attribution)",
        guarded("/latest/attributor/{id}/attribution", true, [this](const httplib::Request& req, httplib::Response& res) {
          evidence::Workload workload;
          wire::Observations copy;
          if (!snapshot(req.matches[1], &workload, &copy)) return fail(res, 404, "no such attributor (it may have expired)");
          json verdict = json::parse(attribute(workload, std::move(copy)));
          // One NodeAttribution per bad node; its nested list says why (non-empty: faulty).
          json items = json::array();
          const json outcome = verdict.contains("outcomes") && !verdict["outcomes"].empty() ? verdict["outcomes"][0] : json();
          for (const auto& node : verdict.value("bad_nodes", json::array())) {
            json reasons = json::array();
            for (const auto& symptom : node.value("symptoms", json::array())) {
              reasons.push_back({{"symptom", symptom},
                                 {"outcome", outcome.is_object() ? outcome.value("name", "") : ""},
                                 {"family", outcome.is_object() ? outcome.value("family", "") : "unknown"},
                                 {"confidence", verdict.value("confidence", 0.0)}});
            }
            items.push_back({{"type", "NodeAttribution"}, {"node", node.value("node", "")}, {"attributions", reasons}});
          }
          res.set_content(json{{"attributions", items}}.dump(), "application/json");
        }));
}

}  // namespace attrib::service
