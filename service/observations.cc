#include "service/observations.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "connectors/kueue/kueue_context.h"

namespace attrib::service {
namespace {

using nlohmann::json;

bool timeOf(const json& v, std::optional<int64_t>* out) {
  if (v.is_null()) return true;
  if (v.is_number_integer()) {
    *out = v.get<int64_t>();
    return true;
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    int64_t ns;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), ns);
    if (ec == std::errc() && p == s.data() + s.size()) {
      *out = ns;
      return true;
    }
    *out = connectors::kueue::parseKubeTime(s);
    return out->has_value();
  }
  return false;
}

std::string labelsText(const json& labels, std::vector<std::pair<std::string, std::string>>* out) {
  std::string node;
  if (!labels.is_object()) return node;
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    if (!it.value().is_string()) continue;
    out->push_back({it.key(), it.value().get<std::string>()});
  }
  std::sort(out->begin(), out->end());
  return node;
}

void streamLine(const json& labels, int64_t t, const std::string& text, Observations* out) {
  runtime::LogLine l;
  l.time = t;
  l.text = text;
  l.source = "applog";
  if (labels.is_object()) {
    for (auto it = labels.begin(); it != labels.end(); ++it) {
      if (!it.value().is_string()) continue;
      const std::string& v = it.value().get_ref<const std::string&>();
      if (it.key() == "node" || it.key() == "host" || it.key() == "hostname") l.node = v;
      else if (it.key() == "source") l.source = v;
      else if (it.key() == "gpu") l.gpu = v;
      else if (it.key() == "rank") {
        int64_t r;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), r);
        if (ec == std::errc() && p == v.data() + v.size()) l.rank = r;
      }
    }
  }
  l.where.connector = "service";
  l.where.location = labels.dump();
  out->lines.push_back(std::move(l));
}

bool streams(const json& list, const std::string& where, Observations* out, std::string* error) {
  if (!list.is_array()) {
    *error = fmt::format("'{}' must be a list of streams", where);
    return false;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const json& s = list[i];
    if (!s.is_object() || !s.contains("values") || !s["values"].is_array()) {
      *error = fmt::format("{}[{}]: 'values' must be a list of [\"<ns>\", \"line\"] pairs", where, i);
      return false;
    }
    const json& labels = s.contains("stream") ? s["stream"] : json::object();
    for (size_t j = 0; j < s["values"].size(); ++j) {
      const json& v = s["values"][j];
      std::optional<int64_t> t;
      if (!v.is_array() || v.size() < 2 || !v[1].is_string() || !timeOf(v[0], &t) || !t) {
        *error = fmt::format("{}[{}].values[{}]: must be [\"<ns>\", \"line\"]", where, i, j);
        return false;
      }
      streamLine(labels, *t, v[1].get<std::string>(), out);
    }
  }
  return true;
}

}  // namespace

bool parseObservations(const std::string& format, const std::string& body, Observations* out, std::string* error) {
  Observations parsed;
  if (format == "attrib" || format.empty()) {
    size_t start = 0, lineNo = 0;
    while (start < body.size()) {
      size_t nl = body.find('\n', start);
      std::string text = body.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      start = nl == std::string::npos ? body.size() : nl + 1;
      ++lineNo;
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      json j = json::parse(text, nullptr, false);
      if (!j.is_object()) {
        *error = fmt::format("line {}: not a JSON object", lineNo);
        return false;
      }
      std::optional<int64_t> t;
      if (j.contains("time") && !timeOf(j["time"], &t)) {
        *error = fmt::format("line {}: 'time' must be RFC 3339 or integer nanoseconds", lineNo);
        return false;
      }
      auto str = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
      if (j.contains("metric")) {
        runtime::MetricSample m;
        m.name = str("metric");
        if (!j.contains("value") || !j["value"].is_number() || !t) {
          *error = fmt::format("line {}: a sample needs a numeric 'value' and a 'time'", lineNo);
          return false;
        }
        m.value = j["value"].get<double>();
        m.time = *t;
        m.node = str("node");
        m.gpu = str("gpu");
        if (j.contains("labels")) labelsText(j["labels"], &m.labels);
        m.where.connector = "service";
        parsed.metrics.push_back(std::move(m));
        continue;
      }
      if (!j.contains("text") || !j["text"].is_string()) {
        *error = fmt::format("line {}: 'text' (a string) is required", lineNo);
        return false;
      }
      runtime::LogLine l;
      l.text = str("text");
      l.node = str("node");
      l.source = j.contains("source") ? str("source") : "applog";
      l.gpu = str("gpu");
      l.time = t;
      if (j.contains("rank")) {
        if (!j["rank"].is_number_integer()) {
          *error = fmt::format("line {}: 'rank' must be an integer", lineNo);
          return false;
        }
        l.rank = j["rank"].get<int64_t>();
      }
      l.where.connector = "service";
      l.where.line = lineNo;
      parsed.lines.push_back(std::move(l));
    }
  } else {
    json j = json::parse(body, nullptr, false);
    if (!j.is_object()) {
      *error = "the body is not a JSON object";
      return false;
    }
    if (format == "raw_loki_streams") {
      if (!streams(j.value("streams", json()), "streams", &parsed, error)) return false;
    } else if (format == "loki_query_range") {
      if (!j.contains("data") || !j["data"].is_object() || j["data"].value("resultType", "") != "streams") {
        *error = "'data.resultType' must be \"streams\"";
        return false;
      }
      if (!streams(j["data"].value("result", json()), "data.result", &parsed, error)) return false;
    } else if (format == "prometheus_matrix") {
      if (!j.contains("data") || !j["data"].is_object() || j["data"].value("resultType", "") != "matrix" ||
          !j["data"]["result"].is_array()) {
        *error = "'data.resultType' must be \"matrix\" with a 'data.result' list";
        return false;
      }
      const json& result = j["data"]["result"];
      for (size_t i = 0; i < result.size(); ++i) {
        const json& series = result[i];
        const json& labels = series.contains("metric") ? series["metric"] : json::object();
        runtime::MetricSample base;
        base.name = labels.is_object() ? labels.value("__name__", "") : "";
        if (base.name.empty()) {
          *error = fmt::format("data.result[{}].metric: '__name__' is required", i);
          return false;
        }
        labelsText(labels, &base.labels);
        base.labels.erase(std::remove_if(base.labels.begin(), base.labels.end(), [](auto& kv) { return kv.first == "__name__"; }),
                          base.labels.end());
        for (const auto& [k, v] : base.labels) {
          if (k == "Hostname" || k == "node" || k == "instance") base.node = v.substr(0, v.rfind(':') == std::string::npos ? v.size() : v.rfind(':'));
          if (k == "gpu") base.gpu = v;
        }
        if (!series.contains("values") || !series["values"].is_array()) {
          *error = fmt::format("data.result[{}]: 'values' must be a list", i);
          return false;
        }
        for (size_t k = 0; k < series["values"].size(); ++k) {
          const json& p = series["values"][k];
          if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_string()) {
            *error = fmt::format("data.result[{}].values[{}]: must be [<seconds>, \"<value>\"]", i, k);
            return false;
          }
          runtime::MetricSample s = base;
          s.time = static_cast<int64_t>(std::llround(p[0].get<double>() * 1000.0)) * 1'000'000;
          const std::string& v = p[1].get_ref<const std::string&>();
          s.value = v == "NaN" ? std::nan("") : v == "+Inf" ? INFINITY : v == "-Inf" ? -INFINITY : std::strtod(v.c_str(), nullptr);
          s.where.connector = "service";
          parsed.metrics.push_back(std::move(s));
        }
      }
    } else {
      *error = fmt::format("unknown format '{}' (attrib, raw_loki_streams, loki_query_range, prometheus_matrix)", format);
      return false;
    }
  }
  for (auto& l : parsed.lines) out->lines.push_back(std::move(l));
  for (auto& m : parsed.metrics) out->metrics.push_back(std::move(m));
  return true;
}

}  // namespace attrib::service
