// `attrib report` (the HTML report of a verdict), `attrib diagnose --report`, and
// `attrib dashboard` (read-only pages over a verdict database). docs/report.md.
#pragma once

#include <string>

#include "runtime/verdict.h"

namespace attrib::tools {

// Writes the report of `verdict` to `path` ("-": stdout) whole or not at all (a temporary
// file renamed into place); false with a one-line `error`.
bool writeReport(const runtime::Verdict& verdict, const std::string& path, std::string* error);

struct ReportCommandOptions {
  std::string verdict = "-";  // a verdict JSON file, or "-" for stdin
  std::string output = "-";
};
int runReport(const ReportCommandOptions& options);

struct DashboardCommandOptions {
  std::string database;
  std::string listen = "127.0.0.1:8081";
  std::string tokenFile;
  int64_t queryTimeoutMs = 2000;
};
int runDashboard(const DashboardCommandOptions& options);

}  // namespace attrib::tools
