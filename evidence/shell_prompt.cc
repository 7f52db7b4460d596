#include "evidence/shell_prompt.h"

#include "evidence/line_prefix.h"
#include "ir/ascii.h"

namespace attrib::evidence {
namespace {

// [A-Za-z0-9_.-]+ at *pos.
std::string_view name(std::string_view s, size_t* pos) {
  const size_t from = *pos;
  while (*pos < s.size() && ir::asciiHostChar(s[*pos])) ++*pos;
  return s.substr(from, *pos - from);
}

// The prompt's end at *pos: optional blanks (a conda prompt pads before its '$'), '$' or '#',
// then a blank or the end of the line.
bool promptEnd(std::string_view s, size_t pos) {
  while (pos < s.size() && s[pos] == ' ') ++pos;
  if (pos >= s.size() || (s[pos] != '$' && s[pos] != '#')) return false;
  ++pos;
  return pos == s.size() || s[pos] == ' ';
}

}  // namespace

std::string_view shellPromptHost(std::string_view line) {
  // Every form has an '@': most lines of a log have none and are given up on in one search.
  if (line.find('@') == std::string_view::npos) return {};
  // A paste quoted in Markdown keeps its quote marks ("> core@gpu-1013:~ $ dmesg -T").
  size_t pos = markdownQuoteEnd(line);
  // "(venv) ", "(base) ": environments the shell was started in.
  while (pos < line.size() && line[pos] == '(') {
    const size_t close = line.find(") ", pos);
    if (close == std::string_view::npos || close - pos > 64) return {};
    pos = close + 2;
  }
  const bool bracketed = pos < line.size() && line[pos] == '[';
  if (bracketed) ++pos;
  if (name(line, &pos).empty() || pos >= line.size() || line[pos] != '@') return {};
  ++pos;
  const std::string_view host = name(line, &pos);
  if (host.empty() || pos >= line.size()) return {};
  if (bracketed) {
    // "[root@gpu01 ~]# ": a blank, the directory's base name, ']'.
    if (line[pos] != ' ') return {};
    const size_t close = line.find(']', pos);
    if (close == std::string_view::npos || line.substr(pos + 1, close - pos - 1).find(' ') != std::string_view::npos) return {};
    return promptEnd(line, close + 1) ? host : std::string_view{};
  }
  // "root@node1:~/dir# ": ':', the working directory up to the first blank or the prompt sign.
  if (line[pos] != ':') return {};
  ++pos;
  while (pos < line.size() && line[pos] != ' ' && line[pos] != '$' && line[pos] != '#') ++pos;
  return promptEnd(line, pos) ? host : std::string_view{};
}

std::string_view syslogWallHost(std::string_view line) {
  constexpr std::string_view kFrom = "Message from syslogd@";
  size_t pos = 0;
  // The bell (\a) and a carriage return may be kept in a paste.
  while (pos < line.size() && (line[pos] == '\a' || line[pos] == '\r')) ++pos;
  if (line.substr(pos, kFrom.size()) != kFrom) return {};
  pos += kFrom.size();
  const std::string_view host = name(line, &pos);
  if (host.empty() || line.substr(pos, 4) != " at ") return {};
  return host;
}

}  // namespace attrib::evidence
