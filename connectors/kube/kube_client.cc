#include "connectors/kube/kube_client.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attrib::connectors::kube {
namespace {

bool readFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream all;
  all << in.rdbuf();
  *out = all.str();
  return true;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

bool base64Decode(const std::string& in, std::string* out) {
  static const std::string chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out->clear();
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    size_t v = chars.find(c);
    if (v == std::string::npos) return false;
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return true;
}

// A Status envelope's "reason: message", or the start of the body.
std::string describeFailure(const http::Response& r) {
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_object() && j.value("kind", "") == "Status") {
    return fmt::format("HTTP {} {}: {}", r.status, j.value("reason", ""), j.value("message", ""));
  }
  std::string start = r.body.substr(0, 200);
  for (char& c : start) if (c == '\n' || c == '\r') c = ' ';
  return fmt::format("HTTP {}: {}", r.status, start.empty() ? "no body" : start);
}

}  // namespace

bool inClusterConfig(KubeConfig* out, std::string* error, const std::string& dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !port || !*host) {
    *error = "not running in a Kubernetes pod (KUBERNETES_SERVICE_HOST is not set)";
    return false;
  }
  KubeConfig c;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  c.server = fmt::format("https://{}:{}", h, port);
  c.tokenFile = dir + "/token";
  std::string probe;
  if (!readFile(c.tokenFile, &probe)) {
    *error = "cannot read the service account token " + c.tokenFile;
    return false;
  }
  c.tls.caFile = dir + "/ca.crt";
  std::string ns;
  if (readFile(dir + "/namespace", &ns)) c.ns = trim(ns);
  *out = std::move(c);
  return true;
}

bool loadKubeconfig(const std::string& path, const std::string& context, KubeConfig* out, std::string* error) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    *error = fmt::format("cannot read the kubeconfig {}: {}", path, e.what());
    return false;
  }
  std::string base = std::filesystem::path(path).parent_path().string();
  auto resolve = [&](const std::string& p) { return p.empty() || p[0] == '/' || base.empty() ? p : base + "/" + p; };
  try {
    std::string name = context.empty() ? root["current-context"].as<std::string>("") : context;
    if (name.empty()) {
      *error = fmt::format("the kubeconfig {} has no current-context; name one", path);
      return false;
    }
    // The `field` of the entry called `key` in `list`; an undefined node when there is none.
    auto find = [&](const char* list, const std::string& key, const char* field) -> YAML::Node {
      for (const auto& item : root[list]) {
        if (item["name"].as<std::string>("") == key && item[field].IsMap()) return item[field];
      }
      return YAML::Node(YAML::NodeType::Undefined);
    };
    YAML::Node ctx = find("contexts", name, "context");
    if (!ctx.IsDefined()) {
      *error = fmt::format("the kubeconfig {} has no context '{}'", path, name);
      return false;
    }
    std::string clusterName = ctx["cluster"].as<std::string>("");
    std::string userName = ctx["user"].as<std::string>("");
    YAML::Node cluster = find("clusters", clusterName, "cluster");
    if (!cluster.IsDefined()) {
      *error = fmt::format("the kubeconfig {}: context '{}' names cluster '{}', which is not there", path, name, clusterName);
      return false;
    }
    KubeConfig c;
    c.server = cluster["server"].as<std::string>("");
    while (!c.server.empty() && c.server.back() == '/') c.server.pop_back();
    if (c.server.empty()) {
      *error = fmt::format("the kubeconfig {}: cluster '{}' has no server", path, clusterName);
      return false;
    }
    c.ns = ctx["namespace"].as<std::string>("");
    c.tls.caFile = resolve(cluster["certificate-authority"].as<std::string>(""));
    if (cluster["certificate-authority-data"] && !base64Decode(cluster["certificate-authority-data"].as<std::string>(), &c.tls.caPem)) {
      *error = fmt::format("the kubeconfig {}: certificate-authority-data is not base64", path);
      return false;
    }
    c.tls.insecureSkipVerify = cluster["insecure-skip-tls-verify"].as<bool>(false);
    YAML::Node user = find("users", userName, "user");
    if (user.IsDefined()) {
      if (user["exec"] || user["auth-provider"]) {
        *error = fmt::format("the kubeconfig {}: user '{}' authenticates with an exec or auth-provider plugin, which attrib "
                             "does not run; give it a token, a token file or a client certificate",
                             path, userName);
        return false;
      }
      c.token = user["token"].as<std::string>("");
      c.tokenFile = resolve(user["tokenFile"].as<std::string>(""));
      if (user["username"] || user["password"]) {
        *error = fmt::format("the kubeconfig {}: user '{}' uses basic auth, which Kubernetes removed in 1.19; use a token "
                             "or a client certificate",
                             path, userName);
        return false;
      }
      c.tls.certFile = resolve(user["client-certificate"].as<std::string>(""));
      c.tls.keyFile = resolve(user["client-key"].as<std::string>(""));
      if ((user["client-certificate-data"] && !base64Decode(user["client-certificate-data"].as<std::string>(), &c.tls.certPem)) ||
          (user["client-key-data"] && !base64Decode(user["client-key-data"].as<std::string>(), &c.tls.keyPem))) {
        *error = fmt::format("the kubeconfig {}: user '{}' has client certificate data that is not base64", path, userName);
        return false;
      }
    }
    *out = std::move(c);
    return true;
  } catch (const std::exception& e) {
    *error = fmt::format("the kubeconfig {} is malformed: {}", path, e.what());
    return false;
  }
}

http::Response KubeClient::fetch(const std::string& path, size_t maxBody, std::string* error) const {
  http::Request req;
  req.url = config_.server + path;
  req.timeout = config_.timeout;
  req.maxBody = maxBody;
  req.tls = config_.tls;
  req.headers.push_back({"Accept", "application/json"});
  std::string token = config_.token;
  if (!config_.tokenFile.empty()) {
    std::string fromFile;
    if (readFile(config_.tokenFile, &fromFile)) token = trim(fromFile);
  }
  if (!token.empty()) req.headers.push_back({"Authorization", "Bearer " + token});
  http::Response r = http::get(req);
  if (!r.ok) {
    *error = r.error;
  } else if (r.status < 200 || r.status >= 300) {
    *error = fmt::format("{}: {}", path.substr(0, path.find('?')), describeFailure(r));
    r.ok = false;
  } else if (r.truncated) {
    *error = fmt::format("{}: the answer is larger than {} bytes", path.substr(0, path.find('?')), maxBody);
    r.ok = false;
  }
  return r;
}

bool KubeClient::getJson(const std::string& path, nlohmann::json* out, std::string* error) const {
  http::Response r = fetch(path, 64u << 20, error);
  if (!r.ok) return false;
  *out = nlohmann::json::parse(r.body, nullptr, false);
  if (out->is_discarded() || !out->is_object()) {
    *error = fmt::format("{}: the answer is not a JSON object ({} bytes)", path.substr(0, path.find('?')), r.body.size());
    return false;
  }
  return true;
}

bool KubeClient::getText(const std::string& path, std::string* out, std::string* error, size_t maxBytes) const {
  http::Response r = fetch(path, maxBytes, error);
  if (!r.ok) return false;
  *out = std::move(r.body);
  return true;
}

bool KubeClient::list(const std::string& path, const std::string& query, std::vector<nlohmann::json>* items,
                      std::string* error, size_t pageSize, size_t maxItems) const {
  std::string next;
  for (int page = 0; page < 100'000; ++page) {
    std::string url = fmt::format("{}?limit={}{}{}", path, pageSize, query.empty() ? "" : "&" + query,
                                  next.empty() ? "" : "&continue=" + http::urlEncode(next));
    nlohmann::json body;
    if (!getJson(url, &body, error)) return false;
    if (!body.contains("items") || !body["items"].is_array()) {
      *error = fmt::format("{}: the answer is not a list (no items)", path);
      return false;
    }
    for (auto& item : body["items"]) {
      if (items->size() >= maxItems) {
        *error = fmt::format("{}: more than {} items", path, maxItems);
        return false;
      }
      items->push_back(std::move(item));
    }
    next = body.contains("metadata") && body["metadata"].is_object() ? body["metadata"].value("continue", "") : "";
    if (next.empty()) return true;
  }
  *error = fmt::format("{}: the list never ended", path);
  return false;
}

}  // namespace attrib::connectors::kube
