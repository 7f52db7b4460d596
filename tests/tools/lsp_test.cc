// `attribc lsp` driven by a scripted client over its stdin and stdout, as an editor drives it:
// initialize, didOpen of a file with an error and the diagnostics published for it, a fix and
// the cleared diagnostics, go to definition (into another package of the workspace and into the
// stdlib), hover, completion of symptom names, properties and vocabularies, shutdown and exit.
// Every wait is bounded (kTimeout), so a server that hangs fails the test instead of CI.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr auto kTimeout = std::chrono::seconds(20);

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string uriOf(const fs::path& p) { return "file://" + p.string(); }

// The 0-based line of the first line of `file` that contains `text`.
int lineOf(const fs::path& file, const std::string& text) {
  std::istringstream in(slurp(file));
  std::string line;
  for (int n = 0; std::getline(in, line); ++n) {
    if (line.find(text) != std::string::npos) return n;
  }
  ADD_FAILURE() << text << " not in " << file;
  return -1;
}

// `attribc lsp` as a child process with pipes for its stdin and stdout.
class LspClient {
 public:
  LspClient(const std::vector<std::string>& extra, const fs::path& log) {
    int in[2], out[2];
    EXPECT_EQ(::pipe(in), 0);
    EXPECT_EQ(::pipe(out), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(err, 2);
      ::close(in[1]);
      ::close(out[0]);
      std::vector<std::string> args = {ATTRIBC_PATH, "lsp"};
      args.insert(args.end(), extra.begin(), extra.end());
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(ATTRIBC_PATH, argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~LspClient() {
    if (to_ >= 0) ::close(to_);
    if (pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(from_);
  }

  void send(const json& message) {
    std::string body = message.dump();
    std::string frame = fmt::format("Content-Length: {}\r\n\r\n{}", body.size(), body);
    ASSERT_EQ(::write(to_, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
  }
  void sendRaw(const std::string& bytes) { ASSERT_EQ(::write(to_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size())); }
  int request(const std::string& method, const json& params) {
    int id = ++lastId_;
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return id;
  }
  void notify(const std::string& method, const json& params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
  }

  // The next message that satisfies `want`; the others are kept in `seen`.
  json waitFor(const std::function<bool(const json&)>& want) {
    for (size_t i = 0; i < queue_.size(); ++i) {
      if (want(queue_[i])) {
        json m = queue_[i];
        queue_.erase(queue_.begin() + static_cast<long>(i));
        return m;
      }
    }
    auto deadline = Clock::now() + kTimeout;
    for (;;) {
      json m = next(deadline);
      if (m.is_null()) return m;
      if (want(m)) return m;
      queue_.push_back(m);
    }
  }
  json response(int id) {
    json m = waitFor([&](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); });
    EXPECT_FALSE(m.is_null()) << "no response to request " << id;
    return m;
  }
  json diagnosticsFor(const std::string& uri) {
    json m = waitFor([&](const json& m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
    });
    EXPECT_FALSE(m.is_null()) << "no diagnostics published for " << uri;
    return m.is_null() ? json::array() : m["params"]["diagnostics"];
  }
  // The exit status, waiting at most kTimeout.
  int exitStatus() {
    ::close(to_);
    to_ = -1;
    auto deadline = Clock::now() + kTimeout;
    while (Clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      ::usleep(20000);
    }
    return -1;
  }

 private:
  // One framed message, or null at the deadline or the end of the output.
  json next(Clock::time_point deadline) {
    for (;;) {
      size_t header = buffer_.find("\r\n\r\n");
      if (header != std::string::npos) {
        size_t length = std::stoul(buffer_.substr(buffer_.find(':') + 1, header));
        if (buffer_.size() >= header + 4 + length) {
          json m = json::parse(buffer_.substr(header + 4, length));
          buffer_.erase(0, header + 4 + length);
          return m;
        }
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return nullptr;
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) return nullptr;
      char chunk[65536];
      ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0) return nullptr;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  int lastId_ = 0;
  std::string buffer_;
  std::vector<json> queue_;
};

json position(int line, int character) { return {{"line", line}, {"character", character}}; }

std::vector<std::string> labels(const json& items) {
  std::vector<std::string> out;
  for (const auto& i : items) out.push_back(i["label"]);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

class Lsp : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("attribc_lsp_{}_{}", ::getpid(),
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "ws" / "health");
    stdlibDir_ = dir_ / "stdlib";
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& rel, const std::string& text) {
    fs::path p = dir_ / "ws" / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  fs::path dir_, stdlibDir_;
};

const std::string kHealth = R"(package site.health

symptom gpu_diag_failed "GPU failed the site's DCGM diagnostic" {
  on log(source in [syslog])
  match /gpu-healthd: GPU (?<gpu>[0-9]+) failed dcgmi diag/
  family accelerator-gpu
  severity critical
  blame gpu
  description "The health daemon's level-3 diagnostic failed between jobs."
  ref "https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html"
}
)";

// The file opened in the editor: a typo first (`gpu_diag_fialed`), fixed by a didChange.
const std::string kRulesWithError = R"(package site.rules

import site.health
import std.nccl

rule diag_explains_timeouts {
  when health.gpu_diag_fialed as root, nccl.watchdog_timeout as t
  where t.time in [root.time, root.time + 30m]
  then explain t by root
}
)";

TEST_F(Lsp, AnEditorSession) {
  write("health/health.attr", kHealth);
  fs::path rules = write("rules.attr", kRulesWithError);
  LspClient client({"--stdlib-dir", stdlibDir_.string()}, dir_ / "lsp.err");

  // initialize: the capabilities an editor needs.
  int init = client.request("initialize", {{"processId", ::getpid()}, {"rootUri", uriOf(dir_ / "ws")}, {"capabilities", json::object()}});
  json caps = client.response(init)["result"]["capabilities"];
  EXPECT_EQ(caps["textDocumentSync"]["change"], 1);
  EXPECT_EQ(caps["textDocumentSync"]["openClose"], true);
  EXPECT_EQ(caps["definitionProvider"], true);
  EXPECT_EQ(caps["hoverProvider"], true);
  EXPECT_EQ(caps["completionProvider"]["triggerCharacters"], json::array({"."}));
  client.notify("initialized", json::object());

  // didOpen with an error: its diagnostic, exact.
  client.notify("textDocument/didOpen",
                {{"textDocument", {{"uri", uriOf(rules)}, {"languageId", "attr"}, {"version", 1}, {"text", kRulesWithError}}}});
  json diagnostics = client.diagnosticsFor(uriOf(rules));
  ASSERT_EQ(diagnostics.size(), 1u) << diagnostics.dump(2);
  EXPECT_EQ(diagnostics[0]["message"], "unknown symptom 'health.gpu_diag_fialed'; did you mean 'site.health.gpu_diag_failed'?");
  EXPECT_EQ(diagnostics[0]["code"], "A102");
  EXPECT_EQ(diagnostics[0]["severity"], 1);
  EXPECT_EQ(diagnostics[0]["source"], "attribc");
  EXPECT_EQ(diagnostics[0]["range"], json({{"start", position(6, 7)}, {"end", position(6, 29)}}));

  // The fix, as the editor sends it (full text): the diagnostics are cleared.
  std::string fixed = kRulesWithError;
  fixed.replace(fixed.find("fialed"), 6, "failed");
  client.notify("textDocument/didChange", {{"textDocument", {{"uri", uriOf(rules)}, {"version", 2}}},
                                           {"contentChanges", json::array({{{"text", fixed}}})}});
  EXPECT_EQ(client.diagnosticsFor(uriOf(rules)), json::array());

  // Go to definition: into another package of the workspace, and into the stdlib.
  json local = client.response(client.request("textDocument/definition",
                                              {{"textDocument", {{"uri", uriOf(rules)}}}, {"position", position(6, 15)}}))["result"];
  EXPECT_EQ(local["uri"], uriOf(dir_ / "ws" / "health" / "health.attr"));
  EXPECT_EQ(local["range"], json({{"start", position(2, 8)}, {"end", position(2, 23)}}));
  json std = client.response(client.request("textDocument/definition",
                                            {{"textDocument", {{"uri", uriOf(rules)}}}, {"position", position(6, 45)}}))["result"];
  fs::path nccl = stdlibDir_ / "std" / "nccl.attr";
  EXPECT_EQ(std["uri"], uriOf(nccl));
  int declared = lineOf(nccl, "symptom watchdog_timeout ");
  EXPECT_EQ(std["range"], json({{"start", position(declared, 8)}, {"end", position(declared, 24)}}));
  EXPECT_EQ(slurp(nccl), slurp(fs::path(ATTRIB_SOURCE_DIR) / "stdlib-rules" / "std" / "nccl.attr"));
  json nothing = client.response(client.request("textDocument/definition",
                                                {{"textDocument", {{"uri", uriOf(rules)}}}, {"position", position(0, 0)}}));
  EXPECT_TRUE(nothing.contains("result") && nothing["result"].is_null()) << nothing.dump();

  // Hover: title, description, the facts that decide its part, its reference.
  json hover = client.response(client.request("textDocument/hover",
                                              {{"textDocument", {{"uri", uriOf(rules)}}}, {"position", position(6, 15)}}))["result"];
  EXPECT_EQ(hover["contents"]["kind"], "markdown");
  EXPECT_EQ(hover["contents"]["value"],
            "**symptom `site.health.gpu_diag_failed`**: GPU failed the site's DCGM diagnostic\n\n"
            "The health daemon's level-3 diagnostic failed between jobs.\n\n"
            "family accelerator-gpu · role cause · severity critical · blame gpu\n\n"
            "https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html\n\n"
            "*" + (dir_ / "ws" / "health" / "health.attr").string() + "*");
  EXPECT_EQ(hover["range"], json({{"start", position(6, 7)}, {"end", position(6, 29)}}));
  json stdHover = client.response(client.request("textDocument/hover",
                                                 {{"textDocument", {{"uri", uriOf(rules)}}}, {"position", position(6, 45)}}))["result"];
  std::string text = stdHover["contents"]["value"];
  EXPECT_EQ(text.rfind("**symptom `std.nccl.watchdog_timeout`**: NCCL watchdog caught a collective operation timeout\n\n", 0), 0u) << text;
  EXPECT_NE(text.find("role consequence"), std::string::npos) << text;
  EXPECT_NE(text.find("https://pytorch.org/docs/stable/distributed.html"), std::string::npos) << text;

  // Completion: symptom names through an alias, after a typed prefix with a dot.
  std::string typing = fixed + "\nrule more {\n  when nccl.wat\n}\n";
  client.notify("textDocument/didChange", {{"textDocument", {{"uri", uriOf(rules)}, {"version", 3}}},
                                           {"contentChanges", json::array({{{"text", typing}}})}});
  json names = client.response(client.request("textDocument/completion",
                                               {{"textDocument", {{"uri", uriOf(rules)}}}, {"position", position(12, 15)}}))["result"];
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(labels(names), std::vector<std::string>{"nccl.watchdog_timeout"});
  EXPECT_EQ(names[0]["textEdit"]["range"], json({{"start", position(12, 7)}, {"end", position(12, 15)}}));
  EXPECT_EQ(names[0]["detail"], "NCCL watchdog caught a collective operation timeout");

  // Properties at the start of an item, and the family and action vocabularies.
  std::string symptom = "package site.more\nsymptom s {\n  \n  family accel\n  action drain_node, re\n}\n";
  fs::path more = write("more.attr", symptom);
  client.notify("textDocument/didOpen",
                {{"textDocument", {{"uri", uriOf(more)}, {"languageId", "attr"}, {"version", 1}, {"text", symptom}}}});
  auto items = labels(client.response(client.request("textDocument/completion",
                                                     {{"textDocument", {{"uri", uriOf(more)}}}, {"position", position(2, 2)}}))["result"]);
  for (const char* want : {"on", "match", "when", "family", "severity", "blame", "role", "action", "title", "description", "ref"}) {
    EXPECT_TRUE(has(items, want)) << want;
  }
  EXPECT_FALSE(has(items, "confidence")) << "an outcome's property, not a symptom's";
  items = labels(client.response(client.request("textDocument/completion",
                                                {{"textDocument", {{"uri", uriOf(more)}}}, {"position", position(3, 14)}}))["result"]);
  EXPECT_EQ(items, (std::vector<std::string>{"accelerator-gpu", "accelerator-memory", "accelerator-fabric"}));
  items = labels(client.response(client.request("textDocument/completion",
                                                {{"textDocument", {{"uri", uriOf(more)}}}, {"position", position(4, 23)}}))["result"]);
  EXPECT_EQ(items, (std::vector<std::string>{"restart", "resubmit", "reboot_node", "reset_gpu", "replace_gpu"}));

  // An unknown method is an error; a frame that is not JSON gets a parse error, and the session
  // goes on.
  json unknown = client.response(client.request("textDocument/rename", {{"textDocument", {{"uri", uriOf(rules)}}}}));
  EXPECT_EQ(unknown["error"]["code"], -32601);
  client.sendRaw("Content-Length: 9\r\n\r\nnot json!");
  json parseError = client.waitFor([](const json& m) { return m.contains("error") && m["id"].is_null(); });
  EXPECT_EQ(parseError["error"]["code"], -32700);
  EXPECT_EQ(parseError["error"]["message"], "a message body that is not a JSON object");

  // shutdown, then exit: status 0.
  json shutdown = client.response(client.request("shutdown", nullptr));
  EXPECT_TRUE(shutdown.contains("result") && shutdown["result"].is_null()) << shutdown.dump();
  client.notify("exit", nullptr);
  EXPECT_EQ(client.exitStatus(), 0) << slurp(dir_ / "lsp.err");
}

TEST_F(Lsp, RequestsBeforeInitializeAndExitWithoutShutdown) {
  LspClient client({"--stdlib-dir", stdlibDir_.string()}, dir_ / "lsp.err");
  json early = client.response(client.request("textDocument/hover", json::object()));
  EXPECT_EQ(early["error"]["code"], -32002);
  client.response(client.request("initialize", {{"rootUri", uriOf(dir_ / "ws")}, {"capabilities", json::object()}}));
  client.notify("exit", nullptr);
  EXPECT_EQ(client.exitStatus(), 1) << "exit without shutdown is status 1 (LSP)";
}

}  // namespace
