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

namespace attrib::runtime {

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
  // cross New Year).
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
//   [Sun Nov 29 20:28:29 2026] (dmesg -T), [rank12]:, [Rank 12]:, "12: " with srunLabels.
// A syslog line ("Nov 29 20:28:29 host kernel: [123.456] text") yields both time and monotonic.
LinePrefix parseLinePrefix(std::string_view line, const PrefixOptions& options = {});

}  // namespace attrib::runtime
