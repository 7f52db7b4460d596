// Extraction of scheduler and metric evidence (log instances come from LogScanner): each
// scheduler symptom once against the workload, each metric symptom at every sample of its series.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "runtime/attribution_run.h"

namespace attrib::runtime {

void extractScheduler(AttributionRun& run) {
  const ir::Program& program = run.program;
  const Workload& w = run.evidence.workload;
  for (size_t s = 0; s < program.symptoms.size(); ++s) {
    const ir::Symptom& symptom = program.symptoms[s];
    if (symptom.stream != ir::StreamKind::Scheduler) continue;
    Instance inst;
    inst.symptom = static_cast<int32_t>(s);
    inst.timeKnown = w.end.has_value() || w.start.has_value();
    inst.timeUnknown = !inst.timeKnown;
    inst.time = w.end.value_or(w.start.value_or(kTimeUnknown));
    inst.source = "scheduler";
    MetricOrSchedulerFields fields;
    fields.state = w.state;
    fields.exitCode = w.exitCode;
    fields.signal = w.signal;
    fields.reason = w.reason;
    inst.extraFields = std::make_shared<const MetricOrSchedulerFields>(std::move(fields));
    inst.text = fmt::format("state={}", ir::stateName(w.state));
    if (w.exitCode) inst.text += fmt::format(" exit_code={}", *w.exitCode);
    if (w.signal) inst.text += fmt::format(" signal={}", *w.signal);
    if (!w.reason.empty()) inst.text += fmt::format(" reason=\"{}\"", w.reason);
    inst.where = Place::make(w.scheduler.empty() ? "static" : w.scheduler, w.id.empty() ? "workload" : w.id);
    inst.sequence = run.nextSequence();
    EvalContext ctx = run.context();
    ctx.index = nullptr;
    ctx.slots[0] = &inst;
    if (symptom.hasWhen && !run.holds(run.symptomFn(s), symptom.when, ctx)) continue;
    run.instances.push_back(std::move(inst));
  }
}

void extractMetrics(AttributionRun& run) {
  const ir::Program& program = run.program;
  std::map<std::string, std::vector<int32_t>> byName;  // metric -> symptoms reading it
  for (size_t s = 0; s < program.symptoms.size(); ++s) {
    if (program.symptoms[s].stream == ir::StreamKind::Metric) byName[program.symptoms[s].metric].push_back(static_cast<int32_t>(s));
  }
  if (byName.empty() || run.evidence.metrics.empty()) return;
  // Group samples into series: same name and labels.
  std::map<std::tuple<std::string, std::vector<std::pair<std::string, std::string>>, std::string, std::string>,
           std::vector<const MetricSample*>> series;
  for (const auto& m : run.evidence.metrics) {
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
      MetricOrSchedulerFields fields;
      fields.metric = m.name;
      fields.value = m.value;
      c.extraFields = std::make_shared<const MetricOrSchedulerFields>(std::move(fields));
      std::string labels;
      for (const auto& [k, v] : m.labels) labels += fmt::format("{}{}=\"{}\"", labels.empty() ? "" : ",", k, v);
      c.text = fmt::format("{}{{{}}} {}", m.name, labels, m.value);
      c.where = Place::of(m.where);
      view.push_back(&c);
    }
    for (int32_t s : byName[std::get<0>(key)]) {
      const ir::Symptom& symptom = program.symptoms[s];
      for (auto& c : candidates) c.symptom = s;
      int64_t heldSince = 0;
      bool holding = false, emitted = false;
      for (size_t i = 0; i < candidates.size(); ++i) {
        EvalContext ctx = run.context();
        ctx.index = nullptr;
        ctx.series = &view;
        ctx.seriesPos = i;
        ctx.slots[0] = &candidates[i];
        bool matched = !symptom.hasWhen || run.holds(run.symptomFn(s), symptom.when, ctx);
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
          inst.sequence = run.nextSequence();
          run.instances.push_back(std::move(inst));
          emitted = true;
        }
      }
    }
  }
}

}  // namespace attrib::runtime
