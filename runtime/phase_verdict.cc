// The verdict: counts, the root and the outcomes that hold, bad and interesting nodes, other
// causes, downstream groups, actions and confidence, from the instances the phases left.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "runtime/attribution_run.h"

namespace attrib::runtime {
namespace {

SymptomFinding finding(const AttributionRun& run, const Instance& inst) {
  const ir::Symptom& s = run.program.symptoms[inst.symptom];
  SymptomFinding f;
  f.symptom = s.name;
  f.title = s.title;
  f.family = s.family;
  f.node = inst.node;
  f.gpu = inst.gpu;
  f.rank = inst.rank;
  f.time = inst.time;
  f.timeKnown = inst.timeKnown;
  f.timeUnknown = inst.timeUnknown;
  f.evidence.push_back(evidenceLineOf(inst));
  return f;
}

// Says so when nothing was read, or nothing that any rule reads: lines count per channel in the
// connector reports, and a log symptom reads the channels of its sources.
void noteWhatWasRead(const AttributionRun& run, Verdict& v) {
  if (v.stats.linesScanned == 0 && v.stats.metricSamples == 0) {
    v.nothingRead = "no evidence was read: no log line and no metric sample (see connector_reports)";
  } else if (v.stats.metricSamples == 0) {
    ir::ChannelMask read = 0;
    for (const auto& s : run.program.symptoms) {
      if (s.stream != ir::StreamKind::Log) continue;
      if (s.sources.empty()) read = static_cast<ir::ChannelMask>((1u << ir::kChannelCount) - 1);
      for (const auto& w : s.sources) read |= ir::channelsOfSourceWord(w);
    }
    uint64_t readable = 0;
    for (const auto& r : v.reports) {
      for (int c = 0; c < ir::kChannelCount; ++c) {
        if (read & ir::maskOf(static_cast<ir::Channel>(c))) readable += r.channelLines[static_cast<size_t>(c)];
      }
    }
    bool linesInReports = false;
    for (const auto& r : v.reports) {
      for (uint64_t n : r.channelLines) linesInReports |= n > 0;
    }
    if (linesInReports && readable == 0) {
      v.nothingRead = fmt::format("no rule reads the {} log lines read: their channels are read by no symptom",
                                  v.stats.linesScanned);
    }
  }
  if (!v.nothingRead.empty()) v.confidenceNotes.push_back(v.nothingRead);
}

}  // namespace

Verdict assembleVerdict(const AttributionRun& run) {
  const ir::Program& program = run.program;
  const std::vector<Instance>& instances = run.instances;
  const int32_t root = run.root;
  Verdict v;
  v.workload = run.evidence.workload;
  v.rulesetName = program.name;
  v.rulesetVersion = program.version;
  v.rulesetDigest = run.bundle.digest;
  v.reports = run.evidence.reports;
  v.stats.linesScanned = run.evidence.linesScanned;
  v.stats.bytesScanned = run.evidence.bytesScanned;
  v.stats.metricSamples = run.evidence.metrics.size();
  v.stats.collectMs = run.evidence.collectMs;
  v.stats.scanMs = run.evidence.scanMs;
  std::map<std::string, uint64_t> counts;
  for (const auto& inst : instances) {
    if (!run.live(inst)) continue;
    ++v.stats.symptoms;
    ++counts[program.symptoms[inst.symptom].name];
  }
  v.symptomCounts.assign(counts.begin(), counts.end());
  {
    std::map<std::string, const ir::Symptom*> byName;
    for (const auto& s : program.symptoms) byName[s.name] = &s;
    for (const auto& [name, n] : v.symptomCounts) {
      const ir::Symptom& s = *byName.at(name);
      v.symptoms.push_back({name, {s.title, s.family, s.description, s.refs}});
    }
  }

  // An outcome without actions of its own recommends the root cause's (a generic outcome over
  // many symptoms, each with its own remedy).
  for (size_t o : run.outcomes) {
    const ir::Outcome& out = program.outcomes[o];
    const std::vector<std::string>& actions =
        out.actions.empty() && root >= 0 ? program.symptoms[instances[root].symptom].actions : out.actions;
    v.outcomes.push_back({out.name, out.family, out.title, actions, out.confidence});
  }
  // The same event is often logged twice (the kernel ring buffer and syslog both carry an
  // Xid): other instances of the root's symptom on its node within a few seconds are more
  // evidence for the root, not other causes.
  std::set<size_t> sameEvent;
  if (root >= 0) {
    const Instance& r = instances[root];
    v.root = finding(run, r);
    constexpr int64_t kSameEvent = 5'000'000'000;  // 5 s
    for (size_t i = 0; i < instances.size(); ++i) {
      const Instance& inst = instances[i];
      if (static_cast<int32_t>(i) == root || !run.isCause(inst) || inst.symptom != r.symptom || inst.node != r.node) continue;
      if (inst.timeUnknown != r.timeUnknown) continue;
      if (!r.timeUnknown && (inst.time - r.time > kSameEvent || r.time - inst.time > kSameEvent)) continue;
      sameEvent.insert(i);
      if (v.root->evidence.size() < 5) v.root->evidence.push_back(evidenceLineOf(inst));
    }
  }

  // Nodes: blamed by the root and by other unexplained causes that blame a node or GPU, or
  // marked bad by a rule; interesting: marked so by a rule, or holding an unexplained
  // non-consequence of severity warning or above. Severity info never makes a node interesting,
  // whatever its role: a link that came up or a periodic health line is on every node of a
  // healthy fleet, so it would name them all and tell an operator nothing (docs/verdict.md).
  std::map<std::string, std::set<std::string>> bad, interesting;
  auto blamesNode = [&](const Instance& inst) {
    ir::Blame b = program.symptoms[inst.symptom].blame;
    return (b == ir::Blame::Node || b == ir::Blame::Gpu) && !inst.node.empty();
  };
  for (size_t i = 0; i < instances.size(); ++i) {
    const Instance& inst = instances[i];
    if (!run.live(inst) || inst.node.empty()) continue;
    const std::string& name = program.symptoms[inst.symptom].name;
    ir::Role role = program.symptoms[inst.symptom].role;
    if (inst.markedBad || (run.isCause(inst) && blamesNode(inst))) {
      bad[inst.node].insert(name);
    } else if (inst.markedInteresting ||
               (inst.explainedBy < 0 && role != ir::Role::Consequence && static_cast<int32_t>(i) != root &&
                program.symptoms[inst.symptom].severity != ir::Severity::Info)) {
      interesting[inst.node].insert(name);
    }
    if (run.isCause(inst) && static_cast<int32_t>(i) != root && !sameEvent.count(i) && v.otherCauses.size() < 20) {
      v.otherCauses.push_back(finding(run, inst));
    }
  }
  for (auto& [node, symptoms] : bad) v.badNodes.push_back({node, {symptoms.begin(), symptoms.end()}});
  for (auto& [node, symptoms] : interesting) {
    if (!bad.count(node)) v.interestingNodes.push_back({node, {symptoms.begin(), symptoms.end()}});
  }

  // Downstream: explained instances grouped by symptom and the cause at the end of their chain
  // of explanations (A explained by B explained by C: C). The group names the rule that
  // explained most of its instances.
  struct Group {
    uint64_t count = 0;
    std::map<std::string, DownstreamGroup::NodeSpread> nodes;
    std::set<int64_t> ranks;
    std::optional<int64_t> first, last;  // the earliest and latest known times
    const Instance* firstInstance = nullptr;
    std::map<std::string, uint64_t> rules;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  for (const auto& inst : instances) {
    if (!run.live(inst) || inst.explainedBy < 0) continue;
    int32_t cause = inst.explainedBy;
    for (int guard = 0; instances[cause].explainedBy >= 0 && guard < 1'000'000; ++guard) {
      cause = instances[cause].explainedBy;
    }
    const Instance& by = instances[cause];
    std::string explainer = program.symptoms[by.symptom].name + (by.node.empty() ? "" : "@" + by.node);
    Group& g = groups[{program.symptoms[inst.symptom].name, explainer}];
    ++g.rules[program.rules[inst.explainRule].name];
    // The first instance, whatever order the evidence came in: ties on time go to the
    // smallest (node, rank, place, text); instances of unknown time come last.
    auto earlier = [](const Instance& a, const Instance& b) {
      return std::tie(a.timeUnknown, a.time, a.node, a.rank, a.where.location(), a.where.offset, a.text) <
             std::tie(b.timeUnknown, b.time, b.node, b.rank, b.where.location(), b.where.offset, b.text);
    };
    if (g.count == 0 || earlier(inst, *g.firstInstance)) g.firstInstance = &inst;
    if (!inst.timeUnknown) {
      if (!g.first || inst.time < *g.first) g.first = inst.time;
      if (!g.last || inst.time > *g.last) g.last = inst.time;
    }
    ++g.count;
    if (!inst.node.empty()) {
      auto [it, added] = g.nodes.try_emplace(inst.node, DownstreamGroup::NodeSpread{inst.node, std::nullopt, 0});
      if (!inst.timeUnknown && (!it->second.first || inst.time < *it->second.first)) it->second.first = inst.time;
      ++it->second.count;
    }
    if (inst.rank) g.ranks.insert(*inst.rank);
  }
  for (auto& [key, g] : groups) {
    auto rule = std::max_element(g.rules.begin(), g.rules.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    DownstreamGroup d{key.first, g.count, g.nodes.size(), g.ranks.size(), g.first, key.second, rule->first, g.last, {}, {}};
    for (const auto& [node, spread] : g.nodes) d.earliestNodes.push_back(spread);
    std::sort(d.earliestNodes.begin(), d.earliestNodes.end(), [](const auto& a, const auto& b) {
      // Nodes whose times are all unknown come last.
      return std::make_tuple(!a.first, a.first.value_or(0), a.node) < std::make_tuple(!b.first, b.first.value_or(0), b.node);
    });
    if (d.earliestNodes.size() > DownstreamGroup::kEarliestNodes) d.earliestNodes.resize(DownstreamGroup::kEarliestNodes);
    if (g.firstInstance) d.evidence.push_back(evidenceLineOf(*g.firstInstance));
    v.downstream.push_back(std::move(d));
  }
  std::stable_sort(v.downstream.begin(), v.downstream.end(),
                   [](const auto& a, const auto& b) { return a.count > b.count; });

  // Recommendation and confidence.
  std::vector<std::string> actions;
  if (!v.outcomes.empty()) {
    for (const auto& o : v.outcomes) actions.insert(actions.end(), o.actions.begin(), o.actions.end());
    v.confidence = v.outcomes.front().confidence;
  } else if (root >= 0) {
    actions = program.symptoms[instances[root].symptom].actions;
  }
  for (const auto& a : actions) {
    if (std::find(v.actions.begin(), v.actions.end(), a) == v.actions.end()) v.actions.push_back(a);
  }
  static const std::set<std::string> nodeActions = {"drain_node", "reboot_node", "reset_gpu", "replace_gpu"};
  bool touchesNodes = std::any_of(v.actions.begin(), v.actions.end(), [](auto& a) { return nodeActions.count(a); });
  if (touchesNodes) for (const auto& n : v.badNodes) v.actionNodes.push_back(n.node);
  if (!v.outcomes.empty()) {
    for (const auto& r : v.reports) {
      if (r.status == ConnectorReport::Status::Error || r.status == ConnectorReport::Status::Partial) {
        v.confidence *= 0.8;
        v.confidenceNotes.push_back(fmt::format("evidence from {} {} is missing or incomplete", r.connector, r.source));
        break;
      }
    }
    if (v.root && v.root->timeUnknown) {
      v.confidence *= 0.9;
      v.confidenceNotes.push_back("the root cause's time is unknown: its lines carry no timestamp");
    } else if (v.root && !v.root->timeKnown) {
      v.confidence *= 0.9;
      v.confidenceNotes.push_back("the root cause's time was estimated from neighbouring lines");
    }
    for (const auto& [inst, from] : run.inferredNodes) {
      if (inst != root) continue;
      const Instance& t = instances[static_cast<size_t>(from)];
      v.confidenceNotes.push_back(fmt::format(
          "the root cause's node {} is that of the {} line it explains (rule {}); its own lines name no node",
          t.node, program.symptoms[static_cast<size_t>(t.symptom)].name, program.rules[static_cast<size_t>(t.explainRule)].name));
    }
  }
  // A rule cut short may have missed an explanation, so the verdict rests on a partial search:
  // once, however many rules stopped, like missing evidence.
  if (!v.outcomes.empty() && !run.truncatedRules.empty()) v.confidence *= 0.8;
  for (const auto& name : run.truncatedRules) {
    v.confidenceNotes.push_back(fmt::format("rule {} stopped after {} evaluations", name, run.limits.maxRuleEvaluations));
  }
  noteWhatWasRead(run, v);
  return v;
}

}  // namespace attrib::runtime
