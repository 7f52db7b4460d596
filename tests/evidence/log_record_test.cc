// Records that span lines (evidence/log_record.h), on the forms real tools print.
#include "evidence/log_record.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace attrib::evidence {
namespace {

class Lines final : public RecordLines {
 public:
  explicit Lines(std::vector<std::string> lines, PrefixOptions options = {}) : lines_(std::move(lines)), options_(options) {
    prefixes_.resize(lines_.size());
  }
  size_t size() const override { return lines_.size(); }
  std::string_view line(size_t i) override { return lines_[i]; }
  const LinePrefix& prefix(size_t i) override {
    if (!prefixes_[i]) prefixes_[i] = parseLinePrefix(lines_[i], options_);
    return *prefixes_[i];
  }

 private:
  std::vector<std::string> lines_;
  PrefixOptions options_;
  std::vector<std::optional<LinePrefix>> prefixes_;
};

std::vector<uint32_t> range(uint32_t from, uint32_t to) {
  std::vector<uint32_t> out;
  for (uint32_t i = from; i <= to; ++i) out.push_back(i);
  return out;
}

TEST(LogRecord, PythonTracebackUpToItsExceptionLine) {
  // CPython 3.10 traceback as torchrun's worker prints it.
  Lines lines({
      "epoch 3 step 100 loss 2.01",
      "Traceback (most recent call last):",
      "  File \"/workspace/train.py\", line 212, in <module>",
      "    main()",
      "  File \"/workspace/train.py\", line 180, in main",
      "    batch = next(it)",
      "KeyError: 'labels'",
      "epoch 3 step 101 loss 2.00",
  });
  for (uint32_t i = 1; i <= 6; ++i) EXPECT_EQ(recordAt(lines, i), range(1, 6)) << "from line " << i;
  EXPECT_EQ(recordAt(lines, 0), range(0, 0));
  EXPECT_EQ(recordAt(lines, 7), range(7, 7));
}

TEST(LogRecord, InterleavedRanksStayApart) {
  // Two ranks' tracebacks at once, with PyTorch 2.x "[rankN]:" prefixes.
  Lines lines({
      "[rank0]: Traceback (most recent call last):",
      "[rank1]: Traceback (most recent call last):",
      "[rank0]:   File \"train.py\", line 7, in <module>",
      "[rank1]:   File \"train.py\", line 7, in <module>",
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
      "[rank1]: RuntimeError: NCCL communicator was aborted on rank 1.",
  });
  EXPECT_EQ(recordAt(lines, 4), (std::vector<uint32_t>{0, 2, 4}));
  EXPECT_EQ(recordAt(lines, 5), (std::vector<uint32_t>{1, 3, 5}));
}

TEST(LogRecord, ChainedExceptionsAreOneRecord) {
  Lines lines({
      "Traceback (most recent call last):",
      "  File \"x.py\", line 1, in f",
      "ValueError: bad shape",
      "",
      "During handling of the above exception, another exception occurred:",
      "",
      "Traceback (most recent call last):",
      "  File \"x.py\", line 3, in <module>",
      "RuntimeError: step failed",
      "next line",
  });
  EXPECT_EQ(recordAt(lines, 8), range(0, 8));
  EXPECT_EQ(recordAt(lines, 2), range(0, 8));
  EXPECT_EQ(recordAt(lines, 9), range(9, 9));
}

TEST(LogRecord, CxxExceptionWithItsFrames) {
  // c10::DistBackendError as PyTorch 2.4 prints it before aborting.
  Lines lines({
      "terminate called after throwing an instance of 'c10::DistBackendError'",
      "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception",
      "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):",
      "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f1 in /usr/lib/libc10.so)",
      "frame #1: <unknown function> + 0x1153bd2 (0x7f2 in /usr/lib/libtorch_cuda.so)",
      "",
      "Fatal Python error: Aborted",
  });
  EXPECT_EQ(recordAt(lines, 1), range(0, 4));
  EXPECT_EQ(recordAt(lines, 4), range(0, 4));
  EXPECT_EQ(recordAt(lines, 6), range(6, 6));
}

TEST(LogRecord, DmesgContinuationLines) {
  // NVIDIA driver 570 probe failure, as dmesg (util-linux 2.37) prints a multi-line record.
  Lines lines({
      "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0",
      "               NVRM: (PCI ID: 10de:26b5) installed in this system has",
      "               NVRM: fallen off the bus and is not responding to commands.",
      "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).",
  });
  EXPECT_EQ(recordAt(lines, 2), range(0, 2));
  EXPECT_EQ(recordAt(lines, 3), range(3, 3));
}

TEST(LogRecord, KernelLinesOfOnePrintkThroughSyslog) {
  // The same record forwarded line by line keeps one ring-buffer time.
  PrefixOptions options;
  options.referenceTime = 1795984109LL * 1'000'000'000;
  Lines lines({
      "Nov 29 10:42:00 gpu-7 kernel: [ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0",
      "Nov 29 10:42:00 gpu-7 kernel: [ 1843.308145] NVRM: (PCI ID: 10de:26b5) installed in this system has",
      "Nov 29 10:42:00 gpu-7 kernel: [ 1843.308145] NVRM: fallen off the bus and is not responding to commands.",
      "Nov 29 10:42:00 gpu-7 kernel: [ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).",
      "Nov 29 10:42:00 gpu-8 kernel: [ 1843.439662] NVRM: another host, same time",
  }, options);
  EXPECT_EQ(recordAt(lines, 2), range(0, 2));
  EXPECT_EQ(recordAt(lines, 3), range(3, 3));
  EXPECT_EQ(recordAt(lines, 4), range(4, 4));
}

TEST(LogRecord, OtherSubsystemsInTheSameMicrosecondAreRecordsOfTheirOwn) {
  // A boot-time burst as dmesg (util-linux 2.38) prints it: one timestamp, several drivers.
  Lines lines({
      "[130834.567000] infiniband mlx5_4: mlx5_ib_event:7310:(pid 899970): port 1 change event, LID 0x0104",
      "[130834.567000] IPv6: ADDRCONF(NETDEV_CHANGE): ib5: link becomes ready",
      "[130834.567000] mlx5_core 0000:5d:00.0 ib4: Link up",
      "[130834.567000] mlx5_core 0000:5d:00.0 ib4: Link down",
      "[130834.567000] nvidia 0000:5d:00.0: enabling device (0000 -> 0002)",
      "[130834.567000] NVRM: The NVIDIA GPU 0000:b3:00.0",
      "[130834.567000] NVRM: (PCI ID: 10de:26b5) installed in this system has",
      "[130834.567000] NVRM: fallen off the bus and is not responding to commands.",
      "[130834.567000] audit: type=1400 audit(1795946400.000:1008): apparmor=\"STATUS\"",
  });
  EXPECT_EQ(recordAt(lines, 0), range(0, 0));
  EXPECT_EQ(recordAt(lines, 1), range(1, 1));
  EXPECT_EQ(recordAt(lines, 3), range(2, 3)) << "one word, one time: one printk's lines, as far as their form tells";
  EXPECT_EQ(recordAt(lines, 4), range(4, 4)) << "'nvidia' is not 'mlx5_core'";
  EXPECT_EQ(recordAt(lines, 6), range(5, 7));
  EXPECT_EQ(recordAt(lines, 8), range(8, 8));
}

TEST(LogRecord, IpmitoolSelRowsAreEntriesOfTheirOwn) {
  // ipmitool 1.8 `sel list` (lib/ipmi_sel.c: "%4x | ..."): ids below 0x1000 are padded with
  // blanks, and each row is one event.
  Lines lines({
      "# ipmitool sel list",
      "   1 | 01/02/2026 | 10:00:00 | Power Supply #0x51 | Failure detected | Asserted",
      "   2 | 01/02/2026 | 10:00:01 | Power Supply #0x52 | Power Supply AC lost | Asserted",
      " 1a3 | 01/02/2026 | 10:00:02 | Memory #0x53 | Uncorrectable ECC | Asserted",
      "  File \"train.py\", line 7, in <module>",
  });
  EXPECT_EQ(recordAt(lines, 1), range(1, 1));
  EXPECT_EQ(recordAt(lines, 2), range(2, 2));
  // Near miss: an indented line that is no id column still continues the row before it.
  EXPECT_EQ(recordAt(lines, 3), range(3, 4));
  EXPECT_EQ(recordAt(lines, 4), range(3, 4));
}

TEST(LogRecord, KubectlDescribeEventRowsAreEntriesOfTheirOwn) {
  // kubectl describe (describe.go, DescribeEvents): "Events:", the header, then one LEVEL_1 row
  // per event, "type\treason\tage\tfrom\tmessage" padded to blanks by a tabwriter.
  Lines lines({
      "Events:",
      "  Type     Reason                Age   From                       Message",
      "  ----     ------                ----  ----                       -------",
      "  Normal   TaintManagerEviction  2m    taint-eviction-controller  Marking for deletion Pod ml/trainer-1",
      "  Normal   TaintManagerEviction  2m    taint-eviction-controller  Marking for deletion Pod ml/trainer-2",
      "  Warning\tFailedMount\t86s (x16 over 17m)\tkubelet\tMountVolume.SetUp failed for volume \"creds\"",
      "  Normal operation resumed after the mount",
  });
  EXPECT_EQ(recordAt(lines, 3), range(3, 3));
  EXPECT_EQ(recordAt(lines, 4), range(4, 4));
  // Near miss: an indented line that starts "Normal" with one blank and lower case after it is
  // no event row, and continues the row before it, as indented lines do.
  EXPECT_EQ(recordAt(lines, 5), range(5, 6));
  EXPECT_EQ(recordAt(lines, 6), range(5, 6));
}

TEST(LogRecord, UcxBacktrace) {
  // UCX 1.14 "Caught signal" report with its backtrace.
  Lines lines({
      "[09677202c889:5283 :0:5704] Caught signal 7 (Bus error: nonexistent physical address)",
      "==== backtrace (tid:   5704) ====",
      " 0 0x0000000000043090 killpg()  ???:0",
      " 1 0x000000000008170d ncclGroupEnd()  ???:0",
      "=================================",
  });
  // The backtrace, printed without UCX's prefix, joins the signal's record up to the closing
  // border, from whichever of its lines up to the last frame it is looked for (the border alone
  // is no continuation: "=====" lines separate much else).
  for (uint32_t i = 0; i <= 3; ++i) EXPECT_EQ(recordAt(lines, i), range(0, 4)) << "from line " << i;
}

TEST(LogRecord, AnonymousLinesJoinOnlyInABacktracesForm) {
  Lines lines({
      "[09677202c889:5283 :0:5704] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)",
      "epoch 3 step 100 loss 2.01",
      " 0 0x0000000000043090 killpg()  ???:0",
  });
  EXPECT_EQ(recordAt(lines, 0), range(0, 0)) << "a plain line ends it";
  Lines frames({
      "[09677202c889:5283 :0:5704] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)",
      " 0 0x0000000000043090 killpg()  ???:0",
  });
  EXPECT_EQ(recordAt(frames, 0), range(0, 0)) << "frames join only after UCX's backtrace header";
}

TEST(LogRecord, ElasticFailureSummary) {
  // torch.distributed.elastic's ChildFailedError summary (PyTorch 2.1).
  Lines lines({
      "Root Cause (first observed failure):",
      "[0]:",
      "  time      : 2024-01-02_10:00:00",
      "  host      : node-3",
      "  rank      : 5 (local_rank: 5)",
      "  exitcode  : -9 (pid: 1234)",
      "  traceback : Signal 9 (SIGKILL) received by PID 1234",
      "============================================================",
  });
  EXPECT_EQ(recordAt(lines, 6), range(1, 6));
}

TEST(LogRecord, BoundsCutLongRecords) {
  std::vector<std::string> text{"Config:"};
  for (int i = 0; i < 1000; ++i) text.push_back("    key" + std::to_string(i) + ": value");
  Lines lines(text);
  RecordLimits limits;
  limits.maxLines = 10;
  EXPECT_EQ(recordAt(lines, 3, limits), range(0, 9));
  // Beyond the bound a line is a record of its own.
  EXPECT_EQ(recordAt(lines, 500, limits), range(500, 500));
}

TEST(LogRecord, GarbageNeverCrashes) {
  std::vector<std::string> text;
  for (int i = 0; i < 64; ++i) text.push_back(std::string(static_cast<size_t>(i % 7), i % 2 ? ' ' : '\t') + std::string(1, static_cast<char>(i * 37)));
  Lines lines(text);
  for (size_t i = 0; i < text.size(); ++i) {
    auto r = recordAt(lines, i);
    ASSERT_FALSE(r.empty());
    EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
    EXPECT_NE(std::find(r.begin(), r.end(), i), r.end());
  }
}

}  // namespace
}  // namespace attrib::evidence
