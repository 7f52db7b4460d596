// Filtering: every filter in declaration order, its statements in order; `drop X where C`
// removes what C holds for, `keep X where C` what it does not, `keep first|last N X per keys`
// all but N per group (groups also split by symptom).
#include <algorithm>
#include <map>

#include "runtime/attribution_run.h"

namespace attrib::runtime {
namespace {

// An instance's group key for `per KEY`.
std::string keyOf(const Instance& inst, const std::string& key) {
  if (key == "node") return inst.node;
  if (key == "rank") return inst.rank ? std::to_string(*inst.rank) : "";
  if (key == "gpu") return inst.node + "/" + inst.gpu;
  if (key == "source") return inst.source;
  return "";  // workload: one group
}

void applyFilter(AttributionRun& run, size_t f) {
  const ir::Filter& filter = run.program.filters[f];
  std::vector<Instance>& instances = run.instances;
  for (size_t stIndex = 0; stIndex < filter.statements.size(); ++stIndex) {
    const auto& st = filter.statements[stIndex];
    CompiledPredicate fn = run.compiled ? run.compiled->filterWhere[f][stIndex] : CompiledPredicate{};
    // The statement's targets, live instances of its set's symptoms, read from the index (which
    // holds exactly the live ones, each symptom's in time order) rather than by testing every
    // instance: at high match densities most instances are of a symptom no filter names.
    std::vector<size_t> targets;
    for (int32_t s : run.program.symptomSets[st.set]) {
      for (int32_t i : run.index.bySymptom[s]) targets.push_back(static_cast<size_t>(i));
    }
    std::sort(targets.begin(), targets.end());
    std::vector<size_t> drop;
    if (st.kind == ir::FilterStatement::Kind::KeepPer) {
      std::map<std::vector<std::string>, std::vector<size_t>> groups;
      for (size_t i : targets) {
        std::vector<std::string> key;
        for (const auto& k : st.keys) key.push_back(keyOf(instances[i], k));
        key.push_back(std::to_string(instances[i].symptom));
        groups[key].push_back(i);
      }
      for (auto& [key, members] : groups) {
        // members are in time order already (instances are sorted)
        size_t keep = static_cast<size_t>(std::max<int64_t>(st.keepCount, 1));
        for (size_t j = 0; j < members.size(); ++j) {
          bool kept = st.keepFirst ? j < keep : j + keep >= members.size();
          if (!kept) drop.push_back(members[j]);
        }
      }
    } else {
      EvalContext ctx = run.context();
      for (size_t i : targets) {
        bool matched = true;
        if (st.hasWhere) {
          ctx.slots[0] = &instances[i];
          matched = run.holds(fn, st.where, ctx);
        }
        bool dropIt = st.kind == ir::FilterStatement::Kind::Drop ? matched : !matched;
        if (dropIt) drop.push_back(i);
      }
    }
    for (size_t i : drop) instances[i].filtered = true;
    if (!drop.empty()) run.reindex();
  }
}

}  // namespace

void applyFilters(AttributionRun& run) {
  for (size_t f = 0; f < run.program.filters.size(); ++f) applyFilter(run, f);
}

}  // namespace attrib::runtime
