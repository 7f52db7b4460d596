#include "evidence/job_mail.h"

#include "ir/ascii.h"

namespace attrib::evidence {

std::string_view torqueMailExecHost(std::string_view line) {
  constexpr std::string_view kHeader = "Exec host:";
  if (line.substr(0, kHeader.size()) != kHeader) return {};
  size_t pos = kHeader.size();
  while (pos < line.size() && line[pos] == ' ') ++pos;
  std::string_view host;
  for (;;) {
    const size_t start = pos;
    bool letter = false;
    for (; pos < line.size() && ir::asciiHostChar(line[pos]); ++pos) letter |= !ir::asciiDigit(line[pos]);
    const std::string_view name = line.substr(start, pos - start);
    if (name.empty() || !letter || pos >= line.size() || line[pos] != '/') return {};
    if (!host.empty() && name != host) return {};
    host = name;
    ++pos;
    const size_t slot = pos;
    while (pos < line.size() && ir::asciiDigit(line[pos])) ++pos;
    if (pos == slot) return {};
    if (pos == line.size() || line[pos] == '\r') return host;
    if (line[pos] != '+') return {};
    ++pos;
  }
}

}  // namespace attrib::evidence
