#include "connectors/files/file_source.h"

#include <fmt/format.h>
#include <glob.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

namespace attrib::connectors::files {
namespace {

namespace fs = std::filesystem;

// Glob metacharacters in a value substituted into a pattern are escaped: a node called "a*"
// must not match other files.
std::string globEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void replaceAll(std::string* s, const std::string& from, const std::string& to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size())) s->replace(at, from.size(), to);
}

bool within(const fs::path& path, const fs::path& root) {
  auto r = root.begin(), p = path.begin();
  for (; r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

// "rank3.log", "rank-12.out", "train_rank_7.log", "rank.5.log" -> the rank; files of one rank
// are common when every process writes its own log.
std::optional<int64_t> rankOf(const fs::path& file) {
  std::string name = file.filename().string();
  for (size_t at = name.find("rank"); at != std::string::npos; at = name.find("rank", at + 4)) {
    size_t p = at + 4;
    if (p < name.size() && (name[p] == '-' || name[p] == '_' || name[p] == '.')) ++p;
    size_t digits = p;
    while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits])) && digits - p < 9) ++digits;
    if (digits > p) return std::stoll(name.substr(p, digits - p));
  }
  return std::nullopt;
}

std::string sourceOf(const fs::path& file) {
  std::string name = file.filename().string();
  size_t dot = name.find('.');
  return dot == 0 || dot == std::string::npos ? name : name.substr(0, dot);
}

}  // namespace

std::vector<evidence::LogFile> findLogFiles(const FileSourceOptions& options, const evidence::Workload& workload,
                                           std::vector<evidence::ConnectorReport>* reports) {
  std::vector<fs::path> roots;
  for (const auto& r : options.roots) {
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(fs::absolute(r), ec);
    if (!ec) roots.push_back(resolved);
  }
  std::string job = workload.id.substr(workload.id.rfind('/') == std::string::npos ? 0 : workload.id.rfind('/') + 1);
  std::set<std::string> nodes(workload.nodes.begin(), workload.nodes.end());
  std::vector<evidence::LogFile> out;
  std::set<std::string> seen;
  for (const auto& pattern : options.patterns) {
    evidence::ConnectorReport report;
    report.connector = "files";
    report.source = pattern.glob;
    std::string base = pattern.glob;
    replaceAll(&base, "${id}", globEscape(workload.id));
    replaceAll(&base, "${job}", globEscape(job));
    replaceAll(&base, "${name}", globEscape(workload.name));
    std::vector<std::pair<std::string, std::string>> expanded;  // (glob, node)
    if (base.find("${node}") != std::string::npos) {
      for (const auto& n : workload.nodes) {
        std::string g = base;
        replaceAll(&g, "${node}", globEscape(n));
        expanded.push_back({g, n});
      }
    } else {
      expanded.push_back({base, ""});
    }
    size_t refused = 0;
    std::string firstRefused;
    for (const auto& [g, node] : expanded) {
      glob_t matches{};
      int rc = ::glob(g.c_str(), GLOB_NOSORT, nullptr, &matches);
      if (rc == GLOB_NOMATCH || rc != 0) {
        ::globfree(&matches);
        continue;
      }
      std::vector<std::string> paths(matches.gl_pathv, matches.gl_pathv + matches.gl_pathc);
      ::globfree(&matches);
      std::sort(paths.begin(), paths.end());
      for (const auto& p : paths) {
        std::error_code ec;
        fs::path resolved = fs::weakly_canonical(fs::absolute(p), ec);
        bool inside = !ec && std::any_of(roots.begin(), roots.end(), [&](const fs::path& r) { return within(resolved, r); });
        if (!inside) {
          if (refused++ == 0) firstRefused = p;
          continue;
        }
        if (!fs::is_regular_file(resolved, ec) || !seen.insert(resolved.string()).second) continue;
        if (out.size() >= options.maxFiles) break;
        evidence::LogFile f;
        f.path = resolved.string();
        f.node = node;
        if (f.node.empty()) {
          for (const auto& part : fs::path(p)) {
            if (nodes.count(part.string())) f.node = part.string();
          }
        }
        f.source = pattern.source.empty() ? sourceOf(resolved) : pattern.source;
        f.rank = rankOf(fs::path(p));
        f.name = (f.node.empty() ? "" : f.node + "/") + fs::path(p).filename().string();
        report.bytes += fs::file_size(resolved, ec);
        ++report.observations;
        out.push_back(std::move(f));
      }
    }
    if (refused > 0) {
      report.status = evidence::ConnectorReport::Status::Partial;
      report.reason = fmt::format("{} match(es) outside the configured roots were not read; first: {}", refused, firstRefused);
    } else if (report.observations == 0) {
      report.status = evidence::ConnectorReport::Status::Empty;
      report.reason = "no file matches";
    }
    reports->push_back(std::move(report));
  }
  std::sort(out.begin(), out.end(), [](const evidence::LogFile& a, const evidence::LogFile& b) { return a.path < b.path; });
  return out;
}

}  // namespace attrib::connectors::files
