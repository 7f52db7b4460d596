// Scanning plain files through mappings (evidence/mapped_file.h) gives the verdict read(2)
// gives, whatever the thread count, over files of very unequal sizes (the scanner takes the
// largest first) and beside files that cannot be read.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "evidence/mapped_file.h"
#include "runtime/verdict.h"
#include "tests/runtime/engine_util.h"

namespace attrib {
namespace {

namespace fs = std::filesystem;
using testing::at;
using testing::logFile;

constexpr const char* kXid = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.";

std::string timeout(int rank, int seq) {
  return fmt::format("[rank{}]: [PG 0 Rank {}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={}, "
                     "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.",
                     rank, rank, seq);
}

class MappedScan : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(evidence::enableMappedReads());
    dir_ = fs::temp_directory_path() / fmt::format("attrib_mapped_scan_{}", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  fs::path dir_;
};

TEST_F(MappedScan, SameVerdictMappedOrReadOnAnyThreadCount) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  std::mt19937 rng(3);
  // One big syslog (about 6 MB: several reader chunks, and far larger than the rest) with the
  // fault in its middle, the ranks' small logs with the timeouts it caused, and bad inputs.
  std::string syslog;
  for (int i = 0; syslog.size() < (6u << 20); ++i) {
    const int s = i / 60 % 60, m = 10 + i / 3600 % 30;
    syslog += fmt::format("Nov 29 10:{:02}:{:02} gpu-b systemd[1]: Started session {} of user {}.\n", m, s, i, rng() % 1000);
    if (i == 30000) syslog += "Nov 29 10:42:00 gpu-b kernel: " + std::string(kXid) + "\n";
  }
  const fs::path big = write("syslog.log", syslog);
  evidence::WorkloadEvidence evidence;
  evidence.workload.start = at("2026-11-29T08:00:00Z");
  evidence.workload.nodes = {"gpu-a", "gpu-b"};
  for (int rank = 0; rank < 8; ++rank) {
    std::string text;
    for (int k = 0; k < 200; ++k) text += fmt::format("2026-11-29T10:{:02}:00Z step {} ok\n", 10 + k % 30, k);
    text += fmt::format("2026-11-29T10:52:01Z {}\n", timeout(rank, 77));
    const std::string name = fmt::format("rank{}.log", rank);
    evidence.logs.push_back(logFile(write(name, text).string(), "gpu-a", "applog", "gpu-a/" + name, rank));
    if (rank == 3) evidence.logs.push_back(logFile(big.string(), "gpu-b", "syslog", "gpu-b/syslog.log"));
  }
  evidence.logs.push_back(logFile(write("empty.log", "").string(), "gpu-a", "applog", "gpu-a/empty.log"));
  evidence.logs.push_back(logFile((dir_ / "missing.log").string(), "gpu-a", "applog", "gpu-a/missing.log"));
  std::string binary(1 << 16, '\0');
  for (char& c : binary) c = static_cast<char>(rng());
  binary[0] = 'x';
  evidence.logs.push_back(logFile(write("core.bin", binary).string(), "gpu-a", "applog", "gpu-a/core.bin"));

  std::string first;
  for (bool mapFiles : {true, false}) {
    for (unsigned threads : {1u, 2u, 3u}) {
      SCOPED_TRACE(fmt::format("mapFiles {}, threads {}", mapFiles, threads));
      runtime::DiagnoseOptions options;
      options.scan.threads = threads;
      options.scan.reader.mapFiles = mapFiles;
      options.scan.reader.chunkBytes = 256 << 10;  // the big file is many chunks
      runtime::Verdict v = engine->diagnose(evidence, options);
      const std::string got = runtime::toJson(v, {.timings = false});
      if (first.empty()) {
        first = got;
        ASSERT_TRUE(v.root) << got.substr(0, 2000);
        EXPECT_EQ(v.root->symptom, "gpu.xid.xid79");
        EXPECT_EQ(v.root->node, "gpu-b");
        // The bad inputs are each reported, and the rest was read.
        EXPECT_NE(got.find("the file is empty"), std::string::npos);
        EXPECT_NE(got.find("cannot open '" + (dir_ / "missing.log").string() + "'"), std::string::npos);
        EXPECT_NE(got.find("binary data (NUL bytes)"), std::string::npos);
      } else {
        EXPECT_EQ(got, first);
      }
    }
  }
}

}  // namespace
}  // namespace attrib
