#include "ir/bundle_format.h"

namespace attrib {

std::vector<PatternRef> logPatternTable(const ir::Program& program) {
  std::vector<PatternRef> table;
  for (size_t s = 0; s < program.symptoms.size(); ++s) {
    const auto& symptom = program.symptoms[s];
    if (symptom.stream != ir::StreamKind::Log) continue;
    for (size_t p = 0; p < symptom.patterns.size(); ++p) {
      table.push_back({static_cast<int32_t>(s), static_cast<int32_t>(p)});
    }
  }
  return table;
}

}  // namespace attrib
