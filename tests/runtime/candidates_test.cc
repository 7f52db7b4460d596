// An unknown verdict still says where to look: its most telling lines, ranked by their words,
// by how few writers printed them and by time, bounded in memory, never shown as a cause.
#include <gtest/gtest.h>

#include <random>

#include "ir/ascii.h"
#include "ir/telling_words.h"
#include "runtime/telling_lines.h"
#include "runtime/verdict_json.h"
#include "tests/runtime/engine_util.h"

namespace attrib::runtime {
namespace {

using attrib::testing::line;

TEST(Candidates, AFormBlanksNumbersAndBlanks) {
  EXPECT_EQ(messageForm("NCCL error 0x1f at 10.0.0.2:4242  on   rank 17\r"), "NCCL error # at #.#.#.#:# on rank #");
  EXPECT_EQ(messageForm("  leading blanks go"), "leading blanks go");
  EXPECT_EQ(messageForm(std::string(500, 'x')).size(), 160u);
  EXPECT_EQ(messageForm("0x"), "#x") << "a lone 0x is a digit and a letter";
}

TEST(Candidates, DemotionsCountAsWholeWordsInAnyCaseAndOncePerLine) {
  // Word 2 is "an error was reported" (weight 2; ir/telling_words.cc).
  const std::vector<uint32_t> error = {2};
  EXPECT_EQ(tellingWeight(error, "RuntimeError: step failed"), 2);
  EXPECT_EQ(tellingWeight(error, "node1:7:7 [0] NCCL INFO NET/IB : error path taken"), 0) << "INFO: -2";
  EXPECT_EQ(tellingWeight(error, "[info] error"), 0) << "any case";
  EXPECT_EQ(tellingWeight(error, "INFORMATION: error"), 2) << "INFO inside a word is not the word";
  EXPECT_EQ(tellingWeight(error, "checked, NO ERRORS found"), -1) << "'no errors' (-3), not also 'no error'";
  EXPECT_EQ(tellingWeight(error, "no error, no error, no error"), -1) << "a phrase counts once";
  EXPECT_EQ(tellingWeight(error, "DEBUG verify: 0 errors"), -3) << "two phrases add up";
  EXPECT_EQ(tellingWeight(error, "10 errors"), 2) << "'0 errors' must start a word";
  EXPECT_EQ(tellingWeight({}, "no errors"), 0) << "no telling word: no weight";
  EXPECT_EQ(tellingWeight(error, "#       size         count    type    root     time   algbw   busbw  error     time"), -1)
      << "nccl-tests' table header names an error column";
}

// demotionsIn walks a line sixteen bytes at a time (SSE2 compare masks): it must find what a
// plain search for every phrase as whole words finds, wherever the phrases fall against the
// sixteen-byte blocks (across them, at the ends, inside longer words).
TEST(Candidates, DemotionsAreFoundWhereverTheyFallAgainstTheBlocks) {
  auto wordByte = [](char c) { return ir::asciiDigit(c) || ir::asciiUpper(c) || ir::asciiLowerCase(c); };
  auto reference = [&](const std::string& line) {
    int weight = 0;
    for (const ir::TellingDemotion& d : ir::tellingDemotions()) {
      const std::string p = ir::asciiLower(d.phrase);
      const std::string l = ir::asciiLower(line);
      for (size_t at = l.find(p); at != std::string::npos; at = l.find(p, at + 1)) {
        const bool before = at > 0 && wordByte(line[at - 1]);
        const bool after = at + p.size() < line.size() && wordByte(line[at + p.size()]);
        if (!before && !after) {
          weight += d.weight;
          break;
        }
      }
    }
    return weight;
  };
  const std::vector<std::string> pieces = {"INFO", "info", "Info", "DEBUG", "trace", "0 errors", "no errors", "No Error",
                                           "errors: 0", "without error", "WITHOUT ERRORS", "x", "INFOx", "xINFO", "10",
                                           " ", "  ", ":", "-", "_", "[", "]", "error", "0", "no", "e", "n", "\xe9"};
  std::mt19937 rng(7);
  for (int n = 0; n < 20000; ++n) {
    std::string line;
    const size_t parts = rng() % 24;
    for (size_t k = 0; k < parts; ++k) line += pieces[rng() % pieces.size()];
    // Weight 2 (an error was reported) plus the demotions, floored at nothing: compare the sums.
    ASSERT_EQ(tellingWeight({2}, line) - 2, reference(line)) << "'" << line << "'";
  }
}

// The demotions are looked for at the starts of words only (demotionsIn skips the rest of each
// word), so a phrase must begin with a letter or digit to be found at all.
TEST(Candidates, EveryDemotionBeginsWithALetterOrDigit) {
  for (const ir::TellingDemotion& d : ir::tellingDemotions()) {
    ASSERT_FALSE(d.phrase.empty());
    const char c = d.phrase.front();
    EXPECT_TRUE(ir::asciiDigit(c) || ir::asciiUpper(c) || ir::asciiLowerCase(c)) << d.phrase;
    EXPECT_LT(tellingWeight({2}, "x " + std::string(d.phrase) + " error"), tellingWeight({2}, "x error")) << d.phrase;
  }
}

using attrib::testing::unknownEngine;

TEST(Candidates, TheRareStrongLineComesBeforeTheCascadeAndChatterIsLeftOut) {
  auto engine = unknownEngine();
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines;
  lines.push_back(line("n0", "applog", "2026-11-29T10:00:00Z", "NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol."));
  lines.push_back(line("n0", "applog", "2026-11-29T10:00:01Z", "epoch 3 finished with 0 errors"));
  lines.push_back(line("n3", "applog", "2026-11-29T10:01:00Z",
                       "[rank13]: RuntimeError: CUDA error: an illegal memory access was encountered"));
  lines.push_back(line("n5", "applog", "2026-11-29T10:02:00Z", "[rank21]: Segmentation fault (core dumped)"));
  for (int r = 0; r < 32; ++r) {
    lines.push_back(line("n" + std::to_string(r / 4), "applog", "2026-11-29T10:11:00Z",
                         "[rank" + std::to_string(r) + "]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" +
                             std::to_string(1000 + r) + ") ran for 600018 milliseconds"));
  }
  Verdict v = attrib::testing::diagnose(*engine, lines);
  ASSERT_TRUE(v.outcomes.empty());
  EXPECT_FALSE(v.root) << "candidates are never a root cause";
  ASSERT_EQ(v.candidates.size(), 3u) << toJson(v);
  EXPECT_NE(v.candidates[0].evidence.line.find("illegal memory access"), std::string::npos);
  EXPECT_EQ(v.candidates[0].evidence.node, "n3");
  EXPECT_EQ(v.candidates[0].rank, 13);
  EXPECT_NE(v.candidates[1].evidence.line.find("Segmentation fault"), std::string::npos);
  EXPECT_NE(v.candidates[2].evidence.line.find("Watchdog caught"), std::string::npos);
  EXPECT_EQ(v.candidates[2].count, 32u) << "one form for every rank's timeout";
  EXPECT_EQ(v.candidates[2].writers, 32u);
  EXPECT_LT(v.candidates[2].weight, v.candidates[0].weight);
  EXPECT_NE(toText(v).find("look at"), std::string::npos);
  // The JSON verdict carries them and reads back the same.
  std::string error;
  auto parsed = parseVerdictJson(toJson(v), &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(toJson(*parsed), toJson(v));
}

TEST(Candidates, AVerdictThatRulesExplainHasNone) {
  auto engine = attrib::testing::stdlibEngine();
  ASSERT_TRUE(engine);
  Verdict v = attrib::testing::diagnose(
      *engine, {line("n1", "applog", "2026-11-29T10:00:00Z",
                     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                     "of 79.15 GiB of which 1.02 GiB is free."),
                line("n1", "applog", "2026-11-29T10:00:01Z", "Segmentation fault (core dumped)")});
  ASSERT_FALSE(v.outcomes.empty()) << toJson(v);
  EXPECT_TRUE(v.candidates.empty());
}

TEST(Candidates, NoTellingWordNoCandidate) {
  auto engine = unknownEngine();
  ASSERT_TRUE(engine);
  Verdict v = attrib::testing::diagnose(*engine, {line("n1", "applog", "2026-11-29T10:00:00Z", "step 100 loss 2.31"),
                                                 line("n1", "applog", "2026-11-29T10:00:01Z", "NCCL INFO Channel 00 : 0 1")});
  EXPECT_TRUE(v.candidates.empty()) << toJson(v);
}

// "fault" counts where a word ends in it (EFAULT, page fault, NVLinkFault), never inside "default":
// torchrun's OMP_NUM_THREADS warning on every run is no candidate.
TEST(Candidates, DefaultIsNoFault) {
  auto engine = unknownEngine();
  ASSERT_TRUE(engine);
  Verdict quiet = attrib::testing::diagnose(
      *engine, {line("n1", "applog", "2026-11-29T10:00:00Z",
                     "W1003 12:02:34.603000 663602 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment "
                     "variable for each process to be 1 in default, to avoid your system being overloaded"),
                line("n1", "applog", "2026-11-29T10:00:01Z", "Using the defaults for every option not given")});
  EXPECT_TRUE(quiet.candidates.empty()) << toJson(quiet);
  Verdict faults = attrib::testing::diagnose(
      *engine, {line("n1", "applog", "2026-11-29T10:00:00Z", "the query ioctl returned EFAULT"),
                line("n2", "applog", "2026-11-29T10:00:01Z", "EFAULT from the driver"),
                line("n3", "applog", "2026-11-29T10:00:02Z", "unhandled page fault at address 0x0"),
                line("n4", "applog", "2026-11-29T10:00:03Z", "NVLinkFault on link 3")});
  EXPECT_EQ(faults.candidates.size(), 4u) << toJson(faults);
}

// 5,000 distinct error forms on one node: the forms kept stop at the bound, the rest are
// counted as dropped, and the verdict still ranks what was kept.
TEST(Candidates, FormsAreBoundedWhateverTheInput) {
  TellingLines kept;
  for (int i = 0; i < 5000; ++i) {
    std::string form = "error in module ";
    for (int k = i; k > 0; k /= 26) form += static_cast<char>('a' + k % 26);
    if (!kept.wantsFirst(form, "n1")) continue;
    TellingLine l;
    l.form = form;
    l.weight = 2;
    l.first.text = form;
    l.first.time = i;
    l.writers = {"n1"};
    kept.add(std::move(l));
  }
  EXPECT_EQ(kept.forms(), TellingLines::kMaxForms);
  EXPECT_EQ(kept.dropped(), 5000 - TellingLines::kMaxForms);
  auto best = kept.best(5);
  ASSERT_EQ(best.size(), 5u);
  EXPECT_EQ(best[0].evidence.line, "error in module ") << "equal weight and writers: the earliest first";
}

// A form seen in two files is one candidate: counts and writers add up, the earlier line is kept.
TEST(Candidates, FormsOfSeveralFilesMerge) {
  auto one = [](const std::string& writer, int64_t time) {
    TellingLines t;
    EXPECT_TRUE(t.wantsFirst("Killed", writer));
    TellingLine l;
    l.form = "Killed";
    l.weight = 3;
    l.first.text = "Killed";
    l.first.node = writer;
    l.first.time = time;
    l.writers = {writer};
    t.add(std::move(l));
    EXPECT_FALSE(t.wantsFirst("Killed", writer));
    return t;
  };
  TellingLines all = one("n2", 200);
  all.merge(one("n1", 100));
  auto best = all.best(5);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].count, 4u);
  EXPECT_EQ(best[0].writers, 2u);
  EXPECT_EQ(best[0].evidence.node, "n1");
}

}  // namespace
}  // namespace attrib::runtime
