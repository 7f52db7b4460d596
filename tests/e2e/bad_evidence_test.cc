// End-to-end: bad evidence never stops a diagnosis. Each test builds a small workload directory
// whose good files hold a GPU falling off the bus on n1 (the root cause) and an NCCL timeout on
// n2, adds one kind of bad evidence, runs the attrib binary and checks that
//   - a verdict still comes (exit 0, valid JSON) with the root cause from the good files, and
//   - the bad evidence is reported in connector_reports with a reason.
// Only a workload.json that cannot be read, or a directory that does not exist, is an error:
// exit 1 and one line "attrib: error: ..." on stderr.
//
// Each case states what the verdict must say about the damaged evidence.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <random>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

const char* kWorkloadJson =
    R"({"id": "bad-evidence", "scheduler": "slurm", "state": "FAILED", "exit_code": 1,)"
    R"( "start": "2026-11-29T10:00:00Z", "end": "2026-11-29T10:53:00Z", "nodes": ["n1", "n2", "n3"]})"
    "\n";
const char* kXidLine = "Nov 29 10:42:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.";
const char* kGoodSyslog =
    "Nov 29 10:40:00 n1 CRON[1234]: (root) CMD (/usr/sbin/nhc -q -t 60 >/dev/null 2>&1)\n"
    "Nov 29 10:42:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n"
    "Nov 29 10:42:00 n1 kernel: NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n";
const char* kWatchdog =
    "[rank9]:[E ProcessGroupNCCL.cpp:563] [Rank 9] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600021 "
    "milliseconds before timing out.";

std::string gzipBytes(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Many distinct syslog lines: compresses to several KB, so cutting it leaves some lines readable.
std::string manySyslogLines(int n) {
  std::string s;
  std::mt19937 rng(7);
  for (int i = 0; i < n; ++i) {
    s += fmt::format("Nov 29 10:{:02}:{:02} n3 systemd[1]: session-{}.scope: Deactivated successfully ({:08x}).\n",
                     i / 60 % 60, i % 60, i, rng());
  }
  return s;
}

class BadEvidence : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("workload.json", kWorkloadJson);
    dir_.write("logs/n1/syslog.log", kGoodSyslog);
    dir_.write("logs/n2/applog.log", std::string("2026-11-29T10:52:01.000000Z ") + kWatchdog + "\n");
  }

  // The verdict, checked for the root cause the good files give.
  json verdict(CliResult* raw = nullptr) {
    CliResult r;
    json v = diagnose(dir_.path(), scratch_.path(), {}, &r);
    if (raw) *raw = r;
    EXPECT_EQ(r.err, "");
    expectGoodRoot(v);
    return v;
  }

  static void expectGoodRoot(const json& v) {
    ASSERT_TRUE(v.contains("root_cause") && v["root_cause"].is_object()) << "no root cause";
    EXPECT_EQ(v["root_cause"]["symptom"], "gpu.xid.xid79");
    EXPECT_EQ(v["root_cause"]["node"], "n1");
    EXPECT_EQ(v["root_cause"]["gpu"], "0000:3b:00");
    ASSERT_EQ(v["outcome"].size(), 1u);
    EXPECT_EQ(v["outcome"][0]["name"], "gpu.xid.gpu_lost");
    EXPECT_EQ(nodeNames(v["bad_nodes"]), std::vector<std::string>{"n1"});
  }

  // The report of `source`, which must exist, have `status` and give a reason.
  static json expectReport(const json& v, const std::string& source, const std::string& status) {
    json r = reportFor(v, source);
    EXPECT_TRUE(r.is_object()) << "no report for " << source << " in\n" << v["connector_reports"].dump(2);
    if (!r.is_object()) return json::object();
    EXPECT_EQ(r["status"], status) << r.dump();
    EXPECT_TRUE(r["reason"].is_string() && !r["reason"].get<std::string>().empty()) << "no reason: " << r.dump();
    return r;
  }

  // The verdict says its evidence was incomplete.
  static void expectConfidenceLowered(const json& v) {
    EXPECT_LT(v["confidence"].get<double>(), 0.95);
    bool noted = false;
    for (const auto& n : v["confidence_notes"]) noted |= n.get<std::string>().find("missing or incomplete") != std::string::npos;
    EXPECT_TRUE(noted) << v["confidence_notes"].dump();
  }

  TempDir dir_;
  TempDir scratch_{};
};

TEST_F(BadEvidence, GoodFilesAlone) {
  json v = verdict();
  EXPECT_EQ(v["root_cause"]["time"], "2026-11-29T10:42:00Z");
  EXPECT_EQ(v["connector_reports"].size(), 2u);
  for (const auto& r : v["connector_reports"]) EXPECT_EQ(r["status"], "ok") << r.dump();
  EXPECT_TRUE(downstreamFor(v, "std.nccl.watchdog_timeout", "gpu.xid.xid79@n1").is_object()) << v["downstream"].dump();
  EXPECT_DOUBLE_EQ(v["confidence"].get<double>(), 0.95);
}

TEST_F(BadEvidence, UnparseableTimestamps) {
  // Timestamps that look like times but are not: a European date, month 13, Nov 31, hour 25.
  dir_.write("logs/n3/applog.log",
             "29/11/2026 10:50:01 INFO data loader ready\n"
             "2026-13-45T99:99:99Z [rank17]: step 10 | loss 2.31\n"
             "Nov 31 25:61:00 n3 trainer: checkpoint saved\n"
             "2026-11-29T25:52:01Z [rank17]:[E ProcessGroupNCCL.cpp:563] [Rank 17] Watchdog caught collective operation "
             "timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600021 "
             "milliseconds before timing out.\n");
  json v = verdict();
  EXPECT_EQ(v["root_cause"]["time"], "2026-11-29T10:42:00Z");
  json r = reportFor(v, "n3/applog.log");
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r["observations"], 4);
  // The lines are still scanned: the timeout is found (its time estimated).
  EXPECT_EQ(v["symptom_counts"]["std.nccl.watchdog_timeout"], 2);
  // A file in which no line has a readable timestamp says so: every time taken from it is a guess.
  EXPECT_TRUE(r["reason"].is_string()) << "(lines without timestamps are not reported): " << r.dump();
}

TEST_F(BadEvidence, BinaryBytesInALog) {
  std::mt19937 rng(42);
  std::string junk(8192, '\0');
  for (char& c : junk) c = static_cast<char>(rng() & 0xff);
  junk[100] = '\0';
  junk[101] = '\0';
  std::string text = "2026-11-29T10:30:00.000000Z [rank17]: step 120 | loss 2.31\n" + junk + "\n" +
                     "2026-11-29T10:52:02.000000Z [rank17]:[E ProcessGroupNCCL.cpp:563] [Rank 17] \xff\xfe Watchdog "
                     "caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                     "Timeout(ms)=600000) ran for 600021 milliseconds before timing out.\n" +
                     "2026-11-29T10:52:03.000000Z [rank17]: bye\n";
  text.insert(text.size() / 2, std::string("\0\0\0", 3));
  fs::path p = dir_.write("logs/n3/applog.log", text);
  ASSERT_EQ(fs::file_size(p), text.size());
  json v = verdict();
  json r = reportFor(v, "n3/applog.log");
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r["bytes"], text.size());
  EXPECT_TRUE(r["status"] == "ok" || r["status"] == "partial") << r.dump();
  // The timeout after the junk is still found and explained by the root.
  json g = downstreamFor(v, "std.nccl.watchdog_timeout", "gpu.xid.xid79@n1");
  ASSERT_TRUE(g.is_object()) << v["downstream"].dump();
  EXPECT_EQ(g["count"], 2);
  // NUL bytes in a text log are scanned like any others, and the report says they were there.
  EXPECT_TRUE(r["reason"].is_string()) << "(binary bytes in a log are not reported): " << r.dump();
}

// The root's own line carries binary bytes: the verdict stays valid JSON (invalid UTF-8 is
// replaced, NUL escaped) and where.offset still finds the line.
TEST_F(BadEvidence, BinaryBytesInTheRootLine) {
  const std::string line = std::string(kXidLine) + " \xff\xc3\x28 " + std::string("\0", 1) + " junk";
  dir_.write("logs/n1/syslog.log", "Nov 29 10:41:00 n1 CRON[1]: (root) CMD (true)\n" + line + "\n");
  CliResult raw;
  json v = verdict(&raw);
  ASSERT_FALSE(v.empty());
  const json& e = v["root_cause"]["evidence"][0];
  EXPECT_EQ(e["where"]["offset"], 46);
  EXPECT_EQ(e["where"]["line"], 2);
  const std::string shown = e["line"];
  EXPECT_EQ(shown.rfind(kXidLine, 0), 0u) << shown;
  EXPECT_NE(shown.find("junk"), std::string::npos) << shown;
  EXPECT_NE(raw.out.find("\\u0000"), std::string::npos) << "NUL is escaped in the JSON";
}

TEST_F(BadEvidence, TenMegabyteLine) {
  // One 10 MiB line without a break before the root's line: it is cut, counted and reported,
  // and the offsets of the lines after it stay exact.
  const std::string big(10u << 20, 'x');
  fs::path p = dir_.write("logs/n1/syslog.log", big + "\n" + kXidLine + "\n");
  json v = verdict();
  const json& e = v["root_cause"]["evidence"][0];
  EXPECT_EQ(e["where"]["offset"], big.size() + 1);
  EXPECT_EQ(e["where"]["line"], 2);
  expectEvidenceFindsItsLine(e);
  json r = expectReport(v, "n1/syslog.log", "ok");
  EXPECT_EQ(r["observations"], 2);
  EXPECT_EQ(r["bytes"], fs::file_size(p));
  EXPECT_NE(r.value("reason", "").find("longer than"), std::string::npos) << r.dump();
}

TEST_F(BadEvidence, TwoGigabyteFile) {
  // 2 GiB of nothing (a sparse file: no disk used) between two lines, the root's line last: it is
  // read to the end in bounded memory, the NUL run is cut and reported, and the root is found.
  fs::path p = dir_.write("logs/n1/syslog.log", "Nov 29 10:40:00 n1 CRON[1]: (root) CMD (true)\n");
  fs::resize_file(p, 2ull << 30);
  { std::ofstream(p, std::ios::app) << "\n" << kXidLine << "\n"; }
  json v = verdict();
  const json& e = v["root_cause"]["evidence"][0];
  EXPECT_EQ(e["where"]["offset"], (2ull << 30) + 1);
  EXPECT_EQ(e["where"]["line"], 3);
  json r = expectReport(v, "n1/syslog.log", "ok");
  EXPECT_EQ(r["bytes"], fs::file_size(p));
  EXPECT_NE(r.value("reason", "").find("longer than"), std::string::npos) << r.dump();
}

TEST_F(BadEvidence, EmptyFile) {
  dir_.write("logs/n3/dmesg.log", "");
  json v = verdict();
  json r = expectReport(v, "n3/dmesg.log", "empty");
  EXPECT_EQ(r["observations"], 0);
  EXPECT_EQ(r["bytes"], 0);
  EXPECT_DOUBLE_EQ(v["confidence"].get<double>(), 0.95) << "an empty file is not missing evidence";
}

TEST_F(BadEvidence, UnreadableFile) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "running as root: chmod 000 does not stop root from reading the file; "
                    "DirectoryNamedLikeALog and DanglingSymlink cover unreadable paths";
  }
  fs::path p = dir_.write("logs/n3/syslog.log", "Nov 29 10:41:00 n3 CRON[1]: (root) CMD (true)\n");
  ASSERT_EQ(::chmod(p.c_str(), 0), 0);
  json v = verdict();
  json r = expectReport(v, "n3/syslog.log", "error");
  EXPECT_NE(r.value("reason", "").find("ermission denied"), std::string::npos) << r.dump();
  expectConfidenceLowered(v);
}

TEST_F(BadEvidence, DirectoryNamedLikeALog) {
  fs::create_directories(dir_.path() / "logs/n3/syslog.log");
  json v = verdict();
  // Any name can be a log, so a directory named like one is walked; being empty, it is reported.
  json r = reportFor(v, "n3/syslog.log");
  EXPECT_TRUE(r.is_object()) << "(a log path that is a directory is not reported): "
                             << v["connector_reports"].dump(2);
  if (r.is_object()) expectReport(v, "n3/syslog.log", "empty");
}

TEST_F(BadEvidence, DanglingSymlink) {
  fs::create_directories(dir_.path() / "logs/n3");
  fs::create_symlink(dir_.path() / "no-such-file.log", dir_.path() / "logs/n3/syslog.log");
  json v = verdict();
  // As above: a dangling symlink named like a log is reported.
  json r = reportFor(v, "n3/syslog.log");
  EXPECT_TRUE(r.is_object()) << "(a dangling symlink named like a log is not reported): "
                             << v["connector_reports"].dump(2);
  if (r.is_object()) expectReport(v, "n3/syslog.log", "error");
}

TEST_F(BadEvidence, TruncatedGzip) {
  const std::string gz = gzipBytes(manySyslogLines(5000));
  ASSERT_GT(gz.size(), 8000u);
  dir_.write("logs/n3/syslog.log.gz", gz.substr(0, gz.size() / 2));
  json v = verdict();
  json r = expectReport(v, "n3/syslog.log.gz", "partial");
  EXPECT_GT(r["observations"].get<uint64_t>(), 0u);
  EXPECT_LT(r["observations"].get<uint64_t>(), 5000u);
  EXPECT_NE(r.value("reason", "").find("gzip"), std::string::npos) << r.dump();
  expectConfidenceLowered(v);
}

TEST_F(BadEvidence, CorruptGzip) {
  // A gzip header followed by bytes that are not deflate data; and a .gz that is not gzip at all.
  std::string gz = gzipBytes(manySyslogLines(2000));
  for (size_t i = 10; i < gz.size() - 8; i += 7) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  dir_.write("logs/n3/syslog.log.gz", gz);
  dir_.write("logs/n3/dmesg.log.gz", "this is not gzip data\n");
  json v = verdict();
  json bad = reportFor(v, "n3/syslog.log.gz");
  ASSERT_TRUE(bad.is_object());
  EXPECT_TRUE(bad["status"] == "partial" || bad["status"] == "error") << bad.dump();
  EXPECT_NE(bad.value("reason", "").find("gzip"), std::string::npos) << bad.dump();
  json notGzip = expectReport(v, "n3/dmesg.log.gz", "error");
  EXPECT_EQ(notGzip["observations"], 0);
  EXPECT_NE(notGzip.value("reason", "").find("gzip"), std::string::npos) << notGzip.dump();
  expectConfidenceLowered(v);
}

TEST_F(BadEvidence, CorruptRotatedGzipCanBeToldFromTheCurrentLog) {
  // syslog.log is fine; its rotated predecessor syslog.log.1.gz is cut short.
  const std::string gz = gzipBytes(manySyslogLines(5000));
  dir_.write("logs/n1/syslog.log.1.gz", gz.substr(0, gz.size() / 2));
  json v = verdict();
  int n1 = 0;
  json partial;
  for (const auto& r : v["connector_reports"]) {
    if (r["source"].get<std::string>().rfind("n1/syslog", 0) != 0) continue;
    ++n1;
    if (r["status"] == "partial") partial = r;
  }
  EXPECT_EQ(n1, 2) << "one report per file";
  ASSERT_TRUE(partial.is_object()) << v["connector_reports"].dump(2);
  // Each file has its own report, named by its path under logs/, so the damaged one can be told apart.
  EXPECT_NE((partial["source"].get<std::string>() + " " + partial.value("reason", "")).find("syslog.log.1.gz"),
            std::string::npos)
      << "(reports of rotated files do not say which file): " << partial.dump();
}

TEST_F(BadEvidence, MalformedMetricLines) {
  dir_.write("metrics/dcgm.jsonl",
             R"({"name": "DCGM_FI_DEV_GPU_TEMP", "labels": {"Hostname": "n1", "gpu": "2"}, "time": "2026-11-29T10:40:00Z", "value": 61})"
             "\n"
             "not json at all\n"
             R"({"name": 5, "time": "2026-11-29T10:40:00Z", "value": 1})"
             "\n\n"
             R"({"name": "DCGM_FI_DEV_GPU_TEMP", "time": "2026-11-29T10:40:30Z", "value": "hot"})"
             "\n"
             R"({"name": "DCGM_FI_DEV_GPU_TEMP", "time": "yesterday", "value": 60})"
             "\n"
             R"({"name": "DCGM_FI_DEV_GPU_TEMP", "labels": {"Hostname": "n1", "gpu": "2"}, "time": 1795430460, "value": 62})"
             "\n");
  dir_.write("metrics/broken.jsonl", "{\"name\": \n");
  dir_.write("metrics/none.jsonl", "");
  dir_.write("metrics/README.txt", "not a metrics file: ignored\n");
  json v = verdict();
  json some = expectReport(v, "metrics/dcgm.jsonl", "partial");
  EXPECT_EQ(some["observations"], 2);
  EXPECT_NE(some.value("reason", "").find("4 malformed"), std::string::npos) << some.dump();
  EXPECT_NE(some.value("reason", "").find("line 2"), std::string::npos) << some.dump();
  json all = expectReport(v, "metrics/broken.jsonl", "error");
  EXPECT_EQ(all["observations"], 0);
  expectReport(v, "metrics/none.jsonl", "empty");
  EXPECT_FALSE(reportFor(v, "metrics/README.txt").is_object());
  EXPECT_EQ(v["stats"]["metric_samples"], 2);
  expectConfidenceLowered(v);
}

TEST_F(BadEvidence, MissingWorkloadJson) {
  fs::remove(dir_.path() / "workload.json");
  json v = verdict();
  EXPECT_EQ(v["terminal_state"], "UNKNOWN");
  EXPECT_EQ(v["workload"]["id"], dir_.path().filename().string());
  EXPECT_EQ(v["workload"]["nodes"], json({"n1", "n2"}));
  json r = expectReport(v, "workload.json", "empty");
  EXPECT_EQ(r["connector"], "static");
  // Without workload.json there is no start time; syslog dates take their year from the file's
  // modification time, so the cascade is still attributed.
  EXPECT_EQ(v["root_cause"]["time"], std::string("2026-11-29T10:42:00Z")) << "(syslog year without workload.json)";
  EXPECT_TRUE(downstreamFor(v, "std.nccl.watchdog_timeout", "gpu.xid.xid79@n1").is_object())
      << "(syslog year without workload.json): " << v["downstream"].dump();
}

// Nothing read is said, never an exit-0 "unknown": the verdict still comes (it says what was
// missing), and the exit status is 3 with the reason on stderr.
TEST_F(BadEvidence, NoLogsAtAll) {
  fs::remove_all(dir_.path() / "logs");
  CliResult r = runAttrib({"diagnose", "--no-timings", dir_.path().string()}, scratch_.path());
  EXPECT_EQ(r.exit, 3);
  EXPECT_NE(r.err.find("attrib: error: no evidence was read"), std::string::npos) << r.err;
  json v = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(v.is_discarded()) << r.out;
  EXPECT_TRUE(v["root_cause"].is_null());
  EXPECT_EQ(v["outcome"][0]["name"], "unknown");
  EXPECT_EQ(v["terminal_state"], "FAILED");
  expectReport(v, "logs", "empty");
  EXPECT_NE(v["confidence_notes"].dump().find("no evidence was read"), std::string::npos) << v["confidence_notes"];
}

// A workload.json that exists but cannot be read would describe the wrong workload: an error,
// on one line, and no verdict.
TEST_F(BadEvidence, MalformedWorkloadJson) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"id\": \"x\", ", "not a JSON object"},
      {"[1, 2]", "not a JSON object"},
      {"", "not a JSON object"},
      {R"({"nodes": "n1"})", "\"nodes\""},
      {R"({"state": "EXPLODED"})", "EXPLODED"},
      {R"({"start": "yesterday"})", "\"start\""},
      {R"({"exit_code": "1"})", "\"exit_code\""},
  };
  for (const auto& [text, mention] : cases) {
    SCOPED_TRACE(text);
    dir_.write("workload.json", text);
    CliResult r = runAttrib({"diagnose", dir_.path().string()}, scratch_.path());
    EXPECT_EQ(r.exit, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("attrib: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("workload.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
  }
}

// A path that is not there is reported with why; when nothing else was read the run says so
// (exit 3), and a workload.json given alone is the context of a workload with no logs.
TEST_F(BadEvidence, WorkloadDirectoryDoesNotExist) {
  const fs::path missing = dir_.path() / "no-such-workload";
  CliResult r = runAttrib({"diagnose", "--format", "json", missing.string()}, scratch_.path());
  EXPECT_EQ(r.exit, 3);
  EXPECT_NE(r.err.find(missing.string() + ": error: no such file or directory"), std::string::npos) << r.err;
  json v = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(v.is_discarded());
  expectReport(v, missing.string(), "error");

  r = runAttrib({"diagnose", "--format", "json", (dir_.path() / "workload.json").string()}, scratch_.path());
  EXPECT_EQ(r.exit, 3);
  v = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(v.is_discarded());
  EXPECT_EQ(v["terminal_state"], "FAILED");
  expectReport(v, "logs", "empty");
}

}  // namespace
}  // namespace attrib::e2e
