// Reading the prefix of a log line: when it happened, who printed it, and where the message
// starts.
//
// Log lines come from many writers, and launchers and collectors stack their own prefixes in
// front: applications (ISO-8601 / RFC 3339, Python's asctime with a comma before the
// milliseconds), syslog and the journal ("Nov 29 20:28:29 host prog[pid]: ", no year), the
// kernel ring buffer ("[12345.678901]" seconds since boot, "[Sun Nov 29 20:28:29 2026]" with
// dmesg -T), PyTorch's C++ logging ("[E1129 20:28:29.123456 4242 file.cpp:563]"), srun --label
// ("12: "), torchrun ("[default3]:"), PyTorch ranks ("[rank12]:"), NCCL ("host:pid:tid [3] "),
// UCX ("[host:pid :0:tid] ") and Ray ("(RayTrainWorker pid=123, ip=10.0.0.5) "). Parsing is done
// for the lines a rule matched and a few neighbours, so it favours clarity over raw speed, but it
// never allocates and never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace attrib::evidence {

// What the start of a line says. Every field is optional; a line may carry none. The views
// point into the parsed line.
struct LinePrefix {
  std::optional<int64_t> time;       // wall clock, nanoseconds since the Unix epoch (UTC)
  std::optional<int64_t> monotonic;  // kernel time since boot, nanoseconds ("[12345.678901]")
  std::optional<int32_t> rank;       // the global rank: "[rank12]:", "[Rank 12]"
  std::optional<int32_t> task;       // the srun task id of "12: " (srun --label); not a rank
  std::optional<int32_t> localRank;  // torchrun's "[default3]:" (role name and local rank)
  std::string_view host;             // syslog/journal host, NCCL/UCX host name, Ray node ip
  std::string_view program;          // syslog/journal program, without its [pid] ("kernel")
  std::optional<int64_t> pid;        // "prog[pid]:", NCCL's host:pid:tid, Ray's pid=N
  // The line starts with a kernel ring-buffer timestamp: "[12345.678901]", dmesg --reltime's
  // "[  +0.000316]" or dmesg -T's "[Sun Nov 29 20:28:29 2026]".
  bool kernelTimestamp = false;
  // Byte length of the recognised prefix; the message starts there. One blank after the last
  // item belongs to the prefix, any further blanks to the message: they are its indentation,
  // which marks continuation lines ("[rank3]:   File ...").
  size_t length = 0;
};

// Which "host: " labels a file's lines carry (PrefixOptions::hostLabels).
enum class HostLabels : uint8_t {
  None,
  Names,      // a host name with at least one digit, or an IPv4 address
  Addresses,  // an IPv4 address only
};

struct PrefixOptions {
  // Syslog timestamps have no year: it is taken from this time (the workload's start), and a
  // date that would lie more than a month after it is read as the previous year (logs that
  // cross New Year). Precisely: the latest occurrence no more than 31 days after this time.
  std::optional<int64_t> referenceTime;
  // Offset of local time from UTC, in seconds, for timestamps without a zone (0 = UTC).
  int32_t utcOffsetSeconds = 0;
  // Recognise a leading "N: " as an srun --label task id (application output only: a kernel
  // or syslog file never starts lines so).
  bool srunLabels = false;
  // Recognise a leading "[N] " as the rank that printed the line, as MPICH's Hydra launcher
  // (mpiexec -prepend-rank, pattern "[%r] "; Intel MPI's mpirun -l likewise) prefixes every line
  // of a process: "[56] node-7:7240:7240 [0] NCCL INFO ...". Only for a file whose lines are
  // labelled so (rankLabelled), since "[1] 10690" (a shell's job) or a paste's line numbers
  // ("[80746] [rank0]:...") start the same way.
  bool rankLabels = false;
  // Recognise a leading "host: " as the host that printed the line, as pdsh and clush prefix
  // every line they gather (DeepSpeed's multi-node launcher runs its ranks under pdsh:
  // "gpu-q-13: torch.cuda.OutOfMemoryError: ...") and talosctl its nodes' logs ("192.168.11.119:
  // kern: warning: [...]: NVRM: ..."). Only for a file whose lines are labelled so
  // (hostLabelled), since "KeyError: 'x'" starts the same way; in kernel and system logs only an
  // IPv4 address, since a kernel device name ("nvidia-nvswitch0: SXid ...", "eth0: ...") does too.
  HostLabels hostLabels = HostLabels::None;
};

// Parses the prefix of one line (without its newline). Items recognised, stacked in any order a
// launcher or collector may stack them ("3: [rank3]:[E710 18:00:32.426302794 x.cpp:12] msg",
// "2026-11-02T11:46:00.123Z [rank179]: msg", "[default0]:node-b:1234:1250 [0] NCCL INFO msg"):
//   timestamps   2026-01-01T10:00:00Z, 2026-01-01T10:00:00.123456+02:00, 2026-01-01 10:00:00,123
//                (asctime), [2026-01-01 10:00:00,123], Nov 29 20:28:29 (syslog), [12345.678901]
//                and [  +0.000316] (dmesg, dmesg --reltime: the latter is no time; ten digits of
//                seconds and more are the epoch, as UCX writes "[1704103201.123456]"), [Sun Nov 29
//                20:28:29 2026] (dmesg -T), [E1129 20:28:29.123456 4242 file.cpp:563] (glog) and
//                [E710 18:00:32.426302794 file.cpp:2395] (c10's own logger: month*100+day, no
//                thread), I1129 20:28:29.123456 4242 file.cc:12] (glog at the line start)
//   syslog       after a syslog timestamp: "host prog[pid]: " or "host prog: "; after an ISO
//                timestamp (rsyslog's RFC 3339 format, journalctl -o short-iso) only with a
//                [pid] or for the program "kernel", so "2026-... INFO root: x" stays a message
//   slurmstepd   "slurmstepd-n7: " (Slurm with MULTIPLE_SLURMD names its step daemon after its
//                node): program slurmstepd, host n7, after the other items and never after a
//                syslog program
//   identity     [rank12]:, [Rank 12], [default3]: (torchrun), "12: " (srun, with srunLabels),
//                "[12] " (MPICH's -prepend-rank, with rankLabels),
//                host:pid:tid [3] (NCCL; the message then starts at "NCCL ..."), [host:pid
//                :0:tid] and [host:pid:thread] (UCX), (Name pid=123, ip=10.0.0.5) and (pid=123) (Ray;
//                "(VllmWorker rank=5 pid=123)" also names the rank),
//                [1,12]<stderr>: and [1,mpirank:12,host]<stderr>: (mpirun --tag-output: rank 12),
//                [12]<stderr>: (horovodrun), each also after ctime's time with no blank ("Tue Nov
//                27 13:49:06 2018[1,10]<stdout>:", --timestamp-output; "...2018<stdout>:" untagged),
//                [node, 10.0.0.5] and [node, unknown_ip] (an Azure ML job's worker on Kubernetes)
// A syslog line ("Nov 29 20:28:29 host kernel: [123.456] text") yields both time and monotonic.
//
// Details:
// - Each item may be followed by blanks; the first blank after the last item belongs to the
//   prefix, the rest to the message (its indentation). A "[rank3]:" directly followed by
//   another item ("[rank3]:[E710 ...]") needs no blank.
// - Markdown a paste kept (a quote's "> ", up to three levels, then bold's "**", then up to
//   three backticks), and before them a report's rule "| " after any blanks (milabench's summary,
//   a table's first cell), is skipped at the line's start, and is the prefix's only when an item
//   follows it: "**host:1:2 [0] NCCL INFO x**" has NCCL's items, "**ImportError:** x" no prefix.
// - An ISO timestamp may be followed by ": " when an item follows ("2019-06-02T16:13:44.884Z:
//   [1,12]<stdout>:..."), as a collector stamps what a launcher printed.
// - ISO timestamps: 'T', 't' or ' ' between date and time; seconds required; a fraction after
//   '.' or ',' (only '.' in syslog) of any length, truncated to nanoseconds; a zone "Z", "z",
//   "+02:00", "-0700" or "+02". Without a zone (ISO, syslog, dmesg -T) the time is local, at
//   options.utcOffsetSeconds.
// - A timestamp must be a real instant: impossible dates (month 13, Feb 30, Feb 29 in a common
//   year), hour 24, minute or second 60 (no leap seconds), a malformed zone, a dmesg -T weekday
//   that does not match its date, a timestamp followed directly by a letter or digit
//   ("...00Zjunk"; a syslog timestamp must be followed by a blank), or an instant outside int64
//   nanoseconds (years before 1677 or after 2262) are not timestamps: the line is treated as if
//   it had none there.
// - Syslog and glog year: the latest occurrence of the date that is no more than 31 days after
//   referenceTime. So with the workload starting on Jan 2, "Dec 31" is the previous year;
//   starting on Dec 20, "Jan 5" is the next year; "Feb 29" is the latest leap year's. Without a
//   referenceTime such a timestamp is recognised (the message starts after it) but `time` stays
//   empty.
// - When a kind appears twice the first value is kept ("[rank1]: [rank2]:" is rank 1; the
//   outermost timestamp wins).
// - "12: " (srun --label, which right-aligns the number with spaces) is recognised only at the
//   start of the line and only with options.srunLabels; it needs a blank or the end of the line
//   after the ':'. It is a task id: whether tasks are ranks depends on how the job was launched,
//   which only the workload's layout can tell (evidence/line_identity.h).
// - Host names are [A-Za-z0-9_.-]+ and not all digits; month and weekday names are
//   case-sensitive and English, except that a syslog/journal month may also be another locale's
//   abbreviation as glibc's strftime %b prints it ("Dez", "déc.", "dic", "april", "дек", "12月", "12월";
//   German, French, Spanish, Italian, Portuguese, Dutch, Norwegian, Polish, Russian, Chinese, Japanese,
//   Korean); "[rank" is not case-sensitive.
// - ANSI colour sequences ("\x1b[36m", or "[36m" with its ESC lost in a paste; a digit is then
//   required) before, between and after items are prefix, as Ray colours its worker prefix
//   ("\x1b[2m\x1b[36m(WorkerDict pid=1789)\x1b[0m [rank2]: msg" reads rank 2). Before the message
//   they are prefix after at most the one separating blank, else the message's (its indentation).
// - Any bytes are accepted (binary, invalid UTF-8, NUL); nothing is read past line.size().
LinePrefix parseLinePrefix(std::string_view line, const PrefixOptions& options = {});

// Past a Markdown quote's "> " marks (up to three levels) at `pos`, as a paste quoted in an issue
// keeps them; `pos` when there are none. Shared by every reader of a line's start.
size_t markdownQuoteEnd(std::string_view line, size_t pos = 0);

// Whether `lines` (a file's first lines) are labelled with the host that printed them, as pdsh
// (pdsh 2.x "%s: %s") and clush gather output: three in four non-blank lines start "host: ",
// the host of the `form` given (Names: a host name with a digit or a '-', or an IPv4 address),
// from a few hosts. A YAML or key-value
// dump ("lr: 0.1", "fp16: true") has as many keys as lines and is not.
bool hostLabelled(const std::vector<std::string_view>& lines, HostLabels form);

// Whether `lines` (a file's first lines) are labelled with the rank that printed them, as
// MPICH's mpiexec -prepend-rank labels them ("[%r] "): three in four non-blank lines start
// "[N] ", by at most one rank per two labelled lines (numbered lines have one number each).
bool rankLabelled(const std::vector<std::string_view>& lines);

}  // namespace attrib::evidence
