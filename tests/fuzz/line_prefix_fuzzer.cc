// Fuzzes what the intake makes of a log line's bytes: the prefix parser (evidence/line_prefix.h),
// the line classifier (evidence/line_channel.h) and the record finder (evidence/log_record.h),
// on arbitrary text cut into lines. The first byte picks the options (srun labels, a reference
// year, a UTC offset) and the file's hint. Invariants beyond "no crash, hang or UB": a prefix
// never extends past its line, its host and program are views into the line, a record holds
// its line, ascends, and stays within its bounds.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/line_channel.h"
#include "evidence/line_prefix.h"
#include "evidence/log_record.h"

namespace {

using attrib::evidence::LinePrefix;

void check(bool ok) {
  if (!ok) std::abort();
}

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

class Lines : public attrib::evidence::RecordLines {
 public:
  Lines(std::vector<std::string_view> lines, const attrib::evidence::PrefixOptions& options)
      : lines_(std::move(lines)), parsed_(lines_.size()), done_(lines_.size(), false), options_(options) {}
  size_t size() const override { return lines_.size(); }
  std::string_view line(size_t i) override { return lines_[i]; }
  const LinePrefix& prefix(size_t i) override {
    if (!done_[i]) {
      parsed_[i] = attrib::evidence::parseLinePrefix(lines_[i], options_);
      done_[i] = true;
    }
    return parsed_[i];
  }

 private:
  std::vector<std::string_view> lines_;
  std::vector<LinePrefix> parsed_;
  std::vector<bool> done_;
  attrib::evidence::PrefixOptions options_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t pick = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  attrib::evidence::PrefixOptions options;
  options.srunLabels = pick & 1;
  if (pick & 2) options.referenceTime = int64_t{1795948920} * 1'000'000'000;  // 2026-11-29
  if (pick & 4) options.utcOffsetSeconds = (pick & 8) ? -7 * 3600 : 5 * 3600 + 1800;
  const auto hint = static_cast<attrib::ir::Channel>((pick >> 4) % attrib::ir::kChannelCount);

  std::vector<std::string_view> cut;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    cut.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  Lines lines(cut, options);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines.line(i);
    const LinePrefix& p = lines.prefix(i);
    check(p.length <= line.size());
    check(inside(p.host, line) && inside(p.program, line));
    (void)attrib::evidence::classifyLine(p, line, hint);
  }
  attrib::evidence::RecordLimits limits;
  limits.maxLines = 16;
  limits.maxBytes = 4096;
  limits.maxLookBack = 64;
  for (size_t i = 0; i < lines.size(); i += 1 + lines.size() / 8) {
    std::vector<uint32_t> record = attrib::evidence::recordAt(lines, i, limits);
    check(!record.empty() && record.size() <= limits.maxLines);
    bool holds = false;
    for (size_t k = 0; k < record.size(); ++k) {
      check(record[k] < lines.size());
      if (k) check(record[k] > record[k - 1]);
      holds |= record[k] == i;
    }
    check(holds);
  }
  return 0;
}
