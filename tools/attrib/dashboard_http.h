// The dashboard (report/dashboard.h) over HTTP, with cpp-httplib as the Service uses it. Only
// the binding lives here (requests in, the dashboard's pages out, the token, the headers), so it
// can move to the Service's HTTP layer unchanged in substance.
//
// GET and HEAD only (anything else: 405); with a token, every page needs
// "Authorization: Bearer TOKEN" (401 otherwise, compared in constant time); a bounded thread
// pool, no request body, short timeouts; every response says no-store, nosniff, no referrer and
// may not be framed.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "report/dashboard.h"

namespace httplib {
class Server;
}

namespace attrib::tools {

struct DashboardServerOptions {
  std::string token;  // empty: no authentication
  unsigned threads = 4;
  std::function<void(const std::string& line)> accessLog;  // method, path, status, ms: never the query or headers
};

class DashboardServer {
 public:
  DashboardServer(report::Dashboard& dashboard, DashboardServerOptions options);
  ~DashboardServer();
  // Binds to host:port (0: any free port) and returns the port, or -1 with `error`.
  int bind(const std::string& host, int port, std::string* error);
  void serve();  // until stop()
  void stop();

 private:
  report::Dashboard& dashboard_;
  DashboardServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
};

}  // namespace attrib::tools
