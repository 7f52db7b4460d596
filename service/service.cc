#include "service/service.h"

#include <fmt/format.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <random>

#include "connectors/local/workload_dir.h"
#include "runtime/verdict.h"

namespace attrib::service {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

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

std::string Service::attribute(const runtime::Workload& workload, Observations observations) {
  runtime::WorkloadEvidence evidence;
  evidence.workload = workload;
  evidence.lines = std::move(observations.lines);
  evidence.metrics = std::move(observations.metrics);
  runtime::Verdict v = engine_->diagnose(std::move(evidence));
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
      std::lock_guard<std::mutex> lock(metricsMu_);
      ++requests_[fmt::format("{} {}", route, res.status > 0 ? res.status : 200)];  // httplib sets 200 after us
      latencySeconds_ += std::chrono::duration<double>(Clock::now() - started).count();
      ++latencyCount_;
    };
  };
  auto& s = *server_;
  s.Get("/healthz", guarded("/healthz", false, [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"status":"ok"})", "application/json");
  }));
  s.Get("/readyz", guarded("/readyz", false, [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"status", "ready"}, {"evaluator", engine_->evaluator().name}}.dump(), "application/json");
  }));
  s.Get("/v1/rulesets", guarded("/v1/rulesets", true, [this](const httplib::Request&, httplib::Response& res) {
    const auto& b = engine_->bundle();
    res.set_content(json{{"rulesets", json::array({{{"name", b.program.name}, {"version", b.program.version}, {"digest", b.digest},
                                                     {"evaluator", engine_->evaluator().name}}})}}
                        .dump(),
                    "application/json");
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
    runtime::Workload workload;
    std::string error;
    if (!connectors::parseWorkloadJson(req.body, &workload, &error)) return fail(res, 400, error);
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
           Observations parsed;
           std::string error;
           if (!parseObservations(format, req.body, &parsed, &error)) return fail(res, 400, error);
           std::lock_guard<std::mutex> lock(mu_);
           expire();
           auto it = sessions_.find(req.matches[1]);
           if (it == sessions_.end()) return fail(res, 404, "no such session (it may have expired)");
           Session& session = it->second;
           size_t total = session.observations.lines.size() + session.observations.metrics.size() + parsed.lines.size() +
                          parsed.metrics.size();
           if (total > options_.maxObservationsPerSession) {
             return fail(res, 413, fmt::format("a session holds at most {} observations", options_.maxObservationsPerSession));
           }
           for (auto& l : parsed.lines) session.observations.lines.push_back(std::move(l));
           for (auto& m : parsed.metrics) session.observations.metrics.push_back(std::move(m));
           session.used = Clock::now();
           res.set_content(json{{"lines", session.observations.lines.size()}, {"samples", session.observations.metrics.size()}}.dump(),
                           "application/json");
         }));
  s.Post(R"(/v1/sessions/([0-9a-f]+)/attribute)",
         guarded("/v1/sessions/{id}/attribute", true, [this](const httplib::Request& req, httplib::Response& res) {
           runtime::Workload workload;
           Observations copy;
           {
             std::lock_guard<std::mutex> lock(mu_);
             expire();
             auto it = sessions_.find(req.matches[1]);
             if (it == sessions_.end()) return fail(res, 404, "no such session (it may have expired)");
             workload = it->second.workload;
             copy = it->second.observations;
             it->second.used = Clock::now();
           }
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
    expire();
    auto it = sessions_.find(req.matches[1]);
    if (it == sessions_.end()) return fail(res, 404, "no such session (it may have expired)");
    json out = {{"id", it->first},
                {"workload", it->second.workload.id},
                {"lines", it->second.observations.lines.size()},
                {"samples", it->second.observations.metrics.size()},
                {"verdict", it->second.verdict.empty() ? json() : json::parse(it->second.verdict)}};
    res.set_content(out.dump(), "application/json");
  }));
  s.Post("/v1/attribute", guarded("/v1/attribute", true, [this](const httplib::Request& req, httplib::Response& res) {
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) return fail(res, 400, "the body is not a JSON object");
    runtime::Workload workload;
    std::string error;
    if (body.contains("workload") && !connectors::parseWorkloadJson(body["workload"].dump(), &workload, &error)) {
      return fail(res, 400, "workload: " + error);
    }
    Observations all;
    if (body.contains("observations")) {
      if (!body["observations"].is_array()) return fail(res, 400, "'observations' must be a list of {format, data}");
      for (size_t i = 0; i < body["observations"].size(); ++i) {
        const json& o = body["observations"][i];
        if (!o.is_object() || !o.contains("data")) return fail(res, 400, fmt::format("observations[{}]: 'data' is required", i));
        std::string format = o.value("format", "attrib");
        std::string data = o["data"].is_string() ? o["data"].get<std::string>() : o["data"].dump();
        if (!parseObservations(format, data, &all, &error)) return fail(res, 400, fmt::format("observations[{}]: {}", i, error));
      }
    }
    res.set_content(attribute(workload, std::move(all)), "application/json");
  }));
}

}  // namespace attrib::service
