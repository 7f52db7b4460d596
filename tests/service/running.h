// A Service on 127.0.0.1 (any free port) serving in a thread of its own for one test, with a
// cpp-httplib client ready to talk to it.
#pragma once

#include <httplib.h>

#include <memory>
#include <thread>

#include "service/service.h"
#include "tests/runtime/engine_util.h"

namespace attrib::service::testing {

class Running {
 public:
  explicit Running(ServiceOptions options = {}) : service_(attrib::testing::stdlibEngine(), options) {
    std::string error;
    port_ = service_.bind("127.0.0.1", 0, &error);
    EXPECT_GT(port_, 0) << error;
    thread_ = std::thread([this] { service_.serve(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_connection_timeout(5);
    client_->set_read_timeout(30);
    for (int i = 0; i < 200; ++i) {
      if (auto r = client_->Get("/healthz"); r && r->status == 200) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~Running() {
    service_.stop();
    thread_.join();
  }
  httplib::Client& client() { return *client_; }
  int port() const { return port_; }

 private:
  Service service_;
  int port_ = 0;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace attrib::service::testing
