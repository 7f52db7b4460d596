#include "compiler/diagnostic_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace attrib {
namespace {

using nlohmann::ordered_json;

// Display width of a UTF-8 prefix in columns: one per code point (continuation bytes do not
// count). Good enough for carets under ASCII and most scripts; tabs are copied, not expanded.
size_t codePoints(std::string_view text) {
  return std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

struct Place {
  LineColumn begin;
  LineColumn end;  // end of the range (exclusive column)
};

Place placeOf(const SourceFile& file, const SourceRange& range) {
  return {file.lineColumn(range.begin), file.lineColumn(range.end)};
}

const char* colorOf(Severity s) {
  switch (s) {
    case Severity::Error: return "\033[1;31m";
    case Severity::Warning: return "\033[1;35m";
    case Severity::Note: return "\033[1;36m";
  }
  return "";
}

std::string codeSuffix(const Diagnostic& d) {
  const DiagKindInfo& k = info(d.kind);
  if (k.severity == Severity::Warning) return fmt::format(" [-W{}]", k.slug);
  return fmt::format(" [{}]", k.code);
}

void renderOne(std::string& out, Severity severity, const std::string& message, const std::string& suffix,
               FileId fileId, const SourceRange& range, const SourceManager& sources,
               const TextRenderOptions& options) {
  const char* bold = options.color ? "\033[1m" : "";
  const char* reset = options.color ? "\033[0m" : "";
  const char* sev = options.color ? colorOf(severity) : "";
  if (fileId == kNoFile) {
    out += fmt::format("{}attribc:{} {}{}:{} {}{}{}\n", bold, reset, sev, severityName(severity), reset, bold, message, reset);
    return;
  }
  const SourceFile& file = sources.file(fileId);
  if (!range.valid()) {
    out += fmt::format("{}{}:{} {}{}:{} {}{}{}{}\n", bold, file.path(), reset, sev, severityName(severity), reset,
                       bold, message, reset, suffix);
    return;
  }
  Place p = placeOf(file, range);
  out += fmt::format("{}{}:{}:{}:{} {}{}:{} {}{}{}{}\n", bold, file.path(), p.begin.line, p.begin.column, reset, sev,
                     severityName(severity), reset, bold, message, reset, suffix);
  std::string_view line = file.line(p.begin.line);
  // Very long lines (a 10 MB line of garbage) are cut around the caret so output stays readable.
  constexpr size_t kMaxShown = 200;
  size_t caretByte = std::min<size_t>(p.begin.column - 1, line.size());
  size_t shownFrom = caretByte > kMaxShown / 2 ? caretByte - kMaxShown / 2 : 0;
  // Never start inside a UTF-8 sequence.
  while (shownFrom > 0 && shownFrom < line.size() && (static_cast<unsigned char>(line[shownFrom]) & 0xC0) == 0x80) --shownFrom;
  std::string_view shown = line.substr(shownFrom, kMaxShown);
  std::string prefix = shownFrom > 0 ? "..." : "";
  out += fmt::format("  {}{}{}\n", prefix, shown, shownFrom + shown.size() < line.size() ? "..." : "");
  std::string marker = "  " + std::string(prefix.size(), ' ');
  std::string_view before = line.substr(shownFrom, caretByte - shownFrom);
  for (char c : before) {
    if (c == '\t') marker += '\t';
    else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) marker += ' ';
  }
  size_t spanBytes = p.end.line == p.begin.line && p.end.column > p.begin.column
                         ? p.end.column - p.begin.column
                         : (p.end.line > p.begin.line ? line.size() - caretByte : 1);
  size_t width = std::max<size_t>(1, codePoints(line.substr(caretByte, spanBytes)));
  width = std::min(width, kMaxShown);
  std::string underline = "^" + std::string(width - 1, '~');
  out += fmt::format("{}{}{}{}\n", marker, options.color ? "\033[1;32m" : "", underline, reset);
}

ordered_json locationJson(const SourceManager& sources, FileId fileId, const SourceRange& range) {
  ordered_json j;
  if (fileId == kNoFile) return j;
  const SourceFile& file = sources.file(fileId);
  j["file"] = file.path();
  if (range.valid()) {
    Place p = placeOf(file, range);
    j["line"] = p.begin.line;
    j["column"] = p.begin.column;
    j["end_line"] = p.end.line;
    j["end_column"] = p.end.column;
  }
  return j;
}

// SARIF wants 1-based code-point columns when columnKind is unicodeCodePoints.
ordered_json sarifRegion(const SourceFile& file, const SourceRange& range) {
  Place p = placeOf(file, range);
  auto col = [&](const LineColumn& lc) {
    std::string_view line = file.line(lc.line);
    return codePoints(line.substr(0, std::min<size_t>(lc.column - 1, line.size()))) + 1;
  };
  ordered_json region;
  region["startLine"] = p.begin.line;
  region["startColumn"] = col(p.begin);
  region["endLine"] = p.end.line;
  region["endColumn"] = std::max(col(p.end), p.end.line == p.begin.line ? col(p.begin) + 1 : size_t{1});
  return region;
}

std::string sarifUri(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::string_view("/-._~").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

ordered_json sarifLocation(const SourceManager& sources, FileId fileId, const SourceRange& range) {
  ordered_json physical;
  const SourceFile& file = sources.file(fileId);
  physical["artifactLocation"] = {{"uri", sarifUri(file.path())}};
  if (range.valid()) physical["region"] = sarifRegion(file, range);
  return {{"physicalLocation", physical}};
}

// Clang's layout: under the caret line, the text the fix-its on the diagnostic's own line turn
// their span into, at its column (several fix-its show as one edited span: `s3:\/\/x`). Fix-its
// elsewhere are in the JSON and SARIF output.
void renderFixits(std::string& out, const Diagnostic& d, const SourceManager& sources, const TextRenderOptions& options) {
  if (!d.range.valid() || d.fixits.empty()) return;
  const SourceFile& file = sources.file(d.range.file);
  uint32_t line = file.lineColumn(d.range.begin).line;
  std::string_view text = file.line(line);
  uint32_t lineStart = d.range.begin - (file.lineColumn(d.range.begin).column - 1);
  std::vector<const FixIt*> fixes;
  for (const auto& f : d.fixits) {
    if (f.range.file == d.range.file && file.lineColumn(f.range.begin).line == line &&
        f.range.end <= lineStart + text.size()) {
      fixes.push_back(&f);
    }
  }
  if (fixes.empty() || text.size() > 200) return;
  std::sort(fixes.begin(), fixes.end(), [](const FixIt* a, const FixIt* b) { return a->range.begin < b->range.begin; });
  std::string edited;
  uint32_t at = fixes.front()->range.begin;
  for (const FixIt* f : fixes) {
    if (f->range.begin < at) continue;  // overlaps the previous one
    edited += std::string(text.substr(at - lineStart, f->range.begin - at)) + f->replacement;
    at = f->range.end;
  }
  size_t column = codePoints(text.substr(0, fixes.front()->range.begin - lineStart));
  out += fmt::format("  {}{}{}{}\n", std::string(column, ' '), options.color ? "\033[0;32m" : "", edited,
                     options.color ? "\033[0m" : "");
}

ordered_json fixitsJson(const Diagnostic& d, const SourceManager& sources) {
  ordered_json out = ordered_json::array();
  for (const auto& f : d.fixits) {
    ordered_json j = locationJson(sources, f.range.file, f.range);
    j["replacement"] = f.replacement;
    j["safe"] = f.safe;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

std::string renderText(const Diagnostic& d, const SourceManager& sources, const TextRenderOptions& options) {
  std::string out;
  renderOne(out, d.severity, d.message, codeSuffix(d), d.file, d.range, sources, options);
  renderFixits(out, d, sources, options);
  for (const auto& n : d.notes) {
    if (!n.range.valid()) {
      // A note without a place (a hint, a list of valid values) reads best on its own.
      const char* sev = options.color ? colorOf(Severity::Note) : "";
      out += fmt::format("{}note:{} {}\n", sev, options.color ? "\033[0m" : "", n.message);
      continue;
    }
    renderOne(out, Severity::Note, n.message, "", n.range.file, n.range, sources, options);
  }
  return out;
}

std::string renderJsonLines(const std::vector<Diagnostic>& diagnostics, const SourceManager& sources) {
  std::string out;
  for (const auto& d : diagnostics) {
    const DiagKindInfo& k = info(d.kind);
    ordered_json j = locationJson(sources, d.file, d.range);
    j["severity"] = severityName(d.severity);
    j["code"] = k.code;
    j["slug"] = k.slug;
    j["message"] = d.message;
    ordered_json notes = ordered_json::array();
    for (const auto& n : d.notes) {
      ordered_json nj = locationJson(sources, n.range.valid() ? n.range.file : d.file, n.range);
      nj["message"] = n.message;
      notes.push_back(std::move(nj));
    }
    j["notes"] = std::move(notes);
    j["fixits"] = fixitsJson(d, sources);
    out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  }
  return out;
}

std::string renderSarif(const std::vector<Diagnostic>& diagnostics, const SourceManager& sources,
                        const std::string& toolVersion) {
  ordered_json rules = ordered_json::array();
  for (const auto& k : allDiagKinds()) {
    rules.push_back({{"id", k.code},
                     {"name", k.slug},
                     {"shortDescription", {{"text", k.summary}}},
                     {"helpUri", fmt::format("docs/diagnostics.md#{}", k.slug)},
                     {"defaultConfiguration", {{"level", k.severity == Severity::Warning ? "warning" : "error"}}}});
  }
  ordered_json results = ordered_json::array();
  for (const auto& d : diagnostics) {
    const DiagKindInfo& k = info(d.kind);
    ordered_json r;
    r["ruleId"] = k.code;
    r["ruleIndex"] = static_cast<size_t>(d.kind);
    r["level"] = d.severity == Severity::Error ? "error" : (d.severity == Severity::Warning ? "warning" : "note");
    r["message"] = {{"text", d.message}};
    ordered_json locations = ordered_json::array();
    if (d.file != kNoFile) locations.push_back(sarifLocation(sources, d.file, d.range));
    r["locations"] = std::move(locations);
    if (!d.notes.empty()) {
      ordered_json related = ordered_json::array();
      int id = 1;
      for (const auto& n : d.notes) {
        FileId f = n.range.valid() ? n.range.file : d.file;
        ordered_json loc = f != kNoFile ? sarifLocation(sources, f, n.range) : ordered_json::object();
        loc["id"] = id++;
        loc["message"] = {{"text", n.message}};
        related.push_back(std::move(loc));
      }
      r["relatedLocations"] = std::move(related);
    }
    if (!d.fixits.empty()) {
      ordered_json fixes = ordered_json::array();
      for (const auto& f : d.fixits) {
        const SourceFile& file = sources.file(f.range.file);
        ordered_json region = sarifRegion(file, f.range);
        if (f.range.begin == f.range.end) region["endColumn"] = region["startColumn"];  // an insertion
        ordered_json change = {{"artifactLocation", {{"uri", sarifUri(file.path())}}},
                               {"replacements", ordered_json::array({{{"deletedRegion", region},
                                                                      {"insertedContent", {{"text", f.replacement}}}}})}};
        fixes.push_back({{"description", {{"text", f.safe ? "safe fix" : "suggested fix"}}},
                         {"artifactChanges", ordered_json::array({std::move(change)})}});
      }
      r["fixes"] = std::move(fixes);
    }
    results.push_back(std::move(r));
  }
  ordered_json run;
  run["tool"] = {{"driver",
                  {{"name", "attribc"},
                   {"version", toolVersion},
                   {"semanticVersion", toolVersion},
                   {"rules", std::move(rules)}}}};
  run["columnKind"] = "unicodeCodePoints";
  run["results"] = std::move(results);
  ordered_json log;
  log["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  log["version"] = "2.1.0";
  log["runs"] = ordered_json::array({std::move(run)});
  return log.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace attrib
