#include "ir/bundle_format.h"

#include <map>
#include <string>

namespace attrib {

std::vector<std::vector<PatternRef>> logExpressionTable(const ir::Program& program) {
  std::vector<std::vector<PatternRef>> table;
  std::map<std::pair<std::string, std::string>, size_t> index;  // (regex, flags) -> expression
  for (size_t s = 0; s < program.symptoms.size(); ++s) {
    const auto& symptom = program.symptoms[s];
    if (symptom.stream != ir::StreamKind::Log) continue;
    for (size_t p = 0; p < symptom.patterns.size(); ++p) {
      auto [it, added] = index.emplace(std::pair(symptom.patterns[p].regex, symptom.patterns[p].flags), table.size());
      if (added) table.emplace_back();
      table[it->second].push_back({static_cast<int32_t>(s), static_cast<int32_t>(p)});
    }
  }
  return table;
}

}  // namespace attrib
