#include "report/meanings.h"

#include <fmt/format.h>

namespace attrib::report {

extern const char* const kVerdictDoc;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The cells of a Markdown table row "| a | b |"; "\|" is a literal bar.
std::vector<std::string> cells(std::string_view row) {
  std::vector<std::string> out;
  row = trim(row);
  if (row.empty() || row.front() != '|') return out;
  row.remove_prefix(1);
  std::string cell;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (row[i] == '|') {
      out.emplace_back(trim(cell));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return out;
}

std::string unquoted(std::string s) {
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') return s.substr(1, s.size() - 2);
  return s;
}

// The rows (header and separator skipped) of the first table after the heading `heading`.
bool table(std::string_view doc, std::string_view heading, size_t columns, std::vector<std::vector<std::string>>* rows,
           std::string* error) {
  size_t at = doc.find(heading);
  while (at != std::string_view::npos && at != 0 && doc[at - 1] != '\n') at = doc.find(heading, at + 1);
  if (at == std::string_view::npos) {
    *error = fmt::format("no '{}' section", heading);
    return false;
  }
  size_t pos = doc.find('\n', at);
  bool inTable = false;
  size_t header = 0;
  while (pos != std::string_view::npos && pos + 1 < doc.size()) {
    size_t end = doc.find('\n', pos + 1);
    std::string_view line = doc.substr(pos + 1, end == std::string_view::npos ? std::string_view::npos : end - pos - 1);
    pos = end;
    bool row = !trim(line).empty() && trim(line).front() == '|';
    if (!row) {
      if (inTable) break;
      if (line.rfind("## ", 0) == 0) break;
      continue;
    }
    inTable = true;
    if (header++ < 2) continue;  // the header and the --- row
    std::vector<std::string> c = cells(line);
    if (c.size() != columns) {
      *error = fmt::format("'{}': a row has {} cells, not {}: {}", heading, c.size(), columns, std::string(line));
      return false;
    }
    rows->push_back(std::move(c));
  }
  if (rows->empty()) {
    *error = fmt::format("'{}' has no table", heading);
    return false;
  }
  return true;
}

}  // namespace

bool parseMeanings(std::string_view markdown, Meanings* out, std::string* error) {
  std::vector<std::vector<std::string>> families, actions;
  if (!table(markdown, "## Failure families", 3, &families, error) || !table(markdown, "## Actions", 4, &actions, error)) {
    return false;
  }
  for (auto& r : families) out->families.push_back({unquoted(r[0]), r[1], r[2]});
  for (auto& r : actions) out->actions.push_back({unquoted(r[0]), r[1], r[2], r[3]});
  return true;
}

const FamilyMeaning* Meanings::family(std::string_view name) const {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const ActionMeaning* Meanings::action(std::string_view name) const {
  for (const auto& a : actions) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const Meanings& meanings() {
  static const Meanings parsed = [] {
    Meanings m;
    std::string error;
    // A malformed document leaves the tables empty; the report then shows the bare words, and
    // report_tests fails (the document is this source tree's).
    if (!parseMeanings(kVerdictDoc, &m, &error)) m = {};
    return m;
  }();
  return parsed;
}

}  // namespace attrib::report
