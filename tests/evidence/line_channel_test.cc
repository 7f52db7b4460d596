// Line channels (ir/log_channels.h, evidence/line_channel.h): every marker's own example is
// classified to its channel, the Hyperscan expressions that count lines agree with the
// classifier, file names give their hints, and docs/workloads.md's table lists every marker.
#include "evidence/line_channel.h"

#include <gtest/gtest.h>
#include <hs/hs.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
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

// A compiled Hyperscan database over `regexes` (HS_FLAG_MULTILINE), and the ids that match a line.
class Expressions {
 public:
  explicit Expressions(const std::vector<std::string>& regexes) {
    std::vector<const char*> r;
    std::vector<unsigned> flags, ids;
    for (size_t i = 0; i < regexes.size(); ++i) {
      r.push_back(regexes[i].c_str());
      flags.push_back(HS_FLAG_MULTILINE);
      ids.push_back(static_cast<unsigned>(i));
    }
    hs_database_t* raw = nullptr;
    hs_compile_error_t* error = nullptr;
    if (hs_compile_multi(r.data(), flags.data(), ids.data(), static_cast<unsigned>(r.size()), HS_MODE_BLOCK, nullptr, &raw,
                         &error) != HS_SUCCESS) {
      ADD_FAILURE() << (error ? error->message : "hs_compile_multi failed");
      return;
    }
    db_.reset(raw);
    hs_scratch_t* scratch = nullptr;
    EXPECT_EQ(hs_alloc_scratch(raw, &scratch), HS_SUCCESS);
    scratch_.reset(scratch);
  }
  std::vector<unsigned> match(std::string_view line) const {
    std::vector<unsigned> hit;
    if (!db_) return hit;
    hs_scan(db_.get(), line.data(), static_cast<unsigned>(line.size()), 0, scratch_.get(),
            [](unsigned id, unsigned long long, unsigned long long, unsigned, void* ctx) {
              static_cast<std::vector<unsigned>*>(ctx)->push_back(id);
              return 0;
            },
            &hit);
    return hit;
  }

 private:
  std::unique_ptr<hs_database_t, decltype(&hs_free_database)> db_{nullptr, hs_free_database};
  std::unique_ptr<hs_scratch_t, decltype(&hs_free_scratch)> scratch_{nullptr, hs_free_scratch};
};

// The lines to hold the classifiers to: every marker's example, odd near-misses, and every
// line of the corpus, the scenarios and the examples (what real tools and our generators print).
std::vector<std::string> realLines() {
  std::vector<std::string> lines;
  for (const auto& m : ir::channelMarkers()) lines.emplace_back(m.example);
  for (const char* extra :
       {"2026-11-29T10:42:00.5+00:00 gpu-7 kernel: [123.456] x", "2026-01-01 10:00:00,123 INFO root: x", "[rank3]: KeyError: 'x'",
        "  3: gpu-a:1:2 [0] NCCL INFO x", "Nov 29 10:40:00 gpu-7 python3[1]: x", "Nov  9 10:40:00 gpu-7 kernel: x",
        "Nov 9 10:40:00 gpu-7 kernel:", "Nov 29 10:40:00 1234 kernel: x", "Nov 29 10:40:00.123 h kernel[1]: x",
        "Nov 29 10:40:00. h kernel: x", "Nov 29 10:40:00 gpu-7 slurmd: x", "Nov 29 10:40:00 gpu-7 slurmdx: x",
        "Nov 29 10:40:00 gpu-7 slurmd[]: x", "Nov 29 10:40:00 gpu-7 slurmd[12]:x", "2026-11-29T10:40:00Z gpu-7 slurmd: x",
        "2026-11-29T10:40:00+01 gpu-7 slurmd[3]: x", "2026-11-29T10:40:00+0100 gpu-7 slurmd[3]: x",
        "2026-11-29T10:40:00+01:0 gpu-7 slurmd[3]: x", "2026-11-29t10:40:00,5-07:00 gpu-7 kernel: x",
        "2026-11-29 10:40:00 gpu-7 kernel: x", "[1704103201.123456] [n1:4242:0] ib_mlx5_log.c:179 UCX ERROR x",
        "[123456789.5] x", "[ +0.5] x", "[+.5] x", "[ 12.] x", "[Sun Nov 29 10:42:00 2026] x", "[Sun Nov  9 10:42:00 2026] x",
        "[Sun Nov 29 10:42:00 26] x", "[Xyz Nov 29 10:42:00 2026] x", "[", "N", "2", "",
        // Hosts and program names around the sixteen bytes compared at once (evidence/line_channel.cc).
        "Nov 29 10:40:00 gpu-0123456789ab kernel: x", "Nov 29 10:40:00 gpu-0123456789abc kernel: x",
        "Nov 29 10:40:00 gpu-0123456789abcd kernel: x", "Nov 29 10:40:00 a.very-long_host.name.example.org kernel: x",
        "Nov 29 10:40:00 123456789012345 kernel: x", "Nov 29 10:40:00 1234567890123456 kernel: x",
        "Nov 29 10:40:00 12345678901234567 kernel: x", "Nov 29 10:40:00 12345678901234-5 kernel: x",
        "Nov 29 10:40:00 gpu-7 nvidia-persistenced[1]: x", "Nov 29 10:40:00 gpu-7 nvidia-persistencedx[1]: x",
        "Nov 29 10:40:00 gpu-7 nvidia-fabricmanager: x", "Nov 29 10:40:00 gpu-7 kernel:", "Nov 29 10:40:00 gpu-7 kernel",
        "Nov 29 10:40:00 gpu-7 ", "Nov 29 10:40:00 gpu-7", "Nov 29 10:40:00 gpu\t7 kernel: x", "Nov 29 10:40:00 gpu@7 kernel: x",
        "Nov 29 10:40:00 gpu-7 kern\xc3\xa9l: x", "Nov 29 10:40:00 \xc3\xa9gpu-7 kernel: x"}) {
    lines.emplace_back(extra);
  }
  namespace fs = std::filesystem;
  for (const char* dir : {"tests/corpus/cases", "tests/scenarios", "examples"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(fs::path(ATTRIB_SOURCE_DIR) / dir)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && ext != ".json" && ext != ".gz" && ext != ".tar" && ext != ".py" && ext != ".md") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
      }
    }
  }
  return lines;
}

// The anchored expressions the scanner used to count Program and Prefix markers with, before
// evidence::prefixChannel replaced them: the reference prefixChannel must give the same answer as.
std::vector<std::pair<std::string, Channel>> prefixOracle() {
  const std::string syslogTime = R"(^[A-Z][a-z]{2} [ 0-9]?[0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)? [A-Za-z0-9_.\-]*[A-Za-z_.\-][A-Za-z0-9_.\-]* )";
  const std::string isoTime =
      R"(^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?(?:[Zz]|[+\-][0-9]{2}(?::?[0-9]{2})?)? [A-Za-z0-9_.\-]*[A-Za-z_.\-][A-Za-z0-9_.\-]* )";
  std::vector<std::pair<std::string, Channel>> out;
  for (const auto& m : ir::channelMarkers()) {
    if (m.form != ir::MarkerForm::Program) continue;
    std::string name;
    for (char c : m.text) name += (c == '-' ? "\\-" : std::string(1, c));
    if (m.text == "kernel") {
      out.push_back({syslogTime + "kernel:(?: |$)", m.channel});
      // Without a host field, after a syslog time only.
      out.push_back({R"(^[A-Z][a-z]{2} [ 0-9]?[0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)? +kernel:(?: |$))", m.channel});
      out.push_back({isoTime + "kernel:(?: |$)", m.channel});
    } else {
      out.push_back({syslogTime + name + R"((?:\[[0-9]+\])?:(?: |$))", m.channel});
      out.push_back({isoTime + name + R"(\[[0-9]+\]:(?: |$))", m.channel});
    }
  }
  out.push_back({R"(^ {0,2}kernel:)", Channel::Kernel});
  out.push_back({R"(^\[ *[0-9]{1,9}\.[0-9]+\])", Channel::Kernel});
  out.push_back({R"(^\[ *\+[0-9]+\.[0-9]+\])", Channel::Kernel});
  out.push_back({R"(^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ 0-9]?[0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}\])", Channel::Kernel});
  return out;
}

// prefixChannel, which the scanner runs on every line, says exactly what the anchored
// expressions say, on every real line we hold and on the near-misses above.
TEST(LineChannel, PrefixChannelAgreesWithTheAnchoredExpressions) {
  const auto oracle = prefixOracle();
  std::vector<std::string> regexes;
  for (const auto& [regex, channel] : oracle) regexes.push_back(regex);
  Expressions expressions(regexes);
  size_t claimed = 0;
  const auto lines = realLines();
  ASSERT_GT(lines.size(), 10000u) << "the corpus and the scenarios were not found";
  for (const std::string& line : lines) {
    std::vector<unsigned> hit = expressions.match(line);
    std::optional<Channel> want;
    if (!hit.empty()) want = oracle[*std::min_element(hit.begin(), hit.end())].second;
    std::optional<Channel> got = prefixChannel(line);
    claimed += got.has_value();
    ASSERT_EQ(got, want) << line;
  }
  EXPECT_GT(claimed, 1000u) << "too few lines with a Program or Prefix marker to hold anything";
}

// What prefixChannel claims, the classifier (on the parsed prefix) claims for the same channel;
// every Program and Prefix marker's example is claimed.
TEST(LineChannel, PrefixChannelAgreesWithTheClassifierOnEveryExample) {
  for (const auto& m : ir::channelMarkers()) {
    if (m.form != ir::MarkerForm::Program && m.form != ir::MarkerForm::Prefix) continue;
    SCOPED_TRACE(std::string(m.example));
    std::optional<Channel> c = prefixChannel(m.example);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(*c, m.channel);
    EXPECT_EQ(classify(m.example).channel, m.channel);
  }
}

// The literal expressions the scanner finds candidate lines with are a superset: every line a
// Starts or Contains marker claims, a literal expression of its channel found.
TEST(LineChannel, LiteralExpressionsFindEveryLineTheirMarkersClaim) {
  const auto& expressions = ir::markerExpressions();
  std::vector<std::string> regexes;
  for (const auto& e : expressions) regexes.push_back(e.regex);
  Expressions db(regexes);
  for (const std::string& line : realLines()) {
    LineChannel c = classify(line);
    if (!c.claimed || prefixChannel(line)) continue;
    bool found = false;
    for (unsigned id : db.match(line)) found |= expressions[id].channel == c.channel;
    // A line the parsed prefix claims by its program (items stacked before a syslog time) has
    // no literal: the scanner gives it its hint, as it did with the anchored expressions.
    LinePrefix p = parseLinePrefix(line, {});
    if (!p.program.empty() || p.kernelTimestamp) continue;
    EXPECT_TRUE(found) << line;
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
