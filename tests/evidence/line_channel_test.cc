// Line channels (ir/log_channels.h, evidence/line_channel.h): every marker's own example is
// classified to its channel, the Hyperscan expressions that count lines agree with the
// classifier, file names give their hints, and docs/workloads.md's table lists every marker.
#include "evidence/line_channel.h"

#include <gtest/gtest.h>
#include <hs/hs.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace attrib::evidence {
namespace {

using ir::Channel;

LineChannel classify(std::string_view line, Channel hint = Channel::Application) {
  PrefixOptions options;
  options.srunLabels = true;
  options.referenceTime = 1795984109LL * 1'000'000'000;
  return classifyLine(parseLinePrefix(line, options), line, hint);
}

TEST(LineChannel, EveryMarkersExampleIsItsChannel) {
  for (const auto& m : ir::channelMarkers()) {
    SCOPED_TRACE(std::string(m.example));
    LineChannel c = classify(m.example);
    EXPECT_TRUE(c.claimed);
    EXPECT_EQ(ir::channelName(c.channel), std::string(ir::channelName(m.channel)));
  }
}

TEST(LineChannel, UnclaimedLinesTakeTheHintAndAreReadByApplicationRulesToo) {
  LineChannel c = classify("eth0: link up", Channel::Kernel);
  EXPECT_FALSE(c.claimed);
  EXPECT_EQ(c.channel, Channel::Kernel);
  EXPECT_EQ(readersOf(c), ir::maskOf(Channel::Kernel) | ir::maskOf(Channel::Application));
  // A Python error posted under a syslog source says nothing of syslog: application rules read it.
  c = classify("RuntimeError: CUDA error: an illegal memory access was encountered", Channel::System);
  EXPECT_FALSE(c.claimed);
  EXPECT_TRUE(readersOf(c) & ir::maskOf(Channel::Application));
  // A syslog line of a program no marker knows is unclaimed too.
  c = classify("Nov 29 10:40:00 gpu-7 python3[4242]: RuntimeError: boom", Channel::System);
  EXPECT_FALSE(c.claimed);
}

TEST(LineChannel, WhatALineSaysBeatsWhereItSits) {
  // The slurmstepd report in a node's syslog and in the job's stdout is the scheduler's either way.
  EXPECT_EQ(classify("Nov 29 10:42:07 gpu-7 slurmstepd[81234]: error: Detected 1 oom_kill event in StepId=42.0.", Channel::System).channel,
            Channel::Scheduler);
  EXPECT_EQ(classify("slurmstepd: error: Detected 1 oom_kill event in StepId=42.0.").channel, Channel::Scheduler);
  // An NVRM line pasted into a job's output is the kernel's.
  EXPECT_EQ(classify("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.").channel, Channel::Kernel);
  // dmesg's indented continuation lines.
  EXPECT_EQ(classify("               NVRM: (PCI ID: 10de:26b5) installed in this system has").channel, Channel::Kernel);
  // A quoted marker inside an application's message is not the kernel's (Starts markers).
  EXPECT_FALSE(classify("RuntimeError: saw 'NVRM: Xid' in dmesg").claimed);
  // UCX's epoch timestamps are not a kernel ring-buffer time.
  EXPECT_FALSE(classify("[1704103201.123456] [n1:4242:0] ib_mlx5_log.c:179 UCX ERROR Transport retry count exceeded").claimed);
}

TEST(LineChannel, FileNamesGiveHints) {
  const std::vector<std::pair<const char*, Channel>> cases = {
      {"dmesg", Channel::Kernel},           {"dmesg.txt", Channel::Kernel},
      {"kern.log.1.gz", Channel::Kernel},   {"var/log/syslog", Channel::System},
      {"messages-20261129", Channel::System}, {"journal.log", Channel::System},
      {"slurmd.log", Channel::Scheduler},   {"logs/n1/k8s_events.log", Channel::Orchestrator},
      {"kubectl-describe.txt", Channel::Orchestrator}, {"events.txt", Channel::Orchestrator},
      {"containerd.log", Channel::ContainerRuntime}, {"slurm-12345.out", Channel::Application},
      {"train.log", Channel::Application},  {"pod.log", Channel::Application},
      {"applog.log", Channel::Application}, {"syslog.log.2.gz", Channel::System},
      {"kernel", Channel::Kernel},          {"scheduler", Channel::Scheduler},
  };
  for (const auto& [name, channel] : cases) EXPECT_EQ(channelHint(name), channel) << name;
}

// The Hyperscan expressions the scanner counts lines with: an exact one matches exactly its
// channel's lines, a literal one a superset the classifier confirms.
TEST(LineChannel, MarkerExpressionsAgreeWithTheClassifier) {
  const auto& expressions = ir::markerExpressions();
  std::vector<const char*> regexes;
  std::vector<unsigned> flags, ids;
  for (size_t i = 0; i < expressions.size(); ++i) {
    regexes.push_back(expressions[i].regex.c_str());
    flags.push_back(HS_FLAG_MULTILINE);
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_database_t* raw = nullptr;
  hs_compile_error_t* error = nullptr;
  ASSERT_EQ(hs_compile_multi(regexes.data(), flags.data(), ids.data(), static_cast<unsigned>(regexes.size()), HS_MODE_BLOCK,
                             nullptr, &raw, &error),
            HS_SUCCESS)
      << (error ? error->message : "");
  std::unique_ptr<hs_database_t, decltype(&hs_free_database)> db(raw, hs_free_database);
  hs_scratch_t* scratchRaw = nullptr;
  ASSERT_EQ(hs_alloc_scratch(db.get(), &scratchRaw), HS_SUCCESS);
  std::unique_ptr<hs_scratch_t, decltype(&hs_free_scratch)> scratch(scratchRaw, hs_free_scratch);

  std::vector<std::string> lines;
  for (const auto& m : ir::channelMarkers()) lines.emplace_back(m.example);
  for (const char* extra : {"2026-11-29T10:42:00.5+00:00 gpu-7 kernel: [123.456] x", "2026-01-01 10:00:00,123 INFO root: x",
                            "[rank3]: KeyError: 'x'", "  3: gpu-a:1:2 [0] NCCL INFO x", "Nov 29 10:40:00 gpu-7 python3[1]: x"}) {
    lines.emplace_back(extra);
  }
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    std::vector<unsigned> hit;
    hs_scan(db.get(), line.data(), static_cast<unsigned>(line.size()), 0, scratch.get(),
            [](unsigned id, unsigned long long, unsigned long long, unsigned, void* ctx) {
              static_cast<std::vector<unsigned>*>(ctx)->push_back(id);
              return 0;
            },
            &hit);
    LineChannel c = classify(line);
    int exact = -1;
    for (unsigned id : hit) {
      if (expressions[id].exact && (exact < 0 || id < static_cast<unsigned>(exact))) exact = static_cast<int>(id);
    }
    if (exact >= 0) {
      EXPECT_TRUE(c.claimed);
      EXPECT_EQ(expressions[static_cast<size_t>(exact)].channel, c.channel);
    } else if (c.claimed) {
      // Claimed by a literal marker: a literal expression of its channel found the line.
      bool found = false;
      for (unsigned id : hit) found |= !expressions[id].exact && expressions[id].channel == c.channel;
      EXPECT_TRUE(found);
    }
  }
}

TEST(LineChannel, DocsListEveryMarker) {
  std::ifstream in(std::string(ATTRIB_SOURCE_DIR) + "/docs/workloads.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t from = doc.find("## Channels");
  const size_t to = doc.find("\n## ", from + 1);
  ASSERT_NE(from, std::string::npos);
  const std::string section = doc.substr(from, to - from);
  for (const auto& m : ir::channelMarkers()) {
    SCOPED_TRACE(std::string(m.text));
    if (m.form == ir::MarkerForm::Prefix) continue;  // described by form, with examples
    // A row of the marker's channel names the marker, in backquotes.
    bool listed = false;
    for (size_t at = section.find(std::string("| ") + ir::channelName(m.channel) + " |"); at != std::string::npos;
         at = section.find(std::string("| ") + ir::channelName(m.channel) + " |", at + 1)) {
      size_t end = section.find('\n', at);
      std::string row = section.substr(at, end - at);
      listed |= row.find("`" + std::string(m.text) + "`") != std::string::npos;
    }
    EXPECT_TRUE(listed) << "docs/workloads.md's channel table does not list this marker";
  }
}

}  // namespace
}  // namespace attrib::evidence
