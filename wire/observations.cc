#include "wire/observations.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "ir/civil_time.h"
#include "json/bounded_parse.h"
#include "json/field.h"

namespace attrib::wire {
namespace {

using nlohmann::json;

using attrib::json::Field;
using attrib::json::FieldError;

// RFC 3339 text or integer nanoseconds (as a number or a string of digits).
std::optional<int64_t> timeOf(const Field& v) {
  if (v.isNumber()) {
    if (!v.raw().is_number_integer()) v.fail("must be RFC 3339 or integer nanoseconds");
    return v.integer();
  }
  if (!v.isString()) v.fail("must be RFC 3339 or integer nanoseconds");
  const std::string& s = v.string();
  int64_t ns;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), ns);
  if (ec == std::errc() && p == s.data() + s.size()) return ns;
  auto t = attrib::parseRfc3339(s);
  if (!t) v.fail("must be RFC 3339 or integer nanoseconds");
  return t;
}

// Labels: an object of strings, sorted by name.
std::vector<std::pair<std::string, std::string>> labelsOf(const Field& labels) {
  std::vector<std::pair<std::string, std::string>> out;
  labels.forEachMember([&](const std::string& k, const Field& v) { out.push_back({k, v.string()}); });
  std::sort(out.begin(), out.end());
  return out;
}

void streamLine(const Field& labels, int64_t t, const std::string& text, Observations* out) {
  evidence::LogLine l;
  l.time = t;
  l.text = text;
  l.source = "applog";
  if (labels.present()) {
    labels.forEachMember([&](const std::string& k, const Field& value) {
      const std::string& v = value.string();
      if (k == "node" || k == "host" || k == "hostname") l.node = v;
      else if (k == "source") l.source = v;
      else if (k == "gpu") l.gpu = v;
      else if (k == "rank") {
        int64_t r;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), r);
        if (ec == std::errc() && p == v.data() + v.size()) l.rank = r;
      }
    });
  }
  l.where.connector = "service";
  // The labels as the sender wrote them: a flat object of strings (checked above).
  l.where.location = labels.present() ? labels.raw().dump(-1, ' ', false, json::error_handler_t::replace) : "{}";
  out->lines.push_back(std::move(l));
}

void streams(const Field& list, Observations* out) {
  if (!list.isArray()) list.fail("must be a list of streams");
  for (size_t i = 0; i < list.size(); ++i) {
    Field s = list[i];
    Field values = s["values"];
    if (!values.isArray()) values.fail("must be a list of [\"<ns>\", \"line\"] pairs");
    Field labels = s["stream"];
    if (labels.present()) labels.object();
    for (size_t j = 0; j < values.size(); ++j) {
      Field v = values[j];
      if (!v.isArray() || v.size() != 2 || !v[1].isString()) v.fail("must be [\"<ns>\", \"line\"]");
      std::optional<int64_t> t = timeOf(v[0]);
      streamLine(labels, *t, v[1].string(), out);
    }
  }
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
evidence::Provenance whereOf(const Field& j) {
  evidence::Provenance out;
  auto problem = [&] {
    j.fail("must be {\"connector\", \"location\", \"offset\", \"line\"} (strings, non-negative integers)");
  };
  if (!j.isObject()) problem();
  j.forEachMember([&](const std::string& k, const Field& v) {
    if (k == "connector" || k == "location") {
      if (!v.isString()) problem();
      (k == "connector" ? out.connector : out.location) = v.string();
    } else if (k == "offset" || k == "line") {
      if (!v.raw().is_number_unsigned()) problem();
      (k == "offset" ? out.offset : out.line) = v.count();
    } else {
      problem();
    }
  });
  return out;
}

json whereJson(const evidence::Provenance& w) {
  return json{{"connector", w.connector}, {"location", w.location}, {"offset", w.offset}, {"line", w.line}};
}

evidence::ConnectorReport reportOf(const Field& j) {
  using Status = evidence::ConnectorReport::Status;
  j.object();
  evidence::ConnectorReport r;
  r.connector = j["connector"].present() ? j["connector"].string() : "";
  r.source = j["source"].present() ? j["source"].string() : "";
  std::string status = j["status"].present() ? j["status"].string() : "ok";
  r.reason = j["reason"].stringOr("");
  r.observations = j["observations"].optionalCount().value_or(0);
  r.bytes = j["bytes"].optionalCount().value_or(0);
  if (j["elapsed_ms"].present()) r.elapsedMs = j["elapsed_ms"].integer();
  if (status == "ok") r.status = Status::Ok;
  else if (status == "empty") r.status = Status::Empty;
  else if (status == "partial") r.status = Status::Partial;
  else if (status == "error") r.status = Status::Error;
  else j["status"].fail("must be ok, empty, partial or error");
  return r;
}

FileObservation fileSliceOf(const Field& j) {
  FileObservation out;
  Field f = j["file"];
  if (!f.isObject() || !f["path"].isString() || f["path"].string().empty()) f["path"].fail("(a string) is required");
  evidence::LogFile& file = out.file;
  f.forEachMember([&](const std::string& k, const Field& v) {
    if (k == "path" || k == "name" || k == "node" || k == "source") {
      (k == "path" ? file.path : k == "name" ? file.name : k == "node" ? file.node : file.source) = v.string();
    } else if (k == "rank" || k == "modified") {
      (k == "rank" ? file.rank : file.modified) = v.optionalInteger();
    } else {
      v.fail("is not a field of a file slice");
    }
  });
  Field offset = j["offset"];
  if (!offset.present() || !offset.raw().is_number_unsigned()) offset.fail("(a non-negative integer) is required");
  out.offset = offset.count();
  std::string bytes;
  if (j["data"].present() && (!j["data"].isString() || !unbase64(j["data"].string(), &bytes))) j["data"].fail("must be base64 text");
  out.error = j["error"].present() ? j["error"].string() : "";
  out.size = bytes.size();
  out.pieces.push_back(std::make_shared<const std::string>(std::move(bytes)));
  return out;
}

// A number as Prometheus writes sample values: decimal text, NaN, +Inf or -Inf.
double promValue(const Field& v) {
  const std::string& s = v.string();
  if (s == "NaN") return std::nan("");
  if (s == "+Inf" || s == "Inf") return INFINITY;
  if (s == "-Inf") return -INFINITY;
  char* end = nullptr;
  double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  if (s.empty() || *end != 0 || std::isspace(static_cast<unsigned char>(s[0]))) v.fail("must be a number as text (or NaN, +Inf, -Inf)");
  return d;
}

// One record of the attrib format (a line, a sample, a report or a file slice), appended to `out`.
void readRecord(const Field& j, size_t lineNo, Observations* out) {
  if (j["report"].present()) {
    out->reports.push_back(reportOf(j["report"]));
    return;
  }
  if (j["file"].present()) {
    out->files.push_back(fileSliceOf(j));
    return;
  }
  evidence::Provenance where;
  where.connector = "service";
  where.line = lineNo;
  if (j["where"].present()) where = whereOf(j["where"]);
  std::optional<int64_t> t;
  if (j["time"].given()) t = timeOf(j["time"]);
  if (j["metric"].present()) {
    evidence::MetricSample m;
    m.name = j["metric"].string();
    Field value = j["value"];
    bool special = value.isString() && (value.string() == "NaN" || value.string() == "+Inf" || value.string() == "-Inf");
    if (!(value.isNumber() || special) || !t) {
      throw FieldError("a sample needs a numeric 'value' (or \"NaN\", \"+Inf\", \"-Inf\") and a 'time'");
    }
    m.value = !special ? value.number() : value.string() == "NaN" ? std::nan("") : value.string() == "+Inf" ? INFINITY : -INFINITY;
    m.time = *t;
    m.node = j["node"].stringOr("");
    m.gpu = j["gpu"].stringOr("");
    if (j["labels"].given()) m.labels = labelsOf(j["labels"]);
    m.where = where;
    if (!j["where"].present()) m.where.line = 0;
    out->metrics.push_back(std::move(m));
    return;
  }
  evidence::LogLine l;
  l.text = j["text"].string();
  l.node = j["node"].stringOr("");
  l.source = j["source"].present() ? j["source"].string() : "applog";
  l.gpu = j["gpu"].stringOr("");
  l.time = t;
  l.rank = j["rank"].present() ? std::optional<int64_t>(j["rank"].integer()) : std::nullopt;
  l.where = where;
  out->lines.push_back(std::move(l));
}

void prometheusMatrix(const Field& j, Observations* out) {
  Field data = j["data"];
  if (!data.isObject() || !data["resultType"].isString() || data["resultType"].string() != "matrix" || !data["result"].isArray()) {
    throw FieldError("'data.resultType' must be \"matrix\" with a 'data.result' list");
  }
  Field result = data["result"];
  for (size_t i = 0; i < result.size(); ++i) {
    Field series = result[i];
    Field labels = series["metric"];
    evidence::MetricSample base;
    if (!labels.isObject()) labels.fail("must be an object with '__name__'");
    if (!labels["__name__"].given()) labels["__name__"].fail("is required");
    base.name = labels["__name__"].string();
    if (base.name.empty()) labels["__name__"].fail("is required");
    base.labels = labelsOf(labels);
    base.labels.erase(std::remove_if(base.labels.begin(), base.labels.end(), [](auto& kv) { return kv.first == "__name__"; }),
                      base.labels.end());
    for (const auto& [k, v] : base.labels) {
      if (k == "Hostname" || k == "node" || k == "instance") base.node = v.substr(0, v.rfind(':') == std::string::npos ? v.size() : v.rfind(':'));
      if (k == "gpu") base.gpu = v;
    }
    Field values = series["values"];
    if (!values.isArray()) values.fail("must be a list");
    for (size_t k = 0; k < values.size(); ++k) {
      Field p = values[k];
      if (!p.isArray() || p.size() != 2 || !p[0].isNumber() || !p[1].isString()) p.fail("must be [<seconds>, \"<value>\"]");
      double seconds = p[0].number();
      if (!std::isfinite(seconds) || std::fabs(seconds) > 9.2e9) p[0].fail("must be seconds since the epoch");
      evidence::MetricSample s = base;
      s.time = static_cast<int64_t>(std::llround(seconds * 1000.0)) * 1'000'000;
      s.value = promValue(p[1]);
      s.where.connector = "service";
      out->metrics.push_back(std::move(s));
    }
  }
}

// A whole body in one of the JSON formats (not the attrib lines).
void documentBody(const std::string& format, const std::string& body, Observations* out) {
  json doc;
  std::string why;
  if (!attrib::json::parse(body, &doc, &why)) throw FieldError("the body " + why);
  if (!doc.is_object()) throw FieldError("the body is not a JSON object");
  Field j(doc);
  if (format == "raw_loki_streams") {
    streams(j["streams"], out);
  } else if (format == "loki_query_range") {
    Field data = j["data"];
    if (!data.isObject() || !data["resultType"].isString() || data["resultType"].string() != "streams") {
      throw FieldError("'data.resultType' must be \"streams\"");
    }
    streams(data["result"], out);
  } else {
    prometheusMatrix(j, out);
  }
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
      std::string_view text = std::string_view(body).substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      start = nl == std::string::npos ? body.size() : nl + 1;
      ++lineNo;
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      json j;
      std::string why;
      if (!attrib::json::parse(text, &j, &why)) {
        *error = why.rfind("nests", 0) == 0 ? fmt::format("line {}: the record {}", lineNo, why) : fmt::format("line {}: not a JSON object", lineNo);
        return false;
      }
      if (!j.is_object()) {
        *error = fmt::format("line {}: not a JSON object", lineNo);
        return false;
      }
      try {
        readRecord(Field(j, "the record"), lineNo, &parsed);
      } catch (const FieldError& e) {
        *error = fmt::format("line {}: {}", lineNo, e.what());
        return false;
      }
    }
  } else if (format == "raw_loki_streams" || format == "loki_query_range" || format == "prometheus_matrix") {
    try {
      documentBody(format, body, &parsed);
    } catch (const FieldError& e) {
      *error = e.what();
      return false;
    }
  } else {
    *error = fmt::format("unknown format '{}' (attrib, raw_loki_streams, loki_query_range, prometheus_matrix)", format);
    return false;
  }
  return mergeObservations(out, std::move(parsed), error, /*fromStart=*/false);
}

bool parseV1Observation(const std::string& request, Observations* out, std::string* error) {
  Observations parsed;
  try {
    json doc;
    std::string why;
    if (!attrib::json::parse(request, &doc, &why)) throw FieldError("the body " + why);
    if (!doc.is_object()) throw FieldError("the body is not a JSON object");
    Field root(doc);
    if (!root["body"].isString()) throw FieldError("'body' (a JSON string) is required");
    const std::string& inner = root["body"].string();
    Field context = root["context"];
    std::string format = "raw_loki_streams", source;
    if (context.given()) {
      context.object();
      format = context["format"].stringOr("raw_loki_streams");
      source = context["source"].stringOr("");
    }
    if (format != "raw_loki_streams") {
      if (!parseObservations(format == "prometheus_metrics" ? "prometheus_matrix" : format, inner, &parsed, &why)) {
        throw FieldError("body: " + why);
      }
    } else {
      // V1's stream values carry a JSON payload {body, severity, attributes: {hostname, appname}}.
      json streamsDoc;
      if (!attrib::json::parse(inner, &streamsDoc, &why)) throw FieldError("body " + why);
      Field list(streamsDoc, "body");
      if (list.isObject() && list["streams"].present()) list = list["streams"];
      if (!list.isArray()) throw FieldError("body: not a list of Loki streams");
      for (size_t i = 0; i < list.size(); ++i) {
        Field st = list[i];
        if (!st.isObject() || !st["values"].isArray()) throw FieldError(fmt::format("body[{}]: 'values' is required", i));
        Field labels = st["stream"];
        std::string labelNode, labelSource;
        if (labels.isObject()) {
          Field host = labels["hostname"].given() ? labels["hostname"] : labels["node"];
          labelNode = host.stringOr("");
          labelSource = labels["source"].stringOr("");
        }
        Field values = st["values"];
        for (size_t k = 0; k < values.size(); ++k) {
          Field v = values[k];
          if (!v.isArray() || v.size() < 2 || !v[0].isString() || !v[1].isString()) {
            throw FieldError(fmt::format("body[{}].values: must be [\"<ns>\", \"<payload>\"]", i));
          }
          const std::string& ts = v[0].string();
          int64_t t = 0;
          auto [p, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
          if (ec != std::errc() || p != ts.data() + ts.size()) throw FieldError(fmt::format("body[{}]: bad timestamp '{}'", i, ts.substr(0, 64)));
          evidence::LogLine line;
          line.time = t;
          const std::string& raw = v[1].string();
          json payloadDoc;
          std::string ignored;
          bool structured = attrib::json::parse(raw, &payloadDoc, &ignored) && payloadDoc.is_object() &&
                            payloadDoc.contains("body") && payloadDoc.at("body").is_string();
          if (structured) {
            Field payload(payloadDoc, fmt::format("body[{}].values[{}] payload", i, k));
            line.text = payload["body"].string();
            if (payload["attributes"].isObject()) line.node = payload["attributes"]["hostname"].stringOr("");
          } else {
            line.text = raw;  // a plain line
          }
          if (line.node.empty()) line.node = labelNode;
          line.source = !source.empty() ? source : labelSource.empty() ? "applog" : labelSource;
          line.where.connector = "v1";
          parsed.lines.push_back(std::move(line));
        }
      }
    }
  } catch (const FieldError& e) {
    *error = e.what();
    return false;
  }
  return mergeObservations(out, std::move(parsed), error, /*fromStart=*/false);
}

}  // namespace attrib::wire
