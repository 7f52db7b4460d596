// Derivation: the `on ranks` and `on nodes` symptoms, over the instances filtering left.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "runtime/attribution_run.h"

namespace attrib::runtime {
namespace {

// `on ranks` considers ranks 0 .. workload.ranks - 1; a context claiming more than this is
// taken at its word only for the ranks evidence names.
constexpr int64_t kMaxDerivedRanks = 1 << 17;

// Where a rank or node was last seen, from the live instances before derivation.
struct LastSeen {
  int64_t time = 0;
  bool seen = false;
  bool timed = false;  // `time` is an instance's (the latest whose time is not unknown)
  std::string node;  // ranks: the node of their first instance
  std::string gpu;   // ranks: the GPU of their first instance that names one
};

// The text of a derived instance: the symptom's message with {rank}, {node}, {gpu} and lets
// filled in; without a message, "rank 3 on gpu-0001" and the lets.
std::string message(const ir::Symptom& symptom, const Instance& c) {
  auto value = [&](const std::string& name) -> std::string {
    if (name == "rank") return c.rank ? std::to_string(*c.rank) : "?";
    if (name == "node") return c.node.empty() ? "?" : c.node;
    if (name == "gpu") return c.gpu.empty() ? "?" : c.gpu;
    std::optional<std::string_view> v = c.capture(name);
    return v ? std::string(*v) : "?";
  };
  if (symptom.message.empty()) {
    std::string out = c.rank ? fmt::format("rank {} on {}", *c.rank, value("node")) : fmt::format("node {}", c.node);
    for (size_t i = 0; i < c.captures.size(); ++i) {
      out += fmt::format("{}{}={}", i == 0 ? ": " : ", ", c.captures[i].name(), c.captures[i].value());
    }
    return out;
  }
  std::string out;
  for (const auto& part : ir::splitMessage(symptom.message)) out += part.placeholder ? value(part.text) : part.text;
  return out;
}

}  // namespace

// One candidate instance per rank (node) of the workload, and per rank (node) any evidence
// names; each derived symptom keeps the candidates its when-clause holds for. Candidates read
// the instances as filtering left them, so derived symptoms never see one another.
void deriveInstances(AttributionRun& run) {
  const ir::Program& program = run.program;
  std::vector<int32_t> derived;
  for (size_t s = 0; s < program.symptoms.size(); ++s) {
    if (ir::isDerived(program.symptoms[s].stream)) derived.push_back(static_cast<int32_t>(s));
  }
  if (derived.empty()) return;
  const Workload& w = run.evidence.workload;
  std::map<int64_t, LastSeen> ranks;
  std::map<std::string, LastSeen> nodes;
  auto see = [](LastSeen& l, const Instance& inst) {
    if (!inst.timeUnknown && (!l.seen || !l.timed || inst.time > l.time)) {
      l.time = inst.time;
      l.timed = true;
    }
    if (l.node.empty()) l.node = inst.node;
    if (l.gpu.empty()) l.gpu = inst.gpu;
    l.seen = true;
  };
  for (const auto& inst : run.instances) {  // time order: a rank's first node comes first
    if (inst.filtered) continue;
    if (inst.rank && *inst.rank >= 0) see(ranks[*inst.rank], inst);
    if (!inst.node.empty()) see(nodes[inst.node], inst);
  }
  // The workload's full rank set, so that ranks with no evidence at all are candidates too.
  int64_t declared = std::min<int64_t>(w.ranks.value_or(0), kMaxDerivedRanks);
  for (int64_t r = 0; r < declared; ++r) ranks.try_emplace(r);
  for (const auto& n : w.nodes) nodes.try_emplace(n);
  bool fallbackKnown = w.end.has_value() || w.start.has_value();
  int64_t fallback = w.end.value_or(w.start.value_or(kTimeUnknown));

  std::vector<Instance> made;
  for (int32_t s : derived) {
    const ir::Symptom& symptom = program.symptoms[s];
    // Aggregates that do not depend on the candidate (the job's median, the furthest step)
    // are computed once for all candidates: the instances do not change during the loop.
    AggregateMemo memo;
    auto consider = [&](Instance c) {
      c.symptom = s;
      c.source = "derived";
      EvalContext ctx = run.context();
      ctx.memo = &memo;
      ctx.slots[0] = &c;
      if (symptom.hasWhen && !run.holds(run.symptomFn(s), symptom.when, ctx)) return;
      for (const auto& let : symptom.lets) {
        Value v = run.interpreter.eval(let.value, ctx);
        if (v.isNull()) continue;
        c.captures.append(let.name, v.type == ir::Type::String ? std::string(v.s) : valueText(v.type, v.i, v.f));
      }
      c.text = message(symptom, c);
      c.sequence = run.nextSequence();
      made.push_back(std::move(c));
    };
    if (symptom.stream == ir::StreamKind::Ranks) {
      for (const auto& [rank, last] : ranks) {
        Instance c;
        c.rank = rank;
        c.node = last.node;
        c.gpu = last.gpu;
        if (c.node.empty() && w.ranksPerNode && *w.ranksPerNode > 0) {
          int64_t n = rank / *w.ranksPerNode;
          if (n < static_cast<int64_t>(w.nodes.size())) c.node = w.nodes[n];
        }
        c.time = last.timed ? last.time : fallback;
        c.timeUnknown = !last.timed && !fallbackKnown;
        c.timeKnown = (last.seen || fallbackKnown) && !c.timeUnknown;
        c.where = Place::make("attrib", fmt::format("rank {}", rank));
        consider(std::move(c));
      }
    } else {
      for (const auto& [node, last] : nodes) {
        Instance c;
        c.node = node;
        c.time = last.timed ? last.time : fallback;
        c.timeUnknown = !last.timed && !fallbackKnown;
        c.timeKnown = (last.seen || fallbackKnown) && !c.timeUnknown;
        c.where = Place::make("attrib", fmt::format("node {}", node));
        consider(std::move(c));
      }
    }
  }
  if (made.empty()) return;
  for (auto& m : made) run.instances.push_back(std::move(m));
  orderInstances(run);
}

}  // namespace attrib::runtime
