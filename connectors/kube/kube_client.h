// The Kubernetes API as connectors use it: where the server is and how to authenticate
// (in-cluster service account or a kubeconfig), GET with the API's error envelope turned into a
// one-line error, and lists followed through their `continue` pages.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "connectors/http/http_client.h"

namespace attrib::connectors::kube {

struct KubeConfig {
  std::string server;     // https://host:port (no trailing slash)
  std::string token;      // bearer token
  std::string tokenFile;  // re-read before every request (service-account tokens are rotated)
  http::TlsOptions tls;
  std::string ns;         // the default namespace
  std::chrono::milliseconds timeout{30'000};
};

// In a pod: $KUBERNETES_SERVICE_HOST/PORT and the service account's token, CA and namespace in
// `dir`. False with `error` when not in a cluster.
bool inClusterConfig(KubeConfig* out, std::string* error,
                     const std::string& dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// A kubeconfig file: the context `context` (empty: current-context); server, CA (file or
// base64 data), token, token file, client certificate and key (files or data),
// insecure-skip-tls-verify, namespace. exec and auth-provider plugins and basic auth (removed from
// Kubernetes in 1.19) are not supported: an error says so. Relative paths are taken from the kubeconfig's directory.
bool loadKubeconfig(const std::string& path, const std::string& context, KubeConfig* out, std::string* error);

// obj[key] when it is a string, else "" (API objects omit empty fields).
inline std::string stringField(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return "";
  return obj[key].get<std::string>();
}

class KubeClient {
 public:
  explicit KubeClient(KubeConfig config) : config_(std::move(config)) {}

  // GET `path` (with its query); false with a one-line `error` for transport failures, non-2xx
  // answers (the Status envelope's reason and message) and bodies that are not JSON.
  bool getJson(const std::string& path, nlohmann::json* out, std::string* error) const;

  // Every item of a list, following `metadata.continue` with pages of `pageSize`; at most
  // `maxItems` (more is an error). `query` is added to every page's request.
  bool list(const std::string& path, const std::string& query, std::vector<nlohmann::json>* items,
            std::string* error, size_t pageSize = 500, size_t maxItems = 100'000) const;

  // GET returning text (pod logs); same errors as getJson.
  bool getText(const std::string& path, std::string* out, std::string* error, size_t maxBytes = 64u << 20) const;

  const KubeConfig& config() const { return config_; }

 private:
  http::Response fetch(const std::string& path, size_t maxBody, std::string* error) const;
  KubeConfig config_;
};

}  // namespace attrib::connectors::kube
