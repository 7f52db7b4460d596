#include "tools/attrib/dashboard_http.h"

#include <fmt/format.h>
#include <httplib.h>
#include <openssl/crypto.h>

#include <chrono>

namespace attrib::tools {
namespace {

bool sameToken(const std::string& given, const std::string& want) {
  return given.size() == want.size() && CRYPTO_memcmp(given.data(), want.data(), want.size()) == 0;
}

void send(httplib::Response& res, const report::DashboardResponse& page) {
  res.status = page.status;
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("X-Frame-Options", "DENY");
  res.set_content(page.body, page.contentType);
}

}  // namespace

DashboardServer::DashboardServer(report::Dashboard& dashboard, DashboardServerOptions options)
    : dashboard_(dashboard), options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
  unsigned threads = std::max(1u, options_.threads);
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_payload_max_length(4096);
  server_->set_read_timeout(10, 0);
  server_->set_write_timeout(10, 0);
  auto handle = [this](const httplib::Request& req, httplib::Response& res) {
    auto started = std::chrono::steady_clock::now();
    report::DashboardResponse page;
    if (!options_.token.empty() && !sameToken(req.get_header_value("Authorization"), "Bearer " + options_.token)) {
      page = {401, "text/plain; charset=utf-8", "a bearer token is required (Authorization: Bearer ...)\n"};
      res.set_header("WWW-Authenticate", "Bearer");
    } else {
      report::DashboardRequest request;
      request.method = req.method;
      request.path = req.path;
      for (const auto& [key, value] : req.params) request.query.emplace(key, value);
      page = dashboard_.handle(request);
    }
    send(res, page);
    if (options_.accessLog) {
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
      options_.accessLog(fmt::format(R"({{"method": "{}", "status": {}, "ms": {:.1f}, "bytes_out": {}}})", req.method, page.status,
                                     ms, page.body.size()));
    }
  };
  server_->Get(".*", handle);
  // Every other method reaches the dashboard too, which refuses it (405): nothing is written.
  server_->Post(".*", handle);
  server_->Put(".*", handle);
  server_->Patch(".*", handle);
  server_->Delete(".*", handle);
  server_->Options(".*", handle);
}

DashboardServer::~DashboardServer() = default;

int DashboardServer::bind(const std::string& host, int port, std::string* error) {
  int bound = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound < 0) *error = fmt::format("cannot listen on {}:{}", host, port);
  return bound;
}

void DashboardServer::serve() { server_->listen_after_bind(); }
void DashboardServer::stop() { server_->stop(); }

}  // namespace attrib::tools
