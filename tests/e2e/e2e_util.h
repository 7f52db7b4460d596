// Helpers for the end-to-end tests: run the attrib binary as a user would (ATTRIB_PATH), capture
// its exit status, stdout and stderr, and look things up in the verdict it prints.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace attrib::e2e {

namespace fs = std::filesystem;
using nlohmann::json;

struct CliResult {
  int exit = -1;
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string quote(const std::string& arg) {
  std::string q = "'";
  for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A fresh directory under the system temp dir, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name =
        fmt::format("attrib_e2e_{}_{}_{}", ::getpid(), info ? info->test_suite_name() : "x", info ? info->name() : "x");
    for (char& c : name) {
      if (c == '/') c = '_';  // parameterised tests: "Examples/ExampleTest"
    }
    path_ = fs::temp_directory_path() / name;
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    // Undo chmod 000 and the like before removing.
    for (auto it = fs::recursive_directory_iterator(path_, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

  fs::path write(const std::string& rel, const std::string& bytes) const {
    fs::path p = path_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

 private:
  fs::path path_;
};

// Runs attrib with `args`; stdout and stderr go to files in `scratch`.
inline CliResult runAttrib(const std::vector<std::string>& args, const fs::path& scratch) {
  std::string cmd = quote(ATTRIB_PATH);
  for (const auto& a : args) cmd += " " + quote(a);
  fs::create_directories(scratch);
  fs::path out = scratch / "attrib.stdout", err = scratch / "attrib.stderr";
  cmd += " </dev/null >" + quote(out.string()) + " 2>" + quote(err.string());
  int status = std::system(cmd.c_str());
  CliResult r;
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

// `attrib diagnose --no-timings [extra...] dir`, parsed; fails the test when the output is not
// one JSON document or attrib did not exit 0.
inline json diagnose(const fs::path& dir, const fs::path& scratch, const std::vector<std::string>& extra = {},
                     CliResult* raw = nullptr) {
  std::vector<std::string> args = {"diagnose", "--no-timings"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(dir.string());
  CliResult r = runAttrib(args, scratch);
  if (raw) *raw = r;
  EXPECT_EQ(r.exit, 0) << "stderr: " << r.err;
  json v = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(v.is_discarded()) << "not JSON:\n" << r.out.substr(0, 2000);
  if (v.is_discarded()) return json::object();
  return v;
}

// The connector report whose source is `source` ("gpu-0007/syslog", "metrics/dcgm.jsonl"), or
// null; fails when there are several.
inline json reportFor(const json& verdict, const std::string& source) {
  json found;
  int n = 0;
  for (const auto& r : verdict.value("connector_reports", json::array())) {
    if (r.value("source", "") == source) {
      found = r;
      ++n;
    }
  }
  EXPECT_LE(n, 1) << "several reports for " << source;
  return found;
}

// The downstream group for `symptom` explained by `explainedBy`, or null.
inline json downstreamFor(const json& verdict, const std::string& symptom, const std::string& explainedBy) {
  for (const auto& d : verdict.value("downstream", json::array())) {
    if (d.value("symptom", "") == symptom && d.value("explained_by", "") == explainedBy) return d;
  }
  return json();
}

inline std::vector<std::string> nodeNames(const json& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) out.push_back(n.value("node", ""));
  return out;
}

inline bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Checks that evidence `e` points at its record: the bytes of where.location at where.offset, up
// to the next '\n', are the record's first line (e.line up to its first '\n'), its other lines
// follow in the file in order (a record skips the lines of other streams), and where.line counts
// the lines before it (1-based).
inline void expectEvidenceFindsItsLine(const json& e) {
  const std::string location = e["where"].value("location", "");
  const uint64_t offset = e["where"].value("offset", uint64_t{0});
  const uint64_t lineNumber = e["where"].value("line", uint64_t{0});
  const std::string file = slurp(location);
  ASSERT_FALSE(file.empty()) << "cannot read " << location;
  ASSERT_LT(offset, file.size()) << location;
  ASSERT_TRUE(offset == 0 || file[offset - 1] == '\n') << "offset " << offset << " is not the start of a line in "
                                                        << location;
  size_t end = file.find('\n', offset);
  std::string atOffset = file.substr(offset, end == std::string::npos ? std::string::npos : end - offset);
  if (!atOffset.empty() && atOffset.back() == '\r') atOffset.pop_back();
  const std::string record = e.value("line", "");
  EXPECT_EQ(atOffset, record.substr(0, record.find('\n'))) << location << " at offset " << offset;
  size_t from = end == std::string::npos ? file.size() : end;
  for (size_t at = record.find('\n'); at != std::string::npos;) {
    size_t next = record.find('\n', at + 1);
    std::string line = record.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    if (line.size() >= 3 && line.compare(line.size() - 3, 3, "...") == 0) break;  // cut at maxTextBytes
    size_t found = file.find("\n" + line, from - 1);
    EXPECT_NE(found, std::string::npos) << "record line not found after the first: " << line;
    if (found == std::string::npos) break;
    from = found + 1 + line.size();
    at = next;
  }
  uint64_t newlines = static_cast<uint64_t>(std::count(file.begin(), file.begin() + static_cast<long>(offset), '\n'));
  EXPECT_EQ(newlines + 1, lineNumber) << location << " at offset " << offset;
}

// `attrib serve --listen 127.0.0.1:PORT --no-jit [extra...]` as a child process; stopped (SIGTERM,
// then SIGKILL after 10 s) when the object goes away.
class Served {
 public:
  Served(const fs::path& scratch, std::vector<std::string> extra, int port = 0) {
    static int counter = 0;
    log_ = scratch / fmt::format("serve-{}.err", counter++);
    std::vector<std::string> args = {ATTRIB_PATH, "serve", "--listen", fmt::format("127.0.0.1:{}", port), "--no-jit"};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      int err = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(err, 2);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(ATTRIB_PATH, argv.data());
      ::_exit(127);
    }
    for (int i = 0; i < 400 && port_ == 0; ++i) {  // 20 s at most
      std::string text = slurp(log_);
      size_t at = text.find("listening on 127.0.0.1:");
      if (at != std::string::npos) port_ = std::atoi(text.c_str() + at + 23);
      else std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_GT(port_, 0) << "attrib serve did not start: " << slurp(log_);
  }
  ~Served() { stop(); }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 200; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  int port() const { return port_; }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }
  std::string log() const { return slurp(log_); }

 private:
  fs::path log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace attrib::e2e
