#include "evidence/line_prefix.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "evidence/line_channel.h"

namespace attrib::evidence {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

// 2026-01-01T10:00:00Z.
constexpr int64_t kNewYearTen = 1767261600 * kSecond;
// 2026-11-29T20:28:29Z, a Sunday.
constexpr int64_t kNov29 = 1795984109 * kSecond;

// Seconds since the epoch of midnight UTC on a few dates, for reference times.
constexpr int64_t k20251220 = 1766188800 * kSecond;
constexpr int64_t k20260102 = 1767312000 * kSecond;
constexpr int64_t k20260301 = 1772323200 * kSecond;
constexpr int64_t k20260701 = 1782864000 * kSecond;

PrefixOptions reference(int64_t time) {
  PrefixOptions options;
  options.referenceTime = time;
  return options;
}

PrefixOptions srun() {
  PrefixOptions options;
  options.srunLabels = true;
  return options;
}

// The message after the prefix.
std::string_view message(std::string_view line, const LinePrefix& p) { return line.substr(p.length); }

void expectNothing(std::string_view line, const PrefixOptions& options = {}) {
  SCOPED_TRACE(std::string(line));
  LinePrefix p = parseLinePrefix(line, options);
  EXPECT_FALSE(p.time);
  EXPECT_FALSE(p.monotonic);
  EXPECT_FALSE(p.rank);
  EXPECT_EQ(p.length, 0u);
}

TEST(Timestamp, Rfc3339Utc) {
  std::string_view line = "2026-01-01T10:00:00Z msg";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.time, kNewYearTen);
  EXPECT_FALSE(p.monotonic);
  EXPECT_FALSE(p.rank);
  EXPECT_EQ(message(line, p), "msg");
  EXPECT_EQ(parseLinePrefix("1970-01-01T00:00:00Z").time, 0);
  EXPECT_EQ(parseLinePrefix("1970-01-01T00:00:00Z").length, 20u);
  EXPECT_EQ(parseLinePrefix("2026-01-01t10:00:00z x").time, kNewYearTen);
  EXPECT_EQ(parseLinePrefix("1969-12-31T23:59:59.999999999Z").time, -1);
}

TEST(Timestamp, FractionsToTheNanosecond) {
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00.5Z").time, kNewYearTen + 500'000'000);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00.123Z").time, kNewYearTen + 123'000'000);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00.123456Z").time, kNewYearTen + 123'456'000);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00.000000001Z").time, kNewYearTen + 1);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00.987654321Z").time, kNewYearTen + 987'654'321);
  // Finer than a nanosecond: truncated, and the digits still belong to the timestamp.
  std::string_view fine = "2026-01-01T10:00:00.9876543219999Z msg";
  LinePrefix p = parseLinePrefix(fine);
  EXPECT_EQ(p.time, kNewYearTen + 987'654'321);
  EXPECT_EQ(message(fine, p), "msg");
  // A separator without digits is not a fraction; the timestamp ends before it.
  std::string_view bare = "2026-01-01 10:00:00. msg";
  p = parseLinePrefix(bare);
  EXPECT_EQ(p.time, kNewYearTen);
  EXPECT_EQ(message(bare, p), ". msg");
}

TEST(Timestamp, ZoneOffsets) {
  constexpr int64_t kPlusTwo = kNewYearTen - 2 * 3600 * kSecond;
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00.123456+02:00 x").time, kPlusTwo + 123'456'000);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00+0200 x").time, kPlusTwo);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00+02 x").time, kPlusTwo);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00-0700 x").time, kNewYearTen + 7 * 3600 * kSecond);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00-07:00 x").time, kNewYearTen + 7 * 3600 * kSecond);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00+05:30 x").time, kNewYearTen - 19800 * kSecond);
  // Across a day boundary.
  EXPECT_EQ(parseLinePrefix("2026-01-01T01:00:00+02:00").time, 1767222000 * kSecond);

  std::string_view line = "2026-01-01T10:00:00-0700 msg";
  EXPECT_EQ(message(line, parseLinePrefix(line)), "msg");

  // Malformed zones make the whole timestamp unrecognised rather than silently local.
  expectNothing("2026-01-01T10:00:00+2 x");
  expectNothing("2026-01-01T10:00:00+02:0 x");
  expectNothing("2026-01-01T10:00:00+24:00 x");
  expectNothing("2026-01-01T10:00:00+02:60 x");
  expectNothing("2026-01-01T10:00:00+020000 x");
}

TEST(Timestamp, LocalTimeUsesTheConfiguredOffset) {
  PrefixOptions options;
  options.utcOffsetSeconds = 3600;  // CET: 11:00 local is 10:00 UTC
  EXPECT_EQ(parseLinePrefix("2026-01-01T11:00:00 x", options).time, kNewYearTen);
  EXPECT_EQ(parseLinePrefix("2026-01-01 11:00:00,250 x", options).time, kNewYearTen + 250'000'000);
  // An explicit zone wins over the configured offset.
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00Z x", options).time, kNewYearTen);
  options.utcOffsetSeconds = -5 * 3600;
  EXPECT_EQ(parseLinePrefix("2026-01-01T05:00:00 x", options).time, kNewYearTen);
}

TEST(Timestamp, PythonAsctimeAndSpaceSeparated) {
  std::string_view asctime = "2026-01-01 10:00:00,123 - INFO - step 10";
  LinePrefix p = parseLinePrefix(asctime);
  EXPECT_EQ(p.time, kNewYearTen + 123'000'000);
  EXPECT_EQ(message(asctime, p), "- INFO - step 10");

  std::string_view dotted = "2026-01-01 10:00:00.123 INFO x";
  p = parseLinePrefix(dotted);
  EXPECT_EQ(p.time, kNewYearTen + 123'000'000);
  EXPECT_EQ(message(dotted, p), "INFO x");

  // torch.distributed's launcher writes the asctime in brackets.
  std::string_view bracketed = "[2026-01-01 10:00:00,123] torch.distributed.run: x";
  p = parseLinePrefix(bracketed);
  EXPECT_EQ(p.time, kNewYearTen + 123'000'000);
  EXPECT_EQ(message(bracketed, p), "torch.distributed.run: x");
  expectNothing("[2026-01-01 10:00:00,123 x");
}

TEST(Timestamp, LeapYears) {
  EXPECT_EQ(parseLinePrefix("2024-02-29T12:00:00Z").time, 1709208000 * kSecond);
  EXPECT_EQ(parseLinePrefix("2028-02-29T00:00:00Z").time, 1835395200 * kSecond);
  EXPECT_EQ(parseLinePrefix("2000-02-29T00:00:00Z").time, 951782400 * kSecond);
  EXPECT_EQ(parseLinePrefix("2026-03-01T00:00:00Z").time, k20260301);
  expectNothing("2026-02-29T00:00:00Z");
  expectNothing("2100-02-29T00:00:00Z");  // divisible by 100, not by 400
  expectNothing("1900-02-29T00:00:00Z");
}

TEST(Timestamp, ImpossibleDatesAreNoTimestamp) {
  expectNothing("2026-13-01T00:00:00Z msg");
  expectNothing("2026-00-01T00:00:00Z msg");
  expectNothing("2026-02-30T00:00:00Z msg");
  expectNothing("2026-04-31T00:00:00Z msg");
  expectNothing("2026-01-00T00:00:00Z msg");
  expectNothing("2026-01-32T00:00:00Z msg");
  expectNothing("2026-01-01T24:00:00Z msg");
  expectNothing("2026-01-01T23:60:00Z msg");
  expectNothing("2026-01-01T23:59:60Z msg");  // leap seconds are not accepted
  expectNothing("Feb 30 10:00:00 host x", reference(k20260102));
  expectNothing("Apr 31 10:00:00 host x", reference(k20260102));
  expectNothing("Nov 29 24:00:00 host x", reference(k20260102));
  expectNothing("Nov 32 10:00:00 host x", reference(k20260102));
  expectNothing("Nov 00 10:00:00 host x", reference(k20260102));
  expectNothing("[Sun Feb 30 20:28:29 2026] x");
}

TEST(Timestamp, NotQuiteTimestamps) {
  expectNothing("2026-01-01T10:00:00Zjunk");
  expectNothing("2026-01-01T10:00:001 x");
  expectNothing("2026-01-01T10:00 x");  // seconds are required
  expectNothing("2026-01-01 x");
  expectNothing("2026-1-01T10:00:00Z");
  expectNothing("2026-01-01X10:00:00Z");
  expectNothing("20260101T100000Z");
  expectNothing("26-01-01T10:00:00Z");
  expectNothing("NOV 29 20:28:29 host x", reference(k20260102));  // month names are case-sensitive ("nov" is es/it/pt)
  expectNothing("Nov 29 20:28:29x", reference(k20260102));
  expectNothing("Nov 29 20:28 host", reference(k20260102));
  expectNothing("Nov   9 20:28:29 host", reference(k20260102));
  expectNothing("Novem 29 20:28:29 host", reference(k20260102));
}

TEST(Timestamp, OutOfRangeInstants) {
  // The largest representable instant, and one nanosecond more.
  EXPECT_EQ(parseLinePrefix("2262-04-11T23:47:16.854775807Z").time, INT64_MAX);
  expectNothing("2262-04-11T23:47:16.854775808Z");
  expectNothing("9999-12-31T23:59:59Z");
  expectNothing("0000-01-01T00:00:00Z");
  EXPECT_EQ(parseLinePrefix("1677-09-21T00:12:43.145224192Z").time, INT64_MIN);
}

TEST(Timestamp, Syslog) {
  std::string_view line = "Nov 29 20:28:29 host sshd[12]: Accepted";
  LinePrefix p = parseLinePrefix(line, reference(kNov29 - 86400 * kSecond));
  EXPECT_EQ(p.time, kNov29);
  EXPECT_FALSE(p.monotonic);
  // The host and the program with its pid are prefix too.
  EXPECT_EQ(p.length, 31u);
  EXPECT_EQ(message(line, p), "Accepted");
  EXPECT_EQ(p.host, "host");
  EXPECT_EQ(p.program, "sshd");
  EXPECT_EQ(p.pid, 12);

  const PrefixOptions late2026 = reference(kNov29);
  EXPECT_EQ(parseLinePrefix("Nov  9 20:28:29 host x", late2026).time, 1794256109 * kSecond);
  EXPECT_EQ(parseLinePrefix("Nov  9 20:28:29 host x", late2026).length, 16u);  // no "prog:": a message
  EXPECT_EQ(parseLinePrefix("Nov 9 20:28:29 host x", late2026).time, 1794256109 * kSecond);
  EXPECT_EQ(parseLinePrefix("Nov 9 20:28:29 host x", late2026).length, 15u);
  EXPECT_EQ(parseLinePrefix("Nov 29 20:28:29.250 host x", late2026).time, kNov29 + 250'000'000);
  EXPECT_EQ(parseLinePrefix("Nov 29 20:28:29", late2026).time, kNov29);
  EXPECT_EQ(parseLinePrefix("Nov 29 20:28:29", late2026).length, 15u);

  // Syslog writes local time.
  PrefixOptions cet = late2026;
  cet.utcOffsetSeconds = 3600;
  EXPECT_EQ(parseLinePrefix("Nov 29 21:28:29 host x", cet).time, kNov29);
}

TEST(Timestamp, SyslogWithLocalisedMonths) {
  // journalctl and rsyslog print strftime's %b in the system's locale.
  const PrefixOptions late2026 = reference(kNov29 - 86400 * kSecond);
  struct Case {
    std::string_view line;
    int64_t time;
  };
  const int64_t dec2 = kNov29 + 3 * 86400 * kSecond;  // 2026-12-02T20:28:29Z
  const Case cases[] = {
      {"Nov 29 20:28:29 gpu01 kernel: NVRM: Xid", kNov29},
      {"Dez 02 20:28:29 gpu01 kernel: NVRM: Xid", dec2},                  // de_DE
      {"d\xc3\xa9\x63. 02 20:28:29 gpu01 kernel: NVRM: Xid", dec2},      // fr_FR "déc."
      {"dic 02 20:28:29 gpu01 kernel: NVRM: Xid", dec2},                  // es_ES, it_IT
      {"dez 02 20:28:29 gpu01 kernel: NVRM: Xid", dec2},                  // pt_BR
      {"gru 02 20:28:29 gpu01 kernel: NVRM: Xid", dec2},                  // pl_PL
      {"\xd0\xb4\xd0\xb5\xd0\xba 02 20:28:29 gpu01 kernel: NVRM: Xid", dec2},  // ru_RU "дек"
      {"12\xe6\x9c\x88 02 20:28:29 gpu01 kernel: NVRM: Xid", dec2},      // zh_CN, ja_JP "12月"
      {"12\xec\x9b\x94 02 20:28:29 gpu01 kernel: NVRM: Xid", dec2},      // ko_KR "12월"
      {"Nov 29 20:28:29 gpu01 kernel: NVRM: Xid", kNov29},
      {"nov. 29 20:28:29 gpu01 kernel: NVRM: Xid", kNov29},               // fr_FR
      {"lis 29 20:28:29 gpu01 kernel: NVRM: Xid", kNov29},                // pl_PL
      {"11\xe6\x9c\x88 29 20:28:29 gpu01 kernel: NVRM: Xid", kNov29},
      {"M\xc3\xa4r 02 20:28:29 gpu01 kernel: NVRM: Xid", 1772483309 * kSecond},  // de_DE "Mär" 2026-03-02
      {"des. 02 20:28:29 gpu01 kernel: NVRM: Xid", dec2},                 // nb_NO
      {"april 24 16:22:15 gpu01 kernel: NVRM: Xid", 1777047735 * kSecond},  // nb_NO, 2026-04-24
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.line));
    LinePrefix p = parseLinePrefix(c.line, late2026);
    EXPECT_EQ(p.time, c.time);
    EXPECT_EQ(p.host, "gpu01");
    EXPECT_EQ(p.program, "kernel");
    EXPECT_EQ(message(c.line, p), "NVRM: Xid");
  }
  // Japanese pads the month with a blank: " 3月 02 ...".
  std::string_view ja = " 3\xe6\x9c\x88 02 20:28:29 gpu01 kernel: x";
  EXPECT_EQ(parseLinePrefix(ja, late2026).time, 1772483309 * kSecond);
  EXPECT_EQ(message(ja, parseLinePrefix(ja, late2026)), "x");
  // Not months: a 13th month, a word that only starts like one, a month without a clock.
  expectNothing("13\xe6\x9c\x88 02 20:28:29 gpu01 kernel: x", late2026);
  expectNothing("marzo 02 20:28:29 gpu01 kernel: x", late2026);
  expectNothing("mar 02 was a Monday", late2026);
  expectNothing("Dezember 02 20:28:29 gpu01 kernel: x", late2026);
  expectNothing("aprils 24 16:22:15 gpu01 kernel: x", late2026);
  expectNothing("April 24 16:22:15 gpu01 kernel: x", late2026);
  // dmesg -T stays English: its weekday must agree with an English month.
  EXPECT_FALSE(parseLinePrefix("[Sun Dez 29 20:28:29 2026] x").time);
}

TEST(LinePrefixForms, ColourSequences) {
  // Ray 2.x colours its worker prefix (worker.py print_worker_logs: Style.DIM, Fore.CYAN, the
  // prefix, Style.RESET_ALL); the rank label after it is still read.
  std::string_view ray = "\x1b[2m\x1b[36m(RayWorkerWrapper pid=2290, ip=10.0.0.5)\x1b[0m [rank3]: RuntimeError: x";
  LinePrefix p = parseLinePrefix(ray);
  EXPECT_EQ(p.pid, 2290);
  EXPECT_EQ(p.host, "10.0.0.5");
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(message(ray, p), "RuntimeError: x");
  // The same paste after the ESC bytes were lost.
  std::string_view pasted = "[36m(WorkerDict pid=1789)[0m [rank2]:[E710 18:00:32.426302794 ProcessGroupNCCL.cpp:2395] msg";
  p = parseLinePrefix(pasted);
  EXPECT_EQ(p.pid, 1789);
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(message(pasted, p), "msg");
  // dmesg --color: the timestamp is still the line's kernel timestamp.
  std::string_view dmesg = "\x1b[32m[12345.678901] \x1b[0mNVRM: Xid (PCI:0000:3b:00): 79";
  p = parseLinePrefix(dmesg);
  EXPECT_TRUE(p.kernelTimestamp);
  EXPECT_EQ(p.monotonic, 12345 * kSecond + 678'901'000);
  EXPECT_EQ(message(dmesg, p), "NVRM: Xid (PCI:0000:3b:00): 79");
  // A coloured message at the line start: the colour is prefix, the message starts at its text.
  std::string_view coloured = "\x1b[1;31mERROR\x1b[0m: boom";
  p = parseLinePrefix(coloured);
  EXPECT_EQ(message(coloured, p), "ERROR\x1b[0m: boom");
  // After blanks, a colour before the message is the message's: its indentation stays.
  std::string_view indented = "[rank3]:    \x1b[0mFile \"x.py\"";
  EXPECT_EQ(message(indented, parseLinePrefix(indented)), "   \x1b[0mFile \"x.py\"");
  // Without ESC the parameters need a digit; "[m" and "[x;m" are text.
  expectNothing("[m x");
  expectNothing("[;m x");
  expectNothing("[36 m x");
}

TEST(Timestamp, GlogAsPyTorchWritesIt) {
  const PrefixOptions late2026 = reference(kNov29 - 86400 * kSecond);
  std::string_view line =
      "[rank9]:[E1129 20:28:29.123456 4242 ProcessGroupNCCL.cpp:563] [Rank 9] Watchdog caught collective";
  LinePrefix p = parseLinePrefix(line, late2026);
  EXPECT_EQ(p.time, kNov29 + 123'456'000);
  EXPECT_EQ(p.rank, 9);
  EXPECT_EQ(message(line, p), "Watchdog caught collective");  // "[Rank 9]" is a rank prefix too
  // Without a reference there is no year, so no time; a month 13 or no closing bracket is not glog.
  EXPECT_FALSE(parseLinePrefix("[I1129 20:28:29.1 1 a.cpp:1] x").time);
  EXPECT_FALSE(parseLinePrefix("[E1329 20:28:29.123456 4242 a.cpp:1] x", late2026).time);
  EXPECT_FALSE(parseLinePrefix("[E1129 20:28:29.123456 4242 a.cpp:1 x", late2026).time);
  EXPECT_FALSE(parseLinePrefix("[X1129 20:28:29.123456 4242 a.cpp:1] x", late2026).time);
}

TEST(Timestamp, SyslogWithoutReferenceHasNoTime) {
  std::string_view line = "Nov 29 20:28:29 host x";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_FALSE(p.time);
  EXPECT_EQ(message(line, p), "host x");  // still recognised, so the message starts right
}

TEST(Timestamp, SyslogYearAcrossNewYear) {
  // The log starts on Jan 2: a December date is the previous year.
  EXPECT_EQ(parseLinePrefix("Dec 31 23:59:59 h x", reference(k20260102)).time, 1767225599 * kSecond);
  EXPECT_EQ(parseLinePrefix("Jan  2 00:00:00 h x", reference(k20260102)).time, k20260102);
  // The log starts on Dec 20: a January date within a month is the next year.
  EXPECT_EQ(parseLinePrefix("Jan  5 00:00:00 h x", reference(k20251220)).time, 1767571200 * kSecond);
  EXPECT_EQ(parseLinePrefix("Dec 20 00:00:00 h x", reference(k20251220)).time, k20251220);
  // Up to 31 days after the reference is the same year; later is the previous year.
  EXPECT_EQ(parseLinePrefix("Jul 31 00:00:00 h x", reference(k20260701)).time, k20260701 + 30 * 86400 * kSecond);
  EXPECT_EQ(parseLinePrefix("Aug  1 00:00:00 h x", reference(k20260701)).time, k20260701 + 31 * 86400 * kSecond);
  EXPECT_EQ(parseLinePrefix("Aug  1 00:00:01 h x", reference(k20260701)).time,
            k20260701 + 31 * 86400 * kSecond - 365 * 86400 * kSecond + kSecond);
  EXPECT_EQ(parseLinePrefix("Nov 29 20:28:29 h x", reference(k20260701)).time, 1764448109 * kSecond);
  // Feb 29 goes back to the latest leap year.
  EXPECT_EQ(parseLinePrefix("Feb 29 12:00:00 h x", reference(k20260301)).time, 1709208000 * kSecond);
  // Local time at New Year: the reference is 2025-12-31T23:30Z, already 2026 at UTC+1.
  PrefixOptions options = reference(k20260102 - 86400 * kSecond - 1800 * kSecond);  // 2025-12-31T23:30Z
  options.utcOffsetSeconds = 3600;
  EXPECT_EQ(parseLinePrefix("Jan  1 00:40:00 h x", options).time, 1767224400 * kSecond);
}

TEST(Timestamp, KernelMonotonic) {
  std::string_view line = "[12345.678901] NVRM: Xid 79";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.monotonic, 12345 * kSecond + 678'901'000);
  EXPECT_FALSE(p.time);
  EXPECT_EQ(message(line, p), "NVRM: Xid 79");

  std::string_view padded = "[    0.000001] Linux version";
  p = parseLinePrefix(padded);
  EXPECT_EQ(p.monotonic, 1000);
  EXPECT_EQ(message(padded, p), "Linux version");
  EXPECT_EQ(parseLinePrefix("[1.5]").monotonic, 1'500'000'000);
  EXPECT_EQ(parseLinePrefix("[1.123456789]").monotonic, 1'123'456'789);

  expectNothing("[12345] x");
  expectNothing("[12345.] x");
  expectNothing("[.5] x");
  expectNothing("[12345.678901 x");
  expectNothing("[99999999999999999999.5] x");  // overflows int64 nanoseconds
}

TEST(Timestamp, KernelInsideSyslog) {
  std::string_view line = "Nov 29 20:28:29 host kernel: [123.456] NVRM: Xid 79";
  LinePrefix p = parseLinePrefix(line, reference(kNov29));
  EXPECT_EQ(p.time, kNov29);
  EXPECT_EQ(p.monotonic, 123'456'000'000);
  EXPECT_EQ(message(line, p), "NVRM: Xid 79");
  EXPECT_EQ(p.host, "host");
  EXPECT_EQ(p.program, "kernel");
  EXPECT_FALSE(p.pid);

  std::string_view padded = "Nov 29 20:28:29 gpu-node-7 kernel: [    5.000100] x";
  EXPECT_EQ(parseLinePrefix(padded, reference(kNov29)).monotonic, 5'000'100'000);
  // Without a reference time the monotonic time is still there.
  EXPECT_EQ(parseLinePrefix(line).monotonic, 123'456'000'000);
  // rsyslog's RFC 3339 template.
  std::string_view rfc = "2026-11-29T20:28:29.5+00:00 host kernel: [123.456] x";
  p = parseLinePrefix(rfc);
  EXPECT_EQ(p.time, kNov29 + 500'000'000);
  EXPECT_EQ(p.monotonic, 123'456'000'000);
  EXPECT_EQ(message(rfc, p), "x");
  // journalctl -o short-iso: after an ISO timestamp only a kernel or a program with a pid is a
  // journal source, so Python's "%(asctime)s %(levelname)s %(name)s: %(message)s" stays text.
  std::string_view journal = "2026-11-29T20:28:29+0000 gpu-7 nv-fabricmanager[2121]: detected NVSwitch fatal error";
  p = parseLinePrefix(journal);
  EXPECT_EQ(p.program, "nv-fabricmanager");
  EXPECT_EQ(p.pid, 2121);
  EXPECT_EQ(message(journal, p), "detected NVSwitch fatal error");
  std::string_view python = "2026-11-29 20:28:29,123 INFO root: starting";
  p = parseLinePrefix(python);
  EXPECT_TRUE(p.program.empty());
  EXPECT_EQ(message(python, p), "INFO root: starting");

  // Only the kernel's own lines: another program's brackets are just text.
  EXPECT_FALSE(parseLinePrefix("Nov 29 20:28:29 host python: [123.456] x", reference(kNov29)).monotonic);
  EXPECT_FALSE(parseLinePrefix("Nov 29 20:28:29 host kernel: 123.456 x", reference(kNov29)).monotonic);
}

TEST(Timestamp, DmesgHumanReadable) {
  std::string_view line = "[Sun Nov 29 20:28:29 2026] NVRM: Xid 79";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.time, kNov29);
  EXPECT_FALSE(p.monotonic);
  EXPECT_EQ(message(line, p), "NVRM: Xid 79");
  EXPECT_EQ(parseLinePrefix("[Mon Nov  9 20:28:29 2026] x").time, 1794256109 * kSecond);
  PrefixOptions cet;
  cet.utcOffsetSeconds = 3600;
  EXPECT_EQ(parseLinePrefix("[Sun Nov 29 21:28:29 2026] x", cet).time, kNov29);
  // The weekday must match the date.
  expectNothing("[Mon Nov 29 20:28:29 2026] x");
  expectNothing("[Sun Nov 29 20:28:29 2026 x");
  expectNothing("[Xyz Nov 29 20:28:29 2026] x");
}

TEST(Timestamp, Ranks) {
  std::string_view line = "[rank12]: RuntimeError: x";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.rank, 12);
  EXPECT_FALSE(p.time);
  EXPECT_EQ(message(line, p), "RuntimeError: x");
  EXPECT_EQ(parseLinePrefix("[Rank 12]: x").rank, 12);
  EXPECT_EQ(parseLinePrefix("[Rank 12]: x").length, 11u);
  EXPECT_EQ(parseLinePrefix("[Rank 12] x").rank, 12);
  EXPECT_EQ(parseLinePrefix("[Rank 12] x").length, 10u);
  EXPECT_EQ(parseLinePrefix("[RANK0]:[W1201 10:00:00.1 ProcessGroupNCCL.cpp:1] x").rank, 0);
  // Glued to a glog prefix (which has no year without a reference time).
  EXPECT_EQ(parseLinePrefix("[RANK0]:[W1201 10:00:00.1 ProcessGroupNCCL.cpp:1] x").length, 50u);
  EXPECT_FALSE(parseLinePrefix("[RANK0]:[W1201 10:00:00.1 ProcessGroupNCCL.cpp:1] x").time);
  EXPECT_EQ(parseLinePrefix("[rank2147483647]: x").rank, INT32_MAX);
  expectNothing("[rank2147483648]: x");
  expectNothing("[rank]: x");
  expectNothing("[rank-1]: x");
  expectNothing("[rank 1 ]: x");
  expectNothing("[ranks1]: x");
}

TEST(Timestamp, SrunLabels) {
  // A task id, not a rank: whether tasks are ranks depends on how the job was launched.
  std::string_view line = "12: step 10 loss 2.0";
  LinePrefix p = parseLinePrefix(line, srun());
  EXPECT_EQ(p.task, 12);
  EXPECT_FALSE(p.rank);
  EXPECT_EQ(message(line, p), "step 10 loss 2.0");
  // srun right-aligns labels in large jobs.
  std::string_view padded = "  3: x";
  p = parseLinePrefix(padded, srun());
  EXPECT_EQ(p.task, 3);
  EXPECT_EQ(message(padded, p), "x");
  EXPECT_EQ(parseLinePrefix("7:", srun()).task, 7);
  // Only when asked for: application text often starts with a number and a colon.
  expectNothing(line);
  expectNothing("12:30 is lunch", srun());
  expectNothing("12 : x", srun());
  expectNothing(": x", srun());
  // Only at the start of the line.
  std::string_view later = "[rank1]: 12: x";
  p = parseLinePrefix(later, srun());
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(message(later, p), "12: x");
}

TEST(Timestamp, StackedPrefixes) {
  std::string_view line = "12: [rank12]: 2026-01-01T10:00:00Z msg";
  LinePrefix p = parseLinePrefix(line, srun());
  EXPECT_EQ(p.rank, 12);
  EXPECT_EQ(p.time, kNewYearTen);
  EXPECT_EQ(message(line, p), "msg");

  std::string_view timeFirst = "2026-01-01T10:00:00Z [rank5]: msg";
  p = parseLinePrefix(timeFirst);
  EXPECT_EQ(p.rank, 5);
  EXPECT_EQ(p.time, kNewYearTen);
  EXPECT_EQ(message(timeFirst, p), "msg");

  std::string_view asctime = "[rank3]: [2026-01-01 10:00:00,123] [12.5] msg";
  p = parseLinePrefix(asctime);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.time, kNewYearTen + 123'000'000);
  EXPECT_EQ(p.monotonic, 12'500'000'000);
  EXPECT_EQ(message(asctime, p), "msg");

  std::string_view kernel = "[12.5] [rank3]: x";
  p = parseLinePrefix(kernel);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.monotonic, 12'500'000'000);
  EXPECT_EQ(message(kernel, p), "x");

  // Under torchrun started by srun the label counts nodes; the application's rank is the rank.
  EXPECT_EQ(parseLinePrefix("1: [rank9]: x", srun()).rank, 9);
  EXPECT_EQ(parseLinePrefix("1: [rank9]: x", srun()).task, 1);
  // Otherwise the first (outermost) value of each kind wins; repeats are still prefix.
  std::string_view twice = "[rank1]: [rank2]: 2026-01-01T10:00:00Z 2026-01-01T11:00:00Z x";
  p = parseLinePrefix(twice);
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.time, kNewYearTen);
  EXPECT_EQ(message(twice, p), "x");

  // Tabs separate too; one blank after the last item is the separator, the rest the message's
  // own indentation.
  std::string_view tabs = "[rank1]:\t2026-01-01T10:00:00Z\t\tx  y";
  p = parseLinePrefix(tabs);
  EXPECT_EQ(p.time, kNewYearTen);
  EXPECT_EQ(message(tabs, p), "\tx  y");

  // A syslog timestamp without "host prog:" after it is followed by more prefix or the message.
  std::string_view syslog = "Nov 29 20:28:29 [rank1]: x";
  p = parseLinePrefix(syslog, reference(kNov29));
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(message(syslog, p), "x");
}

// The prefixes real launchers and libraries write, with the versions whose format they follow.
TEST(LinePrefixForms, NcclDebugPrefix) {
  // NCCL 2.x debug lines (NCCL_DEBUG=INFO/WARN): "hostname:pid:tid [cudaDev] NCCL ...".
  std::string_view line = "gpu-node-b:41234:41250 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.7<42> with error 12";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.host, "gpu-node-b");
  EXPECT_EQ(p.pid, 41234);
  EXPECT_EQ(message(line, p).substr(0, 9), "NCCL WARN");
  // Container host names start with digits; they are still names.
  std::string_view docker = "09677202c889:5283:5699 [7] NCCL INFO 24 coll channels";
  p = parseLinePrefix(docker);
  EXPECT_EQ(p.host, "09677202c889");
  EXPECT_EQ(message(docker, p), "NCCL INFO 24 coll channels");
  // srun -l in front: the label is the task, the host is the node that printed the line.
  std::string_view labelled = "  5: gpu-node-b:41234:41250 [1] NCCL INFO Bootstrap : Using ib0:10.0.0.2<0>";
  p = parseLinePrefix(labelled, srun());
  EXPECT_EQ(p.task, 5);
  EXPECT_EQ(p.host, "gpu-node-b");
  EXPECT_EQ(message(labelled, p).substr(0, 9), "NCCL INFO");
  // All digits is a number, not a host.
  expectNothing("12:34:56 [1] x");
}

TEST(LinePrefixForms, MpiLaunchersTagOfAProcesssOutput) {
  // mpirun --tag-output (Open MPI 1.x-4.x, orte/mca/iof/base/iof_base_output.c "[%s,%s]<%s>:"):
  // the local job id and the rank, then the stream, and the process's bytes with no blank.
  std::string_view line = "[1,12]<stderr>:RuntimeError: CUDA error: an illegal memory access was encountered";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.rank, 12);
  EXPECT_EQ(message(line, p).substr(0, 13), "RuntimeError:");
  // With --timestamp-output too: ctime's local time glued to the tag.
  std::string_view stamped = "Tue Nov 27 13:49:06 2018[1,10]<stdout>:F1127 13:49:06.743296 17418 hl_cuda_device.cc:565] Check failed";
  p = parseLinePrefix(stamped);
  EXPECT_EQ(p.rank, 10);
  EXPECT_EQ(p.time, 1543326546 * kSecond);
  EXPECT_EQ(message(stamped, p), "Check failed");
  // Only the timestamp, no tag.
  std::string_view untagged = "Tue Nov 27 13:49:06 2018<stderr>:Traceback (most recent call last):";
  p = parseLinePrefix(untagged);
  EXPECT_FALSE(p.rank);
  EXPECT_EQ(p.time, 1543326546 * kSecond);
  EXPECT_EQ(message(untagged, p), "Traceback (most recent call last):");
  // horovodrun's gloo launcher: "[rank]<stream>:", with or without the time.
  std::string_view horovod = "Tue Nov 10 10:05:04 2020[13]<stderr>:  what():  [enforce fail at device.cc:83]";
  p = parseLinePrefix(horovod);
  EXPECT_EQ(p.rank, 13);
  EXPECT_EQ(message(horovod, p), " what():  [enforce fail at device.cc:83]");
  EXPECT_EQ(parseLinePrefix("[0]<stdout>:running fn 2").rank, 0);
  // SageMaker's mpirun names the rank and the host; an NCCL prefix may follow the tag.
  std::string_view named = "[1,mpirank:3,algo-1]<stdout>:algo-1:79:1300 [0] NCCL INFO Launch mode Parallel";
  p = parseLinePrefix(named);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.host, "algo-1");
  EXPECT_EQ(message(named, p), "NCCL INFO Launch mode Parallel");
  std::string_view nccl = "[1,12]<stdout>:node-057:815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event";
  p = parseLinePrefix(nccl);
  EXPECT_EQ(p.rank, 12);
  EXPECT_EQ(p.host, "node-057");
  // Near misses: a list, an array index, a ctime date in a message, a wrong weekday.
  expectNothing("[1,12] <stdout>: x");
  expectNothing("[1,12]<stdin>: x");
  expectNothing("[3] x<stdout>:");
  expectNothing("Tue Nov 27 13:49:06 2018 [1,10]<stdout>:x");
  expectNothing("Wed Nov 27 13:49:06 2018[1,10]<stdout>:x");
  // A ctime date glued to a bracket that is no launcher's tag is a message's own words.
  expectNothing("Tue Nov 27 13:49:06 2018[WARN] disk almost full");
  expectNothing("Tue Nov 27 13:49:06 2018[1,10] x");
}

TEST(LinePrefixForms, UcxPrefix) {
  // UCX 1.x error reports: "[host:pid :0:tid] message".
  std::string_view line = "[09677202c889:5283 :0:5704] Caught signal 7 (Bus error: nonexistent physical address)";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.host, "09677202c889");
  EXPECT_EQ(p.pid, 5283);
  EXPECT_EQ(message(line, p).substr(0, 15), "Caught signal 7");
}

TEST(LinePrefixForms, SlurmStepDaemonNamedAfterItsNode) {
  // Slurm 20.x-25.x built with MULTIPLE_SLURMD: slurmstepd's log name is "slurmstepd-<node>"
  // (src/slurmd/slurmstepd/mgr.c), and its messages reach the job's output so.
  std::string_view line = "slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0.";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.host, "gpu20-15");
  EXPECT_EQ(p.program, "slurmstepd");
  EXPECT_EQ(message(line, p), "error: Detected 1 oom-kill event(s) in StepId=9411285.0.");
  // After a launcher's items, and at the end of the line.
  std::string_view labelled = "3: slurmstepd-n7.cluster: error: *** STEP 12.0 ON n7 CANCELLED AT 2025-01-01T00:00:00 ***";
  p = parseLinePrefix(labelled, srun());
  EXPECT_EQ(p.task, 3);
  EXPECT_EQ(p.host, "n7.cluster");
  EXPECT_EQ(message(labelled, p).substr(0, 10), "error: ***");
  EXPECT_EQ(parseLinePrefix("slurmstepd-n7:").host, "n7");
  // Not the form: the plain daemon name (no node), no blank after the ':', a number for a host,
  // a syslog line's program (its host is the syslog host), and the name inside a message.
  EXPECT_TRUE(parseLinePrefix("slurmstepd: error: *** JOB 4242 ON n1 CANCELLED AT 2026-01-01T12:00:00 ***").host.empty());
  EXPECT_TRUE(parseLinePrefix("slurmstepd-n7:error").host.empty());
  EXPECT_TRUE(parseLinePrefix("slurmstepd-1234: error").host.empty());
  PrefixOptions reference{.referenceTime = 1764400000LL * 1000000000LL};
  p = parseLinePrefix("Nov 29 10:42:07 gpu-0007 slurmstepd[81234]: error: Detected 1 oom_kill event", reference);
  EXPECT_EQ(p.host, "gpu-0007");
  EXPECT_TRUE(parseLinePrefix("[rank0]: launched by slurmstepd-n7: no").host.empty());
}

TEST(LinePrefixForms, HostLabelsAsPdshAndTalosctlPrintThem) {
  // pdsh 2.x ("%s: %s"), as DeepSpeed's launcher runs ranks: the label is the host, one blank
  // after it the separator, the rest the message's indentation.
  PrefixOptions names;
  names.hostLabels = HostLabels::Names;
  std::string_view line = "gpu-q-13:     ret = input.softmax(dim, dtype=dtype)";
  LinePrefix p = parseLinePrefix(line, names);
  EXPECT_EQ(p.host, "gpu-q-13");
  EXPECT_EQ(message(line, p), "    ret = input.softmax(dim, dtype=dtype)");
  line = "192.168.1.51: [2026-11-29 10:00:00,123] [ERROR] [engine.py:12] x";
  p = parseLinePrefix(line, names);
  EXPECT_EQ(p.host, "192.168.1.51");
  EXPECT_TRUE(p.time.has_value());
  EXPECT_EQ(message(line, p), "[ERROR] [engine.py:12] x");
  // A word without a digit or '-' is a message ("RuntimeError: ...", "INFO: ...", a logger's
  // name), and without the option nothing is a label.
  EXPECT_TRUE(parseLinePrefix("RuntimeError: CUDA error", names).host.empty());
  EXPECT_TRUE(parseLinePrefix("INFO: started", names).host.empty());
  EXPECT_TRUE(parseLinePrefix("torch.distributed.elastic: started", names).host.empty());
  EXPECT_EQ(parseLinePrefix("gpu-b: started", names).host, "gpu-b");
  EXPECT_TRUE(parseLinePrefix("gpu-q-13: x").host.empty());
  // Addresses only (a kernel log): talosctl's "IP: " is a label, a device name is the message.
  PrefixOptions addresses;
  addresses.hostLabels = HostLabels::Addresses;
  EXPECT_EQ(parseLinePrefix("192.168.11.119: kern: warning: [2026-04-22T21:30:51.494604223Z]: NVRM: Xid", addresses).host,
            "192.168.11.119");
  EXPECT_TRUE(parseLinePrefix("nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 20009, Non-fatal", addresses).host.empty());
  EXPECT_TRUE(parseLinePrefix("10.0.0.1.5: x", addresses).host.empty());
  EXPECT_TRUE(parseLinePrefix("1000.0.0.1: x", addresses).host.empty());
}

TEST(LinePrefixForms, AFileIsHostLabelledWhenThreeInFourLinesAreByFewHosts) {
  using V = std::vector<std::string_view>;
  const V pdsh = {"[2026-11-29 10:00:00,123] [INFO] [multinode_runner.py:80] cmd = pdsh -S -w gpu-a,gpu-b ...",
                  "gpu-a: Traceback (most recent call last):", "gpu-b: step 1", "gpu-a:   File \"t.py\", line 3",
                  "gpu-b: step 2", "", "gpu-a: KeyError: 'x'", "gpu-b: step 3", "gpu-a: done", "gpu-b: done",
                  "gpu-a: exit", "gpu-b: exit"};
  EXPECT_TRUE(hostLabelled(pdsh, HostLabels::Names));
  EXPECT_TRUE(hostLabelled({"gpu-q-13: a", "gpu-q-13: b", "gpu-q-13: c"}, HostLabels::Names));
  // A configuration dump: as many keys as lines.
  EXPECT_FALSE(hostLabelled({"fp16: true", "lr1: 0.1", "lr2: 0.01", "beta2: 0.95", "stage3: on"}, HostLabels::Names));
  // A traceback, and one labelled line among others.
  EXPECT_FALSE(hostLabelled({"Traceback (most recent call last):", "  File \"t.py\", line 3", "KeyError: 'x'"}, HostLabels::Names));
  EXPECT_FALSE(hostLabelled({"gpu-a: x", "gpu-a: y", "plain", "plain"}, HostLabels::Names));
  EXPECT_TRUE(hostLabelled({"gpu-a: x", "gpu-a: y", "gpu-a: z", "plain"}, HostLabels::Names));
  EXPECT_FALSE(hostLabelled({"gpu-a: x"}, HostLabels::Names));
  // dmesg -t: device names are no addresses.
  EXPECT_FALSE(hostLabelled({"nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 20009, Non-fatal", "nvidia-nvswitch0: SXid 24001"},
                            HostLabels::Addresses));
  EXPECT_TRUE(hostLabelled({"192.168.11.119: kern: warning: a", "192.168.11.119: kern: warning: b"}, HostLabels::Addresses));
  EXPECT_FALSE(hostLabelled({"192.168.11.119: a", "192.168.11.119: b"}, HostLabels::None));
}

// MPICH's mpiexec -prepend-rank (Hydra's pattern "[%r] "), read only in a file labelled so.
TEST(LinePrefixForms, MpichRankLabels) {
  PrefixOptions labelled;
  labelled.rankLabels = true;
  std::string_view line = "[56] crow-ib-7:7240:7240 [0] NCCL INFO Bootstrap : Using [0]eth0:10.100.72.18<0>";
  LinePrefix p = parseLinePrefix(line, labelled);
  EXPECT_EQ(p.rank, 56);
  EXPECT_EQ(p.host, "crow-ib-7");
  EXPECT_EQ(message(line, p), "NCCL INFO Bootstrap : Using [0]eth0:10.100.72.18<0>");
  std::string_view bare = "[10] ./third_party/gpus/nccl/src/include/alloc.h:58 NCCL WARN Cuda failure 'out of memory'";
  p = parseLinePrefix(bare, labelled);
  EXPECT_EQ(p.rank, 10);
  EXPECT_EQ(message(bare, p).substr(0, 2), "./");
  // Not without the option; no blank after ']'; not after other text.
  EXPECT_FALSE(parseLinePrefix(bare).rank);
  expectNothing("[10]x", labelled);
  expectNothing("x [10] y", labelled);
}

TEST(LinePrefixForms, AFileIsRankLabelledWhenThreeInFourLinesAreByFewRanks) {
  using V = std::vector<std::string_view>;
  EXPECT_TRUE(rankLabelled({"[3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed", "[3] NCCL INFO include/shm.h:41 -> 2",
                            "[3] include/shm.h:48 NCCL WARN Error while creating shared memory segment"}));
  EXPECT_TRUE(rankLabelled({"[0] a", "[1] b", "[0] c", "[1] d", "", "mpiexec: done"}));
  // Numbered lines (one number each), a shell's job, a lone label.
  EXPECT_FALSE(rankLabelled({"[80746] [rank0]: a", "[80747] [rank4]: b", "[80748] [rank0]: c", "[80749] [rank4]: d"}));
  EXPECT_FALSE(rankLabelled({"[1] 10690", "plain", "plain"}));
  EXPECT_FALSE(rankLabelled({"[1] 2019-06-13 01:17:08.886805: E x", "Aborted"}));
  EXPECT_FALSE(rankLabelled(V{}));
}

TEST(LinePrefixForms, RayWorkerPrefix) {
  // Ray 2.x forwards worker output with "(Name pid=N, ip=A)" ("ip" only from other nodes).
  std::string_view line = "(RayTrainWorker pid=2290, ip=10.0.0.5) [rank3]: RuntimeError: CUDA error";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.host, "10.0.0.5");
  EXPECT_EQ(p.pid, 2290);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(message(line, p), "RuntimeError: CUDA error");
  std::string_view local = "(WorkerDict pid=1789) [PG ID 0 PG GUID 0(default_pg) Rank 2] failure detected";
  p = parseLinePrefix(local);
  EXPECT_EQ(p.pid, 1789);
  EXPECT_TRUE(p.host.empty());
  EXPECT_EQ(message(local, p).substr(0, 6), "[PG ID");
  EXPECT_EQ(parseLinePrefix("(pid=77) x").pid, 77);
  expectNothing("(see below) x");
  expectNothing("(pid=abc) x");
}

TEST(LinePrefixForms, VllmWorkerPrefixNamesTheRank) {
  // vLLM's multiprocessing executor (vllm/v1/executor/multiproc_executor.py, 0.8-0.9).
  std::string_view line = "(VllmWorker rank=5 pid=50999) ERROR 07-07 15:19:48 [multiproc_executor.py:492] torch.OutOfMemoryError: CUDA out of memory.";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.rank, 5);
  EXPECT_EQ(p.pid, 50999);
  EXPECT_EQ(message(line, p).substr(0, 5), "ERROR");
  // Ray's own prefix has no rank; a rank without a pid is no prefix.
  EXPECT_FALSE(parseLinePrefix("(RayWorkerWrapper pid=123) x").rank);
  expectNothing("(VllmWorker rank=5) x");
  expectNothing("(VllmWorker rank=x pid=1) x");
}

// A line quoted in Markdown keeps its code span's backtick: the items after it are read.
TEST(LinePrefixForms, BacktickOfAMarkdownQuoteBeforeTheItems) {
  std::string_view line = "`(WorkerDict pid=835, ip=172.26.143.83) [rank38]:[E809 14:59:30.411244289 ProcessGroupNCCL.cpp:629] x";
  LinePrefix p = parseLinePrefix(line, reference(k20260701));
  EXPECT_EQ(p.pid, 835);
  EXPECT_EQ(p.rank, 38);
  EXPECT_TRUE(p.time.has_value());
  EXPECT_EQ(message(line, p), "x");
  expectNothing("`code` x");
  expectNothing("```");
}

// A line pasted in a Markdown quote ("> ") or in bold ("**"), as GitHub comments keep them: the
// items after the marks are read, and the marks are the prefix's only when an item follows.
TEST(LinePrefixForms, MarkdownQuoteAndBoldBeforeTheItems) {
  std::string_view bold = "**gpu-node-3:26407:26474 [2] NCCL INFO Call to connect returned Connection refused, retrying**";
  LinePrefix p = parseLinePrefix(bold);
  EXPECT_EQ(p.host, "gpu-node-3");
  EXPECT_EQ(p.pid, 26407);
  EXPECT_EQ(message(bold, p).substr(0, 9), "NCCL INFO");
  std::string_view quoted = "> > [rank3]:[E710 18:00:32.426302794 ProcessGroupNCCL.cpp:2395] x";
  p = parseLinePrefix(quoted, reference(k20260701));
  EXPECT_EQ(p.rank, 3);
  EXPECT_TRUE(p.time.has_value());
  EXPECT_EQ(message(quoted, p), "x");
  std::string_view both = "> **(VllmWorker rank=5 pid=50999) ERROR 07-07 15:19:48 x";
  EXPECT_EQ(parseLinePrefix(both).rank, 5);
  // Near misses: marks before a message are the message's; ">>" and ">" without a blank are no
  // quote marks.
  expectNothing("**ImportError:** lib/python3.10/site-packages/flash_attn/flash_attn_interface.py");
  expectNothing("> slurmstepd: error: Detected 1 oom-kill event(s)");
  expectNothing(">> [rank3]: x");
  expectNothing(">[rank3]: x");
}

// A report's rule before a quoted line: milabench's summary of a failed run quotes each line
// of its output after "        | "; a Markdown table's first cell starts "| ".
TEST(LinePrefixForms, ReportRuleBeforeTheItems) {
  std::string_view line = "        | [rank0]: FileNotFoundError: Caught FileNotFoundError in DataLoader worker process 2.";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(message(line, p), "FileNotFoundError: Caught FileNotFoundError in DataLoader worker process 2.");
  std::string_view frame = "        | [rank0]:   File \"/milabench/worker.py\", line 349, in _worker_loop";
  EXPECT_EQ(message(frame, parseLinePrefix(frame)), "  File \"/milabench/worker.py\", line 349, in _worker_loop");
  std::string_view cell = "| gpu-3:1234:1250 [0] NCCL WARN Cuda failure 'out of memory' |";
  p = parseLinePrefix(cell);
  EXPECT_EQ(p.host, "gpu-3");
  EXPECT_EQ(message(cell, p).substr(0, 9), "NCCL WARN");
  // Near misses: a rule before a message is the message's; "|" without its blank is no rule.
  expectNothing("        | FileNotFoundError: x");
  expectNothing("| step | loss |");
  expectNothing("|[rank0]: x");
}

// Azure ML's job log on Kubernetes names the worker's pod and its address on every line.
TEST(LinePrefixForms, AzureMlNodeAndAddress) {
  std::string_view line =
      "2021-02-05 05:32:39 [job-pytorch-distr-nccl-1-worker-1, unknown_ip] job-pytorch-distr-nccl-1-worker-1:25:25 [0] "
      "init.cc:981 NCCL WARN Invalid rank requested : 2/2";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.host, "job-pytorch-distr-nccl-1-worker-1");
  EXPECT_EQ(p.pid, 25);
  EXPECT_TRUE(p.time.has_value());
  EXPECT_EQ(message(line, p), "init.cc:981 NCCL WARN Invalid rank requested : 2/2");
  std::string_view addressed = "2021-02-05 05:32:40 [worker-0, 10.240.1.123] Done!";
  p = parseLinePrefix(addressed);
  EXPECT_EQ(p.host, "worker-0");
  EXPECT_EQ(message(addressed, p), "Done!");
  // Near misses: a list in brackets, an address that is none.
  expectNothing("[worker-0, worker-1] x");
  expectNothing("[worker-0, 10.240.1] x");
  expectNothing("[worker-0,10.240.1.123] x");
}

// A tqdm bar a paste ran into the next line (its '\r' lost): skipped when items follow it.
TEST(LinePrefixForms, ProgressBarRunIntoTheLine) {
  std::string_view line =
      "Epoch 0:   0%|          | 0/500 [00:00<?, ?it/s][rank1]:[E318 07:39:53.713449198 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught";
  LinePrefix p = parseLinePrefix(line, reference(k20260701));
  EXPECT_EQ(p.rank, 1);
  EXPECT_TRUE(p.time.has_value());
  EXPECT_EQ(message(line, p), "Watchdog caught");
  // A bar alone, or followed by text, is the message.
  expectNothing("Training:   0%|          | 0/500 [00:00<?, ?it/s]");
  expectNothing(" 35%|####      | 73811210851/208140108456 [30:01<57:14, 39115047.81MB/s] done");
  expectNothing("accuracy 95%| loss 0.3 | step 100/200 [ok]");
}

// syslogd's broadcast of a kernel emergency, and a syslog line pasted without time and host.
TEST(LinePrefixForms, KernelTagAtTheLineStart) {
  std::string_view wall = " kernel:[Hardware Error]: MC4 Error (node 3): DRAM ECC error detected on the NB.";
  LinePrefix p = parseLinePrefix(wall);
  EXPECT_EQ(p.program, "kernel");
  EXPECT_EQ(message(wall, p), "[Hardware Error]: MC4 Error (node 3): DRAM ECC error detected on the NB.");
  EXPECT_EQ(prefixChannel(wall), ir::Channel::Kernel);
  std::string_view lockup = "kernel:watchdog: BUG: soft lockup - CPU#202 stuck for 22s! [python:7565]";
  p = parseLinePrefix(lockup);
  EXPECT_EQ(p.program, "kernel");
  EXPECT_EQ(message(lockup, p), "watchdog: BUG: soft lockup - CPU#202 stuck for 22s! [python:7565]");
  std::string_view plain = "kernel: [ 129.820086] EDAC MC0: 1 CE memory read error";
  p = parseLinePrefix(plain);
  EXPECT_EQ(p.program, "kernel");
  EXPECT_EQ(p.monotonic, 129820086000);
  EXPECT_EQ(message(plain, p), "EDAC MC0: 1 CE memory read error");
  // Another word, or the tag further in, is the message.
  expectNothing("kernels: 4");
  expectNothing("    kernel: x");
  EXPECT_FALSE(prefixChannel("kernels: 4").has_value());
}

// A syslog file or paste without the host field: the kernel's lines only.
TEST(LinePrefixForms, SyslogKernelLineWithoutAHost) {
  std::string_view line = "Feb 23 03:28:16  kernel: EDAC MC1: 1 CE memory scrubbing error on CPU_SrcID#1_Ha#0_Chan#0_DIMM#0";
  LinePrefix p = parseLinePrefix(line, reference(kNov29));
  EXPECT_EQ(p.program, "kernel");
  EXPECT_TRUE(p.host.empty());
  EXPECT_TRUE(p.time.has_value());
  EXPECT_EQ(message(line, p), "EDAC MC1: 1 CE memory scrubbing error on CPU_SrcID#1_Ha#0_Chan#0_DIMM#0");
  std::string_view monotonic = "Feb 23 03:28:16 kernel: [ 129.820086] RIP: 0010:hmgrtable_free_handle+0x91/0xa0";
  p = parseLinePrefix(monotonic, reference(kNov29));
  EXPECT_EQ(p.program, "kernel");
  EXPECT_EQ(p.monotonic, 129820086000);
  EXPECT_EQ(message(monotonic, p), "RIP: 0010:hmgrtable_free_handle+0x91/0xa0");
  EXPECT_EQ(prefixChannel(line), ir::Channel::Kernel);
  // Another word before ':' is the message, not a program; "kernel:" glued to more is no program.
  std::string_view error = "Nov 29 10:00:00 ERROR: disk full";
  p = parseLinePrefix(error, reference(kNov29));
  EXPECT_TRUE(p.program.empty());
  EXPECT_EQ(message(error, p), "ERROR: disk full");
  EXPECT_FALSE(prefixChannel(error).has_value());
  EXPECT_TRUE(parseLinePrefix("Nov 29 10:00:00 kernel:x", reference(kNov29)).program.empty());
  // A host named "kernel" still reads as host and program.
  p = parseLinePrefix("Nov 29 10:00:00 kernel kernel: x", reference(kNov29));
  EXPECT_EQ(p.host, "kernel");
  EXPECT_EQ(p.program, "kernel");
}

TEST(LinePrefixForms, TorchrunRolePrefix) {
  // torchrun --tee 3 (PyTorch 2.x): "[<role><local_rank>]:" in front of each worker's line.
  std::string_view line = "[default3]:[rank11]: Traceback (most recent call last):";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.localRank, 3);
  EXPECT_EQ(p.rank, 11);
  EXPECT_EQ(message(line, p), "Traceback (most recent call last):");
  std::string_view nccl = "[default0]:gpu-a:1234:1250 [0] NCCL INFO ring 00";
  p = parseLinePrefix(nccl);
  EXPECT_EQ(p.localRank, 0);
  EXPECT_EQ(p.host, "gpu-a");
  expectNothing("[INFO12] x");  // no ':'
}

TEST(LinePrefixForms, TorchrunRoleNamedAfterTheHost) {
  // "torchrun --role $(hostname -s): --tee 3": the role is the host's name and a ':', so the
  // prefix is "[<host>:<local_rank>]:" and names the node (open-r1's Slurm recipe prints so).
  std::string_view line = "[alphagpu12:5]:[rank5]:[E213 16:38:44.687590798 ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog caught";
  LinePrefix p = parseLinePrefix(line, reference(kNov29));
  EXPECT_EQ(p.host, "alphagpu12");
  EXPECT_EQ(p.localRank, 5);
  EXPECT_EQ(p.rank, 5);
  EXPECT_EQ(message(line, p), "Watchdog caught");
  p = parseLinePrefix("[gpu-187.cluster:1]:torch.cuda.OutOfMemoryError: CUDA out of memory.");
  EXPECT_EQ(p.host, "gpu-187.cluster");
  EXPECT_EQ(p.localRank, 1);
  // Near misses: a clock, a malformed rank label and a role without the closing ':' are no host.
  expectNothing("[10:03]: x");
  EXPECT_TRUE(parseLinePrefix("[rank:3]: x").host.empty());
  expectNothing("[gpu187:1] x");
}

TEST(LinePrefixForms, GrepFileNameBeforeThePrefix) {
  // grep over several files names the file first ("grep -r WARN logs/"), -n also the line.
  std::string_view line =
      "logs/prefill-2.log:[2025-09-17 15:16:23] prefill-2:311:405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : port error";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_TRUE(p.time);
  EXPECT_EQ(p.host, "prefill-2");
  EXPECT_EQ(message(line, p), "transport/net_ib.cc:199 NCCL WARN NET/IB : port error");
  p = parseLinePrefix("slurm-4242.out:17:[rank3]: Traceback (most recent call last):");
  EXPECT_EQ(p.rank, 3);
  // Near misses: a file name that no item follows is the message's, and so is a name without a
  // log file's extension.
  expectNothing("train.log: permission denied");
  expectNothing("train.log:Traceback (most recent call last):");
  expectNothing("model.bin:[rank3]: x");
}

TEST(LinePrefixForms, C10LoggerAndGlog) {
  // PyTorch 2.4+ c10 logger (no glog): "[rank3]:[E710 18:00:32.426302794 ProcessGroupNCCL.cpp:2395] "
  // prints (month + 1) * 100 + day unpadded, nine fraction digits and no thread id.
  std::string_view line =
      "[rank3]:[E710 18:00:32.426302794 ProcessGroupNCCL.cpp:2395] [PG ID 0 PG GUID 0(default_pg) Rank 3] failure detected by watchdog";
  LinePrefix p = parseLinePrefix(line, reference(k20260701));
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.time, 1783706432 * kSecond + 426302794);  // 2026-07-10T18:00:32.426302794Z
  EXPECT_EQ(message(line, p).substr(0, 6), "[PG ID");
  // Real glog (with a thread id), bracketed and bare.
  EXPECT_EQ(parseLinePrefix("[E1129 13:52:01.123456 4242 ProcessGroupNCCL.cpp:563] x", reference(kNov29)).length, 54u);
  std::string_view bare = "W1129 20:28:29.000001  4242 pjrt_client.cc:88] x";
  p = parseLinePrefix(bare, reference(kNov29));
  EXPECT_EQ(p.time, kNov29 + 1000);
  EXPECT_EQ(message(bare, p), "x");
  expectNothing("E2 13:52:01.1 f.cc:1] x");  // one digit of month and day
  expectNothing("[E1329 13:52:01.1 f.cc:1] x");  // month 13
}

TEST(LinePrefixForms, DmesgRelativeTimes) {
  // dmesg --reltime / -d ("[  +0.000316]"): a delta to the previous line, so no time, but prefix.
  std::string_view line = "[  +0.000316] pcieport 0000:00:03.0: AER: Corrected error received";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_FALSE(p.time);
  EXPECT_FALSE(p.monotonic);
  EXPECT_EQ(message(line, p).substr(0, 8), "pcieport");
}

TEST(LinePrefixForms, IndentationBelongsToTheMessage) {
  // Continuation lines keep their indentation after the prefix: it is what marks them.
  EXPECT_EQ(message("[rank3]:   File \"train.py\", line 7", parseLinePrefix("[rank3]:   File \"train.py\", line 7")),
            "  File \"train.py\", line 7");
  // dmesg prints the continuation lines of a multi-line kernel record indented, without a time.
  std::string_view cont = "               NVRM: (PCI ID: 10de:26b5) installed in this system has";
  EXPECT_EQ(parseLinePrefix(cont).length, 0u);
  std::string_view stamped = "[ 1843.308145]  ? __die+0x20/0x70";
  EXPECT_EQ(message(stamped, parseLinePrefix(stamped)), " ? __die+0x20/0x70");
}

TEST(LinePrefixForms, CollectorTimestampBeforeTheLine) {
  // kubectl logs --timestamps (Kubernetes 1.2x) and Loki/Fluent Bit exports: an RFC 3339 time
  // in front of what the process printed, prefixes and all.
  std::string_view line = "2026-11-02T11:46:00.123Z [rank179]: KeyError: 'labels'";
  LinePrefix p = parseLinePrefix(line);
  EXPECT_EQ(p.rank, 179);
  EXPECT_EQ(message(line, p), "KeyError: 'labels'");
  // A collector's time with ": " before mpirun's tag and NCCL's prefix.
  std::string_view stamped =
      "2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-e275-01-000057:815:864 [0] transport/net_ib.cu:80 NCCL WARN x";
  p = parseLinePrefix(stamped);
  EXPECT_EQ(p.rank, 12);
  EXPECT_EQ(p.host, "container-e275-01-000057");
  EXPECT_EQ(p.time, 1559492024 * kSecond + 884'000'000);
  EXPECT_EQ(message(stamped, p), "transport/net_ib.cu:80 NCCL WARN x");
  // Near misses: with no item after the colon it is the message's.
  std::string_view plain = "2019-06-02T16:13:44.884Z: training done";
  p = parseLinePrefix(plain);
  EXPECT_TRUE(p.time.has_value());
  EXPECT_EQ(message(plain, p), ": training done");
  std::string_view glued = "2019-06-02T16:13:44.884Z:[1,12]<stdout>:x";
  p = parseLinePrefix(glued);
  EXPECT_FALSE(p.rank);
  EXPECT_EQ(message(glued, p), ":[1,12]<stdout>:x");
}

TEST(Timestamp, LineEndings) {
  // The reader keeps a '\r' before '\n'.
  LinePrefix p = parseLinePrefix("2026-01-01T10:00:00Z\r");
  EXPECT_EQ(p.time, kNewYearTen);
  EXPECT_EQ(p.length, 20u);
  EXPECT_EQ(parseLinePrefix("[rank4]:\r").rank, 4);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00Z").length, 20u);
  EXPECT_EQ(parseLinePrefix("2026-01-01T10:00:00Z   ").length, 21u);
}

TEST(Timestamp, EmptyAndGarbage) {
  expectNothing("");
  expectNothing(" ");
  expectNothing("   2026-01-01T10:00:00Z x");  // indented: not a prefix
  expectNothing("[");
  expectNothing("]");
  expectNothing("[]");
  expectNothing(std::string_view("\0\0\0\0", 4));
  expectNothing("\xff\xfe\x80[rank1]:");
  expectNothing("\xe2\x80\x8b" "2026-01-01T10:00:00Z");
  expectNothing(std::string_view("2026-01-01T10:00:00\0Z", 21).substr(0, 18));
  expectNothing("hello world");
  expectNothing("Traceback (most recent call last):");
}

// Every prefix of a valid line, and random bytes, must parse without reading past the end.
TEST(Timestamp, TruncatedAndRandomInputNeverCrash) {
  const char* const samples[] = {
      "12: [rank12]: 2026-01-01T10:00:00.123456789+02:00 msg",
      "Nov 29 20:28:29.5 host kernel: [  123.456] text",
      "[Sun Nov 29 20:28:29 2026] x",
      "[2026-01-01 10:00:00,123] x",
      "[Rank 7]: [    1.000001] y",
  };
  PrefixOptions options = reference(kNov29);
  options.srunLabels = true;
  for (std::string_view sample : samples) {
    for (size_t n = 0; n <= sample.size(); ++n) {
      // A heap copy of exactly n bytes, so a read past the end is caught by sanitizers.
      std::string copy(sample.substr(0, n));
      LinePrefix p = parseLinePrefix(copy, options);
      EXPECT_LE(p.length, n);
    }
  }
  std::mt19937 rng(1234);
  const std::string alphabet = "0123456789:-+.,TZ []rRankNovSu\t\xff";
  for (int i = 0; i < 200'000; ++i) {
    std::string s(rng() % 40, ' ');
    for (char& c : s) c = (rng() % 4 == 0) ? static_cast<char>(rng()) : alphabet[rng() % alphabet.size()];
    LinePrefix p = parseLinePrefix(s, options);
    ASSERT_LE(p.length, s.size());
  }
}

}  // namespace
}  // namespace attrib::evidence
