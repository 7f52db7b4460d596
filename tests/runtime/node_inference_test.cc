// runtime/phase_node.cc: a cause whose lines name no node takes the node of what it explains,
// only through a rule that puts the two null-tolerantly on the same node, and only when what it
// explains names one node.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/verdict.h"
#include "tests/runtime/engine_util.h"

namespace attrib {
namespace {

using testing::diagnose;
using testing::line;

const char* kRules = R"(
package t
symptom oom_event "The step's cgroup saw an OOM kill" {
  on log
  match /Detected [0-9]+ oom-kill event\(s\)/
  family host-oom severity error blame node
}
symptom task_oom "srun names the task's node" {
  on log
  match /srun: error: (?<node>[^:]+): task [0-9]+: Out Of Memory/
  family host-oom role consequence
}
symptom peer_timeout "A peer timed out" {
  on log
  match /peer timed out/
  family communication role consequence
}
symptom marker "A line in between" {
  on log
  match /step marker/
  family host-oom severity warning role cause
}
rule event_explains_report "srun repeats the step's report, on its node" {
  when oom_event as root, task_oom as t
  where not (t.node < root.node or t.node > root.node)
  then explain t by root
}
rule event_explains_peers "Peers anywhere time out" {
  when oom_event as root, peer_timeout as t
  then explain t by root
}
rule marker_explains_event "The marker comes first, on the event's node" {
  when marker as root, oom_event as t
  where not (root.node > t.node or root.node < t.node)
  then explain t by root
}
outcome oom { when root is oom_event or root is marker family host-oom action increase_memory confidence 0.8 }
)";

bool hasNote(const runtime::Verdict& v, const std::string& part) {
  return std::any_of(v.confidenceNotes.begin(), v.confidenceNotes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

// Diagnoses application lines (node, time of day, text) of 2026-01-01 with kRules.
runtime::Verdict diagnoseLines(std::initializer_list<std::tuple<std::string, std::string, std::string>> lines) {
  auto engine = testing::engineFor(kRules);
  EXPECT_TRUE(engine);
  if (!engine) return {};
  std::vector<evidence::LogLine> in;
  for (const auto& [node, time, text] : lines) in.push_back(line(node, "applog", "2026-01-01T" + time + "Z", text));
  return diagnose(*engine, in);
}

TEST(NodeInference, ANodelessCauseTakesTheNodeOfWhatItExplainsOnTheSameNode) {
  auto v = diagnoseLines({{"", "10:00:00", "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=7.0."},
                          {"", "10:00:01", "srun: error: gpu-a17: task 0: Out Of Memory"}});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "t.oom_event");
  EXPECT_EQ(v.root->node, "gpu-a17");
  ASSERT_EQ(v.badNodes.size(), 1u);
  EXPECT_EQ(v.badNodes[0].node, "gpu-a17");
  EXPECT_TRUE(hasNote(v, "the root cause's node gpu-a17 is that of the t.task_oom line it explains (rule t.event_explains_report)"));
}

TEST(NodeInference, ARuleWithoutANodeRelationSaysNothingOfTheRootsNode) {
  auto v = diagnoseLines({{"", "10:00:00", "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=7.0."},
                          {"n4", "10:00:01", "rank 3: peer timed out"}});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "t.oom_event");
  EXPECT_EQ(v.root->node, "");
  EXPECT_TRUE(v.badNodes.empty());
  EXPECT_FALSE(hasNote(v, "is that of the"));
}

TEST(NodeInference, WhatItExplainsOnTwoNodesLeavesTheRootWithout) {
  auto v = diagnoseLines({{"", "10:00:00", "slurmstepd: error: Detected 2 oom-kill event(s) in StepId=7.0."},
                          {"", "10:00:01", "srun: error: gpu-a17: task 0: Out Of Memory"},
                          {"", "10:00:01", "srun: error: gpu-a18: task 8: Out Of Memory"}});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->node, "");
  EXPECT_TRUE(v.badNodes.empty());
}

TEST(NodeInference, ANodeMovesUpAChainOfSuchRules) {
  auto v = diagnoseLines({{"", "09:59:59", "step marker"},
                          {"", "10:00:00", "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=7.0."},
                          {"", "10:00:01", "srun: error: gpu-a17: task 0: Out Of Memory"}});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->symptom, "t.marker");
  EXPECT_EQ(v.root->node, "gpu-a17");
  EXPECT_TRUE(hasNote(v, "the root cause's node gpu-a17 is that of the t.oom_event line it explains (rule t.marker_explains_event)"));
}

TEST(NodeInference, ANodeTheRootsOwnLinesNameIsKept) {
  auto v = diagnoseLines({{"gpu-a16", "10:00:00", "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=7.0."},
                          {"", "10:00:01", "srun: error: gpu-a17: task 0: Out Of Memory"}});
  ASSERT_TRUE(v.root);
  EXPECT_EQ(v.root->node, "gpu-a16");
  EXPECT_FALSE(hasNote(v, "is that of the"));
}

}  // namespace
}  // namespace attrib
