// An unknown verdict names the family its telling lines point at, as a hint: the strongest family
// word wins, then the better line; warnings alone point nowhere; a completed workload gets none;
// the verdict stays unknown (no outcome, no root cause, confidence 0).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runtime/family_hint.h"
#include "runtime/verdict_json.h"
#include "tests/runtime/engine_util.h"

namespace attrib::runtime {
namespace {

using attrib::testing::line;

std::vector<Candidate> candidates(const std::vector<std::string>& lines) {
  std::vector<Candidate> out;
  for (const auto& l : lines) {
    Candidate c;
    c.evidence.line = l;
    c.weight = 2;
    out.push_back(std::move(c));
  }
  return out;
}

// The word tests ask for a workload the scheduler says failed, so hardware may be named.
std::optional<FamilyHint> hintOf(const std::vector<Candidate>& c, ir::State state = ir::State::Failed) {
  return familyHint(c, state);
}

std::string hinted(const std::vector<std::string>& lines, ir::State state = ir::State::Failed) {
  auto h = familyHint(candidates(lines), state);
  return h ? h->family : "none";
}

TEST(FamilyHint, EveryTableCompiles) { EXPECT_TRUE(familyWordsCompile()); }

TEST(FamilyHint, TheWordThatNamesALayerBeatsWhereTheErrorSurfaced) {
  // The NCCL line is the better candidate, but "NET/IB" names the network fabric; "nccl" only
  // says where the error surfaced.
  auto h = hintOf(candidates({"ncclSystemError: NCCL error: unhandled system error, NCCL version 2.14.3",
                                  "ib_plugin.c:978 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4242> with error 12"}));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->family, "network-fabric");
  EXPECT_EQ(h->word, "NET/IB");
  EXPECT_EQ(h->weight, 3);
  EXPECT_EQ(h->candidate, 1u);
  EXPECT_EQ(hinted({"srun: error: node107: task 0: Out Of Memory",
                    "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=4242.0. Some of your processes may have been "
                    "killed by the cgroup out-of-memory handler."}),
            "host-oom");
  EXPECT_EQ(hinted({"Traceback (most recent call last):", "OSError: [Errno 28] No space left on device"}), "storage");
}

TEST(FamilyHint, AmongEqualWordsTheBetterLineWins) {
  EXPECT_EQ(hinted({"OSError: [Errno 5] Input/output error", "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."}),
            "storage");
  EXPECT_EQ(hinted({"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", "OSError: [Errno 5] Input/output error"}),
            "accelerator-gpu");
}

TEST(FamilyHint, OnOneLineTheMoreSpecificFamilyWins) {
  EXPECT_EQ(hinted({"EDAC MC0: 1 UE uncorrectable error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0"}), "host-hardware")
      << "an EDAC line's 'uncorrectable' is the host's memory";
  EXPECT_EQ(hinted({"slurmstepd: error: *** JOB 4242 ON n1 CANCELLED AT 2026-12-03T10:00:00 DUE TO TIME LIMIT ***"}),
            "scheduler-timeout");
  EXPECT_EQ(hinted({"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"}), "device-oom")
      << "CUDA's out of memory is the device's, not the host's";
  EXPECT_EQ(hinted({"srun: error: n3: task 0: Out Of Memory"}), "host-oom");
}

TEST(FamilyHint, WarningsAlonePointNowhere) {
  EXPECT_EQ(hinted({"[W socket.cpp:558] [c10d] The IPv6 network addresses of (w-0, 3389) cannot be retrieved (gai error: -2 - "
                    "Name or service not known).",
                    "n0:1:1 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
                    "site-packages/torch/autograd/__init__.py:251: UserWarning: Grad strides do not match bucket view strides.",
                    "W1003 12:02:34.603000 663602 /gpfs/x/torch/distributed/c10d/store.py:90] the TCPStore failed to "
                    "answer; retrying"}),
            "none");
  EXPECT_EQ(hinted({"train.py:42: UserWarning: checkpoint not saved: No space left on device", "RuntimeError: step failed"}),
            "storage")
      << "with a failure beside them, a warning's words still count";
}

TEST(FamilyHint, HardwareIsReadOnlyFromALineThatReportsAFailure) {
  // Weight 1: something was missing or refused, as healthy jobs print about their links.
  std::vector<Candidate> c = candidates({"NCCL could not find IB device mlx5_2, unable to use it", "RuntimeError: step failed"});
  c[0].weight = 1;
  ASSERT_TRUE(hintOf(c));
  EXPECT_EQ(hintOf(c)->family, "communication") << "no hardware family from a weight-1 line: 'NCCL' is what is left";
  c[0].weight = 2;
  ASSERT_TRUE(hintOf(c));
  EXPECT_EQ(hintOf(c)->family, "network-fabric");
  c = candidates({"/site-packages/torch/cuda/__init__.py:88: UserWarning: NVLink P2P check failed, falling back",
                  "[rank0]:[W1203 10:00:00.000 ProcessGroupNCCL.cpp:4115] NVLS setup failed, falling back",
                  "RuntimeError: step failed"});
  ASSERT_TRUE(hintOf(c));
  EXPECT_EQ(hintOf(c)->family, "communication") << "a Python or glog warning names no hardware, whatever its words";
  c = candidates({"n0:1:1 [0] transport/net_ib.cc:1024 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4242> with error 12",
                  "RuntimeError: NCCL communicator was aborted"});
  ASSERT_TRUE(hintOf(c));
  EXPECT_EQ(hintOf(c)->family, "network-fabric") << "NCCL's WARN is its error level";
  c = candidates({"pod/trainer-0 could not be scheduled: 0/8 nodes are available: 8 Insufficient nvidia.com/gpu"});
  c[0].weight = 1;
  ASSERT_TRUE(hintOf(c)) << "a family that blames no hardware needs no error word";
  EXPECT_EQ(hintOf(c)->family, "orchestration");
}

TEST(FamilyHint, HardwareOnlyWhenTheSchedulerSaysTheWorkloadFailed) {
  const std::vector<std::string> fabric = {"RuntimeError: NCCL error: unhandled cuda error",
                                           "NVRM: Xid (PCI:0000:3b:00): 74, pid=4242, NVLink: fatal error detected on link 3"};
  EXPECT_EQ(hinted(fabric, ir::State::Failed), "accelerator-fabric");
  EXPECT_EQ(hinted(fabric, ir::State::NodeFail), "accelerator-fabric");
  EXPECT_EQ(hinted(fabric, ir::State::Unknown), "none")
      << "a plain log names no hardware by its words, and does not fall back to the NCCL line's family";
  EXPECT_EQ(hinted(fabric, ir::State::Running), "none");
  const std::vector<std::string> disk = {"OSError: [Errno 28] No space left on device"};
  EXPECT_EQ(hinted(disk, ir::State::Unknown), "storage") << "families that blame no hardware need no state";
  EXPECT_EQ(hinted(disk, ir::State::Completed), "none") << "a completed workload's lines are what it survived";
}

TEST(FamilyHint, NoFamilyWordNoHint) {
  EXPECT_EQ(hinted({"RuntimeError: step 4242 failed", "ERROR: the job could not finish"}), "none");
  EXPECT_EQ(hinted({}), "none");
  EXPECT_EQ(hinted({"an information line about the infrastructure"}), "none") << "'inf' is a word, not a prefix";
}

// The engine's side: a hint on an unknown verdict, none on a completed workload, and the JSON
// verdict reads back byte for byte.
using attrib::testing::unknownEngine;

std::vector<evidence::LogLine> storageFailure() {
  return {line("n0", "applog", "2026-12-03T10:00:00Z", "Traceback (most recent call last):"),
          line("n0", "applog", "2026-12-03T10:00:00Z", "OSError: [Errno 28] No space left on device: '/ckpt/step_42'"),
          line("n1", "applog", "2026-12-03T10:00:05Z", "RuntimeError: NCCL communicator was aborted on rank 1.")};
}

TEST(FamilyHint, AnUnknownVerdictCarriesItsHintAndStaysUnknown) {
  auto engine = unknownEngine();
  ASSERT_TRUE(engine);
  Verdict v = attrib::testing::diagnose(*engine, storageFailure());
  ASSERT_TRUE(v.outcomes.empty());
  EXPECT_FALSE(v.root);
  EXPECT_EQ(v.confidence, 0);
  ASSERT_TRUE(v.familyHint) << toJson(v);
  EXPECT_EQ(v.familyHint->family, "storage");
  EXPECT_EQ(verdictFamily(v), "storage");
  ASSERT_LT(v.familyHint->candidate, v.candidates.size());
  EXPECT_NE(v.candidates[v.familyHint->candidate].evidence.line.find(v.familyHint->word), std::string::npos);

  std::string json = toJson(v);
  auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j["outcome"][0]["name"], "unknown");
  EXPECT_EQ(j["outcome"][0]["family"], "storage");
  EXPECT_EQ(j["family_hint"]["family"], "storage");
  EXPECT_EQ(j["family_hint"]["word"], "No space left");
  std::string error;
  auto back = parseVerdictJson(json, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(back->outcomes.empty()) << "a hint reads back as no outcome";
  EXPECT_EQ(toJson(*back), json);
  EXPECT_NE(toText(v).find("the telling lines point at storage"), std::string::npos) << toText(v);
}

TEST(FamilyHint, ACompletedWorkloadGetsNone) {
  auto engine = unknownEngine();
  ASSERT_TRUE(engine);
  evidence::Workload done;
  done.id = "done";
  done.state = ir::State::Completed;
  Verdict v = attrib::testing::diagnose(*engine, storageFailure(), done);
  EXPECT_FALSE(v.candidates.empty()) << "it still says where to look";
  EXPECT_FALSE(v.familyHint);
  auto j = nlohmann::json::parse(toJson(v));
  EXPECT_EQ(j["outcome"][0]["family"], "unknown");
  EXPECT_TRUE(j["family_hint"].is_null());
}

TEST(FamilyHint, AVerdictWithAnOutcomeAndAHintIsRefused) {
  auto engine = unknownEngine();
  ASSERT_TRUE(engine);
  auto j = nlohmann::json::parse(toJson(attrib::testing::diagnose(*engine, storageFailure())));
  j["outcome"][0] = {{"name", "storage.fs.disk_full"}, {"family", "storage"}, {"title", "Disk full"}};
  std::string error;
  EXPECT_FALSE(parseVerdictJson(j.dump(), &error));
  EXPECT_NE(error.find("family_hint"), std::string::npos) << error;
  j = nlohmann::json::parse(toJson(attrib::testing::diagnose(*engine, storageFailure())));
  j["family_hint"]["weight"] = "three";
  EXPECT_FALSE(parseVerdictJson(j.dump(), &error));
  EXPECT_NE(error.find("family_hint.weight"), std::string::npos) << error;
}

}  // namespace
}  // namespace attrib::runtime
