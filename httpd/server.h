// An HTTP/1.1 server for the product's servers (the Service, later a dashboard), on
// Boost.Beast/Asio. It owns connections, deadlines and limits; the application decides per
// request, from its head alone, whether to take it (and with which body limit) and then
// answers it on a worker thread.
//
// Contract, per connection:
//  - One I/O thread runs every connection (no thread per connection: a slow client costs a
//    socket and a small buffer, never a worker). Handlers run on `workers` threads.
//  - Deadlines: `headerTimeout` from a request's first byte to the end of its head (a
//    half-sent head is answered 408 and closed), `bodyTimeout` for the whole body (408),
//    `idleTimeout` between keep-alive requests (closed quietly), `writeTimeout` per response.
//  - The head is at most `maxHeaderBytes` (431). Then `admit` sees it, before any byte of the
//    body is read: it may answer at once (401, 404, 405, 503...: the body is then never read
//    and the connection closes, lingering briefly so the client can read the answer), or
//    take the request with a body limit that binds every transfer encoding (413 for a longer
//    Content-Length before reading it, and for a chunked body as soon as a chunk header
//    would pass the limit: no byte past the limit is stored). Expect: 100-continue is
//    answered only for admitted requests.
//  - Malformed requests (a bad or negative Content-Length, both Content-Length and chunked, a
//    bad chunk, a bad request line) are 400 and close the connection at once.
//  - TCP_NODELAY on every connection, and each response written in one gathered write:
//    keep-alive answers do not wait for delayed ACKs.
//  - At most `maxConnections` open. A new one beyond it closes the longest-idle keep-alive
//    connection when there is one (idle clients cannot starve new ones); else it is answered
//    503 and closed.
//  - stop(): no new connections; idle ones close; requests in flight (being read, handled or
//    written) finish and their responses say Connection: close; serve() then returns.
// Nothing thrown by `admit` or a handler escapes: it becomes a 500 (Exchange::status) and the
// server goes on.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "httpd/message.h"

namespace attrib::httpd {

// What the application decides on a request's head.
struct Admission {
  // Set: answer this at once; the body, if any, is never read.
  std::optional<Response> answer;
  // Otherwise the request is taken: its body may be at most this long (413 beyond) ...
  uint64_t maxBodyBytes = 0;
  // ... and this answers it, on a worker thread, once the body is in. Whatever it captures (an
  // in-flight slot, say) is released when it is destroyed: after it ran, or as soon as the
  // request is abandoned (the client went away, a deadline passed, the body was too long).
  std::function<Response(Request&)> respond;
  // The route, for the Exchange record ("/v1/sessions/{id}").
  std::string route;
};

struct ServerOptions {
  size_t maxConnections = 1024;
  std::chrono::milliseconds headerTimeout{10'000};
  std::chrono::milliseconds bodyTimeout{60'000};
  std::chrono::milliseconds idleTimeout{30'000};
  std::chrono::milliseconds writeTimeout{30'000};
  uint32_t maxHeaderBytes = 16 << 10;
  unsigned workers = 8;
  // The body of a response the server makes itself (400, 408, 413, 431, 500, 503, 505).
  std::function<Response(int status, const std::string& message)> errorResponse;
  // Called once per answered request, on the I/O thread (keep it short; it must not throw).
  std::function<void(const Exchange&)> onExchange;
};

class Server {
 public:
  using Admit = std::function<Admission(const Head&)>;
  Server(Admit admit, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds host:port (port 0: any free one) and returns the port, or -1 with `error`.
  int bind(const std::string& host, int port, std::string* error);
  // Serves until stop() and the drain that follows it.
  void serve();
  // From any thread, any number of times.
  void stop();
  // Connections open now (for tests and metrics).
  size_t connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attrib::httpd
