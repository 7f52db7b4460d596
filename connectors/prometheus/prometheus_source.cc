#include "connectors/prometheus/prometheus_source.h"

#include "connectors/query_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

namespace attrib::connectors::prometheus {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Seconds with up to nanosecond precision, as Prometheus takes them.
std::string seconds(int64_t ns) {
  int64_t s = ns / 1'000'000'000, frac = ns % 1'000'000'000;
  if (frac < 0) {
    s -= 1;
    frac += 1'000'000'000;
  }
  if (frac == 0) return std::to_string(s);
  std::string f = fmt::format("{:09}", frac);
  while (f.back() == '0') f.pop_back();
  return fmt::format("{}.{}", s, f);
}

bool parseValue(const json& v, double* out) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s == "NaN") *out = std::nan("");
  else if (s == "+Inf") *out = INFINITY;
  else if (s == "-Inf") *out = -INFINITY;
  else {
    char* end = nullptr;
    *out = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end) return false;
  }
  return true;
}

}  // namespace

std::string selectorFor(const PrometheusOptions& options, const std::string& metric, const std::vector<std::string>& nodes) {
  if (nodes.empty()) return metric;
  std::string alternatives = regexAlternation(nodes);
  return fmt::format("{}{{{}=~\"({}){}\"}}", metric, options.nodeLabel, alternatives, options.stripPort ? "(:[0-9]+)?" : "");
}

std::vector<evidence::MetricSample> fetchMetrics(const PrometheusOptions& options, const evidence::Workload& workload,
                                                evidence::ConnectorReport* report) {
  auto started = Clock::now();
  *report = {};
  report->connector = "prometheus";
  report->source = options.url;
  std::vector<evidence::MetricSample> out;
  auto finish = [&] {
    report->elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  };
  auto window = paddedWindow(workload, options.padBefore, options.padAfter, report);
  if (!window) {
    finish();
    return out;
  }
  int64_t from = window->start, to = window->end;
  int64_t step = std::max<int64_t>(options.step, 1'000'000);
  // Each request covers at most maxPoints steps (both ends included).
  int64_t span = step * static_cast<int64_t>(std::max<size_t>(options.maxPoints, 2) - 1);
  size_t requests = 0, failed = 0;
  std::string firstProblem;
  for (const auto& metric : options.metrics) {
    std::string query = selectorFor(options, metric, workload.nodes);
    for (int64_t chunk = from; chunk <= to; chunk += span + step) {
      if (Clock::now() - started > options.budget) {
        ++failed;
        if (firstProblem.empty()) firstProblem = fmt::format("the {} s budget ran out", options.budget.count() / 1000);
        break;
      }
      int64_t chunkEnd = std::min(to, chunk + span);
      http::Request req;
      req.url = options.url + "/api/v1/query_range";
      req.formBody = fmt::format("query={}&start={}&end={}&step={}", http::urlEncode(query), seconds(chunk),
                                 seconds(chunkEnd), seconds(step));
      req.timeout = options.timeout;
      req.tls = options.tls;
      if (!options.bearerToken.empty()) req.headers.push_back({"Authorization", "Bearer " + options.bearerToken});
      if (!options.tenant.empty()) req.headers.push_back({"X-Scope-OrgID", options.tenant});
      ++requests;
      http::Response r = http::get(req);
      report->bytes += r.body.size();
      json body = r.ok ? json::parse(r.body, nullptr, false) : json();
      std::string problem;
      if (!r.ok) problem = r.error;
      else if (body.is_object() && body.value("status", "") == "error") {
        problem = fmt::format("HTTP {} {}: {}", r.status, body.value("errorType", ""), body.value("error", ""));
      } else if (r.status != 200) problem = fmt::format("HTTP {}", r.status);
      else if (r.truncated) problem = "the answer was larger than the limit";
      else if (!body.is_object() || !body.contains("data") || !body["data"].is_object() ||
               body["data"].value("resultType", "") != "matrix" || !body["data"]["result"].is_array()) {
        problem = "the answer is not a query_range matrix";
      }
      if (!problem.empty()) {
        ++failed;
        if (firstProblem.empty()) firstProblem = fmt::format("{}: {}", metric, problem);
        if (r.ok && r.status >= 400 && r.status < 500) break;  // the same query fails on every chunk
        continue;
      }
      for (const auto& series : body["data"]["result"]) {
        const json& labels = series.contains("metric") ? series["metric"] : json::object();
        evidence::MetricSample base;
        base.name = metric;
        if (labels.is_object()) {
          for (auto it = labels.begin(); it != labels.end(); ++it) {
            if (it.key() == "__name__" || !it.value().is_string()) continue;
            base.labels.push_back({it.key(), it.value().get<std::string>()});
          }
        }
        std::sort(base.labels.begin(), base.labels.end());
        for (const auto& [k, v] : base.labels) {
          if (k == options.nodeLabel) base.node = options.stripPort ? v.substr(0, v.rfind(':') == std::string::npos ? v.size() : v.rfind(':')) : v;
          if (k == options.gpuLabel) base.gpu = v;
        }
        base.where.connector = "prometheus";
        base.where.location = query;
        if (!series.contains("values") || !series["values"].is_array()) continue;
        for (const auto& point : series["values"]) {
          double value;
          if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !parseValue(point[1], &value)) continue;
          if (out.size() >= options.maxSamples) break;
          evidence::MetricSample s = base;
          // Seconds with at most millisecond precision (Prometheus's resolution).
          s.time = static_cast<int64_t>(std::llround(point[0].get<double>() * 1000.0)) * 1'000'000;
          s.value = value;
          s.where.offset = out.size();
          out.push_back(std::move(s));
          ++report->observations;
        }
      }
    }
  }
  if (failed > 0) {
    report->status = failed == requests ? evidence::ConnectorReport::Status::Error : evidence::ConnectorReport::Status::Partial;
    report->reason = fmt::format("{} of {} requests failed; first: {}", failed, requests, firstProblem);
  } else if (out.empty()) {
    report->status = evidence::ConnectorReport::Status::Empty;
    report->reason = options.metrics.empty() ? "the rules read no metrics" : "no samples in the window";
  }
  noteCap(out.size(), options.maxSamples, "samples", report);
  finish();
  return out;
}

}  // namespace attrib::connectors::prometheus
