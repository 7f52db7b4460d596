#include "runtime/family_hint.h"

#include <algorithm>
#include <memory>
#include <string_view>
#include <tuple>

#include "runtime/regex_table.h"

namespace attrib::runtime {
namespace {

struct FamilyWords {
  std::string_view family;
  int weight;              // 3 names one layer's fault, 2 leans to one, 1 where an error surfaced
  std::string_view regex;  // PCRE2, caseless; `^` and `$` at the line's ends
};

// From the typical evidence of each family (docs/verdict.md, "Families"). Order matters only
// between words of one weight on one line: the more specific family is listed first (an EDAC
// line's "uncorrectable" is the host's memory, not the GPU's; a Slurm "CANCELLED AT ... DUE TO
// TIME LIMIT" is a time limit, not a cancel).
constexpr FamilyWords kFamilyWords[] = {
    {"accelerator-fabric", 3, R"(nvlink|nvswitch|fabric ?manager|\bsxid\b|\bnvls\b|\bimex\b|xgmi)"},
    {"host-hardware", 3,
     R"(machine check|\bmce\b|\bedac\b|hardware error|pcie bus error|\baer\b|thermal|power supply|\bipmi\b)"},
    {"accelerator-memory", 3,
     R"(\becc\b|row remap|remapped rows|retired pages|page retirement|double[- ]bit|uncorrectable)"},
    {"accelerator-gpu", 3,
     R"(\bxid\b|fallen off the bus|gpu is lost|gpu has fallen|\bnvrm\b|rminitadapter|nvidia-smi has failed|device handle|requires reset|reset required|\bgsp\b|nv_err_)"},
    {"network-fabric", 3,
     R"(infiniband|\bibv_|mlx5|\broce\b|net/ib\b|net/ofi|\befa\b|libfabric|\bucx\b|\brdma\b|\bhca\b|retry count exceeded|link (is )?down|\bib\b|error cqe)"},
    {"kernel-fatal", 3,
     R"(kernel panic|\bbug:|general protection fault|soft lockup|hard lockup|\boops\b|kernel bug|blocked for more than)"},
    {"device-oom", 3,
     R"(cuda out of memory|outofmemoryerror|cudaerrormemoryallocation|resource_exhausted|tried to allocate|alloc_failed|(gpu|cuda|hip|device).{0,40}out of memory|out of memory.{0,40}(gpu|cuda|hip|device))"},
    {"host-oom", 3,
     R"(oom-?kill|oom_kill|oomkilled|out of memory: kill|killed process|memory cgroup|memorypressure|cannot allocate memory|\bmemoryerror\b|bad_alloc|defaultcpuallocator|unable to allocate|memory limit|low on resource: memory)"},
    {"storage", 3,
     R"(no space left|disk quota|quota exceeded|input/output error|\beio\b|stale file handle|read-only file system|transport endpoint|lustre|\bnfs\b|gpfs|beegfs|file write failed|pytorchstream(reader|writer))"},
    {"scheduler-timeout", 3, R"(time limit|walltime|term_runlimit|deadlineexceeded)"},
    {"scheduler-preemption", 3, R"(preempt|maintenance event|node shutdown|spot instance)"},
    {"node-failure", 3,
     R"(node_fail|node fail|not responding|notready|node lost|node unreachable|lost connection to node|lost communication with a remote daemon|dead node)"},
    {"numerics", 3, R"(\bnan\b|\binf\b|non-finite|diverg)"},
    {"host-oom", 2, R"(\bkilled\s*$|exit ?code:? ?\(?137|out of memory|signal 9|\bsigkill\b)"},
    {"storage", 2, R"(\bdisk\b|\bs3\b|safetensors)"},
    {"scheduler-cancel", 2, R"(cancelled at|due to (job )?cancel|\bscancel\b|term_owner|term_admin|cancelled by)"},
    {"network-fabric", 2,
     R"(connection refused|no route to host|network is unreachable|unable to find address|name or service not known)"},
    {"orchestration", 2,
     R"(imagepull|failedscheduling|unschedulable|insufficient nvidia|oci runtime|nvidia-container|prolog|evicted|liveness probe|quota)"},
    {"software-framework", 2,
     R"(undefined symbol|no kernel image|driver version is insufficient|not compiled with|version mismatch|incompatible|internal assert|internal (error|check failed)|cublas_status|cudnn_status|cudnn error|building extension|unsupported gpu architecture|\bxla\b|triton|inductor|dynamo|notimplementederror)"},
    {"user-code", 2,
     R"(device-side assert|illegal memory access|misaligned address|invalid device ordinal|segmentation fault|sigsegv|signal 11)"},
    {"numerics", 2, R"(overflow|loss scale)"},
    {"orchestration", 1,
     R"(crashloopbackoff|kubelet|\bpod\b|container|sbatch: error|srun: error|slurmstepd|\bpmi\b|mpirun|\bray\b)"},
    {"communication", 1,
     R"(nccl|processgroup|watchdog|c10d|collective|all_?reduce|all_?gather|rendezvous|gloo|tcpstore|\bmpi_|connection reset|broken ?pipe|socket|horovod)"},
    {"user-code", 1,
     R"(traceback|typeerror|valueerror|keyerror|indexerror|attributeerror|nameerror|assertionerror|filenotfounderror|syntaxerror|zerodivision|importerror|modulenotfound)"},
};
constexpr size_t kTables = sizeof kFamilyWords / sizeof kFamilyWords[0];

// A terminal state in which the workload did not finish its work (docs/workloads.md).
bool failedState(ir::State state) {
  switch (state) {
    case ir::State::Unknown:
    case ir::State::Completed:
    case ir::State::Running:
      return false;
    default:
      return true;
  }
}

// A warning as Python (UserWarning, warnings.warn), glog ([W1203 ...], [W socket.cpp:558], or
// without brackets "W1003 12:02:34.512 ...", as PyTorch's C++ logging prints it) or NCCL (NCCL
// WARN) prints it.
constexpr std::string_view kWarning = R"(warn|^\s*\[W[0-9 ]|^\s*W[0-9]{4} [0-9]{2}:[0-9]{2}:)";
// A line at warning level by its writer's own levels: Python's warning classes and
// warnings.warn, glog's W level ([W1203 ...], [W socket.cpp:558], W1203 ...).
constexpr std::string_view kLevelWarning =
    R"([a-z]*warning\b|warnings\.warn|\[W[0-9]{4} |\[W [A-Za-z_]+\.[a-z]+:|^\s*W[0-9]{4} )";

// The tables compiled once, with the project's PCRE2 wrapper (runtime/regex_table.h: its
// per-thread match data and match limits); each table's regex is one named group, `word`, so a
// match says which words the line holds. A table PCRE2 rejected (none does:
// tests/runtime/family_hint_test.cc) is null and never matches.
std::unique_ptr<Regex> compile(std::string_view regex) {
  std::string error;
  return Regex::compile(ir::Pattern{std::string(regex), "i", {}, ""}, &error, /*lines=*/true);
}

struct Compiled {
  std::unique_ptr<Regex> words[kTables];
  std::unique_ptr<Regex> warning, levelWarning;
  Compiled() {
    for (size_t i = 0; i < kTables; ++i) words[i] = compile("(?<word>" + std::string(kFamilyWords[i].regex) + ")");
    warning = compile(kWarning);
    levelWarning = compile(kLevelWarning);
  }
};

const Compiled& compiled() {
  static const Compiled c;
  return c;
}

bool holds(const std::unique_ptr<Regex>& re, const std::string& line) { return re && re->match(line); }

// The family word `re` finds in `line`, as the line holds it, or none.
std::optional<std::string> wordIn(const std::unique_ptr<Regex>& re, const std::string& line) {
  Captures captures;
  if (!re || !re->match(line, &captures) || captures.empty()) return std::nullopt;
  return std::string(captures[0].value());
}

}  // namespace

bool familyWordsCompile() {
  const Compiled& c = compiled();
  for (const auto& w : c.words) {
    if (!w) return false;
  }
  return c.warning && c.levelWarning;
}

std::optional<FamilyHint> familyHint(const std::vector<Candidate>& candidates, ir::State state) {
  if (state == ir::State::Completed) return std::nullopt;
  const Compiled& c = compiled();
  std::vector<bool> warning;
  for (const auto& cand : candidates) warning.push_back(holds(c.warning, cand.evidence.line));
  if (std::all_of(warning.begin(), warning.end(), [](bool w) { return w; })) return std::nullopt;
  std::optional<FamilyHint> best;
  auto key = [](const FamilyHint& h) { return std::make_tuple(-h.weight, h.candidate, h.table); };
  for (size_t i = 0; i < candidates.size(); ++i) {
    // Families whose hint would send someone to a node's hardware (ir::nodeFaultFamily): only a
    // line that reports an error or a death (telling weight 2 or more) at a level above warning may
    // point at them. A healthy job prints lines that name its GPUs' links and NICs and only say something was missing,
    // refused or worth a warning ("unable to find IB device", "UserWarning: ... NVLink ... failed"); a
    // hardware hint on a healthy job sends someone to a node that did nothing wrong. NCCL has no level
    // above WARN, so its WARN lines are its errors ("NCCL WARN NET/IB : Got completion from peer ...
    // with error 12") and may point at hardware.
    const bool reportsFailure = candidates[i].weight >= 2 && !holds(c.levelWarning, candidates[i].evidence.line);
    for (size_t t = 0; t < kTables; ++t) {
      if (ir::nodeFaultFamily(kFamilyWords[t].family) && !reportsFailure) continue;
      std::optional<std::string> word = wordIn(c.words[t], candidates[i].evidence.line);
      if (!word) continue;
      FamilyHint h{std::string(kFamilyWords[t].family), std::move(*word), kFamilyWords[t].weight, i, t};
      if (!best || key(h) < key(*best)) best = std::move(h);
    }
  }
  // Hardware named by words alone, with no word from the scheduler that the workload failed: no
  // hint rather than the next family down (a GPU's fault would read as the NCCL errors it caused).
  if (best && ir::nodeFaultFamily(best->family) && !failedState(state)) return std::nullopt;
  return best;
}

}  // namespace attrib::runtime
