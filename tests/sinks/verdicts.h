// The verdicts the sinks' tests write: workload i has 2 nodes, a root cause with one evidence
// line, one bad node, i % 5 + 1 symptom counts and one connector report.
#pragma once

#include <string>

#include "runtime/verdict.h"

namespace attrib::sinks {

inline runtime::Verdict testVerdict(int i, const std::string& digest = "sha256:rules-a") {
  runtime::Verdict v;
  v.workload.id = "slurm/" + std::to_string(1000 + i);
  v.workload.scheduler = "slurm";
  v.workload.name = "train-" + std::to_string(i);
  v.workload.state = ir::State::Failed;
  v.workload.exitCode = 1;
  v.workload.start = 1'700'000'000'000'000'000LL + i;
  v.workload.end = 1'700'000'100'000'000'000LL + i;
  v.workload.nodes = {"gpu-" + std::to_string(i % 7), "gpu-" + std::to_string(i % 7 + 1)};
  v.outcomes.push_back({"gpu.xid.gpu_lost", "accelerator-gpu", "A GPU fell off the bus", {"drain_node"}, 0.9});
  runtime::SymptomFinding root;
  root.symptom = "gpu.xid.xid79";
  root.node = v.workload.nodes[0];
  root.time = *v.workload.start + 5;
  root.timeKnown = true;
  root.evidence.push_back({"dmesg", "files", root.node, root.time, "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
                           "logs/" + root.node + "/dmesg.log", 10, 3});
  v.root = root;
  v.badNodes.push_back({root.node, {"gpu.xid.xid79"}});
  for (int s = 0; s <= i % 5; ++s) v.symptomCounts.push_back({"std.nccl.s" + std::to_string(s), static_cast<uint64_t>(s + 1)});
  v.reports.push_back({"files", root.node + "/dmesg", evidence::ConnectorReport::Status::Ok, 100, 4096, "", 1});
  v.confidence = 0.9;
  v.rulesetName = "stdlib";
  v.rulesetVersion = "0.1.0";
  v.rulesetDigest = digest;
  return v;
}

}  // namespace attrib::sinks
