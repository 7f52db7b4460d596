#include "connectors/loki/loki_source.h"

#include "connectors/query_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

namespace attrib::connectors::loki {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

void replaceAll(std::string* s, const std::string& from, const std::string& to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size())) s->replace(at, from.size(), to);
}

std::string base64(const std::string& in) {
  static const char* chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += chars[(buffer >> bits) & 0x3f];
    }
  }
  if (bits > 0) out += chars[(buffer << (6 - bits)) & 0x3f];
  while (out.size() % 4) out += '=';
  return out;
}

struct Entry {
  int64_t time;
  std::string line;
  std::string stream;  // the stream's labels, canonical
  const json* labels;
};

}  // namespace

std::string expandQuery(const std::string& query, const evidence::Workload& workload) {
  std::string nodes = regexAlternation(workload.nodes);
  if (nodes.empty()) nodes = ".+";
  std::string q = query;
  replaceAll(&q, "${nodes}", nodes);
  replaceAll(&q, "${id}", workload.id);
  replaceAll(&q, "${job}", workload.id.substr(workload.id.rfind('/') == std::string::npos ? 0 : workload.id.rfind('/') + 1));
  replaceAll(&q, "${name}", workload.name);
  return q;
}

std::vector<evidence::LogLine> fetchLogs(const LokiOptions& options, const evidence::Workload& workload,
                                        evidence::ConnectorReport* report) {
  auto started = Clock::now();
  *report = {};
  report->connector = "loki";
  std::string query = expandQuery(options.query, workload);
  report->source = query;
  std::vector<evidence::LogLine> out;
  auto finish = [&] {
    report->elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  };
  auto window = paddedWindow(workload, options.padBefore, options.padAfter, report);
  if (!window) {
    finish();
    return out;
  }
  int64_t start = window->start;
  int64_t end = window->end + 1;  // end is exclusive
  std::mt19937 jitter(static_cast<unsigned>(std::hash<std::string>{}(workload.id)));
  std::set<std::pair<std::string, std::string>> atBoundary;  // (stream, line) already taken at `start`
  std::string problem;
  bool anyPage = false;
  while (true) {
    if (Clock::now() - started > options.budget) {
      problem = fmt::format("the {} s budget ran out", options.budget.count() / 1000);
      break;
    }
    http::Request req;
    req.url = fmt::format("{}/loki/api/v1/query_range?query={}&start={}&end={}&limit={}&direction=forward", options.url,
                          http::urlEncode(query), start, end, options.limit);
    req.timeout = options.timeout;
    req.tls = options.tls;
    if (!options.tenant.empty()) req.headers.push_back({"X-Scope-OrgID", options.tenant});
    if (!options.bearerToken.empty()) req.headers.push_back({"Authorization", "Bearer " + options.bearerToken});
    if (!options.basicUser.empty()) {
      req.headers.push_back({"Authorization", "Basic " + base64(options.basicUser + ":" + options.basicPassword)});
    }
    http::Response r;
    for (int attempt = 0;; ++attempt) {
      r = http::get(req);
      bool retryable = !r.ok || r.status == 429 || r.status >= 500;
      if (!retryable || attempt >= options.retries) break;
      auto wait = options.backoff * (1 << attempt) +
                  std::chrono::milliseconds(std::uniform_int_distribution<int>(0, static_cast<int>(options.backoff.count()))(jitter));
      if (Clock::now() + wait - started > options.budget) break;
      std::this_thread::sleep_for(wait);
    }
    report->bytes += r.body.size();
    if (!r.ok) {
      problem = r.error;
      break;
    }
    if (r.status != 200) {
      // Loki's errors are plain text.
      std::string message = r.body.substr(0, 300);
      while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
      problem = fmt::format("HTTP {}: {}", r.status, message.empty() ? "no body" : message);
      break;
    }
    json body = json::parse(r.body, nullptr, false);
    if (r.truncated || !body.is_object() || !body.contains("data") || !body["data"].is_object() ||
        body["data"].value("resultType", "") != "streams" || !body["data"]["result"].is_array()) {
      problem = r.truncated ? "an answer was larger than the limit" : "an answer is not a streams result";
      break;
    }
    anyPage = true;
    std::vector<Entry> page;
    for (const auto& stream : body["data"]["result"]) {
      if (!stream.is_object() || !stream.contains("values") || !stream["values"].is_array()) continue;
      static const json kNoLabels = json::object();
      const json* labelsAt = stream.contains("stream") && stream["stream"].is_object() ? &stream["stream"] : &kNoLabels;
      const json& labels = *labelsAt;  // lives in `body` for the whole page
      std::string key = labels.dump();
      for (const auto& v : stream["values"]) {
        if (!v.is_array() || v.size() < 2 || !v[0].is_string() || !v[1].is_string()) continue;
        const std::string& ts = v[0].get_ref<const std::string&>();
        int64_t t = 0;
        auto [p, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
        if (ec != std::errc() || p != ts.data() + ts.size()) continue;
        page.push_back({t, v[1].get<std::string>(), key, labelsAt});
      }
    }
    // One order across streams: time, then stream, then line.
    std::sort(page.begin(), page.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.time, a.stream, a.line) < std::tie(b.time, b.stream, b.line);
    });
    int64_t newest = start;
    for (const auto& e : page) {
      if (e.time == start && atBoundary.count({e.stream, e.line})) continue;  // seen on the previous page
      if (out.size() >= options.maxLines) break;
      evidence::LogLine line;
      line.time = e.time;
      line.text = e.line;
      line.source = options.defaultSource;
      for (auto it = e.labels->begin(); it != e.labels->end(); ++it) {
        if (!it.value().is_string()) continue;
        const std::string& value = it.value().get_ref<const std::string&>();
        if (it.key() == options.nodeLabel) line.node = value;
        else if (it.key() == options.gpuLabel) line.gpu = value;
        else if (it.key() == options.sourceLabel) line.source = value;
        else if (it.key() == options.rankLabel) {
          int64_t rank;
          auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), rank);
          if (ec == std::errc() && p == value.data() + value.size()) line.rank = rank;
        }
      }
      line.where.connector = "loki";
      line.where.location = e.stream;
      line.where.offset = out.size();
      out.push_back(std::move(line));
      newest = std::max(newest, e.time);
    }
    ++report->observations;  // pages
    if (page.size() < options.limit || out.size() >= options.maxLines) break;
    // The next page starts at the newest instant of this one (start is inclusive); remember what
    // was taken at that instant so its repeats are dropped.
    if (newest != start) atBoundary.clear();
    for (const auto& e : page) {
      if (e.time == newest) atBoundary.insert({e.stream, e.line});
    }
    if (newest == start && page.size() >= options.limit) {
      problem = fmt::format("more than {} lines share the instant {}; raise the limit", options.limit, start);
      break;
    }
    start = newest;
  }
  report->observations = out.size();
  if (!problem.empty()) {
    report->status = out.empty() && !anyPage ? evidence::ConnectorReport::Status::Error : evidence::ConnectorReport::Status::Partial;
    report->reason = problem;
  } else if (out.empty()) {
    report->status = evidence::ConnectorReport::Status::Empty;
    report->reason = "no lines in the window";
  }
  noteCap(out.size(), options.maxLines, "lines", report);
  finish();
  return out;
}

}  // namespace attrib::connectors::loki
