// attribc as users and CI run it: exit codes, where output goes, and what it says.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <sstream>

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int exit = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string quote(const std::string& arg) {
  std::string q = "'";
  for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

class AttribcCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("attribc_cli_{}_{}", ::getpid(),
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  // `cwd`: the directory attribc runs in (default: the test's).
  Outcome run(const std::vector<std::string>& args, const fs::path& cwd = {}) {
    std::string cmd = (cwd.empty() ? "" : "cd " + quote(cwd.string()) + " && ") + quote(ATTRIBC_PATH);
    for (const auto& a : args) cmd += " " + quote(a);
    fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    cmd += " </dev/null >" + quote(out.string()) + " 2>" + quote(err.string());
    int status = std::system(cmd.c_str());
    Outcome r;
    r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  fs::path dir_;
};

const char* kClean = "symptom s \"S\" {\n  on log\n  match /abcdef/\n  family unknown\n}\n";
const char* kWarning = "symptom s {\n  on log\n  match /ab\\d+/\n  family unknown\n}\n";
const char* kError = "outcome o {\n  when root is nothing\n  family unknown\n}\n";

TEST_F(AttribcCli, VersionAndHelp) {
  Outcome v = run({"--version"});
  EXPECT_EQ(v.exit, 0);
  EXPECT_EQ(v.out.rfind("attribc ", 0), 0u);
  Outcome h = run({"help"});
  EXPECT_EQ(h.exit, 0);
  EXPECT_NE(h.out.find("check"), std::string::npos);
  EXPECT_NE(h.out.find("fmt"), std::string::npos);
  Outcome hc = run({"help", "check"});
  EXPECT_EQ(hc.exit, 0);
  EXPECT_NE(hc.out.find("--format"), std::string::npos);
  Outcome checkHelp = run({"check", "--help"});
  EXPECT_EQ(checkHelp.exit, 0);
  EXPECT_NE(checkHelp.out.find("-W"), std::string::npos);
  Outcome none = run({});
  EXPECT_EQ(none.exit, 2);
}

TEST_F(AttribcCli, UsageErrorsExitTwo) {
  // Without paths, check works on the stdlib; without the stdlib too, there is nothing to check.
  Outcome bad = run({"check", "--no-stdlib"});
  EXPECT_EQ(bad.exit, 2);
  EXPECT_EQ(bad.err, "attribc: error: no rules to work on: give rule files or directories, or leave out --no-stdlib\n");
  Outcome unknownCmd = run({"frobnicate"});
  EXPECT_EQ(unknownCmd.exit, 2);
  Outcome badFormat = run({"check", "--format", "xml", write("a.attr", kClean).string()});
  EXPECT_EQ(badFormat.exit, 2);
  Outcome badWarning = run({"check", "-Wno-such-warning", write("b.attr", kClean).string()});
  EXPECT_EQ(badWarning.exit, 2);
  EXPECT_EQ(badWarning.err, "attribc: error: unknown warning '-Wno-such-warning'; see docs/diagnostics.md for the list\n");
  Outcome helpUnknown = run({"help", "nope"});
  EXPECT_EQ(helpUnknown.exit, 2);
}

TEST_F(AttribcCli, CheckCleanFileExitsZero) {
  Outcome r = run({"check", write("a.attr", kClean).string()});
  EXPECT_EQ(r.exit, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "attribc: 1 file checked against the stdlib, no problems found\n");
  Outcome alone = run({"check", "--no-stdlib", write("a.attr", kClean).string()});
  EXPECT_EQ(alone.err, "attribc: 1 file checked, no problems found\n");
  Outcome stdlib = run({"check"});
  EXPECT_EQ(stdlib.exit, 0) << stdlib.err;
  EXPECT_NE(stdlib.err.find("attribc: the stdlib's "), std::string::npos) << stdlib.err;
}

// Only regular files are rule files: a FIFO would block the read forever, a link to /dev/zero
// would read without end, a huge file would be read whole. Each is refused before it is read.
TEST_F(AttribcCli, FifosDevicesAndHugeFilesAreRefusedWithAReason) {
  fs::path fifo = dir_ / "fifo.attr";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::path zero = dir_ / "zero.attr";
  fs::create_symlink("/dev/zero", zero);
  fs::path huge = dir_ / "huge.attr";
  std::ofstream(huge).close();
  fs::resize_file(huge, (64u << 20) + 1);  // sparse: no disk is used
  struct Case {
    fs::path path;
    std::string reason;
  };
  for (const Case& c : std::vector<Case>{{fifo, "it is a FIFO, not a regular file"},
                                         {zero, "it is a device, not a regular file"},
                                         {huge, "67108865 bytes is larger than the 64 MiB limit for rule files"}}) {
    auto started = std::chrono::steady_clock::now();
    Outcome r = run({"check", c.path.string()});
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20)) << c.path;
    EXPECT_NE(r.exit, 0) << c.path;
    EXPECT_NE(r.err.find("cannot read '" + c.path.string() + "': " + c.reason), std::string::npos) << r.err;
  }
}

TEST_F(AttribcCli, CheckErrorsExitOneWithTextOnStderr) {
  fs::path p = write("bad.attr", kError);
  Outcome r = run({"check", p.string()});
  EXPECT_EQ(r.exit, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, p.string() + ":2:16: error: unknown symptom 'nothing' [A102]\n"
                                "    when root is nothing\n"
                                "                 ^~~~~~~\n"
                                "1 error generated.\n");
}

TEST_F(AttribcCli, WarningsPassUnlessWerror) {
  fs::path p = write("w.attr", kWarning);
  Outcome plain = run({"check", p.string()});
  EXPECT_EQ(plain.exit, 0);
  EXPECT_NE(plain.err.find("warning:"), std::string::npos);
  Outcome strict = run({"check", "-Werror", p.string()});
  EXPECT_EQ(strict.exit, 1);
  EXPECT_NE(strict.err.find("error: this pattern"), std::string::npos);
  Outcome silenced = run({"check", "-Werror", "-Wno-weak-pattern", p.string()});
  EXPECT_EQ(silenced.exit, 0);
  EXPECT_EQ(silenced.err.find("warning"), std::string::npos);
}

TEST_F(AttribcCli, DirectoriesAreSearchedRecursively) {
  write("rules/a/one.attr", kClean);
  write("rules/b/c/two.attr", std::string(kError));
  write("rules/notes.txt", "not a rule file");
  Outcome r = run({"check", (dir_ / "rules").string()});
  EXPECT_EQ(r.exit, 1);
  EXPECT_NE(r.err.find("two.attr:2:16"), std::string::npos);
  EXPECT_NE(r.err.find("1 error generated."), std::string::npos);
}

TEST_F(AttribcCli, MissingFileAndEmptyDirectoryAreIoErrors) {
  Outcome missing = run({"check", (dir_ / "nope.attr").string()});
  EXPECT_EQ(missing.exit, 2);
  EXPECT_EQ(missing.err, "attribc: error: cannot read '" + (dir_ / "nope.attr").string() + "': no such file or directory\n");
  fs::create_directories(dir_ / "empty");
  write("empty/readme.md", "nothing here");
  Outcome empty = run({"check", (dir_ / "empty").string()});
  EXPECT_EQ(empty.exit, 2);
  EXPECT_EQ(empty.err, "attribc: error: no .attr files under '" + (dir_ / "empty").string() + "'\n");
}

TEST_F(AttribcCli, UnreadableFileIsAnIoError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file; permissions cannot make it fail";
  fs::path p = write("secret.attr", kClean);
  ::chmod(p.c_str(), 0);
  Outcome r = run({"check", p.string()});
  EXPECT_EQ(r.exit, 2);
  EXPECT_NE(r.err.find("cannot read"), std::string::npos);
}

TEST_F(AttribcCli, BinaryFileIsReportedNotCrashed) {
  std::string garbage(4096, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 7919 % 256);
  Outcome r = run({"check", write("garbage.attr", garbage).string()});
  EXPECT_EQ(r.exit, 1);
  EXPECT_NE(r.err.find("this is a binary file"), std::string::npos);
}

TEST_F(AttribcCli, JsonFormatGoesToStdout) {
  fs::path p = write("bad.attr", kError);
  Outcome r = run({"check", "--format", "json", p.string()});
  EXPECT_EQ(r.exit, 1);
  EXPECT_EQ(r.err, "");
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["file"], p.string());
  EXPECT_EQ(j["line"], 2);
  EXPECT_EQ(j["column"], 16);
  EXPECT_EQ(j["code"], "A102");
  Outcome clean = run({"check", "--format", "json", write("ok.attr", kClean).string()});
  EXPECT_EQ(clean.exit, 0);
  EXPECT_EQ(clean.out, "");
}

TEST_F(AttribcCli, SarifFormatGoesToStdout) {
  Outcome r = run({"check", "--format", "sarif", write("bad.attr", kError).string()});
  EXPECT_EQ(r.exit, 1);
  auto log = nlohmann::json::parse(r.out);
  EXPECT_EQ(log["version"], "2.1.0");
  ASSERT_EQ(log["runs"][0]["results"].size(), 1u);
  EXPECT_EQ(log["runs"][0]["results"][0]["ruleId"], "A102");
}

TEST_F(AttribcCli, FmtPrintsChecksAndWrites) {
  fs::path p = write("messy.attr", "symptom s \"S\" { on log match /abcdef/ family unknown }\n");
  Outcome printed = run({"fmt", p.string()});
  EXPECT_EQ(printed.exit, 0);
  EXPECT_EQ(printed.out, kClean);
  EXPECT_EQ(slurp(p), "symptom s \"S\" { on log match /abcdef/ family unknown }\n");  // untouched

  Outcome check = run({"fmt", "--check", p.string()});
  EXPECT_EQ(check.exit, 1);
  EXPECT_EQ(check.out, p.string() + "\n");

  Outcome write_ = run({"fmt", "-w", p.string()});
  EXPECT_EQ(write_.exit, 0);
  EXPECT_EQ(slurp(p), kClean);
  Outcome again = run({"fmt", "--check", p.string()});
  EXPECT_EQ(again.exit, 0);
  EXPECT_EQ(again.out, "");
  EXPECT_FALSE(fs::exists(p.string() + ".attribc-fmt.tmp"));
}

TEST_F(AttribcCli, FmtRefusesBrokenFilesAndLeavesThemAlone) {
  const std::string broken = "symptom s { on log match /abc }\n";
  fs::path p = write("broken.attr", broken);
  Outcome r = run({"fmt", "-w", p.string()});
  EXPECT_EQ(r.exit, 1);
  EXPECT_NE(r.err.find("unterminated regex"), std::string::npos);
  EXPECT_NE(r.err.find("files with syntax errors are not formatted"), std::string::npos);
  EXPECT_EQ(slurp(p), broken);
  Outcome both = run({"fmt", "--check", "-w", p.string()});
  EXPECT_EQ(both.exit, 2);
}

TEST_F(AttribcCli, FmtToReadOnlyDirectoryFailsCleanly) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can write into read-only directories";
  fs::path p = write("ro/messy.attr", "symptom s { on log match /abcdef/ family unknown }\n");
  ::chmod((dir_ / "ro").c_str(), 0555);
  Outcome r = run({"fmt", "-w", p.string()});
  ::chmod((dir_ / "ro").c_str(), 0755);
  EXPECT_EQ(r.exit, 2);
  EXPECT_EQ(slurp(p), "symptom s { on log match /abcdef/ family unknown }\n");
}

// `attribc doc`: a reference that is a URL becomes a link, any other (a catalogue's version and
// transcription) stays text, with table pipes escaped.
TEST_F(AttribcCli, DocLinksUrlsAndKeepsOtherReferencesAsText) {
  fs::path p = write("refs.attr", R"attr(package r
symptom s "S" {
  on log
  match /s happened/
  family unknown
  ref "https://example.org/x", "Catalog r610 | via a transcription (https://example.org/y)"
}
)attr");
  Outcome r = run({"doc", p.string()});
  ASSERT_EQ(r.exit, 0) << r.err;
  EXPECT_NE(r.out.find("| [link](https://example.org/x) Catalog r610 \\| via a transcription (https://example.org/y) |"),
            std::string::npos)
      << r.out;
}

TEST_F(AttribcCli, StdlibRulesAreClean) {
  Outcome r = run({"check", "-Werror", std::string(ATTRIB_SOURCE_DIR) + "/stdlib-rules", ATTRIB_STDLIB_GENERATED_DIR});
  EXPECT_EQ(r.exit, 0) << r.err;
}

// `attribc test` compares each expectation with the verdict and reports the unmet ones; `expect
// root SYMPTOM on NODE rank N` checks the root's rank too (a derived hang suspect names one).
TEST_F(AttribcCli, TestReportsAWrongRootRank) {
  const std::string rules = R"(package r
symptom boom "boom" {
  on log
  match /boom happened/
  family unknown
  blame rank
}
)";
  const std::string workload = "  workload {\n    state FAILED\n    nodes [n1]\n    start 2026-01-01T10:00:00Z\n  }\n"
                               "  log n1 applog rank 3 at 10:10:00 \"[rank3]: boom happened\"\n";
  Outcome good = run({"test", "--no-stdlib", write("good.attr", rules + "test \"t\" {\n" + workload +
                                                     "  expect root boom on n1 rank 3\n}\n").string()});
  EXPECT_EQ(good.exit, 0) << good.out << good.err;
  EXPECT_NE(good.out.find("1 passed, 0 failed"), std::string::npos) << good.out;
  Outcome wrong = run({"test", "--no-stdlib", write("wrong.attr", rules + "test \"t\" {\n" + workload +
                                                       "  expect root boom rank 4\n}\n").string()});
  EXPECT_EQ(wrong.exit, 1);
  EXPECT_NE(wrong.out.find("expected root r.boom rank 4, got r.boom on n1 rank 3"), std::string::npos) << wrong.out;
  Outcome malformed = run({"test", write("bad.attr", rules + "test \"t\" {\n" + workload +
                                                         "  expect root boom on n1 rank\n}\n").string()});
  EXPECT_EQ(malformed.exit, 1);
  EXPECT_NE(malformed.err.find("malformed expectation; write 'expect root SYMPTOM [on NODE] [rank N]'"),
            std::string::npos)
      << malformed.err;
}

TEST_F(AttribcCli, ExplainPrintsPredicateIrAndLlvmIr) {
  const std::string stdlib = std::string(ATTRIB_SOURCE_DIR) + "/stdlib-rules";
  Outcome ir = run({"explain", stdlib, ATTRIB_STDLIB_GENERATED_DIR, "--ir", "hot_before_fall_off"});
  ASSERT_EQ(ir.exit, 0) << ir.err;
  EXPECT_NE(ir.out.find("; rule gpu.dcgm.hot_before_fall_off (where, 2 bindings)"), std::string::npos) << ir.out;
  EXPECT_NE(ir.out.find("(same node:bool)"), std::string::npos) << ir.out;
  // The plan: the fall-off binds every candidate, the hot GPU only those of its 30 minutes.
  EXPECT_NE(ir.out.find("; plan: binding 1: 1 of 1 symptom\n"), std::string::npos) << ir.out;
  EXPECT_NE(ir.out.find("; plan: binding 2: 1 of 1 symptom; node of binding 1 (hash); time in [binding 1 time - "
                        "30m, binding 1 time] (binary search)\n"),
            std::string::npos)
      << ir.out;
  // Wildcard bindings narrowed by `is`.
  Outcome wide = run({"explain", stdlib, ATTRIB_STDLIB_GENERATED_DIR, "--ir", "link_failure_explains_transport_errors"});
  ASSERT_EQ(wide.exit, 0) << wide.err;
  EXPECT_NE(wide.out.find("(narrowed by `is`)"), std::string::npos) << wide.out;
  Outcome llvm = run({"explain", stdlib, ATTRIB_STDLIB_GENERATED_DIR, "--llvm", "gpu.dcgm.hot_before_fall_off"});
  ASSERT_EQ(llvm.exit, 0) << llvm.err;
  EXPECT_NE(llvm.out.find("O2-optimised LLVM IR"), std::string::npos);
  EXPECT_NE(llvm.out.find("define i32 @attrib_dispatch"), std::string::npos) << llvm.out.substr(0, 2000);
  Outcome raw = run({"explain", stdlib, ATTRIB_STDLIB_GENERATED_DIR, "--llvm", "hot_before_fall_off", "--unoptimised"});
  ASSERT_EQ(raw.exit, 0) << raw.err;
  EXPECT_NE(raw.out.find("generated LLVM IR"), std::string::npos);
  EXPECT_GT(raw.out.size(), llvm.out.size());
  // A filter has one clause per statement with a where; a symptom its when.
  Outcome symptom = run({"explain", stdlib, ATTRIB_STDLIB_GENERATED_DIR, "--ir", "gpu.dcgm.gpu_hot"});
  ASSERT_EQ(symptom.exit, 0) << symptom.err;
  EXPECT_NE(symptom.out.find("window-avg"), std::string::npos) << symptom.out;
}

TEST_F(AttribcCli, BenchPatternsMeasuresEachScanFormOnTheGivenLogs) {
  fs::path rules = write("r.attr",
                         "symptom progress {\n  on log\n  match /^step (?<step>[0-9]+) \\|.*\\| (?<ms>[0-9]+) ms\\/step/\n"
                         "  family unknown\n}\n"
                         "symptom lost {\n  on log\n  match /GPU has fallen off the bus/\n  family unknown\n}\n");
  // Four lines end like a progress line (one is not one: its message does not start with
  // `step`), two say the GPU fell off, one says nothing.
  write("logs/a/train.log",
        "step 1 | lr 0.1 | 50 ms/step\nstep 2 | lr 0.1 | 51 ms/step\n[rank3]: step 3 | x | 52 ms/step\n"
        "eval | 7 ms/step\nnothing here\n");
  write("logs/b/dmesg", "NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.\nNVRM: GPU has fallen off the bus.\n");
  Outcome r = run({"bench-patterns", "--no-stdlib", rules.string(), "--logs", (dir_ / "logs").string(), "--reps", "1",
                   "--format", "json"});
  ASSERT_EQ(r.exit, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["files"], 2);
  EXPECT_EQ(j["lines"], 7);
  EXPECT_EQ(j["patterns"]["expressions"], 2);
  EXPECT_EQ(j["patterns"]["candidate_lines"], 6);
  ASSERT_EQ(j["costliest"].size(), 2u);
  std::map<std::string, nlohmann::json> by;
  for (const auto& p : j["costliest"]) by[p["symptom"].get<std::string>()] = p;
  // The scan form: `^` dropped, and the part after `.*` kept, whose literal is the longer.
  EXPECT_EQ(by["progress"]["scan_form"], "\\| (?<ms>[0-9]+) ms\\/step");
  EXPECT_EQ(by["progress"]["literal"], " ms/step");
  EXPECT_EQ(by["progress"]["candidate_lines"], 4);
  EXPECT_EQ(by["lost"]["candidate_lines"], 2);
  EXPECT_EQ(by["lost"]["literal"], "GPU has fallen off the bus");
  EXPECT_GE(by["progress"]["ms"].get<double>(), 0.0);

  Outcome text = run({"bench-patterns", "--no-stdlib", rules.string(), "--logs", (dir_ / "logs").string(), "--reps", "1"});
  ASSERT_EQ(text.exit, 0) << text.err;
  EXPECT_NE(text.out.find("whole database (2 patterns"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("progress: /\\| (?<ms>[0-9]+) ms\\/step/"), std::string::npos) << text.out;
  // --top 0: only the database's figures.
  Outcome top0 = run({"bench-patterns", "--no-stdlib", rules.string(), "--logs", (dir_ / "logs").string(), "--top", "0",
                      "--reps", "1", "--format", "json"});
  ASSERT_EQ(top0.exit, 0) << top0.err;
  EXPECT_TRUE(nlohmann::json::parse(top0.out)["costliest"].empty());
}

TEST_F(AttribcCli, BenchPatternsSaysWhyItMeasuredNothing) {
  fs::path rules = write("r.attr", kClean);
  Outcome noLogs = run({"bench-patterns", "--no-stdlib", rules.string()});
  EXPECT_EQ(noLogs.exit, 2);
  EXPECT_NE(noLogs.err.find("--logs"), std::string::npos) << noLogs.err;
  Outcome missing = run({"bench-patterns", "--no-stdlib", rules.string(), "--logs", (dir_ / "nope").string()});
  EXPECT_EQ(missing.exit, 2);
  EXPECT_NE(missing.err.find("cannot read the logs '"), std::string::npos) << missing.err;
  write("empty/x.log", "");
  Outcome empty = run({"bench-patterns", "--no-stdlib", rules.string(), "--logs", (dir_ / "empty").string()});
  EXPECT_EQ(empty.exit, 2);
  EXPECT_NE(empty.err.find("no bytes to scan"), std::string::npos) << empty.err;
  write("bad/x.log.gz", std::string("\x1f\x8b\x08\x00garbage-that-is-not-deflate", 31));
  Outcome corrupt = run({"bench-patterns", "--no-stdlib", rules.string(), "--logs", (dir_ / "bad").string()});
  EXPECT_EQ(corrupt.exit, 2);
  EXPECT_NE(corrupt.err.find("gzip"), std::string::npos) << corrupt.err;
  fs::path metricsOnly = write("m.attr", "symptom hot {\n  on metric gpu_temp\n  when value > 90\n  family unknown\n}\n");
  write("logs/x.log", "abcdef\n");
  Outcome none = run({"bench-patterns", "--no-stdlib", metricsOnly.string(), "--logs", (dir_ / "logs").string()});
  EXPECT_EQ(none.exit, 1) << none.err;
  EXPECT_NE(none.err.find("no log patterns"), std::string::npos) << none.err;
  Outcome reps = run({"bench-patterns", "--no-stdlib", rules.string(), "--logs", (dir_ / "logs").string(), "--reps", "0"});
  EXPECT_EQ(reps.exit, 2);
}

TEST_F(AttribcCli, ExplainSaysWhatIsWrongWithTheName) {
  const std::string stdlib = std::string(ATTRIB_SOURCE_DIR) + "/stdlib-rules";
  Outcome none = run({"explain", stdlib, ATTRIB_STDLIB_GENERATED_DIR});
  EXPECT_EQ(none.exit, 2);
  EXPECT_NE(none.err.find("--ir NAME, --llvm NAME"), std::string::npos) << none.err;
  Outcome unknown = run({"explain", stdlib, ATTRIB_STDLIB_GENERATED_DIR, "--ir", "no_such_rule"});
  EXPECT_EQ(unknown.exit, 2);
  EXPECT_NE(unknown.err.find("attribc: error: no rule, outcome, symptom or filter named 'no_such_rule'"),
            std::string::npos) << unknown.err;
  fs::path rules = write("two.attr", R"(package p.a
symptom s "S" {
  on log
  match /s (?P<n>\d+)/
  when int(n) > 1
  family unknown
  severity error
  blame node
}
)");
  write("three.attr", R"(package p.b
symptom s "S" {
  on log
  match /t (?P<n>\d+)/
  when int(n) > 2
  family unknown
  severity error
  blame node
}
)");
  Outcome ambiguous = run({"explain", dir_.string(), "--ir", "s"});
  EXPECT_EQ(ambiguous.exit, 2);
  EXPECT_NE(ambiguous.err.find("'s' names 2 declarations (symptom p.a.s, symptom p.b.s)"), std::string::npos)
      << ambiguous.err;
  Outcome qualified = run({"explain", dir_.string(), "--ir", "p.b.s"});
  EXPECT_EQ(qualified.exit, 0) << qualified.err;
  EXPECT_NE(qualified.out.find("2:int"), std::string::npos) << qualified.out;
  // A log symptom's condition is interpreted while scanning: it has IR, but no LLVM IR.
  Outcome llvm = run({"explain", dir_.string(), "--llvm", "p.b.s"});
  EXPECT_EQ(llvm.exit, 2);
  EXPECT_NE(llvm.err.find("symptom p.b.s (when) is a log symptom's condition: the interpreter evaluates it"),
            std::string::npos)
      << llvm.err;
  Outcome broken = run({"explain", write("broken.attr", "symptom {").string(), "--ir", "x"});
  EXPECT_EQ(broken.exit, 1);
  EXPECT_NE(broken.err.find("nothing was explained"), std::string::npos) << broken.err;
}

// ---- the stdlib as a library: site rules on top of it (docs/language.md, "Layers")

const std::string kSiteRules = std::string(ATTRIB_SOURCE_DIR) + "/examples/site-rules";

// The same sources built from three paths (two copies, and "." from inside one) give one digest.
TEST_F(AttribcCli, TheDigestDependsOnTheSourcesAlone) {
  for (const char* dir : {"rules", "rules2"}) fs::copy(kSiteRules, dir_ / dir, fs::copy_options::recursive);
  auto digestOf = [](const Outcome& r) {
    size_t at = r.err.find("sha256:");
    return at == std::string::npos ? std::string() : r.err.substr(at, 71);
  };
  Outcome a = run({"build", "-o", (dir_ / "a.attrb").string(), (dir_ / "rules").string()});
  Outcome b = run({"build", "-o", (dir_ / "b.attrb").string(), (dir_ / "rules2").string()});
  Outcome c = run({"build", "-o", (dir_ / "c.attrb").string(), "."}, dir_ / "rules");
  ASSERT_EQ(a.exit, 0) << a.err;
  ASSERT_EQ(b.exit, 0) << b.err;
  ASSERT_EQ(c.exit, 0) << c.err;
  ASSERT_EQ(digestOf(a).size(), 71u) << a.err;
  EXPECT_EQ(digestOf(a), digestOf(b));
  EXPECT_EQ(digestOf(a), digestOf(c));
  // A change of content is another digest.
  std::ofstream(dir_ / "rules2" / "gpu.attr", std::ios::app) << "// one more line\n";
  Outcome changed = run({"build", "-o", (dir_ / "d.attrb").string(), (dir_ / "rules2").string()});
  EXPECT_NE(digestOf(changed), digestOf(a));
}

TEST_F(AttribcCli, StdlibListAndExport) {
  Outcome list = run({"stdlib", "list"});
  ASSERT_EQ(list.exit, 0) << list.err;
  EXPECT_NE(list.out.find("gpu/xid.attr\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("std/nccl.attr\n"), std::string::npos) << list.out;
  fs::path out = dir_ / "exported";
  Outcome exported = run({"stdlib", "export", out.string()});
  ASSERT_EQ(exported.exit, 0) << exported.err;
  EXPECT_EQ(slurp(out / "std" / "nccl.attr"), slurp(std::string(ATTRIB_SOURCE_DIR) + "/stdlib-rules/std/nccl.attr"));
  // The exported copy replaces every stdlib package and changes nothing: same program, clean.
  Outcome check = run({"check", "-Werror", out.string()});
  EXPECT_EQ(check.exit, 0) << check.err;
  Outcome fromCopy = run({"build", "-o", (dir_ / "copy.attrb").string(), out.string()});
  Outcome embedded = run({"build", "-o", (dir_ / "embedded.attrb").string()});
  ASSERT_EQ(fromCopy.exit, 0) << fromCopy.err;
  EXPECT_EQ(fromCopy.err.substr(fromCopy.err.find("sha256:")), embedded.err.substr(embedded.err.find("sha256:")));
  Outcome unwritable = run({"stdlib", "export", (dir_ / "exported" / "std" / "nccl.attr" / "x").string()});
  EXPECT_EQ(unwritable.exit, 2);
  EXPECT_NE(unwritable.err.find("attribc: error: cannot create"), std::string::npos) << unwritable.err;
}

TEST_F(AttribcCli, SiteTestsRunWithTheStdlibsAndOverriddenOnesAreReportedAsChanged) {
  Outcome all = run({"test", kSiteRules});
  EXPECT_EQ(all.exit, 0) << all.out << all.err;
  EXPECT_NE(all.out.find("CHANGED <stdlib>/gpu/xid.attr:"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("changed by site override of outcome gpu.xid.gpu_lost (" + kSiteRules + "/gpu.attr:10)"),
            std::string::npos)
      << all.out;
  EXPECT_NE(all.out.find("expected action reboot_node, got [drain_node, replace_gpu, restart]"), std::string::npos)
      << all.out;
  EXPECT_NE(all.out.find(" passed, 0 failed, 1 changed by site overrides\n"), std::string::npos) << all.out;
  EXPECT_EQ(all.out.find("FAIL "), std::string::npos) << all.out;

  // Only the site's own tests; only those whose name matches.
  Outcome only = run({"test", "--only", kSiteRules, kSiteRules});
  EXPECT_EQ(only.exit, 0) << only.out;
  EXPECT_NE(only.out.find("4 passed, 0 failed (4 of "), std::string::npos) << only.out;
  Outcome filtered = run({"test", "-v", "--filter", "a failed checkpoint*", kSiteRules});
  EXPECT_NE(filtered.out.find("1 passed, 0 failed (1 of "), std::string::npos) << filtered.out;
  EXPECT_NE(filtered.out.find("a failed checkpoint upload stalls the job"), std::string::npos) << filtered.out;
  Outcome stdlibOnly = run({"test", "--only", "<stdlib>/std", "--filter", "timeout"});
  EXPECT_EQ(stdlibOnly.exit, 0) << stdlibOnly.out;
  EXPECT_EQ(stdlibOnly.out.find("(0 of"), std::string::npos) << stdlibOnly.out;
  Outcome none = run({"test", "--filter", "no test is called this", kSiteRules});
  EXPECT_EQ(none.exit, 1);
  EXPECT_NE(none.err.find("attribc: error: no test matches --filter/--only"), std::string::npos) << none.err;
  Outcome badOnly = run({"test", "--only", (dir_ / "nope").string(), kSiteRules});
  EXPECT_EQ(badOnly.exit, 2);
  EXPECT_EQ(badOnly.err, "attribc: error: --only " + (dir_ / "nope").string() + ": no such file or directory\n");
}

// A site rule that changes a stdlib test without saying so (no override) fails that test, and
// the failure says the stdlib alone passes it.
TEST_F(AttribcCli, AnUndeclaredChangeToAStdlibTestIsAFailure) {
  fs::path site = write("site/grab.attr", R"(package site.grab
import gpu.xid
outcome our_outcome {
  when root is xid.xid79
  family accelerator-gpu
  confidence 0.5
}
)");
  Outcome r = run({"test", "--filter", "xid79 on one node, NCCL timeouts and tear-down everywhere", site.parent_path().string()});
  EXPECT_EQ(r.exit, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL  <stdlib>/gpu/xid.attr:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expected outcome [gpu.xid.gpu_lost], got [site.grab.our_outcome, gpu.xid.gpu_lost]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("it passes with stdlib alone: the rules layered above change it (site.grab.our_outcome); "
                       "'override' or 'disable' what should change"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0 passed, 1 failed"), std::string::npos) << r.out;
}

TEST_F(AttribcCli, BaseLayersAndOverridesOfOverrides) {
  fs::path team = write("team/gpu.attr", R"(package team.gpu
import gpu.xid
override outcome gpu.xid.gpu_lost "The team's view" {
  when root is gpu.xid.xid79
  family accelerator-gpu
  action drain_node
  confidence 0.6
}
)");
  Outcome layered = run({"check", "--base", kSiteRules, team.parent_path().string()});
  EXPECT_EQ(layered.exit, 0) << layered.err;
  // In one layer, two overrides of one outcome collide.
  Outcome together = run({"check", kSiteRules, team.parent_path().string()});
  EXPECT_EQ(together.exit, 1);
  EXPECT_NE(together.err.find("error: 'gpu.xid.gpu_lost' is changed twice in this layer [A101]"), std::string::npos)
      << together.err;
  // The site's test of the outcome now sees the team's override: changed, not failed.
  Outcome tests = run({"test", "--base", kSiteRules, "--only", kSiteRules, team.parent_path().string()});
  EXPECT_EQ(tests.exit, 0) << tests.out;
  EXPECT_NE(tests.out.find("CHANGED " + kSiteRules + "/gpu.attr:"), std::string::npos) << tests.out;
  EXPECT_NE(tests.out.find("changed by site override of outcome gpu.xid.gpu_lost (" + team.string() + ":3)"),
            std::string::npos)
      << tests.out;
}

TEST_F(AttribcCli, FixAppliesTheSafeFixitsAndChecksAgain) {
  const std::string broken =
      "package site\n"
      "symptom up \"Upload failed\" {\n  on log\n  match /upload to s3://x failed/\n  family storage\n  blame workload\n}\n"
      "outcome o {\n  when root is up and workload.duration > 5min and workload.exit_code = 1\n  family storage\n}\n";
  fs::path p = write("fix.attr", broken);
  Outcome before = run({"check", p.string()});
  EXPECT_EQ(before.exit, 1);
  EXPECT_NE(before.err.find("3 errors generated."), std::string::npos) << before.err;
  EXPECT_NE(before.err.find("                        \\/\\/\n"), std::string::npos) << before.err;
  Outcome fixed = run({"check", "--fix", p.string()});
  EXPECT_EQ(fixed.exit, 0) << fixed.err;
  EXPECT_EQ(fixed.err, "attribc: --fix applied 4 fix-its in 1 file\n"
                       "attribc: 1 file checked against the stdlib, no problems found\n");
  EXPECT_EQ(slurp(p), "package site\n"
                      "symptom up \"Upload failed\" {\n  on log\n  match /upload to s3:\\/\\/x failed/\n  family storage\n"
                      "  blame workload\n}\n"
                      "outcome o {\n  when root is up and workload.duration > 5m and workload.exit_code == 1\n"
                      "  family storage\n}\n");
  // A guess is never applied: the unit of a bare number stays as written.
  fs::path guess = write("guess.attr", "outcome o {\n  when workload.duration > 20\n  family unknown\n}\n");
  Outcome unfixed = run({"check", "--fix", guess.string()});
  EXPECT_EQ(unfixed.exit, 1);
  EXPECT_NE(unfixed.err.find("attribc: --fix applied 0 fix-its in 0 files"), std::string::npos) << unfixed.err;
  EXPECT_NE(unfixed.err.find("did you mean '20m' (or '20s')?"), std::string::npos) << unfixed.err;
  EXPECT_EQ(slurp(guess), "outcome o {\n  when workload.duration > 20\n  family unknown\n}\n");
  Outcome json = run({"check", "--format", "json", guess.string()});
  auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["fixits"].size(), 1u) << json.out;
  EXPECT_EQ(j["fixits"][0]["replacement"], "20m");
  EXPECT_EQ(j["fixits"][0]["safe"], false);
}

}  // namespace
