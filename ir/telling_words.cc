#include "ir/telling_words.h"

namespace attrib::ir {

const std::vector<TellingWord>& tellingWords() {
  // Weights: 3 the process died or the kernel says so; 2 an error was reported; 1 something was
  // refused or timed out. The
  // words end at a word boundary but may start inside one, so RuntimeError, ncclSystemError and
  // cudaErrorLaunchFailure count as errors; "fault" not inside "default" (Hyperscan has no
  // lookbehind, hence the two spelled-out alternatives), which torchrun's OMP_NUM_THREADS
  // warning ("... to be 1 in default, to avoid ...") and every "using the default" would be.
  static const std::vector<TellingWord> kWords = {
      {R"(\b(fatal|panic|segmentation fault|segfault|core dumped|aborted|abort|killed)\b)", 3,
       "the process or the kernel died"},
      {R"(\bout of memory\b|\boom-kill|\bbus error\b|\billegal (memory )?(access|instruction)\b)", 3,
       "memory ran out or was misused"},
      {R"((error|exception|failed|failure|(^|[^e])fault|(^|[^d])efault)s?\b)", 2, "an error was reported"},
      {R"(\b(cannot|can't|unable to|refused|denied|unreachable|timed out|timeout|not found|no such file)\b)", 1,
       "something was refused, missing or too slow"},
  };
  return kWords;
}

const std::vector<TellingDemotion>& tellingDemotions() {
  static const std::vector<TellingDemotion> kDemotions = {
      {"INFO", -2, "a library's informational log level"},
      {"DEBUG", -2, "a library's debug log level"},
      {"TRACE", -2, "a library's trace log level"},
      {"0 errors", -3, "a report that nothing failed"},
      {"no errors", -3, "a report that nothing failed"},
      {"no error", -3, "a report that nothing failed"},
      {"errors: 0", -3, "a report that nothing failed"},
      {"without error", -3, "a report that nothing failed"},
      {"without errors", -3, "a report that nothing failed"},
      // nccl-tests' result table header (src/common.cu): "time algbw busbw error" columns, or
      // "#wrong" in later versions; a column name is not a failure.
      {"busbw", -3, "nccl-tests' table header"},
  };
  return kDemotions;
}

}  // namespace attrib::ir
