#include "compiler/fixits.h"

#include <algorithm>

namespace attrib {

FixedText applySafeFixits(const std::string& text, FileId file, const std::vector<Diagnostic>& diagnostics) {
  std::vector<const FixIt*> fixes;
  for (const auto& d : diagnostics) {
    for (const auto& f : d.fixits) {
      if (f.safe && f.range.file == file && f.range.begin <= f.range.end && f.range.end <= text.size()) fixes.push_back(&f);
    }
  }
  std::stable_sort(fixes.begin(), fixes.end(), [](const FixIt* a, const FixIt* b) { return a->range.begin < b->range.begin; });
  std::vector<const FixIt*> kept;
  FixedText out;
  uint32_t end = 0;
  for (const FixIt* f : fixes) {
    bool overlaps = !kept.empty() && (f->range.begin < end || (f->range.begin == end && f->range.begin == f->range.end &&
                                                                kept.back()->range.begin == kept.back()->range.end));
    if (overlaps) {
      ++out.skipped;
      continue;
    }
    kept.push_back(f);
    end = f->range.end;
  }
  out.text = text;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    const FixIt* f = *it;
    out.text.replace(f->range.begin, f->range.end - f->range.begin, f->replacement);
  }
  out.applied = kept.size();
  return out;
}

}  // namespace attrib
