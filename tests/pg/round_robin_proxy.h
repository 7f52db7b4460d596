// A round-robin TCP proxy on 127.0.0.1 for the soak (a load balancer in front of `attrib serve`
// replicas): each accepted connection goes to the next backend in turn, skipping one that
// refuses (a killed replica), and bytes are relayed both ways until either side closes. attrib
// run opens a connection per request, so a session's requests land on different replicas.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace attrib::testing {

class RoundRobinProxy {
 public:
  explicit RoundRobinProxy(std::vector<int> backends) : backends_(std::move(backends)) {
    listen_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listen_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a = address(0);
    ::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listen_, 256);
    socklen_t len = sizeof a;
    ::getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    counts_.assign(backends_.size(), 0);
    acceptor_ = std::thread([this] { acceptLoop(); });
  }
  ~RoundRobinProxy() {
    stop_ = true;
    ::shutdown(listen_, SHUT_RDWR);
    acceptor_.join();
    ::close(listen_);
    while (active_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // relays see stop_
  }
  int port() const { return port_; }
  // Connections relayed to each backend so far.
  std::vector<uint64_t> perBackend() {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
  }

 private:
  static sockaddr_in address(int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    return a;
  }
  void acceptLoop() {
    while (!stop_) {
      int client = ::accept(listen_, nullptr, nullptr);
      if (client < 0) {
        if (stop_) return;
        continue;
      }
      int server = -1;
      for (size_t tried = 0; tried < backends_.size() && server < 0; ++tried) {
        size_t b = next_++ % backends_.size();
        int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a = address(backends_[b]);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
          server = fd;
          std::lock_guard<std::mutex> lock(mutex_);
          ++counts_[b];
        } else {
          ::close(fd);
        }
      }
      if (server < 0) {
        ::close(client);
        continue;
      }
      ++active_;
      std::thread([this, client, server] {
        relay(client, server);
        --active_;
      }).detach();
    }
  }
  void relay(int a, int b) {
    char buffer[65536];
    pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    while (!stop_) {
      int n = ::poll(fds, 2, 200);
      if (n < 0) break;
      if (n == 0) continue;
      bool done = false;
      for (int i = 0; i < 2 && !done; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t got = ::recv(fds[i].fd, buffer, sizeof buffer, 0);
        if (got <= 0) {
          done = true;
          break;
        }
        for (ssize_t sent = 0; sent < got;) {
          ssize_t s = ::send(fds[1 - i].fd, buffer + sent, static_cast<size_t>(got - sent), MSG_NOSIGNAL);
          if (s <= 0) {
            done = true;
            break;
          }
          sent += s;
        }
      }
      if (done) break;
    }
    ::close(a);
    ::close(b);
  }

  std::vector<int> backends_;
  int listen_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  std::atomic<int> active_{0};
  std::thread acceptor_;
  std::vector<uint64_t> counts_;
};

}  // namespace attrib::testing
