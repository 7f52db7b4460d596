// A raw HTTP/1.1 client for the hostile-client tests: it sends exactly the bytes it is given
// (half a head, a lying Content-Length, chunks past a limit), on 127.0.0.1 only, and reads the
// answer's status within a deadline.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace attrib::service::testing {

class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) close();
  }
  ~RawClient() { close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;
  RawClient(RawClient&& o) noexcept : fd_(o.fd_), read_(std::move(o.read_)) { o.fd_ = -1; }

  bool connected() const { return fd_ >= 0; }
  // Sends all of `bytes`; false when the server closed (or reset) the connection meanwhile.
  bool send(const std::string& bytes) {
    size_t sent = 0;
    while (fd_ >= 0 && sent < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return fd_ >= 0;
  }
  // The status of the answer (0: none within `deadline`, or the connection closed first).
  int status(std::chrono::milliseconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    while (read_.find("\r\n\r\n") == std::string::npos) {
      if (!fill(until)) break;
    }
    if (read_.rfind("HTTP/1.", 0) != 0 || read_.size() < 12) return 0;
    return std::atoi(read_.c_str() + 9);
  }
  // The answer's body (after status()), read up to its Content-Length.
  std::string body(std::chrono::milliseconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    size_t end = read_.find("\r\n\r\n");
    if (end == std::string::npos) return "";
    std::string head = read_.substr(0, end);
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t at = head.find("\r\ncontent-length:");
    size_t length = at == std::string::npos ? 0 : std::strtoul(head.c_str() + at + 17, nullptr, 10);
    while (read_.size() < end + 4 + length && fill(until)) {
    }
    return read_.substr(end + 4, length);
  }
  const std::string& received() const { return read_; }
  // Whether the server closed the connection within `deadline` (reading and dropping the rest).
  bool closedWithin(std::chrono::milliseconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    while (fd_ >= 0) {
      if (!fill(until)) return fd_ < 0;
    }
    return true;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  // Reads what arrives before `until`; false on timeout or when the connection ends.
  bool fill(std::chrono::steady_clock::time_point until) {
    if (fd_ < 0) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) return false;
    char chunk[65536];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) {
      close();
      return false;
    }
    read_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  std::string read_;
};

// A whole request: method, target, headers (each "Name: value\r\n"), body with its length.
inline std::string request(const std::string& method, const std::string& target, const std::string& body,
                           const std::string& headers = "") {
  return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace attrib::service::testing
