// A chunk whose every line has a Program or Prefix marker (a dmesg or syslog chunk) is scanned
// with the bundle's database without the channel markers (runtime/log_scanner.cc scanChunk,
// ir/bundle_format.h). Its lines must be read exactly as with the markers: the same channels,
// the same instances, the same telling lines (the telling words keep their ids in both
// databases). A chunk that holds one line no prefix claims is scanned with the markers, and that
// line is still found by its literal marker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/log_scanner.h"
#include "runtime/regex_table.h"
#include "tests/runtime/engine_util.h"

namespace attrib::runtime {
namespace {

namespace fs = std::filesystem;

// xid reads kernel lines only; the literal marker "NVRM: " is what makes a pasted driver line
// (no kernel timestamp, no syslog program) a kernel line.
const char* kRules = R"(symptom xid "Xid" {
  on log(source in [kernel])
  match /NVRM: Xid \(PCI:(?<pci>[0-9a-f:.]+)\): (?<code>\d+)/
  family accelerator-gpu
  severity critical
  blame node
}
)";

// The lines of dmesg (util-linux 2.38) as the NVIDIA driver 535 prints them: every one has the
// kernel's timestamp, so the chunk is wholly claimed.
const std::vector<std::string> kDmesg = {
    "[  100.000001] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.129.03",
    "[  200.000002] mlx5_core 0000:18:00.1: mlx5_fw_tracer_handle_traces:737:(pid 36956): FW tracer: events lost",
    "[  300.000003] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.",
    "[  400.000004] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x24:0x72:1568)",
};
// What a user pastes into a job's log: the driver's line without its timestamp.
const std::string kPasted = "NVRM: Xid (PCI:0000:86:00): 48, pid=99, An uncorrectable double bit error (DBE) has been detected";

class ClaimedChunks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attrib_claimed_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    engine_ = attrib::testing::engineFor(kRules);
    ASSERT_TRUE(engine_);
    std::string error;
    ASSERT_TRUE(regexes_.build(engine_->bundle().program, &error)) << error;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Scans one file named `name` (so its hint is the application's) holding `lines`.
  LogScanResult scanFile(const std::string& name, const std::vector<std::string>& lines) {
    const fs::path path = dir_ / name;
    std::ofstream out(path);
    for (const auto& l : lines) out << l << "\n";
    out.close();
    LogFile file;
    file.path = path.string();
    file.node = "gpu-a";
    LogScanner scanner(engine_->bundle(), regexes_);
    LogScanOptions options;
    options.threads = 1;
    return scanner.scan({file}, Workload{}, options);
  }

  static uint64_t channel(const LogScanResult& r, ir::Channel c) {
    return r.reports.at(0).channelLines[static_cast<size_t>(c)];
  }

  fs::path dir_;
  std::shared_ptr<const Engine> engine_;
  RegexTable regexes_;
};

TEST_F(ClaimedChunks, AWhollyClaimedChunkIsReadAsWithTheMarkers) {
  ASSERT_TRUE(engine_->bundle().logDatabaseWithoutMarkers);
  const LogScanResult r = scanFile("train.log", kDmesg);
  EXPECT_EQ(channel(r, ir::Channel::Kernel), 4u);
  EXPECT_EQ(channel(r, ir::Channel::Application), 0u);
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_EQ(r.instances[0].source, "kernel");
  ASSERT_TRUE(r.instances[0].capture("code"));
  EXPECT_EQ(*r.instances[0].capture("code"), "79");
  // The telling words are found through the same ids: "failed" in the RmInitAdapter line.
  bool failedLine = false;
  for (const Candidate& c : r.telling.best(10)) failedLine |= c.evidence.line.find("RmInitAdapter failed") != std::string::npos;
  EXPECT_TRUE(failedLine) << "the telling word of a wholly claimed chunk was not found";
}

TEST_F(ClaimedChunks, OneUnclaimedLineBringsTheMarkersBack) {
  std::vector<std::string> lines = kDmesg;
  lines.insert(lines.begin() + 2, kPasted);
  const LogScanResult r = scanFile("train.log", lines);
  EXPECT_EQ(channel(r, ir::Channel::Kernel), 5u) << "the pasted driver line is the kernel's by its literal marker";
  EXPECT_EQ(channel(r, ir::Channel::Application), 0u);
  ASSERT_EQ(r.instances.size(), 2u);
  std::vector<std::string> codes;
  for (const auto& inst : r.instances) codes.emplace_back(*inst.capture("code"));
  EXPECT_EQ(codes, (std::vector<std::string>{"48", "79"}));
}

TEST_F(ClaimedChunks, AnApplicationChunkUsesTheMarkers) {
  const LogScanResult r = scanFile("train.log", {"[rank0]: step 10 loss 1.25", kPasted, "[rank0]: step 11 loss 1.24"});
  EXPECT_EQ(channel(r, ir::Channel::Kernel), 1u);
  EXPECT_EQ(channel(r, ir::Channel::Application), 2u);
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_EQ(*r.instances[0].capture("code"), "48");
}

}  // namespace
}  // namespace attrib::runtime
