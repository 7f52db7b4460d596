// Reading the prefix of a log line: when it happened, and which rank printed it.
//
// Log lines come from many writers: applications (ISO-8601 / RFC 3339, Python's asctime with a
// comma before the milliseconds), syslog ("Nov 29 20:28:29", no year), the kernel ring buffer
// ("[12345.678901]" seconds since boot, or "[Sun Nov 29 20:28:29 2026]" with dmesg -T), and
// launchers that prepend a rank ("[rank12]:", srun --label "12: "). Parsing is only done for the
// lines a rule matched (and a few neighbours), so it favours clarity over raw speed, but it
// never allocates and never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace attrib::evidence {

// What the start of a line says. Every field is optional; a line may carry none.
struct LinePrefix {
  std::optional<int64_t> time;       // wall clock, nanoseconds since the Unix epoch (UTC)
  std::optional<int64_t> monotonic;  // kernel time since boot, nanoseconds ("[12345.678901]")
  std::optional<int32_t> rank;       // "[rank12]:", "[Rank 12]", "12: " (srun --label)
  // Byte length of the recognised prefix (timestamps, rank labels and the separators after
  // them); the message starts there.
  size_t length = 0;
};

struct PrefixOptions {
  // Syslog timestamps have no year: it is taken from this time (the workload's start), and a
  // date that would lie more than a month after it is read as the previous year (logs that
  // cross New Year). Precisely: the latest occurrence no more than 31 days after this time.
  std::optional<int64_t> referenceTime;
  // Offset of local time from UTC, in seconds, for timestamps without a zone (0 = UTC).
  int32_t utcOffsetSeconds = 0;
  // Recognise a leading "N: " as an srun --label rank (only for application logs).
  bool srunLabels = false;
};

// Parses the prefix of one line (without its newline). Formats recognised, in any order a
// launcher may stack them ("12: [rank12]: 2026-01-01T10:00:00Z ..."):
//   2026-01-01T10:00:00Z, 2026-01-01T10:00:00.123456+02:00, 2026-01-01 10:00:00,123 (asctime),
//   2026-01-01 10:00:00.123, Nov 29 20:28:29 (syslog), Nov  9 20:28:29, [12345.678901] (dmesg),
//   [Sun Nov 29 20:28:29 2026] (dmesg -T), [E1129 20:28:29.123456 4242 file.cpp:563] (glog, as
//   PyTorch's C++ code logs; no year, like syslog), [rank12]:, [Rank 12]:, "12: " with srunLabels.
// A syslog line ("Nov 29 20:28:29 host kernel: [123.456] text") yields both time and monotonic.
//
// Details:
// - Each item is followed by its separators: the blanks (spaces, tabs) after it, and the ':'
//   of "[rank12]:". `length` ends after the last item's separators. A syslog timestamp ends the
//   prefix: "Nov 29 20:28:29 host prog: x" has length 16 and the message is "host prog: x".
//   After a wall-clock timestamp, "HOST kernel: [123.456]" also sets `monotonic` (syslog and
//   rsyslog's RFC 3339 format forward kernel lines so); `length` still ends before HOST.
// - ISO timestamps: 'T', 't' or ' ' between date and time; seconds required; a fraction after
//   '.' or ',' (only '.' in syslog) of any length, truncated to nanoseconds; a zone "Z", "z",
//   "+02:00", "-0700" or "+02". Without a zone (ISO, syslog, dmesg -T) the time is local, at
//   options.utcOffsetSeconds. "[2026-01-01 10:00:00,123]" (torch.distributed's launcher) is
//   recognised too.
// - A timestamp must be a real instant: impossible dates (month 13, Feb 30, Feb 29 in a common
//   year), hour 24, minute or second 60 (no leap seconds), a malformed zone, a dmesg -T weekday
//   that does not match its date, a timestamp followed directly by a letter or digit
//   ("...00Zjunk"; a syslog timestamp must be followed by a blank), or an instant outside int64 nanoseconds (years before 1677 or after 2262)
//   are not timestamps: the line is treated as if it had none there.
// - Syslog year: the latest occurrence of the date that is no more than 31 days after
//   referenceTime. So with the workload starting on Jan 2, "Dec 31" is the previous year; starting
//   on Dec 20, "Jan 5" is the next year; "Feb 29" is the latest leap year's. Without a
//   referenceTime a syslog timestamp is recognised (the message starts after it) but `time` stays
//   empty.
// - When a kind appears twice the first value is kept ("[rank1]: [rank2]:" is rank 1), except
//   that "[rankN]" beats an srun label: under torchrun started by srun the label numbers nodes.
// - "12: " (srun --label, which right-aligns the number with spaces) is recognised only at the
//   start of the line and only with options.srunLabels; it needs a blank or the end of the line
//   after the ':'. Month and weekday names are English and case-sensitive; "[rank" is not.
// - Any bytes are accepted (binary, invalid UTF-8, NUL); nothing is read past line.size().
LinePrefix parseLinePrefix(std::string_view line, const PrefixOptions& options = {});

}  // namespace attrib::evidence
