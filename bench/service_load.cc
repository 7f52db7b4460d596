// service_load: a load generator for `attrib serve` (bench/service drives it). Plain blocking
// sockets, one connection per client thread, each request written in one send() so that the
// client adds no Nagle stall of its own: what is measured is the server.
//
//   service_load --port P --mode surge|attribute --requests N --concurrency C [--close]
//
// surge:     N POSTs of two attrib-format log lines each to C sessions (one per client), then
//            the sessions' line counts are read back: lost = 2N - counted.
// attribute: N one-call attributions (POST /v1/attribute, an Xid 79 and four NCCL timeouts):
//            lost = answers that are not 200 or not the expected root cause.
// A 503 or 429 is retried after its Retry-After (counted as `retried`, not lost).
// Prints one line of JSON: requests, seconds, req_per_s, p50_ms, p99_ms, lost, retried.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Answer {
  int status = 0;  // 0: the connection failed
  std::string body;
  int retryAfter = 1;
  bool close = false;
};

class Connection {
 public:
  Connection(int port, bool keepAlive) : port_(port), keepAlive_(keepAlive) {}
  ~Connection() { drop(); }

  Answer exchange(const std::string& method, const std::string& path, const std::string& body) {
    for (int attempt = 0; attempt < 2; ++attempt) {  // a keep-alive connection the server closed: once more
      if (fd_ < 0 && !open()) return {};
      std::string request = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
      if (!keepAlive_) request += "Connection: close\r\n";
      request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      bool reused = used_;
      used_ = true;
      Answer a;
      if (sendAll(request) && read(&a)) {
        if (!keepAlive_ || a.close) drop();
        return a;
      }
      drop();
      if (!reused) return {};
    }
    return {};
  }

 private:
  bool open() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      drop();
      return false;
    }
    used_ = false;
    buffer_.clear();
    return true;
  }
  void drop() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  bool sendAll(const std::string& s) {
    size_t sent = 0;
    while (sent < s.size()) {
      ssize_t n = ::send(fd_, s.data() + sent, s.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  bool fill() {
    char chunk[65536];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }
  bool read(Answer* a) {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return false;
    }
    std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    if (head.size() < 12) return false;
    a->status = std::atoi(head.c_str() + 9);
    size_t length = 0;
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (auto at = head.find("\r\ncontent-length:"); at != std::string::npos) length = std::strtoul(head.c_str() + at + 17, nullptr, 10);
    if (auto at = head.find("\r\nretry-after:"); at != std::string::npos) a->retryAfter = std::atoi(head.c_str() + at + 14);
    a->close = head.find("\r\nconnection: close") != std::string::npos;
    while (buffer_.size() < length) {
      if (!fill()) return false;
    }
    a->body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return true;
  }

  int port_;
  bool keepAlive_;
  int fd_ = -1;
  bool used_ = false;
  std::string buffer_;
};

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

const char* kXid = "Nov 29 10:42:00 gpu-07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.";

std::string attributeBody() {
  std::string lines = std::string("{\"node\": \"gpu-07\", \"source\": \"syslog\", \"time\": \"2026-11-29T10:42:00Z\", \"text\": ") +
                      jsonString(kXid) + "}\n";
  for (int rank = 0; rank < 4; ++rank) {
    std::string r = std::to_string(rank);
    lines += "{\"node\": \"gpu-0" + std::to_string(rank < 2 ? 1 : 2) + "\", \"rank\": " + r +
             ", \"time\": \"2026-11-29T10:52:00Z\", \"text\": \"[rank" + r + "]:[E ProcessGroupNCCL.cpp:563] [Rank " + r +
             "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
             "Timeout(ms)=600000) ran for 600250 milliseconds before timing out.\"}\n";
  }
  return "{\"workload\": {\"id\": \"slurm/77\", \"state\": \"FAILED\", \"start\": \"2026-11-29T10:00:00Z\", \"end\": "
         "\"2026-11-29T11:00:00Z\", \"nodes\": [\"gpu-01\", \"gpu-02\", \"gpu-07\"]}, \"observations\": [{\"format\": \"attrib\", "
         "\"data\": " + jsonString(lines) + "}]}";
}

std::string idOf(const std::string& body) {
  auto at = body.find("\"id\":\"");
  if (at == std::string::npos) return "";
  at += 6;
  return body.substr(at, body.find('"', at) - at);
}

long countOf(const std::string& body, const std::string& key) {
  auto at = body.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::atol(body.c_str() + at + key.size() + 3);
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0, requests = 1000, concurrency = 64;
  std::string mode = "surge";
  bool keepAlive = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--port") port = std::atoi(next().c_str());
    else if (a == "--mode") mode = next();
    else if (a == "--requests") requests = std::atoi(next().c_str());
    else if (a == "--concurrency") concurrency = std::atoi(next().c_str());
    else if (a == "--close") keepAlive = false;
    else {
      std::fprintf(stderr, "service_load: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (port <= 0 || requests <= 0 || concurrency <= 0 || (mode != "surge" && mode != "attribute")) {
    std::fprintf(stderr, "usage: service_load --port P --mode surge|attribute --requests N --concurrency C [--close]\n");
    return 2;
  }
  std::vector<std::string> sessions;
  if (mode == "surge") {
    Connection setup(port, true);
    for (int c = 0; c < concurrency; ++c) {
      Answer a = setup.exchange("POST", "/v1/sessions", "{\"id\": \"surge-" + std::to_string(c) + "\", \"nodes\": [\"gpu-07\"]}");
      if (a.status != 201) {
        std::fprintf(stderr, "service_load: cannot create a session: %d %s\n", a.status, a.body.c_str());
        return 1;
      }
      sessions.push_back(idOf(a.body));
    }
  }
  const std::string oneCall = attributeBody();
  std::atomic<int> next{0}, lost{0}, retried{0};
  std::mutex mu;
  std::vector<double> latencies;
  latencies.reserve(static_cast<size_t>(requests));
  auto started = Clock::now();
  std::vector<std::thread> clients;
  for (int c = 0; c < concurrency; ++c) {
    clients.emplace_back([&, c] {
      Connection conn(port, keepAlive);
      std::vector<double> mine;
      for (int n; (n = next++) < requests;) {
        std::string path = mode == "surge" ? "/v1/sessions/" + sessions[static_cast<size_t>(c)] + "/observations" : "/v1/attribute";
        std::string body = mode == "surge" ? "{\"node\": \"gpu-07\", \"source\": \"syslog\", \"time\": " + std::to_string(n) +
                                                 ", \"text\": \"line " + std::to_string(n) + " a\"}\n{\"node\": \"gpu-07\", \"text\": \"line " +
                                                 std::to_string(n) + " b\"}\n"
                                           : oneCall;
        auto t0 = Clock::now();
        Answer a;
        for (int attempt = 0; attempt < 20; ++attempt) {
          a = conn.exchange("POST", path, body);
          if (a.status != 503 && a.status != 429) break;
          ++retried;
          std::this_thread::sleep_for(std::chrono::milliseconds(std::clamp(a.retryAfter, 0, 5) * 1000 / 20 + 1));
        }
        mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        bool ok = a.status == 200 && (mode == "surge" || a.body.find("\"gpu.xid.xid79\"") != std::string::npos);
        if (!ok && lost++ == 0) {
          std::fprintf(stderr, "service_load: the first failure: %d %.300s\n", a.status, a.body.c_str());
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : clients) t.join();
  double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  long lostObservations = 0;
  if (mode == "surge") {
    // The observations the Service holds, against those sent: nothing may be lost.
    Connection check(port, true);
    long counted = 0;
    for (const auto& id : sessions) {
      Answer a = check.exchange("GET", "/v1/sessions/" + id, "");
      counted += std::max(0L, countOf(a.body, "lines"));
    }
    lostObservations = 2L * requests - counted;
  }
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) { return latencies.empty() ? 0.0 : latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()))]; };
  std::printf("{\"mode\": \"%s\", \"keep_alive\": %s, \"requests\": %d, \"concurrency\": %d, \"seconds\": %.3f, \"req_per_s\": %.0f, "
              "\"p50_ms\": %.2f, \"p99_ms\": %.2f, \"failed_requests\": %d, \"lost_observations\": %ld, \"retried\": %d}\n",
              mode.c_str(), keepAlive ? "true" : "false", requests, concurrency, seconds, requests / seconds, pct(0.50), pct(0.99),
              lost.load(), lostObservations, retried.load());
  return lost == 0 && lostObservations == 0 ? 0 : 1;
}
