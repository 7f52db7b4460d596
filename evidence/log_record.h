// Records that span lines: a message and the continuation lines that belong to it.
//
// Many messages are more than one line: a Python traceback up to its exception line, a C++
// exception with its "frame #N" stack, a kernel report that dmesg prints with indented
// continuation lines, an elastic agent's failure summary, kubectl's indented blocks. A pattern
// can match the whole record, and the evidence shows the whole record at its first line's
// place. Records are found only around lines a rule matched, so the cost is per match, not per
// line.
//
// A record belongs to one stream: the lines of one writer, told apart by their prefixes (host,
// program, pid, rank, srun task, torchrun local rank; evidence/line_prefix.h). Lines of other
// streams interleaved with it (eight ranks printing tracebacks at once) are skipped, not joined.
//
// Continuation forms (a line of the stream continues the record before it when its message):
//   - is indented by two blanks or more, or by a tab ("  File \"train.py\", line 7, in <module>",
//     dmesg's "               NVRM: (PCI ID: 10de:26b5) installed in this system has"), unless it
//     is a row of a table with a right-aligned id column ("   1 | 01/02/2026 | 10:00:00 | ...",
//     ipmitool's `sel list`) or of kubectl describe's Events ("  Warning  FailedMount  86s
//     kubelet  ..."): each row an entry of its own;
//   - is a stack frame: "frame #3: c10::Error::Error(...)" (c10), "#3  0x00007f... in foo ()"
//     (gdb, glibc), " 3 0x0000000000043090 killpg()  ???:0" (UCX);
//   - says where a C++ exception came from: "Exception raised from checkTimeout at ...";
//   - chains Python exceptions: "During handling of the above exception, another exception
//     occurred:", "The above exception was the direct cause of the following exception:" (with
//     the blank line before and the traceback after);
//   - ends a Python traceback: the first line after a "Traceback (most recent call last):" and
//     its indented body ("RuntimeError: CUDA error: an illegal memory access was encountered");
//   - is a kernel line with the same ring-buffer time and the same subsystem word (its first
//     word up to a blank or ':', "NVRM") as the kernel line before it: a multi-line printk
//     forwarded by syslog or the journal line by line. Other messages printed within the same
//     microsecond ("mlx5_core ... Link up" after "IPv6: ...") start records of their own.
// Bounds: a record holds at most 256 lines and 64 KiB; looking for its head goes back at most
// 1,024 lines. A record is found within one chunk of the reader (1 MiB): one that straddles a
// chunk's edge is cut there.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "evidence/line_prefix.h"

namespace attrib::evidence {

// The lines a record is looked for in (one chunk), with their prefixes parsed on demand.
class RecordLines {
 public:
  virtual ~RecordLines() = default;
  virtual size_t size() const = 0;
  virtual std::string_view line(size_t i) = 0;    // without its '\n' (and '\r')
  virtual const LinePrefix& prefix(size_t i) = 0;  // parseLinePrefix(line(i)), memoised
};

struct RecordLimits {
  size_t maxLines = 256;
  size_t maxBytes = 64 << 10;
  size_t maxLookBack = 1024;
};

// The lines of the record that holds line `i`, ascending; the first is its head.
std::vector<uint32_t> recordAt(RecordLines& lines, size_t i, const RecordLimits& limits = {});

// Whether two lines belong to the same stream (same writer).
bool sameStream(const LinePrefix& a, const LinePrefix& b);

}  // namespace attrib::evidence
