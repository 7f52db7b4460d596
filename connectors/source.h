// Evidence sources: what a workload's logs and metrics are, wherever they live. Every source
// takes the workload's context and appends what it found to a SourceEvidence, with a connector
// report per thing it tried to read, so a verdict can say "no error was seen" apart from "the
// logs were not there". Adapters for the sources in this library: FileSource, LokiSource,
// PrometheusSource, PodLogSource.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "connectors/context.h"
#include "connectors/files/file_source.h"
#include "connectors/kube/pod_logs.h"
#include "connectors/loki/loki_source.h"
#include "connectors/prometheus/prometheus_source.h"
#include "evidence/workload_evidence.h"

namespace attrib::connectors {

struct SourceEvidence {
  std::vector<evidence::LogFile> files;
  std::vector<evidence::LogLine> lines;
  std::vector<evidence::MetricSample> metrics;
  std::vector<evidence::ConnectorReport> reports;
};

class EvidenceSource {
 public:
  virtual ~EvidenceSource() = default;
  // Appends what it finds for `context`. Never throws; failures are reports.
  virtual void collect(const WorkloadContext& context, SourceEvidence* out) = 0;
};

class FileSource : public EvidenceSource {
 public:
  explicit FileSource(files::FileSourceOptions options) : options_(std::move(options)) {}
  void collect(const WorkloadContext& context, SourceEvidence* out) override;

 private:
  files::FileSourceOptions options_;
};

class LokiSource : public EvidenceSource {
 public:
  explicit LokiSource(loki::LokiOptions options) : options_(std::move(options)) {}
  void collect(const WorkloadContext& context, SourceEvidence* out) override;

 private:
  loki::LokiOptions options_;
};

class PrometheusSource : public EvidenceSource {
 public:
  // `options.metrics`: the names the rule set reads (ir::Program::metricNames()).
  explicit PrometheusSource(prometheus::PrometheusOptions options) : options_(std::move(options)) {}
  void collect(const WorkloadContext& context, SourceEvidence* out) override;

 private:
  prometheus::PrometheusOptions options_;
};

// The pods of a Kueue workload (id "kueue/NS/NAME", name = its job's) or of a job named by the
// workload's name in `ns`.
class PodLogSource : public EvidenceSource {
 public:
  PodLogSource(kube::KubeConfig config, kube::PodLogOptions options) : client_(std::move(config)), options_(options) {}
  void collect(const WorkloadContext& context, SourceEvidence* out) override;

 private:
  kube::KubeClient client_;
  kube::PodLogOptions options_;
};

// The evidence a diagnosis reads: the context's workload and scheduler facts, and everything the
// sources found.
evidence::WorkloadEvidence assembleEvidence(const WorkloadContext& context, SourceEvidence found);

}  // namespace attrib::connectors
