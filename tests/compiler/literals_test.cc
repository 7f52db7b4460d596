#include "compiler/literals.h"
#include "ir/civil_time.h"

#include <gtest/gtest.h>

namespace attrib {
namespace {

TEST(Literals, Durations) {
  EXPECT_EQ(parseDuration("30s"), 30 * kNanosPerSecond);
  EXPECT_EQ(parseDuration("1h30m"), 5400 * kNanosPerSecond);
  EXPECT_EQ(parseDuration("250ms"), 250'000'000);
  EXPECT_EQ(parseDuration("7us"), 7'000);
  EXPECT_EQ(parseDuration("2d"), 2 * 86400 * kNanosPerSecond);
  EXPECT_FALSE(parseDuration(""));
  EXPECT_FALSE(parseDuration("5"));
  EXPECT_FALSE(parseDuration("5x"));
  EXPECT_FALSE(parseDuration("999999999999999999d"));  // overflow
}

TEST(Literals, Timestamps) {
  EXPECT_EQ(parseTimestamp("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parseTimestamp("2026-01-01T10:00:00Z"), 1767261600 * kNanosPerSecond);
  EXPECT_EQ(parseTimestamp("2026-01-01T10:00:00.5Z"), 1767261600 * kNanosPerSecond + 500'000'000);
  EXPECT_EQ(parseTimestamp("2026-01-01T12:00:00+02:00"), 1767261600 * kNanosPerSecond);
  EXPECT_EQ(parseTimestamp("2026-01-01T10:00"), 1767261600 * kNanosPerSecond);
  EXPECT_EQ(parseTimestamp("2024-02-29T00:00:00Z"), 1709164800 * kNanosPerSecond);
  EXPECT_FALSE(parseTimestamp("2026-02-29T00:00:00Z"));
  EXPECT_FALSE(parseTimestamp("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(parseTimestamp("2026-01-01T24:00:00Z"));
  EXPECT_FALSE(parseTimestamp("2026-01-01T10:00:00Zjunk"));
  EXPECT_FALSE(parseTimestamp("9999-12-31T23:59:59Z"));  // past 2262: out of the nanosecond range
  EXPECT_TRUE(parseTimestamp("2262-01-01T00:00:00Z"));
  EXPECT_EQ(formatTimestamp(1767261600 * kNanosPerSecond + 250'000'000), "2026-01-01T10:00:00.25Z");
  EXPECT_EQ(formatTimestamp(-1), "1969-12-31T23:59:59.999999999Z");
}

TEST(Literals, TimeOfDay) {
  EXPECT_EQ(parseTimeOfDay("10:42"), (10 * 3600 + 42 * 60) * kNanosPerSecond);
  EXPECT_EQ(parseTimeOfDay("00:00:01.000001"), kNanosPerSecond + 1000);
  EXPECT_FALSE(parseTimeOfDay("25:00"));
  EXPECT_FALSE(parseTimeOfDay("10:60"));
}

TEST(Literals, Strings) {
  EXPECT_EQ(decodeString(R"("a\"b\\c\n\t\/")").value, "a\"b\\c\n\t/");
  EXPECT_EQ(decodeString(R"("\u{e9}\u{1F680}")").value, "\xc3\xa9\xf0\x9f\x9a\x80");
  EXPECT_FALSE(decodeString(R"("\u{D800}")").error.empty());
  EXPECT_FALSE(decodeString(R"("\u{110000}")").error.empty());
  EXPECT_FALSE(decodeString(R"("\x41")").error.empty());
  EXPECT_EQ(decodeString(R"("\x41")").errorOffset, 1u);
  EXPECT_TRUE(stringIsTerminated(R"("a\\")"));
  EXPECT_FALSE(stringIsTerminated(R"("a\")"));
  EXPECT_FALSE(stringIsTerminated("\""));
}

TEST(Literals, RegexClosingSlash) {
  EXPECT_EQ(regexClosingSlash("/abc/i"), 4u);
  EXPECT_EQ(regexClosingSlash("/a[/]b/"), 6u);
  EXPECT_EQ(regexClosingSlash("/a\\/b/"), 5u);
  EXPECT_EQ(regexClosingSlash("/abc"), std::string_view::npos);
}

}  // namespace
}  // namespace attrib
