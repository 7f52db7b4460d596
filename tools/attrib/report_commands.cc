#include "tools/attrib/report_commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <thread>

#include "attrib_version.h"
#include "report/dashboard.h"
#include "report/report.h"
#include "runtime/verdict_json.h"
#include "tools/attrib/dashboard_http.h"
#include "tools/attrib/token_file.h"

namespace attrib::tools {
namespace {

constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2;

void printError(const std::string& message) { fmt::print(stderr, "attrib: error: {}\n", message); }

std::string generator() { return std::string("attrib ") + ATTRIB_VERSION; }

std::atomic<bool> gStopDashboard{false};
void onSignal(int) { gStopDashboard = true; }

}  // namespace

bool writeReport(const runtime::Verdict& verdict, const std::string& path, std::string* error) {
  report::ReportOptions options;
  options.generator = generator();
  std::string html = report::renderReport(verdict, options);
  if (path == "-") {
    if (std::fwrite(html.data(), 1, html.size(), stdout) != html.size() || std::fflush(stdout) != 0) {
      *error = "cannot write the report to stdout";
      return false;
    }
    return true;
  }
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path temp = target;
  temp += fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(html.data(), static_cast<std::streamsize>(html.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      *error = fmt::format("cannot write the report {}", path);
      return false;
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    *error = fmt::format("cannot write the report {}: {}", path, ec.message());
    return false;
  }
  return true;
}

int runReport(const ReportCommandOptions& options) {
  std::string text;
  if (options.verdict == "-") {
    if (::isatty(STDIN_FILENO)) {
      printError("give a verdict JSON file, or pipe one in: attrib diagnose DIR | attrib report -o report.html");
      return kExitUsage;
    }
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(options.verdict, std::ios::binary);
    if (!in) {
      printError(fmt::format("cannot read the verdict {}", options.verdict));
      return kExitError;
    }
    std::stringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  std::string error;
  std::optional<runtime::Verdict> verdict = runtime::parseVerdictJson(text, &error);
  if (!verdict) {
    printError(fmt::format("{}: {}", options.verdict == "-" ? "stdin" : options.verdict, error));
    return kExitError;
  }
  if (!writeReport(*verdict, options.output, &error)) {
    printError(error);
    return kExitError;
  }
  return kExitOk;
}

int runDashboard(const DashboardCommandOptions& options) {
  std::string error;
  size_t colon = options.listen.rfind(':');
  int port = colon == std::string::npos ? -1 : std::atoi(options.listen.c_str() + colon + 1);
  if (colon == std::string::npos || port < 0 || port > 65535) {
    printError(fmt::format("--listen wants HOST:PORT, not '{}'", options.listen));
    return kExitUsage;
  }
  DashboardServerOptions server;
  if (!options.tokenFile.empty() && !readTokenFile(options.tokenFile, &server.token, &error)) {
    printError(error);
    return kExitError;
  }
  report::DashboardOptions dashboardOptions;
  dashboardOptions.generator = generator();
  dashboardOptions.queryTimeout = std::chrono::milliseconds(std::max<int64_t>(1, options.queryTimeoutMs));
  auto dashboard = report::Dashboard::open(options.database, &error, dashboardOptions);
  if (!dashboard) {
    printError(error);
    return kExitError;
  }
  static std::mutex logMu;
  server.accessLog = [](const std::string& line) {
    std::lock_guard<std::mutex> lock(logMu);
    fmt::print(stderr, "{}\n", line);
  };
  DashboardServer http(*dashboard, server);
  std::string host = options.listen.substr(0, colon);
  int bound = http.bind(host, port, &error);
  if (bound < 0) {
    printError(error);
    return kExitError;
  }
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  std::thread watcher([&http] {
    while (!gStopDashboard) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    http.stop();
  });
  fmt::print(stderr, "attrib dashboard: listening on {}:{} over {} (read-only{})\n", host, bound, options.database,
             server.token.empty() ? ", no token" : "");
  http.serve();
  gStopDashboard = true;
  watcher.join();
  fmt::print(stderr, "attrib dashboard: stopped\n");
  return kExitOk;
}

}  // namespace attrib::tools
