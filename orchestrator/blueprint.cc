#include "orchestrator/blueprint.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "connectors/kube/kube_client.h"
#include "connectors/kueue/kueue_context.h"
#include "ir/civil_time.h"
#include "connectors/slurm/slurm_context.h"
#include "connectors/static/static_context.h"
#include "sinks/postgres_sink.h"

namespace attrib::orchestrator {
namespace {

namespace kube = connectors::kube;
namespace files = connectors::files;
namespace loki = connectors::loki;
namespace prometheus = connectors::prometheus;

struct BlueprintError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Reader {
 public:
  Reader(std::string path) : path_(std::move(path)), base_(std::filesystem::path(path_).parent_path().string()) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& where, const std::string& message) const {
    int line = at.IsDefined() ? at.Mark().line + 1 : 0;
    throw BlueprintError(line > 0 ? fmt::format("{}:{}: {}: {}", path_, line, where, message)
                                  : fmt::format("{}: {}: {}", path_, where, message));
  }
  std::string str(const YAML::Node& n, const char* key, const std::string& where, bool required = false,
                  const std::string& fallback = "") const {
    if (!n[key]) {
      if (required) fail(n, where, fmt::format("'{}' is required", key));
      return fallback;
    }
    if (!n[key].IsScalar()) fail(n[key], where, fmt::format("'{}' must be a string", key));
    return n[key].as<std::string>();
  }
  std::vector<std::string> list(const YAML::Node& n, const char* key, const std::string& where) const {
    std::vector<std::string> out;
    if (!n[key]) return out;
    if (n[key].IsScalar()) return {n[key].as<std::string>()};
    if (!n[key].IsSequence()) fail(n[key], where, fmt::format("'{}' must be a list", key));
    for (const auto& v : n[key]) out.push_back(v.as<std::string>());
    return out;
  }
  // A path relative to the blueprint's directory.
  std::string path(const std::string& p) const {
    return p.empty() || p[0] == '/' || base_.empty() ? p : base_ + "/" + p;
  }
  std::string secret(const YAML::Node& n, const char* key, const std::string& where) const {
    std::string file = str(n, key, where);
    if (file.empty()) return "";
    std::ifstream in(path(file));
    if (!in) fail(n[key], where, fmt::format("cannot read the secret file {}", path(file)));
    std::stringstream all;
    all << in.rdbuf();
    std::string s = all.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }
  // A number of seconds, or a duration with its unit: 30s, 500ms, 2m.
  // Zero is refused unless `zeroOk`: a zero timeout, budget or interval cannot work.
  std::chrono::milliseconds seconds(const YAML::Node& n, const char* key, const std::string& where, double fallback,
                                    bool zeroOk = false) const {
    if (!n[key]) return std::chrono::milliseconds(static_cast<int64_t>(fallback * 1000));
    std::string text = n[key].IsScalar() ? n[key].Scalar() : "";
    double scale = 1000;
    for (auto [suffix, factor] : {std::pair{"ms", 1.0}, std::pair{"s", 1000.0}, std::pair{"m", 60000.0}}) {
      std::string sfx = suffix;
      if (text.size() > sfx.size() && text.compare(text.size() - sfx.size(), sfx.size(), sfx) == 0) {
        text.resize(text.size() - sfx.size());
        scale = factor;
        break;
      }
    }
    char* end = nullptr;
    double value = text.empty() ? -1 : std::strtod(text.c_str(), &end);
    if (!text.empty() && *end == 0 && value < 0) {
      fail(n[key], where, fmt::format("'{}' must be {} seconds", key, zeroOk ? "0 or more" : "more than 0"));
    }
    if (text.empty() || *end != 0 || !(value >= 0) || value * scale > 1e12) {
      fail(n[key], where, fmt::format("'{}' must be a number of seconds (or a duration such as 30s, 500ms, 2m)", key));
    }
    auto ms = std::chrono::milliseconds(static_cast<int64_t>(value * scale));
    if (ms.count() <= 0 && !zeroOk) fail(n[key], where, fmt::format("'{}' must be more than 0 seconds", key));
    return ms;
  }
  // A whole number of at least 1.
  uint64_t positive(const YAML::Node& n, const char* key, const std::string& where) const {
    std::string text = n[key].IsScalar() ? n[key].Scalar() : "";
    char* end = nullptr;
    unsigned long long v = text.empty() || text[0] == '-' ? 0 : std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text[0] == '-' || *end != 0 || v < 1) fail(n[key], where, fmt::format("'{}' must be a whole number of at least 1", key));
    return v;
  }
  void onlyKeys(const YAML::Node& n, const std::string& where, std::initializer_list<const char*> keys) const {
    if (!n.IsMap()) fail(n, where, "must be a mapping");
    for (const auto& kv : n) {
      std::string k = kv.first.as<std::string>();
      if (std::find_if(keys.begin(), keys.end(), [&](const char* a) { return k == a; }) == keys.end()) {
        std::string known;
        for (const char* a : keys) known += (known.empty() ? "" : ", ") + std::string(a);
        fail(kv.first, where, fmt::format("unknown key '{}' (known: {})", k, known));
      }
    }
  }

 private:
  std::string path_, base_;
};

std::string env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::optional<int64_t> timeOf(const Reader& r, const YAML::Node& n, const char* key, const std::string& where) {
  std::string s = r.str(n, key, where);
  if (s.empty()) return std::nullopt;
  auto t = attrib::parseRfc3339(s);
  if (!t) r.fail(n[key], where, fmt::format("'{}' must be an RFC 3339 time such as 2026-11-29T00:00:00Z", key));
  return t;
}

kube::KubeConfig kubeConfig(const Reader& r, const YAML::Node& n, const std::string& where) {
  kube::KubeConfig c;
  std::string error;
  if (n["in_cluster"] && n["in_cluster"].as<bool>(false)) {
    if (!kube::inClusterConfig(&c, &error)) r.fail(n, where, error);
  } else if (n["kubeconfig"]) {
    if (!kube::loadKubeconfig(r.path(r.str(n, "kubeconfig", where)), r.str(n, "context", where), &c, &error)) r.fail(n, where, error);
  } else {
    c.server = r.str(n, "server", where, true);
    c.token = r.secret(n, "token_file", where);
  }
  return c;
}

// A postgres sink: `url` or `conninfo` (or ATTRIB_POSTGRES), the password from `password_file`
// when given (else the URL's, PGPASSWORD or ~/.pgpass as libpq reads them), `max_bytes`. No
// message quotes the conninfo: it may hold the password.
void postgresSink(const Reader& r, const YAML::Node& entry, const YAML::Node& n, const std::string& w, SinkSpec* spec) {
  if (n.IsScalar()) {
    spec->conninfo = n.as<std::string>();
  } else if (n.IsMap()) {
    r.onlyKeys(n, w, {"url", "conninfo", "password_file", "max_bytes"});
    if (n["url"] && n["conninfo"]) r.fail(n, w, "give 'url' or 'conninfo', not both");
    spec->conninfo = n["url"] ? r.str(n, "url", w) : r.str(n, "conninfo", w);
    if (n["max_bytes"]) spec->maxBytes = r.positive(n, "max_bytes", w);
  } else if (!n.IsNull()) {
    r.fail(n, w, "must be a mapping (url or conninfo, password_file, max_bytes)");
  }
  spec->conninfo = env("ATTRIB_POSTGRES", spec->conninfo);
  if (spec->conninfo.empty()) r.fail(entry, w, "'url' or 'conninfo' is required (or ATTRIB_POSTGRES)");
  std::string password;
  if (n.IsMap() && n["password_file"]) {
    password = r.secret(n, "password_file", w);
    if (password.empty()) r.fail(n["password_file"], w, "the password file is empty");
  }
  std::string conninfo, why;
  if (!sinks::postgresConninfo(spec->conninfo, password, &conninfo, &why)) {
    r.fail(n.IsMap() && n["url"] ? n["url"] : n.IsMap() && n["conninfo"] ? n["conninfo"] : entry, w, why);
  }
  spec->conninfo = conninfo;
}

// The `sources` list of a blueprint (shared by loadBlueprint and loadSources).
void readSources(const Reader& r, const YAML::Node& root, const std::vector<std::string>& metricNames,
                 std::vector<std::unique_ptr<connectors::EvidenceSource>>* sources, std::vector<std::string>* kinds) {
  if (root["sources"] && !root["sources"].IsSequence()) r.fail(root["sources"], "sources", "must be a list");
  size_t index = 0;
  for (const auto& s : root["sources"]) {
    if (!s.IsMap() || s.size() != 1) r.fail(s, fmt::format("sources[{}]", index), "give one of files, loki, prometheus, pod_logs");
    std::string skind = s.begin()->first.as<std::string>();
    YAML::Node n = s.begin()->second;
    std::string w = fmt::format("sources[{}].{}", index++, skind);
    if (skind == "files") {
      r.onlyKeys(n, w, {"roots", "patterns"});
      files::FileSourceOptions o;
      for (const auto& root2 : r.list(n, "roots", w)) o.roots.push_back(r.path(root2));
      if (o.roots.empty()) r.fail(n, w, "'roots' is required: files are only read inside them");
      if (!n["patterns"] || !n["patterns"].IsSequence()) r.fail(n, w, "'patterns' is required (a list of {glob, source})");
      for (const auto& p : n["patterns"]) {
        if (p.IsScalar()) o.patterns.push_back({r.path(p.as<std::string>()), ""});
        else o.patterns.push_back({r.path(r.str(p, "glob", w, true)), r.str(p, "source", w)});
      }
      sources->push_back(std::make_unique<connectors::FileSource>(o));
    } else if (skind == "loki") {
      r.onlyKeys(n, w, {"url", "query", "tenant", "token_file", "user", "password_file", "node_label", "rank_label",
                        "source_label", "limit", "timeout", "budget"});
      loki::LokiOptions o;
      o.url = env("ATTRIB_LOKI_URL", r.str(n, "url", w));
      if (o.url.empty()) r.fail(n, w, "'url' is required (or ATTRIB_LOKI_URL)");
      o.query = r.str(n, "query", w, false, o.query);
      o.tenant = env("ATTRIB_LOKI_TENANT", r.str(n, "tenant", w));
      o.bearerToken = r.secret(n, "token_file", w);
      o.basicUser = r.str(n, "user", w);
      o.basicPassword = r.secret(n, "password_file", w);
      o.nodeLabel = r.str(n, "node_label", w, false, o.nodeLabel);
      o.rankLabel = r.str(n, "rank_label", w, false, o.rankLabel);
      o.sourceLabel = r.str(n, "source_label", w, false, o.sourceLabel);
      if (n["limit"]) o.limit = r.positive(n, "limit", w);
      o.timeout = r.seconds(n, "timeout", w, 30);
      o.budget = r.seconds(n, "budget", w, 300);
      sources->push_back(std::make_unique<connectors::LokiSource>(o));
    } else if (skind == "prometheus") {
      r.onlyKeys(n, w, {"url", "node_label", "gpu_label", "step", "tenant", "token_file", "timeout", "budget"});
      prometheus::PrometheusOptions o;
      o.url = env("ATTRIB_PROMETHEUS_URL", r.str(n, "url", w));
      if (o.url.empty()) r.fail(n, w, "'url' is required (or ATTRIB_PROMETHEUS_URL)");
      o.metrics = metricNames;
      o.nodeLabel = r.str(n, "node_label", w, false, o.nodeLabel);
      o.gpuLabel = r.str(n, "gpu_label", w, false, o.gpuLabel);
      if (n["step"]) o.step = r.seconds(n, "step", w, 0).count() * 1'000'000;
      o.tenant = r.str(n, "tenant", w);
      o.bearerToken = r.secret(n, "token_file", w);
      o.timeout = r.seconds(n, "timeout", w, 30);
      o.budget = r.seconds(n, "budget", w, 120);
      sources->push_back(std::make_unique<connectors::PrometheusSource>(o));
    } else if (skind == "pod_logs") {
      r.onlyKeys(n, w, {"in_cluster", "kubeconfig", "context", "server", "token_file", "namespace", "limit_bytes"});
      kube::KubeConfig k = kubeConfig(r, n, w);
      if (n["namespace"]) k.ns = r.str(n, "namespace", w);
      kube::PodLogOptions o;
      if (n["limit_bytes"]) o.limitBytes = r.positive(n, "limit_bytes", w);
      sources->push_back(std::make_unique<connectors::PodLogSource>(k, o));
    } else {
      r.fail(s, w, fmt::format("unknown source '{}' (known: files, loki, prometheus, pod_logs)", skind));
    }
    kinds->push_back(skind);
  }
}

}  // namespace

std::vector<std::string> rulesFromEnvironment() {
  std::vector<std::string> out;
  const char* v = std::getenv("ATTRIB_RULES");
  std::string_view rest = v ? v : "";
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string_view part = rest.substr(0, colon);
    if (!part.empty()) out.emplace_back(part);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return out;
}

bool blueprintRules(const std::string& path, std::vector<std::string>* rules, std::string* error) {
  try {
    YAML::Node root = YAML::LoadFile(path);
    Reader r(path);
    rules->clear();
    if (const YAML::Node& n = root["rules"]; n && n.IsSequence()) {
      for (const auto& item : n) rules->push_back(r.path(item.as<std::string>()));
    } else if (n && !n.IsNull()) {  // `rules:` with nothing after it: the stdlib
      rules->push_back(r.path(n.as<std::string>()));
    }
    if (auto fromEnv = rulesFromEnvironment(); !fromEnv.empty()) *rules = std::move(fromEnv);
    return true;
  } catch (const YAML::Exception& e) {
    *error = fmt::format("{}: {}", path, e.what());
    return false;
  }
}

bool loadSources(const std::string& path, const std::vector<std::string>& metricNames,
                 std::vector<std::unique_ptr<connectors::EvidenceSource>>* sources, std::vector<std::string>* kinds,
                 std::string* error) {
  Reader r(path);
  try {
    YAML::Node root = YAML::LoadFile(path);
    r.onlyKeys(root, "blueprint", {"rules", "context", "sources", "sinks", "window", "watch", "service"});
    if (!root["sources"]) r.fail(root, "sources", "'sources' is required (a list of files, loki, prometheus, pod_logs)");
    readSources(r, root, metricNames, sources, kinds);
    return true;
  } catch (const BlueprintError& e) {
    *error = e.what();
  } catch (const YAML::Exception& e) {
    *error = fmt::format("{}: {}", path, e.what());
  }
  return false;
}

bool loadBlueprint(const std::string& path, const std::vector<std::string>& metricNames,
                   const BlueprintOverrides& overrides, Blueprint* out, std::string* error) {
  Reader r(path);
  try {
    YAML::Node root = YAML::LoadFile(path);
    r.onlyKeys(root, "blueprint", {"rules", "context", "sources", "sinks", "window", "watch", "service"});
    if (!blueprintRules(path, &out->rules, error)) return false;
    if (root["window"]) {
      r.onlyKeys(root["window"], "window", {"since", "until"});
      out->since = timeOf(r, root["window"], "since", "window");
      out->until = timeOf(r, root["window"], "until", "window");
    }
    if (overrides.since) out->since = overrides.since;
    if (overrides.until) out->until = overrides.until;
    // The execution context: exactly one of slurm, kueue, static.
    YAML::Node context = root["context"];
    if (!context || !context.IsMap() || context.size() != 1) {
      r.fail(context ? context : root, "context", "give exactly one of slurm, kueue, static");
    }
    std::string kind = context.begin()->first.as<std::string>();
    YAML::Node c = context.begin()->second;
    std::string where = "context." + kind;
    out->contextKind = kind;
    if (kind == "slurm") {
      r.onlyKeys(c, where, {"mode", "sacct", "completion_log", "cluster", "partitions", "users", "names", "slurm_conf",
                            "timeout", "slurmrestd"});
      connectors::slurm::SlurmOptions o;
      std::string mode = r.str(c, "mode", where, false, "sacct");
      if (!connectors::slurm::slurmModeFromName(mode, &o.mode)) {
        r.fail(c["mode"], where, fmt::format("unknown mode '{}' (known: sacct, sacct-json, slurmrestd)", mode));
      }
      if (o.mode == connectors::slurm::SlurmMode::Slurmrestd) {
        std::string w = where + ".slurmrestd";
        if (!c["slurmrestd"]) r.fail(c, where, "mode slurmrestd needs 'slurmrestd' (url or socket, user, token_file)");
        const YAML::Node rest = c["slurmrestd"];
        r.onlyKeys(rest, w, {"url", "socket", "user", "token_file", "controller"});
        o.rest.url = r.str(rest, "url", w, false, o.rest.url);
        if (o.rest.url.rfind("http://", 0) != 0 && o.rest.url.rfind("https://", 0) != 0) {
          r.fail(rest["url"], w, fmt::format("'url' must be http://HOST:PORT or https://..., not '{}'", o.rest.url));
        }
        o.rest.socket = rest["socket"] ? r.path(r.str(rest, "socket", w)) : "";
        if (!rest["url"] && o.rest.socket.empty()) r.fail(rest, w, "give 'url' or 'socket'");
        o.rest.user = r.str(rest, "user", w);
        if (rest["token_file"]) {
          o.rest.tokenFile = r.path(r.str(rest, "token_file", w));  // read before every request
          if (!std::ifstream(o.rest.tokenFile)) r.fail(rest["token_file"], w, fmt::format("cannot read the token file {}", o.rest.tokenFile));
          if (o.rest.user.empty()) r.fail(rest, w, "'token_file' needs 'user' (X-SLURM-USER-NAME)");
        }
        if (rest["controller"]) o.rest.controller = rest["controller"].as<bool>(true);
      } else if (c["slurmrestd"]) {
        r.fail(c["slurmrestd"], where, fmt::format("'slurmrestd' is only read in mode slurmrestd (mode is {})", mode));
      }
      o.sacct = r.str(c, "sacct", where, false, "sacct");
      o.completionLog = c["completion_log"] && c["completion_log"].as<bool>(false);
      if (o.completionLog && o.mode != connectors::slurm::SlurmMode::Sacct) {
        r.fail(c["completion_log"], where, fmt::format("completion_log (no slurmdbd) works with mode sacct only, not {}", mode));
      }
      o.cluster = r.str(c, "cluster", where);
      o.partitions = r.list(c, "partitions", where);
      o.users = r.list(c, "users", where);
      o.names = r.list(c, "names", where);
      if (c["slurm_conf"]) o.env.push_back({"SLURM_CONF", r.path(r.str(c, "slurm_conf", where))});
      o.timeout = r.seconds(c, "timeout", where, 60);
      o.since = out->since;
      o.until = out->until;
      out->context = std::make_unique<connectors::slurm::SlurmContext>(o);
    } else if (kind == "kueue") {
      r.onlyKeys(c, where, {"in_cluster", "kubeconfig", "context", "server", "token_file", "namespace"});
      connectors::kueue::KueueOptions o;
      o.kube = kubeConfig(r, c, where);
      o.ns = r.str(c, "namespace", where);
      o.since = out->since;
      o.until = out->until;
      out->context = std::make_unique<connectors::kueue::KueueContext>(o);
    } else if (kind == "static") {
      r.onlyKeys(c, where, {"workload", "workloads"});
      if (c["workload"] && c["workloads"]) r.fail(c, where, "give 'workload' (one file) or 'workloads' (many), not both");
      if (c["workloads"]) {
        out->context = std::make_unique<connectors::StaticContext>(
            connectors::StaticContext::fromMany(r.path(r.str(c, "workloads", where, true))));
      } else {
        out->context = std::make_unique<connectors::StaticContext>(
            connectors::StaticContext::fromFile(r.path(r.str(c, "workload", where, true))));
      }
    } else {
      r.fail(context, "context", fmt::format("unknown context '{}' (known: slurm, kueue, static)", kind));
    }
    readSources(r, root, metricNames, &out->sources, &out->sourceKinds);
    // Sinks (default: stdout, JSON lines).
    size_t index = 0;
    for (const auto& s : root["sinks"]) {
      std::string w = fmt::format("sinks[{}]", index++);
      if (!s.IsMap() || s.size() != 1) r.fail(s, w, "give one of stdout, sqlite, postgres");
      std::string skind = s.begin()->first.as<std::string>();
      YAML::Node n = s.begin()->second;
      SinkSpec spec;
      spec.kind = skind;
      if (skind == "stdout") {
        spec.format = n.IsMap() ? r.str(n, "format", w + ".stdout", false, "jsonl") : "jsonl";
      } else if (skind == "sqlite") {
        spec.path = env("ATTRIB_SQLITE", n.IsMap() ? r.path(r.str(n, "path", w + ".sqlite", true)) : "");
        if (spec.path.empty()) r.fail(s, w, "'path' is required (or ATTRIB_SQLITE)");
      } else if (skind == "postgres") {
        postgresSink(r, s, n, w + ".postgres", &spec);
      } else {
        r.fail(s, w, fmt::format("unknown sink '{}' (known: stdout, sqlite, postgres)", skind));
      }
      out->sinks.push_back(spec);
    }
    if (out->sinks.empty()) {
      SinkSpec stdoutSink;
      stdoutSink.kind = "stdout";
      out->sinks.push_back(stdoutSink);
    }
    if (root["watch"]) {
      const YAML::Node watch = root["watch"];
      r.onlyKeys(watch, "watch", {"interval", "lease", "worker", "batch"});
      if (watch["interval"]) {
        auto interval = r.seconds(watch, "interval", "watch", 60);
        if (interval.count() < 1000) r.fail(watch["interval"], "watch", "'interval' must be at least 1 second");
        out->intervalSeconds = interval.count() / 1000;
      }
      if (watch["lease"]) {
        out->watch.lease = r.seconds(watch, "lease", "watch", 60);
        if (out->watch.lease.count() < 100) r.fail(watch["lease"], "watch", "'lease' must be at least 100ms");
      }
      out->watch.worker = r.str(watch, "worker", "watch");
      if (watch["batch"]) {
        out->watch.batch = r.positive(watch, "batch", "watch");
        if (out->watch.batch > 1000) r.fail(watch["batch"], "watch", "'batch' must be at most 1000");
      }
    }
    out->watch.worker = env("ATTRIB_WORKER", out->watch.worker);
    // The diagnosing step: in-process unless a Service URL is given (here or in the environment).
    YAML::Node service = root["service"] ? root["service"] : YAML::Node(YAML::NodeType::Map);
    if (root["service"]) r.onlyKeys(service, "service", {"url", "token_file", "timeout", "max_body", "attempts", "max_retry_wait"});
    ServiceSpec& spec = out->service;
    spec.url = env("ATTRIB_SERVICE_URL", r.str(service, "url", "service"));
    if (!spec.url.empty() && spec.url.rfind("http://", 0) != 0 && spec.url.rfind("https://", 0) != 0) {
      r.fail(service["url"] ? service["url"] : service, "service", fmt::format("'url' must be http://HOST:PORT or https://..., not '{}'", spec.url));
    }
    while (!spec.url.empty() && spec.url.back() == '/') spec.url.pop_back();
    std::string tokenFile = r.str(service, "token_file", "service");
    spec.tokenFile = env("ATTRIB_SERVICE_TOKEN_FILE", tokenFile.empty() ? "" : r.path(tokenFile));
    if (!spec.tokenFile.empty() && !std::ifstream(spec.tokenFile)) {
      r.fail(service["token_file"] ? service["token_file"] : service, "service", fmt::format("cannot read the token file {}", spec.tokenFile));
    }
    spec.timeout = r.seconds(service, "timeout", "service", 30);
    spec.maxRetryWait = r.seconds(service, "max_retry_wait", "service", 30, /*zeroOk=*/true);  // 0: retry at once
    try {
      if (service["max_body"]) spec.maxBody = service["max_body"].as<uint64_t>();
      if (service["attempts"]) spec.attempts = service["attempts"].as<int>();
    } catch (const YAML::Exception&) {
      r.fail(service, "service", "'max_body' and 'attempts' must be whole numbers");
    }
    if (spec.attempts < 1 || spec.attempts > 20) r.fail(service["attempts"], "service", "'attempts' must be between 1 and 20");
    return true;
  } catch (const BlueprintError& e) {
    *error = e.what();
  } catch (const YAML::Exception& e) {
    *error = fmt::format("{}: {}", path, e.what());
  }
  return false;
}

}  // namespace attrib::orchestrator
