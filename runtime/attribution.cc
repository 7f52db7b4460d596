#include "runtime/attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "runtime/compiled_predicates.h"
#include "runtime/interpreter.h"
#include "runtime/join_plan.h"

namespace attrib::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// `on ranks` considers ranks 0 .. workload.ranks - 1; a context claiming more than this is
// taken at its word only for the ranks evidence names.
constexpr int64_t kMaxDerivedRanks = 1 << 17;

int blameRank(ir::Blame b) {
  switch (b) {
    case ir::Blame::Gpu: return 4;
    case ir::Blame::Node: return 3;
    case ir::Blame::Rank: return 2;
    case ir::Blame::Workload: return 1;
    case ir::Blame::None: return 0;
  }
  return 0;
}

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

// An instance's value of a join key (node, rank or gpu) as the interpreter compares it; none
// when the field is missing (then it equals nothing).
std::optional<std::string> joinKey(const Instance& inst, ir::Field field) {
  switch (field) {
    case ir::Field::Node: return inst.node.empty() ? std::nullopt : std::optional<std::string>(inst.node);
    case ir::Field::Gpu: return inst.gpu.empty() ? std::nullopt : std::optional<std::string>(inst.gpu);
    case ir::Field::Rank: return inst.rank ? std::optional<std::string>(std::to_string(*inst.rank)) : std::nullopt;
    default: return std::nullopt;
  }
}

std::string keyOf(const Instance& inst, const std::string& key) {
  if (key == "node") return inst.node;
  if (key == "rank") return inst.rank ? std::to_string(*inst.rank) : "";
  if (key == "gpu") return inst.node + "/" + inst.gpu;
  if (key == "source") return inst.source;
  return "";  // workload: one group
}

class Run {
 public:
  Run(const Bundle& bundle, const RegexTable& regexes, const CompiledPredicates* compiled, Evidence& evidence,
      const AttributionLimits& limits)
      : bundle_(bundle), program_(bundle.program), regexes_(regexes), compiled_(compiled), evidence_(evidence),
        limits_(limits) {}

  Verdict run() {
    auto started = Clock::now();
    instances_ = std::move(evidence_.logInstances);
    extractScheduler();
    extractMetrics();
    std::stable_sort(instances_.begin(), instances_.end(), earlier);
    index_.rebuild(instances_, program_.symptoms.size());
    for (size_t f = 0; f < program_.filters.size(); ++f) applyFilter(f);
    deriveInstances();
    for (ir::Phase phase : {ir::Phase::Early, ir::Phase::Main, ir::Phase::Final}) runRules(phase);
    int32_t root = selectRoot();
    std::vector<size_t> outcomes = evaluateOutcomes(root);
    runRules(ir::Phase::PostOutcome);
    Verdict v = assemble(root, outcomes);
    v.stats.refineMs = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
    return v;
  }

 private:
  EvalContext context() {
    EvalContext ctx;
    ctx.program = &program_;
    ctx.regexes = &regexes_;
    ctx.workload = &evidence_.workload;
    ctx.index = &index_;
    return ctx;
  }

  // Every predicate goes through here: the compiled function when there is one, otherwise the
  // interpreter. `fn` is the compiled form of `e`.
  bool holds(CompiledPredicate fn, const ir::Expr& e, EvalContext& ctx) {
    if (!fn) return interpreter_.test(e, ctx);
    scratch_.reset();
    return fn(&ctx, &scratch_);
  }
  CompiledPredicate symptomFn(size_t s) const { return compiled_ ? compiled_->symptomWhen[s] : CompiledPredicate{}; }

  uint64_t nextSequence() { return (1ULL << 62) + sequence_++; }

  // ---- extraction of scheduler and metric evidence

  void extractScheduler() {
    const Workload& w = evidence_.workload;
    for (size_t s = 0; s < program_.symptoms.size(); ++s) {
      const ir::Symptom& symptom = program_.symptoms[s];
      if (symptom.stream != ir::StreamKind::Scheduler) continue;
      Instance inst;
      inst.symptom = static_cast<int32_t>(s);
      inst.timeKnown = w.end.has_value() || w.start.has_value();
      inst.timeUnknown = !inst.timeKnown;
      inst.time = w.end.value_or(w.start.value_or(kTimeUnknown));
      inst.source = "scheduler";
      inst.state = w.state;
      inst.exitCode = w.exitCode;
      inst.signal = w.signal;
      inst.reason = w.reason;
      inst.text = fmt::format("state={}", ir::stateName(w.state));
      if (w.exitCode) inst.text += fmt::format(" exit_code={}", *w.exitCode);
      if (w.signal) inst.text += fmt::format(" signal={}", *w.signal);
      if (!w.reason.empty()) inst.text += fmt::format(" reason=\"{}\"", w.reason);
      inst.where.connector = w.scheduler.empty() ? "static" : w.scheduler;
      inst.where.location = w.id.empty() ? "workload" : w.id;
      inst.sequence = nextSequence();
      EvalContext ctx = context();
      ctx.index = nullptr;
      ctx.slots[0] = &inst;
      if (symptom.hasWhen && !holds(symptomFn(s), symptom.when, ctx)) continue;
      instances_.push_back(std::move(inst));
    }
  }

  void extractMetrics() {
    std::map<std::string, std::vector<int32_t>> byName;  // metric -> symptoms reading it
    for (size_t s = 0; s < program_.symptoms.size(); ++s) {
      if (program_.symptoms[s].stream == ir::StreamKind::Metric) byName[program_.symptoms[s].metric].push_back(static_cast<int32_t>(s));
    }
    if (byName.empty() || evidence_.metrics.empty()) return;
    // Group samples into series: same name and labels.
    std::map<std::tuple<std::string, std::vector<std::pair<std::string, std::string>>, std::string, std::string>,
             std::vector<const MetricSample*>> series;
    for (const auto& m : evidence_.metrics) {
      if (byName.count(m.name)) series[{m.name, m.labels, m.node, m.gpu}].push_back(&m);
    }
    for (auto& [key, samples] : series) {
      std::stable_sort(samples.begin(), samples.end(), [](auto* a, auto* b) { return a->time < b->time; });
      // One candidate instance per sample; window aggregates read the whole series.
      std::vector<Instance> candidates(samples.size());
      std::vector<const Instance*> view;
      for (size_t i = 0; i < samples.size(); ++i) {
        const MetricSample& m = *samples[i];
        Instance& c = candidates[i];
        c.time = m.time;
        c.timeKnown = true;
        c.node = m.node;
        c.gpu = m.gpu;
        c.source = "metric";
        c.metric = m.name;
        c.value = m.value;
        std::string labels;
        for (const auto& [k, v] : m.labels) labels += fmt::format("{}{}=\"{}\"", labels.empty() ? "" : ",", k, v);
        c.text = fmt::format("{}{{{}}} {}", m.name, labels, m.value);
        c.where = m.where;
        view.push_back(&c);
      }
      for (int32_t s : byName[std::get<0>(key)]) {
        const ir::Symptom& symptom = program_.symptoms[s];
        for (auto& c : candidates) c.symptom = s;
        int64_t heldSince = 0;
        bool holding = false, emitted = false;
        for (size_t i = 0; i < candidates.size(); ++i) {
          EvalContext ctx = context();
          ctx.index = nullptr;
          ctx.series = &view;
          ctx.seriesPos = i;
          ctx.slots[0] = &candidates[i];
          bool matched = !symptom.hasWhen || holds(symptomFn(s), symptom.when, ctx);
          if (!matched) {
            holding = emitted = false;
            continue;
          }
          if (!holding) {
            holding = true;
            heldSince = candidates[i].time;
          }
          // `for D`: one instance per episode, once the condition has held for D.
          int64_t held;
          if (__builtin_sub_overflow(candidates[i].time, heldSince, &held)) held = INT64_MAX;
          if (!emitted && held >= symptom.sustained) {
            Instance inst = candidates[i];
            inst.sequence = nextSequence();
            instances_.push_back(std::move(inst));
            emitted = true;
          }
        }
      }
    }
  }

  // ---- filtering

  void applyFilter(size_t f) {
    const ir::Filter& filter = program_.filters[f];
    for (size_t stIndex = 0; stIndex < filter.statements.size(); ++stIndex) {
      const auto& st = filter.statements[stIndex];
      CompiledPredicate fn = compiled_ ? compiled_->filterWhere[f][stIndex] : CompiledPredicate{};
      const auto& set = program_.symptomSets[st.set];
      auto targeted = [&](const Instance& inst) {
        return !inst.filtered && std::binary_search(set.begin(), set.end(), inst.symptom);
      };
      std::vector<size_t> drop;
      if (st.kind == ir::FilterStatement::Kind::KeepPer) {
        std::map<std::vector<std::string>, std::vector<size_t>> groups;
        for (size_t i = 0; i < instances_.size(); ++i) {
          if (!targeted(instances_[i])) continue;
          std::vector<std::string> key;
          for (const auto& k : st.keys) key.push_back(keyOf(instances_[i], k));
          key.push_back(std::to_string(instances_[i].symptom));
          groups[key].push_back(i);
        }
        for (auto& [key, members] : groups) {
          // members are in time order already (instances_ is sorted)
          size_t keep = static_cast<size_t>(std::max<int64_t>(st.keepCount, 1));
          for (size_t j = 0; j < members.size(); ++j) {
            bool kept = st.keepFirst ? j < keep : j + keep >= members.size();
            if (!kept) drop.push_back(members[j]);
          }
        }
      } else {
        EvalContext ctx = context();
        for (size_t i = 0; i < instances_.size(); ++i) {
          if (!targeted(instances_[i])) continue;
          bool matched = true;
          if (st.hasWhere) {
            ctx.slots[0] = &instances_[i];
            matched = holds(fn, st.where, ctx);
          }
          bool dropIt = st.kind == ir::FilterStatement::Kind::Drop ? matched : !matched;
          if (dropIt) drop.push_back(i);
        }
      }
      for (size_t i : drop) instances_[i].filtered = true;
      if (!drop.empty()) index_.rebuild(instances_, program_.symptoms.size());
    }
  }

  // ---- derived symptoms (`on ranks`, `on nodes`)

  // Where a rank or node was last seen, from the live instances before derivation.
  struct LastSeen {
    int64_t time = 0;
    bool seen = false;
    bool timed = false;  // `time` is an instance's (the latest whose time is not unknown)
    std::string node;  // ranks: the node of their first instance
    std::string gpu;   // ranks: the GPU of their first instance that names one
  };

  // One candidate instance per rank (node) of the workload, and per rank (node) any evidence
  // names; each derived symptom keeps the candidates its when-clause holds for. Candidates read
  // the instances as filtering left them, so derived symptoms never see one another.
  void deriveInstances() {
    std::vector<int32_t> derived;
    for (size_t s = 0; s < program_.symptoms.size(); ++s) {
      if (ir::isDerived(program_.symptoms[s].stream)) derived.push_back(static_cast<int32_t>(s));
    }
    if (derived.empty()) return;
    const Workload& w = evidence_.workload;
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
    for (const auto& inst : instances_) {  // time order: a rank's first node comes first
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
      const ir::Symptom& symptom = program_.symptoms[s];
      // Aggregates that do not depend on the candidate (the job's median, the furthest step)
      // are computed once for all candidates: the instances do not change during the loop.
      AggregateMemo memo;
      auto consider = [&](Instance c) {
        c.symptom = s;
        c.source = "derived";
        c.where.connector = "attrib";
        EvalContext ctx = context();
        ctx.memo = &memo;
        ctx.slots[0] = &c;
        if (symptom.hasWhen && !holds(symptomFn(s), symptom.when, ctx)) return;
        for (const auto& let : symptom.lets) {
          Value v = interpreter_.eval(let.value, ctx);
          if (v.isNull()) continue;
          c.captures.emplace_back(let.name, v.type == ir::Type::String ? std::string(v.s) : valueText(v.type, v.i, v.f));
        }
        c.text = message(symptom, c);
        c.sequence = nextSequence();
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
          c.where.location = fmt::format("rank {}", rank);
          consider(std::move(c));
        }
      } else {
        for (const auto& [node, last] : nodes) {
          Instance c;
          c.node = node;
          c.time = last.timed ? last.time : fallback;
          c.timeUnknown = !last.timed && !fallbackKnown;
          c.timeKnown = (last.seen || fallbackKnown) && !c.timeUnknown;
          c.where.location = fmt::format("node {}", node);
          consider(std::move(c));
        }
      }
    }
    if (made.empty()) return;
    for (auto& m : made) instances_.push_back(std::move(m));
    std::stable_sort(instances_.begin(), instances_.end(), earlier);
    index_.rebuild(instances_, program_.symptoms.size());
  }

  // The text of a derived instance: the symptom's message with {rank}, {node}, {gpu} and lets
  // filled in; without a message, "rank 3 on gpu-0001" and the lets.
  static std::string message(const ir::Symptom& symptom, const Instance& c) {
    auto value = [&](const std::string& name) -> std::string {
      if (name == "rank") return c.rank ? std::to_string(*c.rank) : "?";
      if (name == "node") return c.node.empty() ? "?" : c.node;
      if (name == "gpu") return c.gpu.empty() ? "?" : c.gpu;
      const std::string* v = c.capture(name);
      return v ? *v : "?";
    };
    if (symptom.message.empty()) {
      std::string out = c.rank ? fmt::format("rank {} on {}", *c.rank, value("node")) : fmt::format("node {}", c.node);
      for (size_t i = 0; i < c.captures.size(); ++i) {
        out += fmt::format("{}{}={}", i == 0 ? ": " : ", ", c.captures[i].first, c.captures[i].second);
      }
      return out;
    }
    std::string out;
    for (const auto& part : ir::splitMessage(symptom.message)) out += part.placeholder ? value(part.text) : part.text;
    return out;
  }

  // ---- refinement

  // Whether `a` is explained, directly or through others, by `b`.
  bool explainedThrough(int32_t a, int32_t b) const {
    for (int guard = 0; a >= 0 && guard < 1'000'000; ++guard) {
      if (a == b) return true;
      a = instances_[a].explainedBy;
    }
    return false;
  }

  // Runs the rules of one phase. `explain` actions are collected from every rule of the phase
  // and resolved together, so that each consequence is explained by its earliest explainer
  // whichever rule (and package) proposed it; ties go to the rule declared first.
  void runRules(ir::Phase phase) {
    proposals_.clear();
    for (size_t r = 0; r < program_.rules.size(); ++r) {
      if (program_.rules[r].phase == phase) runRule(static_cast<int32_t>(r));
    }
    auto key = [&](const Proposal& p) {
      const Instance& s = instances_[p.subject];
      const Instance& b = instances_[p.by];
      // Earliest explainers first: each subject takes the earliest explainer that does not close
      // a cycle, and an earlier event is never explained away by a later one it explains.
      return std::make_tuple(b.time, b.sequence, s.time, s.sequence, p.rule);
    };
    std::sort(proposals_.begin(), proposals_.end(), [&](const Proposal& a, const Proposal& b) { return key(a) < key(b); });
    for (const auto& p : proposals_) {
      Instance& subject = instances_[p.subject];
      if (subject.explainedBy >= 0 || subject.filtered || instances_[p.by].filtered) continue;
      if (explainedThrough(p.by, p.subject)) continue;  // never a cycle
      subject.explainedBy = p.by;
      subject.explainRule = p.rule;
    }
  }

  void runRule(int32_t r) {
    const ir::Rule& rule = program_.rules[r];
    size_t n = rule.bindings.size();
    if (n == 0) return;
    // The plan narrows what each binding visits (runtime/join_plan.h); without plans every
    // combination is walked, the reference the plans are tested against.
    JoinPlan plan = limits_.planJoins ? planJoin(program_, rule) : JoinPlan{};
    // Candidates per binding: live instances of its symptoms, in time order.
    std::vector<std::vector<int32_t>> candidates(n);
    for (size_t b = 0; b < n; ++b) {
      const auto& symptoms = limits_.planJoins ? plan.bindings[b].symptoms : program_.symptomSets[rule.bindings[b]];
      // Each symptom's list is put in time order (usually it is already: instances are sorted
      // before indexing, derived ones come after) and merged with the others': linear in the
      // candidates for the common case, where sorting 10^5 routine lines per rule was not.
      auto inTime = [&](int32_t a, int32_t c) { return earlier(instances_[a], instances_[c]); };
      std::vector<int32_t>& list = candidates[b];
      for (int32_t s : symptoms) {
        size_t mid = list.size();
        list.insert(list.end(), index_.bySymptom[s].begin(), index_.bySymptom[s].end());
        if (!std::is_sorted(list.begin() + mid, list.end(), inTime)) std::sort(list.begin() + mid, list.end(), inTime);
        std::inplace_merge(list.begin(), list.begin() + mid, list.end(), inTime);
      }
      if (list.empty()) return;
    }
    EvalContext ctx = context();
    ctx.bindings = static_cast<int32_t>(n);
    CompiledPredicate fn = compiled_ ? compiled_->ruleWhere[r] : CompiledPredicate{};
    // Bindings matched by key: their candidates hashed by it, each list still in time order.
    std::vector<std::unordered_map<std::string, std::vector<int32_t>>> byKey(n);
    for (size_t b = 0; b < n; ++b) {
      if (!limits_.planJoins || !plan.bindings[b].key) continue;
      for (int32_t idx : candidates[b]) {
        if (auto k = joinKey(instances_[idx], plan.bindings[b].key->field)) byKey[b][*k].push_back(idx);
      }
    }
    static const std::vector<int32_t> kNone;
    std::vector<const std::vector<int32_t>*> view(n, nullptr);
    std::vector<size_t> pos(n, 0), end(n, 0);
    std::vector<int32_t> chosen(n, -1);
    // Binding d's range of candidates for the bindings before it: those of the anchor's key
    // (a missing key matches nothing), then a window's by binary search over the time-ordered
    // list (an unknown time is in no window); else all of them.
    auto enter = [&](size_t d) {
      view[d] = &candidates[d];
      if (limits_.planJoins && plan.bindings[d].key) {
        const KeyMatch& m = *plan.bindings[d].key;
        auto k = joinKey(instances_[chosen[m.anchor]], m.field);
        auto it = k ? byKey[d].find(*k) : byKey[d].end();
        view[d] = it != byKey[d].end() ? &it->second : &kNone;
      }
      const std::vector<int32_t>& list = *view[d];
      pos[d] = 0;
      end[d] = list.size();
      if (!limits_.planJoins || !plan.bindings[d].window) return;
      const TimeWindow& w = *plan.bindings[d].window;
      const Instance& anchor = instances_[chosen[w.anchor]];
      if (anchor.timeUnknown) {
        end[d] = 0;
        return;
      }
      int64_t lo = saturatingAdd(anchor.time, w.lo), hi = saturatingAdd(anchor.time, w.hi);
      auto timeOf = [&](int32_t idx) { return instances_[idx].time; };
      pos[d] = std::partition_point(list.begin(), list.end(), [&](int32_t idx) { return timeOf(idx) < lo; }) - list.begin();
      end[d] = std::partition_point(list.begin() + pos[d], list.end(),
                                    [&](int32_t idx) { return timeOf(idx) <= hi && !instances_[idx].timeUnknown; }) -
               list.begin();
    };
    uint64_t evaluations = 0;
    bool changed = false;
    // Odometer over the product of candidate ranges; bindings are distinct instances.
    size_t depth = 0;
    enter(0);
    while (true) {
      if (pos[depth] >= end[depth]) {
        if (depth == 0) break;
        --depth;
        ++pos[depth];
        continue;
      }
      int32_t idx = (*view[depth])[pos[depth]];
      bool reused = std::find(chosen.begin(), chosen.begin() + depth, idx) != chosen.begin() + depth;
      if (reused || instances_[idx].filtered) {
        ++pos[depth];
        continue;
      }
      chosen[depth] = idx;
      ctx.slots[depth] = &instances_[idx];
      if (depth + 1 < n) {
        ++depth;
        enter(depth);
        continue;
      }
      if (++evaluations > limits_.maxRuleEvaluations) {
        truncatedRules_.push_back(rule.name);
        break;
      }
      if (!rule.hasWhere || holds(fn, rule.where, ctx)) changed |= apply(rule, r, chosen);
      ++pos[depth];
    }
    if (changed) index_.rebuild(instances_, program_.symptoms.size());
  }

  // Applies a rule's actions to one satisfying assignment; true if an instance was dropped.
  bool apply(const ir::Rule& rule, int32_t r, const std::vector<int32_t>& chosen) {
    bool dropped = false;
    for (const auto& a : rule.actions) {
      Instance& subject = instances_[chosen[a.subject]];
      switch (a.kind) {
        case ir::RuleAction::Kind::Explain:
          // Resolved at the end of the phase (runRules); an earlier phase's explanation stands.
          if (subject.explainedBy < 0) proposals_.push_back({chosen[a.subject], chosen[a.object], r});
          break;
        case ir::RuleAction::Kind::MarkBad: subject.markedBad = true; break;
        case ir::RuleAction::Kind::MarkInteresting: subject.markedInteresting = true; break;
        case ir::RuleAction::Kind::Drop:
          if (!subject.filtered) {
            subject.filtered = true;
            dropped = true;
          }
          break;
      }
    }
    return dropped;
  }

  // ---- root and outcomes

  bool live(const Instance& inst) const { return !inst.filtered; }

  bool isCause(const Instance& inst) const {
    return live(inst) && inst.explainedBy < 0 && program_.symptoms[inst.symptom].role == ir::Role::Cause;
  }

  // The earliest unexplained cause of the highest severity present; ties at the same instant
  // go to the more specific blame (gpu, node, rank, workload).
  int32_t selectRoot() const {
    int32_t best = -1;
    for (size_t i = 0; i < instances_.size(); ++i) {
      const Instance& inst = instances_[i];
      if (!isCause(inst)) continue;
      if (best < 0) {
        best = static_cast<int32_t>(i);
        continue;
      }
      const Instance& b = instances_[best];
      const auto& si = program_.symptoms[inst.symptom];
      const auto& sb = program_.symptoms[b.symptom];
      auto key = [&](const ir::Symptom& s, const Instance& x) {
        return std::make_tuple(-static_cast<int>(s.severity), x.time, -blameRank(s.blame), x.sequence);
      };
      if (key(si, inst) < key(sb, b)) best = static_cast<int32_t>(i);
    }
    return best;
  }

  std::vector<size_t> evaluateOutcomes(int32_t root) {
    std::vector<size_t> held;
    EvalContext ctx = context();
    for (size_t o = 0; o < program_.outcomes.size(); ++o) {
      for (auto& s : ctx.slots) s = nullptr;
      ctx.slots[0] = root >= 0 ? &instances_[root] : nullptr;
      if (holds(compiled_ ? compiled_->outcomeWhen[o] : CompiledPredicate{}, program_.outcomes[o].when, ctx)) held.push_back(o);
    }
    return held;
  }

  // ---- the verdict

  SymptomFinding finding(const Instance& inst) const {
    const ir::Symptom& s = program_.symptoms[inst.symptom];
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
  void noteWhatWasRead(Verdict& v) const {
    if (v.stats.linesScanned == 0 && v.stats.metricSamples == 0) {
      v.nothingRead = "no evidence was read: no log line and no metric sample (see connector_reports)";
    } else if (v.stats.metricSamples == 0) {
      ir::ChannelMask read = 0;
      for (const auto& s : program_.symptoms) {
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

  Verdict assemble(int32_t root, const std::vector<size_t>& outcomes) {
    Verdict v;
    v.workload = evidence_.workload;
    v.rulesetName = program_.name;
    v.rulesetVersion = program_.version;
    v.rulesetDigest = bundle_.digest;
    v.reports = evidence_.reports;
    v.stats.linesScanned = evidence_.linesScanned;
    v.stats.bytesScanned = evidence_.bytesScanned;
    v.stats.metricSamples = evidence_.metrics.size();
    v.stats.collectMs = evidence_.collectMs;
    v.stats.scanMs = evidence_.scanMs;
    std::map<std::string, uint64_t> counts;
    for (const auto& inst : instances_) {
      if (!live(inst)) continue;
      ++v.stats.symptoms;
      ++counts[program_.symptoms[inst.symptom].name];
    }
    v.symptomCounts.assign(counts.begin(), counts.end());
    {
      std::map<std::string, const ir::Symptom*> byName;
      for (const auto& s : program_.symptoms) byName[s.name] = &s;
      for (const auto& [name, n] : v.symptomCounts) {
        const ir::Symptom& s = *byName.at(name);
        v.symptoms.push_back({name, {s.title, s.family, s.description, s.refs}});
      }
    }

    // An outcome without actions of its own recommends the root cause's (a generic outcome over
    // many symptoms, each with its own remedy).
    for (size_t o : outcomes) {
      const ir::Outcome& out = program_.outcomes[o];
      const std::vector<std::string>& actions =
          out.actions.empty() && root >= 0 ? program_.symptoms[instances_[root].symptom].actions : out.actions;
      v.outcomes.push_back({out.name, out.family, out.title, actions, out.confidence});
    }
    // The same event is often logged twice (the kernel ring buffer and syslog both carry an
    // Xid): other instances of the root's symptom on its node within a few seconds are more
    // evidence for the root, not other causes.
    std::set<size_t> sameEvent;
    if (root >= 0) {
      const Instance& r = instances_[root];
      v.root = finding(r);
      constexpr int64_t kSameEvent = 5'000'000'000;  // 5 s
      for (size_t i = 0; i < instances_.size(); ++i) {
        const Instance& inst = instances_[i];
        if (static_cast<int32_t>(i) == root || !isCause(inst) || inst.symptom != r.symptom || inst.node != r.node) continue;
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
      ir::Blame b = program_.symptoms[inst.symptom].blame;
      return (b == ir::Blame::Node || b == ir::Blame::Gpu) && !inst.node.empty();
    };
    for (size_t i = 0; i < instances_.size(); ++i) {
      const Instance& inst = instances_[i];
      if (!live(inst) || inst.node.empty()) continue;
      const std::string& name = program_.symptoms[inst.symptom].name;
      ir::Role role = program_.symptoms[inst.symptom].role;
      if (inst.markedBad || (isCause(inst) && blamesNode(inst))) {
        bad[inst.node].insert(name);
      } else if (inst.markedInteresting ||
                 (inst.explainedBy < 0 && role != ir::Role::Consequence && static_cast<int32_t>(i) != root &&
                  program_.symptoms[inst.symptom].severity != ir::Severity::Info)) {
        interesting[inst.node].insert(name);
      }
      if (isCause(inst) && static_cast<int32_t>(i) != root && !sameEvent.count(i) && v.otherCauses.size() < 20) {
        v.otherCauses.push_back(finding(inst));
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
    for (const auto& inst : instances_) {
      if (!live(inst) || inst.explainedBy < 0) continue;
      int32_t cause = inst.explainedBy;
      for (int guard = 0; instances_[cause].explainedBy >= 0 && guard < 1'000'000; ++guard) {
        cause = instances_[cause].explainedBy;
      }
      const Instance& by = instances_[cause];
      std::string explainer = program_.symptoms[by.symptom].name + (by.node.empty() ? "" : "@" + by.node);
      Group& g = groups[{program_.symptoms[inst.symptom].name, explainer}];
      ++g.rules[program_.rules[inst.explainRule].name];
      // The first instance, whatever order the evidence came in: ties on time go to the
      // smallest (node, rank, place, text); instances of unknown time come last.
      auto earlier = [](const Instance& a, const Instance& b) {
        return std::tie(a.timeUnknown, a.time, a.node, a.rank, a.where.location, a.where.offset, a.text) <
               std::tie(b.timeUnknown, b.time, b.node, b.rank, b.where.location, b.where.offset, b.text);
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
      actions = program_.symptoms[instances_[root].symptom].actions;
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
    }
    // A rule cut short may have missed an explanation, so the verdict rests on a partial search:
    // once, however many rules stopped, like missing evidence.
    if (!v.outcomes.empty() && !truncatedRules_.empty()) v.confidence *= 0.8;
    for (const auto& name : truncatedRules_) {
      v.confidenceNotes.push_back(fmt::format("rule {} stopped after {} evaluations", name, limits_.maxRuleEvaluations));
    }
    noteWhatWasRead(v);
    return v;
  }

  const Bundle& bundle_;
  const ir::Program& program_;
  const RegexTable& regexes_;
  const CompiledPredicates* compiled_;
  Evidence& evidence_;
  const AttributionLimits& limits_;
  std::vector<Instance> instances_;
  InstanceIndex index_;
  Interpreter interpreter_;
  PredicateScratch scratch_;
  uint64_t sequence_ = 0;
  std::vector<std::string> truncatedRules_;
  struct Proposal {
    int32_t subject, by, rule;
  };
  std::vector<Proposal> proposals_;  // explain actions of the current phase
};

}  // namespace

Verdict Attributor::attribute(Evidence evidence, const AttributionLimits& limits) const {
  return Run(*bundle_, *regexes_, compiled_.get(), evidence, limits).run();
}

}  // namespace attrib::runtime
