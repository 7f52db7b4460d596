#include "wire/observations.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "ir/civil_time.h"

namespace attrib::wire {
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
    *out = attrib::parseRfc3339(s);
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
  evidence::LogLine l;
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

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) | uint8_t(in[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += kBase64[(v >> k) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

bool unbase64(const std::string& in, std::string* out) {
  if (in.size() % 4 != 0) return false;
  out->clear();
  out->reserve(in.size() / 4 * 3);
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  for (size_t i = 0; i < in.size(); i += 4) {
    bool last = i + 4 == in.size();
    int pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=') : 0;
    if (pad == 1 && in[i + 2] == '=') return false;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      int d = k >= 4 - pad ? 0 : value(in[i + k]);
      if (d < 0) return false;
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    out->push_back(static_cast<char>(v >> 16));
    if (pad < 2) out->push_back(static_cast<char>((v >> 8) & 255));
    if (pad < 1) out->push_back(static_cast<char>(v & 255));
  }
  return true;
}

// "where": {"connector", "location", "offset", "line"}, all optional.
bool whereOf(const json& j, evidence::Provenance* out) {
  if (!j.is_object()) return false;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (k == "connector" || k == "location") {
      if (!it.value().is_string()) return false;
      (k == "connector" ? out->connector : out->location) = it.value().get<std::string>();
    } else if (k == "offset" || k == "line") {
      if (!it.value().is_number_unsigned()) return false;
      (k == "offset" ? out->offset : out->line) = it.value().get<uint64_t>();
    } else {
      return false;
    }
  }
  return true;
}

json whereJson(const evidence::Provenance& w) {
  return json{{"connector", w.connector}, {"location", w.location}, {"offset", w.offset}, {"line", w.line}};
}

bool reportOf(const json& j, evidence::ConnectorReport* r, std::string* why) {
  using Status = evidence::ConnectorReport::Status;
  if (!j.is_object()) return *why = "'report' must be an object", false;
  auto text = [&](const char* k, std::string* out, bool nullable) {
    if (!j.contains(k) || (nullable && j[k].is_null())) return true;
    if (!j[k].is_string()) return *why = fmt::format("'report.{}' must be a string", k), false;
    *out = j[k].get<std::string>();
    return true;
  };
  auto count = [&](const char* k, uint64_t* out) {
    if (!j.contains(k)) return true;
    if (!j[k].is_number_unsigned()) return *why = fmt::format("'report.{}' must be a non-negative integer", k), false;
    *out = j[k].get<uint64_t>();
    return true;
  };
  std::string status = "ok";
  if (!text("connector", &r->connector, false) || !text("source", &r->source, false) || !text("status", &status, false) ||
      !text("reason", &r->reason, true) || !count("observations", &r->observations) || !count("bytes", &r->bytes)) {
    return false;
  }
  if (j.contains("elapsed_ms")) {
    if (!j["elapsed_ms"].is_number_integer()) return *why = "'report.elapsed_ms' must be an integer", false;
    r->elapsedMs = j["elapsed_ms"].get<int64_t>();
  }
  if (status == "ok") r->status = Status::Ok;
  else if (status == "empty") r->status = Status::Empty;
  else if (status == "partial") r->status = Status::Partial;
  else if (status == "error") r->status = Status::Error;
  else return *why = "'report.status' must be ok, empty, partial or error", false;
  return true;
}

bool fileSliceOf(const json& j, FileObservation* out, std::string* why) {
  const json& f = j["file"];
  if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || f["path"].get_ref<const std::string&>().empty()) {
    return *why = "'file.path' (a string) is required", false;
  }
  evidence::LogFile& file = out->file;
  for (auto it = f.begin(); it != f.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "path" || k == "name" || k == "node" || k == "source") {
      if (!v.is_string()) return *why = fmt::format("'file.{}' must be a string", k), false;
      (k == "path" ? file.path : k == "name" ? file.name : k == "node" ? file.node : file.source) = v.get<std::string>();
    } else if (k == "rank" || k == "modified") {
      if (v.is_null()) continue;
      if (!v.is_number_integer()) return *why = fmt::format("'file.{}' must be an integer", k), false;
      (k == "rank" ? file.rank : file.modified) = v.get<int64_t>();
    } else {
      return *why = fmt::format("'file.{}' is not a field of a file slice", k), false;
    }
  }
  if (!j.contains("offset") || !j["offset"].is_number_unsigned()) return *why = "'offset' (a non-negative integer) is required", false;
  out->offset = j["offset"].get<uint64_t>();
  std::string bytes;
  if (j.contains("data") && (!j["data"].is_string() || !unbase64(j["data"].get<std::string>(), &bytes))) {
    return *why = "'data' must be base64 text", false;
  }
  if (j.contains("error")) {
    if (!j["error"].is_string()) return *why = "'error' must be a string", false;
    out->error = j["error"].get<std::string>();
  }
  out->size = bytes.size();
  out->pieces.push_back(std::make_shared<const std::string>(std::move(bytes)));
  return true;
}

}  // namespace

uint64_t Observations::fileBytes() const {
  uint64_t n = 0;
  for (const auto& f : files) n += f.size;
  return n;
}

bool mergeObservations(Observations* into, Observations from, std::string* error, bool fromStart) {
  // Check every slice first: nothing is appended when one is out of place.
  std::map<std::string, size_t> index;
  std::map<std::string, uint64_t> expected;
  for (size_t i = 0; i < into->files.size(); ++i) {
    index[into->files[i].file.path] = i;
    expected[into->files[i].file.path] = into->files[i].offset + into->files[i].size;
  }
  for (const auto& f : from.files) {
    auto known = expected.find(f.file.path);
    if (known == expected.end() && !fromStart) known = expected.emplace(f.file.path, f.offset).first;
    uint64_t& next = known == expected.end() ? expected[f.file.path] : known->second;
    if (f.offset != next) {
      *error = fmt::format("file '{}': a slice at byte {}, but {} byte(s) of it were received", f.file.path, f.offset, next);
      return false;
    }
    next += f.size;
  }
  for (auto& f : from.files) {
    auto it = index.find(f.file.path);
    if (it == index.end()) {
      index[f.file.path] = into->files.size();
      into->files.push_back(std::move(f));
      continue;
    }
    FileObservation& have = into->files[it->second];
    for (auto& piece : f.pieces) have.pieces.push_back(std::move(piece));
    have.size += f.size;
    if (!f.error.empty()) have.error = f.error;
  }
  for (auto& l : from.lines) into->lines.push_back(std::move(l));
  for (auto& m : from.metrics) into->metrics.push_back(std::move(m));
  for (auto& r : from.reports) into->reports.push_back(std::move(r));
  return true;
}

std::vector<evidence::LogFile> logFiles(const Observations& observations) {
  std::vector<evidence::LogFile> out;
  for (const auto& f : observations.files) {
    evidence::LogFile file = f.file;
    auto bytes = std::make_shared<std::string>();
    bytes->reserve(f.size);
    for (const auto& piece : f.pieces) bytes->append(*piece);
    file.bytes = std::move(bytes);
    file.readError = f.error;
    out.push_back(std::move(file));
  }
  return out;
}

std::string attribRecord(const evidence::LogLine& line) {
  json j = {{"node", line.node}, {"source", line.source}, {"text", line.text}};
  if (line.time) j["time"] = *line.time;
  if (line.rank) j["rank"] = *line.rank;
  if (!line.gpu.empty()) j["gpu"] = line.gpu;
  j["where"] = whereJson(line.where);
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string attribRecord(const evidence::MetricSample& sample) {
  json labels = json::object();
  for (const auto& [k, v] : sample.labels) labels[k] = v;
  json value = std::isnan(sample.value) ? json("NaN") : std::isinf(sample.value) ? json(sample.value > 0 ? "+Inf" : "-Inf")
                                                                                 : json(sample.value);
  json j = {{"metric", sample.name}, {"labels", labels}, {"node", sample.node}, {"gpu", sample.gpu},
            {"time", sample.time},   {"value", value},   {"where", whereJson(sample.where)}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string attribRecord(const evidence::ConnectorReport& r) {
  json j = {{"report",
             {{"connector", r.connector}, {"source", r.source}, {"status", evidence::statusName(r.status)},
              {"observations", r.observations}, {"bytes", r.bytes}, {"reason", r.reason}, {"elapsed_ms", r.elapsedMs}}}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string attribFileSlice(const evidence::LogFile& file, uint64_t offset, std::string_view bytes, const std::string& error) {
  json f = {{"path", file.path}, {"name", file.name}, {"node", file.node}, {"source", file.source}};
  f["rank"] = file.rank ? json(*file.rank) : json();
  f["modified"] = file.modified ? json(*file.modified) : json();
  json j = {{"file", f}, {"offset", offset}, {"data", base64(bytes)}};
  if (!error.empty()) j["error"] = error;
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

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
      if (j.contains("report")) {
        evidence::ConnectorReport r;
        std::string why;
        if (!reportOf(j["report"], &r, &why)) {
          *error = fmt::format("line {}: {}", lineNo, why);
          return false;
        }
        parsed.reports.push_back(std::move(r));
        continue;
      }
      if (j.contains("file")) {
        FileObservation f;
        std::string why;
        if (!fileSliceOf(j, &f, &why)) {
          *error = fmt::format("line {}: {}", lineNo, why);
          return false;
        }
        parsed.files.push_back(std::move(f));
        continue;
      }
      evidence::Provenance where;
      where.connector = "service";
      where.line = lineNo;
      if (j.contains("where")) {
        where = {};
        if (!whereOf(j["where"], &where)) {
          *error = fmt::format("line {}: 'where' must be {{\"connector\", \"location\", \"offset\", \"line\"}} (strings, non-negative integers)", lineNo);
          return false;
        }
      }
      std::optional<int64_t> t;
      if (j.contains("time") && !timeOf(j["time"], &t)) {
        *error = fmt::format("line {}: 'time' must be RFC 3339 or integer nanoseconds", lineNo);
        return false;
      }
      auto str = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
      if (j.contains("metric")) {
        evidence::MetricSample m;
        m.name = str("metric");
        const json value = j.contains("value") ? j["value"] : json();
        bool special = value.is_string() && (value == "NaN" || value == "+Inf" || value == "-Inf");
        if (!(value.is_number() || special) || !t) {
          *error = fmt::format("line {}: a sample needs a numeric 'value' (or \"NaN\", \"+Inf\", \"-Inf\") and a 'time'", lineNo);
          return false;
        }
        m.value = !special ? value.get<double>() : value == "NaN" ? std::nan("") : value == "+Inf" ? INFINITY : -INFINITY;
        m.time = *t;
        m.node = str("node");
        m.gpu = str("gpu");
        if (j.contains("labels")) labelsText(j["labels"], &m.labels);
        m.where = where;
        if (!j.contains("where")) m.where.line = 0;
        parsed.metrics.push_back(std::move(m));
        continue;
      }
      if (!j.contains("text") || !j["text"].is_string()) {
        *error = fmt::format("line {}: 'text' (a string) is required", lineNo);
        return false;
      }
      evidence::LogLine l;
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
      l.where = where;
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
        evidence::MetricSample base;
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
          evidence::MetricSample s = base;
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
  return mergeObservations(out, std::move(parsed), error, /*fromStart=*/false);
}

}  // namespace attrib::wire
