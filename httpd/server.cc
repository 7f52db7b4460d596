#include "httpd/server.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <atomic>
#include <limits>
#include <list>
#include <mutex>

namespace attrib::httpd {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using error_code = boost::system::error_code;

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
// After an answer given without reading an announced body: how long and how much of it is
// read and dropped before closing, so that the client sees the answer instead of a reset.
constexpr std::chrono::milliseconds kLingerTime{1000};
constexpr size_t kLingerBytes = 1 << 20;

Response plainError(int status, const std::string& message) {
  Response r;
  r.status = status;
  r.contentType = "text/plain; charset=utf-8";
  r.body = message + "\n";
  return r;
}

}  // namespace

struct Server::Impl {
  class Connection;

  Impl(Admit a, ServerOptions o) : admit(std::move(a)), options(std::move(o)), workers(std::max(1u, options.workers)) {
    if (!options.errorResponse) options.errorResponse = plainError;
  }

  void accept();
  void onAccept(tcp::socket socket);
  void stopNow();
  Response error(int status, const std::string& message) {
    try {
      return options.errorResponse(status, message);
    } catch (...) {
      return plainError(status, message);
    }
  }
  void record(const Exchange& e) {
    if (!options.onExchange) return;
    try {
      options.onExchange(e);
    } catch (...) {
      // A log hook that fails loses its line, never the server.
    }
  }

  Admit admit;
  ServerOptions options;
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::thread_pool workers;
  // Touched on the I/O thread only.
  std::list<Connection*> open;
  bool stopping = false;
  std::atomic<size_t> count{0};
};

class Server::Impl::Connection : public std::enable_shared_from_this<Connection> {
 public:
  enum class State { Idle, Head, Body, Handling, Writing, Lingering, Closing };

  Connection(Impl* server, tcp::socket socket)
      : server_(server), stream_(std::move(socket)), timer_(server_->io), buffer_(server_->options.maxHeaderBytes + 65536) {
    error_code ec;
    stream_.socket().set_option(tcp::no_delay(true), ec);
    auto remote = stream_.socket().remote_endpoint(ec);
    if (!ec) peer_ = remote.address().to_string();
  }

  void start() {
    self_ = server_->open.insert(server_->open.end(), this);
    ++server_->count;
    awaitRequest(server_->options.headerTimeout);
  }

  State state() const { return state_; }
  Clock::time_point idleSince() const { return idleSince_; }
  bool quiet() const { return state_ == State::Idle && buffer_.size() == 0; }

  // Closes at once (on the I/O thread): an idle connection evicted, or the server stopping.
  void close() {
    if (state_ == State::Closing) return;
    state_ = State::Closing;
    admission_.respond = nullptr;
    timer_.cancel();
    error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
    if (self_) {
      server_->open.erase(*self_);
      self_.reset();
      --server_->count;
    }
  }

 private:
  // Waits for a request's first byte (`wait` is the idle or the first-request deadline), then
  // reads its head under the header deadline.
  void awaitRequest(std::chrono::milliseconds wait) {
    state_ = State::Idle;
    idleSince_ = Clock::now();
    if (server_->stopping) return close();
    if (buffer_.size() > 0) return readHead();
    arm(wait);
    stream_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](error_code ec, size_t n) {
      self->timer_.cancel();
      if (self->state_ == State::Closing) return;
      if (ec) return self->close();  // idle too long, or the client left: nothing to answer
      self->buffer_.commit(n);
      self->readHead();
    });
  }

  void readHead() {
    state_ = State::Head;
    started_ = Clock::now();
    parser_.emplace();
    parser_->header_limit(server_->options.maxHeaderBytes);
    // The admission sets the real limit: a refused request's body is never read. (Not
    // boost::none: Beast 1.74 compares a Content-Length against an empty limit as exceeding it.)
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    arm(server_->options.headerTimeout);
    http::async_read_header(stream_, buffer_, *parser_, [self = shared_from_this()](error_code ec, size_t) {
      self->timer_.cancel();
      if (self->state_ == State::Closing) return;
      if (ec) return self->failRead(ec, "the request's head", false);
      self->onHead();
    });
  }

  // A read that failed: answer what can be answered, then close.
  // `inBody`: the client may still be sending, so the answer lingers.
  void failRead(error_code ec, const char* what, bool inBody) {
    if (timedOut_ || ec == beast::error::timeout) {
      auto seconds = std::chrono::duration<double>(inBody ? server_->options.bodyTimeout : server_->options.headerTimeout).count();
      return answerAndClose(408, fmt(what, " did not arrive within ", seconds, " s"), inBody);
    }
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      return answerAndClose(431, fmt("the request's head is larger than ", server_->options.maxHeaderBytes, " bytes"), true);
    }
    if (ec == http::error::body_limit) {
      return answerAndClose(413, fmt("the request body is larger than the limit of ", limit_, " bytes"), true);
    }
    if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == asio::error::eof ||
        ec == asio::error::connection_reset || ec == asio::error::operation_aborted) {
      return close();
    }
    // Everything else is a malformed request: bad Content-Length, bad chunk, bad request line.
    answerAndClose(400, fmt("malformed request: ", ec.message()), false);
  }

  void onHead() {
    auto& req = parser_->get();
    head_ = Head{};
    head_.method = std::string(req.method_string());
    head_.target = std::string(req.target());
    size_t q = head_.target.find('?');
    head_.path = head_.target.substr(0, q);
    head_.query = q == std::string::npos ? "" : head_.target.substr(q + 1);
    for (const auto& f : req) head_.headers.push_back({std::string(f.name_string()), std::string(f.value())});
    head_.chunked = parser_->chunked();
    if (auto n = parser_->content_length()) head_.contentLength = *n;
    head_.peer = peer_;
    method_ = head_.method;
    keepAlive_ = parser_->keep_alive();
    if (req.version() != 11 && req.version() != 10) {
      return answerAndClose(505, "only HTTP/1.0 and HTTP/1.1 are served", head_.hasBody());
    }
    try {
      admission_ = server_->admit(head_);
    } catch (...) {
      admission_ = Admission{};
      admission_.answer = server_->error(500, "internal error");
    }
    route_ = admission_.route;
    if (admission_.answer || !admission_.respond) {
      Response r = admission_.answer ? std::move(*admission_.answer) : server_->error(500, "internal error");
      admission_ = Admission{};
      // The body was not read: the connection cannot carry another request.
      bool body = head_.hasBody();
      return write(std::move(r), /*close=*/body, /*linger=*/body);
    }
    limit_ = admission_.maxBodyBytes;
    if (head_.contentLength && *head_.contentLength > limit_) {
      admission_ = Admission{};
      return write(server_->error(413, fmt("the request body is larger than the limit of ", limit_, " bytes")), true, true);
    }
    parser_->body_limit(limit_);
    if (parser_->is_done()) return dispatch();
    auto expect = req[http::field::expect];
    if (beast::iequals(expect, "100-continue")) {
      stream_.expires_after(server_->options.writeTimeout);
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()), [self = shared_from_this()](error_code ec, size_t) {
        if (self->state_ == State::Closing) return;
        if (ec) return self->close();
        self->readBody();
      });
      return;
    }
    readBody();
  }

  void readBody() {
    state_ = State::Body;
    arm(server_->options.bodyTimeout);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](error_code ec, size_t) {
      self->timer_.cancel();
      if (self->state_ == State::Closing) return;
      if (ec) {
        self->admission_ = Admission{};  // releases what the handler held
        return self->failRead(ec, "the request's body", true);
      }
      self->dispatch();
    });
  }

  void dispatch() {
    state_ = State::Handling;
    stream_.expires_never();
    auto request = std::make_shared<Request>();
    request->head = std::move(head_);
    request->body = std::move(parser_->get().body());
    bytesIn_ = request->body.size();
    auto respond = std::make_shared<std::function<Response(Request&)>>(std::move(admission_.respond));
    admission_ = Admission{};
    auto guard = asio::make_work_guard(server_->io);  // serve() waits for handlers in flight
    asio::post(server_->workers, [self = shared_from_this(), request, respond, guard]() mutable {
      Response r;
      try {
        r = (*respond)(*request);
      } catch (...) {
        r = self->server_->error(500, "internal error");
      }
      *respond = nullptr;  // release the handler's hold before the answer is written
      asio::post(self->server_->io, [self, r = std::move(r), guard = std::move(guard)]() mutable {
        if (self->state_ == State::Closing) return;
        self->write(std::move(r), false, false);
      });
    });
  }

  // A read deadline of our own: on expiry it cancels the read (the read then fails with
  // operation_aborted and timedOut_ set) but keeps the socket open, so that a 408 can still be
  // written. (beast::tcp_stream's own expiry closes the socket.)
  void arm(std::chrono::milliseconds d) {
    timedOut_ = false;
    stream_.expires_never();
    timer_.expires_after(d);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (ec || self->state_ == State::Closing) return;
      self->timedOut_ = true;
      error_code ignored;
      self->stream_.socket().cancel(ignored);
    });
  }

  void answerAndClose(int status, const std::string& message, bool linger) {
    write(server_->error(status, message), true, linger);
  }

  void write(Response r, bool close, bool linger) {
    state_ = State::Writing;
    close = close || !keepAlive_ || server_->stopping;
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(11);
    res->result(static_cast<unsigned>(r.status));
    res->set(http::field::content_type, r.contentType);
    for (const auto& h : r.headers) res->set(h.name, h.value);
    res->body() = std::move(r.body);
    res->keep_alive(!close);
    res->prepare_payload();
    Exchange e;
    e.method = method_;
    e.route = route_;
    e.peer = peer_;
    e.status = r.status;
    e.bytesIn = bytesIn_;
    e.bytesOut = res->body().size();
    // Recorded as the answer is handed to the socket: a client that has its answer finds it logged.
    e.ms = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
    server_->record(e);
    stream_.expires_after(server_->options.writeTimeout);
    http::async_write(stream_, *res, [self = shared_from_this(), res, close, linger](error_code ec, size_t) {
      self->route_.clear();
      self->method_.clear();
      self->bytesIn_ = 0;
      self->head_ = Head{};
      if (self->state_ == State::Closing) return;
      if (ec) return self->close();
      if (!close) return self->awaitRequest(self->server_->options.idleTimeout);
      if (linger) return self->linger();
      self->close();
    });
  }

  // Reads and drops what the client still sends for a while, so that it reads the answer
  // before the socket closes (closing with unread data would reset the connection).
  void linger() {
    state_ = State::Lingering;  // neither idle nor evictable; it closes itself within kLingerTime
    error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    lingerUntil_ = Clock::now() + kLingerTime;
    drain();
  }
  void drain() {
    if (Clock::now() >= lingerUntil_ || lingered_ >= kLingerBytes) return close();
    stream_.expires_at(lingerUntil_);
    buffer_.consume(buffer_.size());
    stream_.async_read_some(buffer_.prepare(16384), [self = shared_from_this()](error_code ec, size_t n) {
      if (self->state_ == State::Closing) return;
      if (ec) return self->close();
      self->lingered_ += n;
      self->drain();
    });
  }

  template <typename... A>
  static std::string fmt(const A&... parts) {
    std::string out;
    ((out += toText(parts)), ...);
    return out;
  }
  static std::string toText(const char* s) { return s; }
  static std::string toText(const std::string& s) { return s; }
  template <typename N>
  static std::string toText(N n) {
    std::string s = std::to_string(n);
    if constexpr (std::is_floating_point_v<N>) {
      s.erase(s.find_last_not_of('0') + 1);
      if (!s.empty() && s.back() == '.') s.pop_back();
    }
    return s;
  }

  Impl* server_;  // outlives every connection: serve() returns only when all are gone
  beast::tcp_stream stream_;
  asio::steady_timer timer_;
  bool timedOut_ = false;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Head head_;
  Admission admission_;
  std::string peer_, route_, method_;
  uint64_t limit_ = 0, bytesIn_ = 0;
  size_t lingered_ = 0;
  bool keepAlive_ = true;
  State state_ = State::Idle;
  Clock::time_point started_ = Clock::now(), idleSince_ = Clock::now(), lingerUntil_;
  std::optional<std::list<Connection*>::iterator> self_;
};

void Server::Impl::accept() {
  acceptor.async_accept(io, [this](error_code ec, tcp::socket socket) {
    if (stopping) return;
    if (!ec) onAccept(std::move(socket));
    accept();
  });
}

void Server::Impl::onAccept(tcp::socket socket) {
  if (count >= options.maxConnections) {
    // Full: make room by closing the longest-idle keep-alive connection; with none, say so.
    Connection* oldest = nullptr;
    for (Connection* c : open) {
      if (c->quiet() && (!oldest || c->idleSince() < oldest->idleSince())) oldest = c;
    }
    if (oldest) {
      oldest->close();
    } else {
      Response r = error(503, "too many connections; retry later");
      std::string text = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: " +
                         r.contentType + "\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\n\r\n" + r.body;
      error_code ec;
      socket.non_blocking(true, ec);
      socket.write_some(asio::buffer(text), ec);  // best effort: a new socket's buffer takes it
      socket.close(ec);
      Exchange e;
      e.status = 503;
      record(e);
      return;
    }
  }
  std::make_shared<Connection>(this, std::move(socket))->start();
}

void Server::Impl::stopNow() {
  if (stopping) return;
  stopping = true;
  error_code ec;
  acceptor.close(ec);
  // Idle connections and half-read heads close now; the others finish their request.
  std::vector<Connection*> quiet;
  for (Connection* c : open) {
    if (c->state() == Connection::State::Idle || c->state() == Connection::State::Head) quiet.push_back(c);
  }
  for (Connection* c : quiet) c->close();
}

Server::Server(Admit admit, ServerOptions options) : impl_(std::make_unique<Impl>(std::move(admit), std::move(options))) {}

Server::~Server() {
  stop();
  impl_->workers.join();
}

int Server::bind(const std::string& host, int port, std::string* error) {
  error_code ec;
  tcp::resolver resolver(impl_->io);
  auto endpoints = resolver.resolve(host, std::to_string(port), tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) {
    *error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + (ec ? ec.message() : "no such address");
    return -1;
  }
  tcp::endpoint endpoint = endpoints.begin()->endpoint();
  auto& a = impl_->acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    *error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message();
    a.close(ec);
    return -1;
  }
  return a.local_endpoint(ec).port();
}

void Server::serve() {
  if (!impl_->acceptor.is_open()) return;
  impl_->accept();
  for (;;) {
    try {
      impl_->io.run();
      break;
    } catch (...) {
      // A handler threw past every guard (an allocation failure, say): the server goes on.
    }
  }
  impl_->workers.wait();
}

void Server::stop() {
  Impl* impl = impl_.get();
  asio::post(impl->io, [impl] { impl->stopNow(); });
}

size_t Server::connections() const { return impl_->count; }

}  // namespace attrib::httpd
