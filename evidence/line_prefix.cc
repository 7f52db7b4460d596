#include "evidence/line_prefix.h"

#include "ir/ascii.h"
#include "ir/civil_time.h"

#include <algorithm>
#include <limits>

namespace attrib::evidence {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kSecondsPerDay = 86'400;
constexpr int64_t kNanosPerDay = kSecondsPerDay * kNanosPerSecond;

// Character classes on raw bytes: no <cctype>, so no locale and no sign-extension pitfalls.
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isAlnum(char c) { return isDigit(c) || isAlpha(c); }
bool isBlank(char c) { return c == ' ' || c == '\t'; }
char toLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

size_t skipBlanks(std::string_view s, size_t pos) {
  while (pos < s.size() && isBlank(s[pos])) ++pos;
  return pos;
}

bool consume(std::string_view s, size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

// Exactly `n` decimal digits at *pos.
bool fixedDigits(std::string_view s, size_t* pos, size_t n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (!isDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

// One or more digits whose value fits in `limit`; fails rather than wrapping on overflow.
bool unsignedNumber(std::string_view s, size_t* pos, int64_t limit, int64_t* out) {
  size_t p = *pos;
  int64_t v = 0;
  while (p < s.size() && isDigit(s[p])) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[p] - '0', &v) || v > limit) {
      return false;
    }
    ++p;
  }
  if (p == *pos) return false;
  *pos = p;
  *out = v;
  return true;
}

// The digits after a decimal separator, as nanoseconds. Digits past the ninth are consumed
// but ignored, so a finer clock truncates towards the past instead of failing.
bool fractionNanos(std::string_view s, size_t* pos, int64_t* nanos) {
  size_t p = *pos;
  int64_t value = 0, scale = kNanosPerSecond / 10;
  while (p < s.size() && isDigit(s[p])) {
    value += (s[p] - '0') * scale;
    scale /= 10;
    ++p;
  }
  if (p == *pos) return false;
  *pos = p;
  *nanos = value;
  return true;
}

// ---- Calendar helpers on top of ir/civil_time.h ----

// The year containing day `days` since 1970-01-01.
int64_t yearFromDays(int64_t days) {
  int64_t y;
  unsigned m, d;
  civilFromDays(days, y, m, d);
  return y;
}

// 0 = Sunday; 1970-01-01 was a Thursday.
int weekdayFromDays(int64_t days) {
  int64_t w = (days + 4) % 7;
  return static_cast<int>(w < 0 ? w + 7 : w);
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Nanoseconds since the epoch of a local date and time `offsetSeconds` east of UTC; empty when
// the instant does not fit in int64 nanoseconds (years outside 1678..2261).
std::optional<int64_t> toEpochNanos(int64_t y, int m, int d, int64_t nanosOfDay, int64_t offsetSeconds) {
  // Cannot overflow: |days| < 4e6 for four-digit years.
  int64_t seconds = daysFromCivil(y, m, d) * kSecondsPerDay + nanosOfDay / kNanosPerSecond - offsetSeconds;
  int64_t fraction = nanosOfDay % kNanosPerSecond;
  if (seconds < 0 && fraction > 0) {
    // Borrow a second so the product stays in range down to INT64_MIN itself.
    ++seconds;
    fraction -= kNanosPerSecond;
  }
  int64_t nanos;
  if (__builtin_mul_overflow(seconds, kNanosPerSecond, &nanos) || __builtin_add_overflow(nanos, fraction, &nanos)) {
    return std::nullopt;
  }
  return nanos;
}

// ---- Pieces of timestamps. Each parser advances *pos only when it succeeds. ----

// "HH:MM:SS" with an optional fraction after '.' (or ',' when `allowComma`, as Python's
// asctime writes it). Hour 24 and leap second 60 are rejected.
bool clockNanos(std::string_view s, size_t* pos, bool allowComma, int64_t* nanos) {
  size_t p = *pos;
  int h, m, sec;
  if (!fixedDigits(s, &p, 2, &h) || !consume(s, &p, ':') || !fixedDigits(s, &p, 2, &m) ||
      !consume(s, &p, ':') || !fixedDigits(s, &p, 2, &sec)) {
    return false;
  }
  if (h > 23 || m > 59 || sec > 59) return false;
  int64_t frac = 0;
  if (p + 1 < s.size() && (s[p] == '.' || (allowComma && s[p] == ',')) && isDigit(s[p + 1])) {
    ++p;
    fractionNanos(s, &p, &frac);
  }
  if (p < s.size() && isDigit(s[p])) return false;  // "10:00:001" is not a clock
  *pos = p;
  *nanos = ((h * 60 + m) * 60 + sec) * kNanosPerSecond + frac;
  return true;
}

// A case-sensitive English three-letter name from `names` (no locale: logs are written in C).
bool abbreviation(std::string_view s, size_t* pos, const char* const* names, int count, int* index) {
  if (*pos + 3 > s.size()) return false;
  const char* word = s.data() + *pos;
  // Every name starts with a capital: most lines are given up on at their first byte.
  if (word[0] < 'A' || word[0] > 'Z') return false;
  for (int i = 0; i < count; ++i) {
    if (word[0] == names[i][0] && word[1] == names[i][1] && word[2] == names[i][2]) {
      *pos += 3;
      *index = i;
      return true;
    }
  }
  return false;
}

bool monthName(std::string_view s, size_t* pos, int* month) {
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (!abbreviation(s, pos, kMonths, 12, month)) return false;
  ++*month;
  return true;
}

// The month as journalctl and syslog daemons print it under another locale (strftime's %b, from
// glibc's abmon tables): German "Dez", French "déc.", Spanish "dic", Italian "gen", Portuguese
// "dez", Dutch "mrt", Polish "paź", Russian "дек" (UTF-8), Chinese and Japanese "12月", Korean
// "12월", Norwegian "april". Every name means the same month in every locale that uses it ("mar" is March in all),
// so no locale needs to be known. The English names are monthName's.
bool localisedMonthName(std::string_view s, size_t* pos, int* month) {
  struct Name {
    std::string_view text;
    int month;
  };
  static constexpr Name kNames[] = {
      // de_DE
      {"M\xc3\xa4r", 3}, {"Mai", 5}, {"Okt", 10}, {"Dez", 12},
      // fr_FR (with the abbreviation's period)
      {"janv.", 1}, {"f\xc3\xa9vr.", 2}, {"mars", 3}, {"avr.", 4}, {"mai", 5}, {"juin", 6},
      {"juil.", 7}, {"ao\xc3\xbbt", 8}, {"sept.", 9}, {"oct.", 10}, {"nov.", 11}, {"d\xc3\xa9\x63.", 12},
      // es_ES, it_IT, pt_BR, nl_NL: lower-case three letters
      {"ene", 1}, {"gen", 1}, {"jan", 1}, {"feb", 2}, {"fev", 2}, {"mar", 3}, {"mrt", 3}, {"abr", 4},
      {"apr", 4}, {"may", 5}, {"mag", 5}, {"mei", 5}, {"jun", 6}, {"giu", 6}, {"jul", 7}, {"lug", 7},
      {"ago", 8}, {"aug", 8}, {"sep", 9}, {"set", 9}, {"oct", 10}, {"ott", 10}, {"out", 10}, {"okt", 10},
      {"nov", 11}, {"dic", 12}, {"dez", 12}, {"dec", 12},
      // nb_NO (glibc 2.26+: "jan." "feb." "mars" "april" "mai" "juni" "juli" "aug." "sep." "okt."
      // "nov." "des."; "mars", "mai" and "nov." are above)
      {"jan.", 1}, {"feb.", 2}, {"april", 4}, {"juni", 6}, {"juli", 7}, {"aug.", 8}, {"sep.", 9},
      {"okt.", 10}, {"des.", 12},
      // pl_PL
      {"sty", 1}, {"lut", 2}, {"kwi", 4}, {"maj", 5}, {"cze", 6}, {"lip", 7}, {"sie", 8}, {"wrz", 9},
      {"pa\xc5\xba", 10}, {"lis", 11}, {"gru", 12},
      // ru_RU (UTF-8)
      {"\xd1\x8f\xd0\xbd\xd0\xb2", 1}, {"\xd1\x84\xd0\xb5\xd0\xb2", 2}, {"\xd0\xbc\xd0\xb0\xd1\x80", 3},
      {"\xd0\xb0\xd0\xbf\xd1\x80", 4}, {"\xd0\xbc\xd0\xb0\xd1\x8f", 5}, {"\xd0\xbc\xd0\xb0\xd0\xb9", 5},
      {"\xd0\xb8\xd1\x8e\xd0\xbd", 6}, {"\xd0\xb8\xd1\x8e\xd0\xbb", 7}, {"\xd0\xb0\xd0\xb2\xd0\xb3", 8},
      {"\xd1\x81\xd0\xb5\xd0\xbd", 9}, {"\xd0\xbe\xd0\xba\xd1\x82", 10}, {"\xd0\xbd\xd0\xbe\xd1\x8f", 11},
      {"\xd0\xb4\xd0\xb5\xd0\xba", 12},
  };
  // A month name is followed by a blank and the day (a digit, or the blank that pads it): the
  // blank must be 3 to 6 bytes on (the names' lengths), so a message's first word ("mlx5_core",
  // "NVRM:") is given up on before the table is walked. The CJK forms start with a digit or a
  // blank and are read below.
  const size_t at = *pos;
  const unsigned char first = at < s.size() ? static_cast<unsigned char>(s[at]) : 0;
  const bool cjk = first == ' ' || (first >= '0' && first <= '9');
  size_t blank = at;
  while (blank < s.size() && blank - at < 7 && s[blank] != ' ') ++blank;
  const size_t length = blank - at;
  const bool shaped = !cjk && length >= 3 && length <= 6 && blank + 1 < s.size() &&
                      (s[blank + 1] == ' ' || (s[blank + 1] >= '0' && s[blank + 1] <= '9'));
  if (!cjk && !shaped) return false;
  for (const Name& name : kNames) {
    if (!shaped || name.text.size() != length) continue;
    if (s.compare(at, name.text.size(), name.text) == 0) {
      *pos += name.text.size();
      *month = name.month;
      return true;
    }
  }
  // zh_CN, ja_JP ("12月", " 1月": Japanese pads with a blank) and ko_KR ("12월").
  size_t p = *pos;
  consume(s, &p, ' ');
  int value;
  if (!fixedDigits(s, &p, 2, &value) && !fixedDigits(s, &p, 1, &value)) return false;
  static constexpr std::string_view kYue = "\xe6\x9c\x88", kWol = "\xec\x9b\x94";
  if (value < 1 || value > 12) return false;
  if (s.substr(p, kYue.size()) == kYue) {
    p += kYue.size();
  } else if (s.substr(p, kWol.size()) == kWol) {
    p += kWol.size();
  } else {
    return false;
  }
  *pos = p;
  *month = value;
  return true;
}

bool weekdayName(std::string_view s, size_t* pos, int* weekday) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  return abbreviation(s, pos, kDays, 7, weekday);
}

// "Nov 29 20:28:29", "Nov  9 20:28:29" (ctime pads the day with a space) or "Nov 9 20:28:29".
// The day is checked against the month allowing February 29; the year is checked later.
struct MonthDayClock {
  int month = 0, day = 0;
  int64_t nanosOfDay = 0;
};

// With `localised`, the month may also be another locale's (localisedMonthName): journalctl and
// syslog daemons print it so; dmesg -T and ctime forms stay English.
bool monthDayClock(std::string_view s, size_t* pos, MonthDayClock* out, bool localised = false) {
  size_t p = *pos;
  MonthDayClock v;
  if (!monthName(s, &p, &v.month) && !(localised && localisedMonthName(s, &p, &v.month))) return false;
  if (!consume(s, &p, ' ')) return false;
  if (consume(s, &p, ' ')) {
    if (!fixedDigits(s, &p, 1, &v.day)) return false;
  } else if (!fixedDigits(s, &p, 2, &v.day) && !fixedDigits(s, &p, 1, &v.day)) {
    return false;
  }
  if (!consume(s, &p, ' ') || !clockNanos(s, &p, /*allowComma=*/false, &v.nanosOfDay)) return false;
  if (!validDate(2000, v.month, v.day)) return false;  // 2000 is a leap year: Feb 29 passes here
  *pos = p;
  *out = v;
  return true;
}

// "Z", "+02:00", "-0700" or "+02", as seconds east of UTC.
bool zoneOffset(std::string_view s, size_t* pos, int64_t* offsetSeconds) {
  size_t p = *pos;
  if (p < s.size() && (s[p] == 'Z' || s[p] == 'z')) {
    *pos = p + 1;
    *offsetSeconds = 0;
    return true;
  }
  if (p >= s.size() || (s[p] != '+' && s[p] != '-')) return false;
  const int sign = s[p++] == '-' ? -1 : 1;
  int h, m = 0;
  if (!fixedDigits(s, &p, 2, &h)) return false;
  if (consume(s, &p, ':')) {
    if (!fixedDigits(s, &p, 2, &m)) return false;
  } else if (p < s.size() && isDigit(s[p]) && !fixedDigits(s, &p, 2, &m)) {
    return false;
  }
  if (h > 23 || m > 59) return false;
  *pos = p;
  *offsetSeconds = sign * (h * 3600 + m * 60);
  return true;
}

// ---- The prefix items. ----

struct Item {
  enum Kind { kTime, kMonotonic, kRank, kLocalRank, kTask, kNoValue, kIdentity } kind = kTime;
  std::optional<int64_t> value;  // empty for a syslog time whose year cannot be inferred
  bool syslog = false;           // a syslog timestamp: host and program may follow
  bool iso = false;              // an ISO timestamp at the line level: a journal host may follow
  bool glued = false;            // may be followed directly by the next item ("[rank3]:[E...")
  bool last = false;             // the message follows (NCCL's "host:pid:tid [3] ")
  bool kernel = false;           // a kernel ring-buffer timestamp (dmesg's forms)
};

Item itemOf(Item::Kind kind, std::optional<int64_t> value = std::nullopt) {
  Item item;
  item.kind = kind;
  item.value = value;
  return item;
}

bool isHostChar(char c) { return ir::asciiHostChar(c); }

// A host name at *pos: [A-Za-z0-9_.-]+, not all digits (so "12:" is not a host), at most 253
// bytes.
bool hostName(std::string_view s, size_t* pos, std::string_view* host) {
  size_t p = *pos;
  bool letter = false;
  while (p < s.size() && isHostChar(s[p]) && p - *pos < 253) {
    letter |= !isDigit(s[p]);
    ++p;
  }
  if (p == *pos || !letter) return false;
  *host = s.substr(*pos, p - *pos);
  *pos = p;
  return true;
}

// RFC 3339 / ISO 8601 "2026-01-01T10:00:00.123+02:00", also with a space for 'T' and ',' for
// '.' (asctime). A timestamp without a zone is local time at options.utcOffsetSeconds. The
// timestamp must end at a non-alphanumeric byte, so "...00Zjunk" is not a timestamp.
bool isoTimestamp(std::string_view s, size_t* pos, const PrefixOptions& options, int64_t* time) {
  size_t p = *pos;
  int y, mo, d;
  int64_t nanosOfDay;
  if (!fixedDigits(s, &p, 4, &y) || !consume(s, &p, '-') || !fixedDigits(s, &p, 2, &mo) ||
      !consume(s, &p, '-') || !fixedDigits(s, &p, 2, &d) || p >= s.size() ||
      (s[p] != 'T' && s[p] != 't' && s[p] != ' ')) {
    return false;
  }
  ++p;
  if (!validDate(y, mo, d) || !clockNanos(s, &p, /*allowComma=*/true, &nanosOfDay)) return false;
  int64_t offset = options.utcOffsetSeconds;
  const bool zoneFollows = p < s.size() && (s[p] == 'Z' || s[p] == 'z' ||
                                            ((s[p] == '+' || s[p] == '-') && p + 1 < s.size() && isDigit(s[p + 1])));
  if (zoneFollows && !zoneOffset(s, &p, &offset)) return false;
  if (p < s.size() && isAlnum(s[p])) return false;
  auto t = toEpochNanos(y, mo, d, nanosOfDay, offset);
  if (!t) return false;
  *pos = p;
  *time = *t;
  return true;
}

// The year of a syslog date: its latest occurrence no later than 31 days after the reference
// time. So a log that starts on Jan 2 reads "Dec 31" as the previous year, and a log that
// starts on Dec 20 reads "Jan 5" as the next year. Feb 29 goes back to the latest leap year.
std::optional<int64_t> syslogTime(const MonthDayClock& when, const PrefixOptions& options) {
  if (!options.referenceTime) return std::nullopt;
  const int64_t reference = *options.referenceTime;
  int64_t limit;
  if (__builtin_add_overflow(reference, 31 * kNanosPerDay, &limit)) limit = std::numeric_limits<int64_t>::max();
  // The search starts a year past the reference, so the local/UTC difference of the year at
  // New Year does not matter. Gregorian leap years are at most 8 years apart (1896 -> 1904),
  // so Feb 29 is always found.
  const int64_t referenceYear = yearFromDays(floorDiv(reference, kNanosPerDay));
  for (int64_t y = referenceYear + 1; y >= referenceYear - 8; --y) {
    if (!validDate(y, when.month, when.day)) continue;
    auto t = toEpochNanos(y, when.month, when.day, when.nanosOfDay, options.utcOffsetSeconds);
    if (t && *t <= limit) return t;
  }
  return std::nullopt;
}

// "Nov 29 20:28:29" at the start of a syslog line. Recognised even without a reference time
// (so the message start is right), but then it has no value.
bool syslogTimestamp(std::string_view s, size_t* pos, const PrefixOptions& options, Item* item) {
  size_t p = *pos;
  MonthDayClock when;
  if (!monthDayClock(s, &p, &when, /*localised=*/true)) return false;
  if (p < s.size() && !isBlank(s[p])) return false;
  *pos = p;
  *item = itemOf(Item::kTime, syslogTime(when, options));
  item->syslog = true;
  return true;
}

// ctime(3)'s "Sun Nov 29 20:28:29 2026" (local time). The weekday must agree with the date.
bool ctimeStamp(std::string_view s, size_t* pos, const PrefixOptions& options, int64_t* time) {
  size_t p = *pos;
  int weekday, year;
  MonthDayClock when;
  if (!weekdayName(s, &p, &weekday) || !consume(s, &p, ' ') || !monthDayClock(s, &p, &when) ||
      !consume(s, &p, ' ') || !fixedDigits(s, &p, 4, &year)) {
    return false;
  }
  if (!validDate(year, when.month, when.day) ||
      weekdayFromDays(daysFromCivil(year, when.month, when.day)) != weekday) {
    return false;
  }
  auto t = toEpochNanos(year, when.month, when.day, when.nanosOfDay, options.utcOffsetSeconds);
  if (!t) return false;
  *pos = p;
  *time = *t;
  return true;
}

// Inside brackets, after '[': "Sun Nov 29 20:28:29 2026]" (dmesg -T).
bool ctimeInBrackets(std::string_view s, size_t* pos, const PrefixOptions& options, int64_t* time) {
  size_t p = *pos;
  int64_t t;
  if (!ctimeStamp(s, &p, options, &t) || !consume(s, &p, ']')) return false;
  *pos = p;
  *time = t;
  return true;
}

// The stream an MPI launcher tags a process's output with: "<stdout>:", "<stderr>:" or
// "<stddiag>:" (Open MPI's iof; Horovod's launchers copy the form).
bool mpiStreamTag(std::string_view s, size_t* pos) {
  size_t p = *pos;
  if (!consume(s, &p, '<')) return false;
  for (std::string_view stream : {"stdout>:", "stderr>:", "stddiag>:"}) {
    if (s.substr(p, stream.size()) == stream) {
      *pos = p + stream.size();
      return true;
    }
  }
  return false;
}

// Inside brackets, after '[': an MPI launcher's tag of a process's output, then its stream.
//   "1,12]<stdout>:"             mpirun --tag-output (Open MPI 1.x-4.x, orte/mca/iof/base/
//                                iof_base_output.c: "[%s,%s]<%s>:", the local job id and the
//                                process's vpid, its rank in MPI_COMM_WORLD)
//   "1,mpirank:3,algo-1]<stderr>:" the same with the rank and host named (SageMaker's mpirun)
//   "13]<stderr>:"               horovodrun's gloo launcher ("[%d]<%s>:", the rank)
// No blank follows the ':': the process's bytes start right after it.
bool mpiTagInBrackets(std::string_view s, size_t* pos, int32_t* rank, std::string_view* host) {
  size_t p = *pos;
  int64_t first, second;
  if (!unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &first)) return false;
  int64_t value = first;
  std::string_view named;
  if (consume(s, &p, ',')) {
    const bool namedRank = s.substr(p, 8) == "mpirank:";
    if (namedRank) p += 8;
    if (!unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &second)) return false;
    value = second;
    if (namedRank && consume(s, &p, ',') && !hostName(s, &p, &named)) return false;
  }
  if (!consume(s, &p, ']') || !mpiStreamTag(s, &p)) return false;
  *pos = p;
  *rank = static_cast<int32_t>(value);
  *host = named;
  return true;
}

// Inside brackets, after '[': "12345.678901]" or "    0.000000]" (the kernel pads with spaces).
// With `relative`, dmesg --reltime's "  +0.000316]" (a delta to the previous line: no time).
bool monotonicInBrackets(std::string_view s, size_t* pos, int64_t* nanos, bool* relative) {
  size_t p = skipBlanks(s, *pos);
  *relative = consume(s, &p, '+');
  int64_t seconds, frac;
  if (!unsignedNumber(s, &p, std::numeric_limits<int64_t>::max() / kNanosPerSecond - 1, &seconds) ||
      !consume(s, &p, '.') || !fractionNanos(s, &p, &frac) || !consume(s, &p, ']')) {
    return false;
  }
  *pos = p;
  *nanos = seconds * kNanosPerSecond + frac;
  return true;
}

// Inside brackets, after '[': "rank12]:" or "Rank 12]" (any case; the ':' is optional).
bool rankInBrackets(std::string_view s, size_t* pos, int32_t* rank) {
  size_t p = *pos;
  static constexpr std::string_view kRank = "rank";
  if (p + kRank.size() > s.size()) return false;
  for (char c : kRank) {
    if (toLower(s[p++]) != c) return false;
  }
  consume(s, &p, ' ');
  int64_t value;
  if (!unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &value) || !consume(s, &p, ']')) return false;
  consume(s, &p, ':');
  *pos = p;
  *rank = static_cast<int32_t>(value);
  return true;
}

// Whether `name` starts with "rank" in any case: "[ranks1]:" and "[rank:3]:" are malformed rank
// labels, never a torchrun role.
bool startsWithRank(std::string_view name) {
  return name.size() >= 4 && toLower(name[0]) == 'r' && toLower(name[1]) == 'a' && toLower(name[2]) == 'n' &&
         toLower(name[3]) == 'k';
}

// Inside brackets, after '[': torchrun's "default3]:" (--tee / --redirects: the role name and
// the local rank). The ':' is required, so "[INFO12]" and "[v100]" stay in the message.
// torchrun prints "[{role}{local_rank}]:" (torch/distributed/elastic/multiprocessing, 1.9-2.x),
// and a common launch names the role after the host ("--role $(hostname -s): --tee 3", as in
// open-r1's and the ML Engineering book's recipes): "[gpu187:1]:" is local rank 1 on gpu187,
// and *host is set.
bool roleInBrackets(std::string_view s, size_t* pos, int32_t* localRank, std::string_view* host) {
  size_t p = *pos;
  {
    size_t q = p;
    std::string_view name;
    int64_t value;
    if (hostName(s, &q, &name) && !startsWithRank(name) && consume(s, &q, ':') &&
        unsignedNumber(s, &q, std::numeric_limits<int32_t>::max(), &value) && consume(s, &q, ']') &&
        consume(s, &q, ':')) {
      *pos = q;
      *localRank = static_cast<int32_t>(value);
      *host = name;
      return true;
    }
  }
  const size_t nameStart = p;
  while (p < s.size() && (isAlpha(s[p]) || s[p] == '_')) ++p;
  if (p == nameStart) return false;
  if (startsWithRank(s.substr(nameStart, p - nameStart))) return false;
  int64_t value;
  if (!unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &value) || !consume(s, &p, ']') ||
      !consume(s, &p, ':')) {
    return false;
  }
  *pos = p;
  *localRank = static_cast<int32_t>(value);
  return true;
}

// After the severity letter of a glog prefix: "1129 13:52:01.123456 4242 ProcessGroupNCCL.cpp:563"
// (glog: month and day, time, thread, source location) or "710 18:00:32.426302794
// ProcessGroupNCCL.cpp:2395" (c10's own logger prints (month + 1) * 100 + day unpadded, and no
// thread), up to `close`. The year comes from the reference time, as for syslog.
bool glogBody(std::string_view s, size_t* pos, const PrefixOptions& options, char close, std::optional<int64_t>* time) {
  size_t p = *pos;
  int64_t monthDay;
  const size_t digitsStart = p;
  if (!unsignedNumber(s, &p, 1231, &monthDay) || p - digitsStart < 3 || p - digitsStart > 4) return false;
  MonthDayClock when;
  when.month = static_cast<int>(monthDay / 100);
  when.day = static_cast<int>(monthDay % 100);
  if (!consume(s, &p, ' ') || !clockNanos(s, &p, /*allowComma=*/false, &when.nanosOfDay) || !consume(s, &p, ' ')) {
    return false;
  }
  if (!validDate(2000, when.month, when.day)) return false;
  // Thread id and source location, then the closing bracket: a short, bracket-free run.
  constexpr size_t kMaxTail = 256;
  size_t end = s.find(close, p);
  if (end == std::string_view::npos || end - p > kMaxTail || end == p ||
      s.substr(p, end - p).find('[') != std::string_view::npos) {
    return false;
  }
  *time = syslogTime(when, options);
  *pos = end + 1;
  return true;
}

bool glogSeverity(char c) { return c == 'I' || c == 'W' || c == 'E' || c == 'F'; }

// Inside brackets, after '[': a glog prefix ("E1129 13:52:01.123456 4242 file.cpp:563]").
bool glogInBrackets(std::string_view s, size_t* pos, const PrefixOptions& options, std::optional<int64_t>* time) {
  size_t p = *pos;
  if (p >= s.size() || !glogSeverity(s[p])) return false;
  ++p;
  if (!glogBody(s, &p, options, ']', time)) return false;
  *pos = p;
  return true;
}

// Inside brackets, after '[': UCX's "host:pid :0:tid]" ("[09677202c889:5283 :0:5704] Caught
// signal 7") and "host:pid:thread]" of its log lines ("[n1:4242:0] ib_mlx5_log.c:179 UCX ERROR").
bool ucxInBrackets(std::string_view s, size_t* pos, std::string_view* host, int64_t* pid) {
  size_t p = *pos;
  int64_t number;
  if (!hostName(s, &p, host) || !consume(s, &p, ':') || !unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), pid)) {
    return false;
  }
  p = skipBlanks(s, p);
  if (!consume(s, &p, ':') || !unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &number)) return false;
  if (consume(s, &p, ':') && !unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &number)) return false;
  if (!consume(s, &p, ']')) return false;
  *pos = p;
  return true;
}

struct Identity {
  std::string_view host, program;
  std::optional<int64_t> pid;
};

// MPICH's "[%r] " at the line's start: the rank, then a blank.
bool rankLabel(std::string_view s, size_t* pos, int32_t* rank) {
  size_t p = *pos;
  int64_t value;
  if (!consume(s, &p, '[') || !unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &value) ||
      !consume(s, &p, ']') || p >= s.size() || !isBlank(s[p])) {
    return false;
  }
  *pos = p;
  *rank = static_cast<int32_t>(value);
  return true;
}

// "a.b.c.d", four numbers of at most three digits.
bool ipv4Address(std::string_view s) {
  int parts = 0;
  for (size_t p = 0; p <= s.size(); ++parts) {
    size_t digits = 0;
    while (p < s.size() && isDigit(s[p]) && digits < 4) ++p, ++digits;
    if (digits == 0 || digits > 3) return false;
    if (p == s.size()) return parts == 3;
    if (s[p] != '.') return false;
    ++p;
  }
  return false;
}

// Inside brackets, after '[': a node's name and its address, as an Azure ML job's log on
// Kubernetes prefixes every line of a worker ("[job-pytorch-...-worker-1, 10.240.1.123] ", and
// "unknown_ip" where the address was not known yet): "name, a.b.c.d]" or "name, unknown_ip]".
// Only an IPv4 address or that word after the comma, so a list printed in brackets ("[a, b]")
// stays a message's own words.
bool nodeAndAddressInBrackets(std::string_view s, size_t* pos, std::string_view* host) {
  size_t p = *pos;
  std::string_view name;
  if (!hostName(s, &p, &name) || s.substr(p, 2) != ", ") return false;
  p += 2;
  const size_t close = s.substr(p, 16).find(']');  // "255.255.255.255" and "unknown_ip" fit
  if (close == std::string_view::npos) return false;
  const std::string_view address = s.substr(p, close);
  if (address != "unknown_ip" && !ipv4Address(address)) return false;
  *pos = p + close + 1;
  *host = name;
  return true;
}

// One bracketed item: rank, torchrun role, kernel monotonic time, dmesg -T, glog, UCX, a node
// and its address (Azure ML), or an ISO timestamp in brackets ("[2026-01-01 10:00:00,123]", as torch.distributed's launcher
// writes).
bool bracketed(std::string_view s, size_t* pos, const PrefixOptions& options, Item* item, Identity* id) {
  size_t p = *pos;
  if (!consume(s, &p, '[')) return false;
  int32_t small;
  int64_t value;
  bool relative;
  std::optional<int64_t> time;
  std::string_view host;
  if (rankInBrackets(s, &p, &small)) {
    *item = itemOf(Item::kRank, small);
    item->glued = true;
  } else if (roleInBrackets(s, &p, &small, &host)) {
    *item = itemOf(Item::kLocalRank, small);
    item->glued = true;
    if (id->host.empty()) id->host = host;
  } else if (mpiTagInBrackets(s, &p, &small, &host)) {
    *item = itemOf(Item::kRank, small);
    item->glued = true;
    if (id->host.empty()) id->host = host;
  } else if (monotonicInBrackets(s, &p, &value, &relative)) {
    // A billion seconds and more is no uptime but the epoch: UCX's "[1704103201.123456]".
    constexpr int64_t kEpochSeconds = 1'000'000'000;
    if (!relative && value >= kEpochSeconds * kNanosPerSecond) {
      *item = itemOf(Item::kTime, value);
    } else {
      *item = relative ? itemOf(Item::kNoValue) : itemOf(Item::kMonotonic, value);
      item->kernel = true;
    }
  } else if (ctimeInBrackets(s, &p, options, &value)) {
    *item = itemOf(Item::kTime, value);
    item->kernel = true;
  } else if (glogInBrackets(s, &p, options, &time)) {
    *item = itemOf(Item::kTime, time);
  } else if (isoTimestamp(s, &p, options, &value) && consume(s, &p, ']')) {
    *item = itemOf(Item::kTime, value);
  } else if (ucxInBrackets(s, &p, &host, &value)) {
    *item = itemOf(Item::kIdentity);
    if (id->host.empty()) id->host = host;
    if (!id->pid) id->pid = value;
  } else if (nodeAndAddressInBrackets(s, &p, &host)) {
    *item = itemOf(Item::kIdentity);
    if (id->host.empty()) id->host = host;
  } else {
    return false;
  }
  *pos = p;
  return true;
}

// Ray's "(RayTrainWorker pid=123, ip=10.0.0.5)", "(pid=123)", "(WorkerDict pid=123)": the
// actor or task name, the worker's pid and, on another node, its ip. vLLM's multiprocessing
// executor prefixes its workers' output in the same form with the worker's rank after the name
// ("(VllmWorker rank=5 pid=50999) ", vllm/v1/executor/multiproc_executor.py, 0.8-0.9): *rank.
bool rayPrefix(std::string_view s, size_t* pos, Identity* id, std::optional<int32_t>* rank) {
  size_t p = *pos;
  if (!consume(s, &p, '(')) return false;
  std::optional<int32_t> named;
  if (s.substr(p, 4) != "pid=") {
    const size_t nameStart = p;
    while (p < s.size() && (isAlnum(s[p]) || s[p] == '_' || s[p] == '.' || s[p] == ':')) ++p;
    if (p == nameStart || !consume(s, &p, ' ')) return false;
    if (s.substr(p, 5) == "rank=") {
      p += 5;
      int64_t value;
      if (!unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &value) || !consume(s, &p, ' ')) return false;
      named = static_cast<int32_t>(value);
    }
  }
  if (s.substr(p, 4) != "pid=") return false;
  p += 4;
  int64_t pid;
  if (!unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &pid)) return false;
  std::string_view ip;
  if (s.substr(p, 5) == ", ip=") {
    p += 5;
    if (!hostName(s, &p, &ip)) return false;
  }
  if (!consume(s, &p, ')')) return false;
  *pos = p;
  if (id->host.empty()) id->host = ip;
  if (!id->pid) id->pid = pid;
  *rank = named;
  return true;
}

// NCCL's debug prefix "host:pid:tid [dev] " (the message follows: "NCCL INFO ..."). The device
// is the local CUDA device, not a global GPU id, so it is not kept.
bool ncclPrefix(std::string_view s, size_t* pos, Identity* id) {
  size_t p = *pos;
  std::string_view host;
  int64_t pid, tid, device;
  if (!hostName(s, &p, &host) || !consume(s, &p, ':') ||
      !unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &pid) || !consume(s, &p, ':') ||
      !unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &tid) || !consume(s, &p, ' ') ||
      !consume(s, &p, '[') || !unsignedNumber(s, &p, 1 << 16, &device) || !consume(s, &p, ']')) {
    return false;
  }
  *pos = p;
  if (id->host.empty()) id->host = host;
  if (!id->pid) id->pid = pid;
  return true;
}

// glog at the line start, without brackets: "I1129 20:28:29.123456 4242 file.cc:12] ".
bool glogBare(std::string_view s, size_t* pos, const PrefixOptions& options, Item* item) {
  size_t p = *pos;
  if (p >= s.size() || !glogSeverity(s[p])) return false;
  ++p;
  std::optional<int64_t> time;
  if (!glogBody(s, &p, options, ']', &time)) return false;
  *pos = p;
  *item = itemOf(Item::kTime, time);
  return true;
}

// mpirun --timestamp-output (Open MPI 1.x-4.x) and horovodrun's timestamped output put ctime's
// time right before the tag, with no blank: "Tue Nov 27 13:49:06 2018[1,10]<stdout>:" and, with
// no tag, "Tue Nov 27 13:49:06 2018<stdout>:". Read only so, glued to a whole tag or a '<' stream
// tag, since a ctime date at a line's start is otherwise a message's own words. The tag itself is
// left for the next item to read.
bool ctimeBeforeMpiTag(std::string_view s, size_t* pos, const PrefixOptions& options, Item* item) {
  size_t p = *pos;
  int64_t time;
  if (!ctimeStamp(s, &p, options, &time) || p >= s.size()) return false;
  if (s[p] == '[') {
    size_t tag = p + 1;
    int32_t rank;
    std::string_view host;
    if (!mpiTagInBrackets(s, &tag, &rank, &host)) return false;
  } else if (!mpiStreamTag(s, &p)) {
    return false;
  }
  *pos = p;
  *item = itemOf(Item::kTime, time);
  item->glued = true;
  return true;
}

bool prefixItem(std::string_view s, size_t* pos, const PrefixOptions& options, Item* item, Identity* id) {
  if (*pos >= s.size()) return false;
  int64_t time;
  const char c = s[*pos];
  if (c == '[') return bracketed(s, pos, options, item, id);
  if (c == '(') {
    std::optional<int32_t> rank;
    if (!rayPrefix(s, pos, id, &rank)) return false;
    *item = rank ? itemOf(Item::kRank, *rank) : itemOf(Item::kIdentity);
    return true;
  }
  if (isDigit(c) && isoTimestamp(s, pos, options, &time)) {
    *item = itemOf(Item::kTime, time);
    item->iso = true;
    return true;
  }
  if (syslogTimestamp(s, pos, options, item)) return true;
  if (glogBare(s, pos, options, item)) return true;
  if (ctimeBeforeMpiTag(s, pos, options, item)) return true;
  if (ncclPrefix(s, pos, id)) {
    *item = itemOf(Item::kIdentity);
    item->last = true;
    return true;
  }
  return false;
}

// An ANSI SGR colour sequence: "\x1b[36m", "\x1b[0m", "\x1b[2;36m", "\x1b[m". Ray colours its
// worker prefix so ("\x1b[2m\x1b[36m(RayWorkerWrapper pid=123)\x1b[0m [rank0]: ..."), and so do
// dmesg --color and coloured loggers. A paste often loses the ESC byte and keeps "[36m": without
// it the parameters must hold a digit, so a "[m" in the text stays text.
bool colourSequence(std::string_view s, size_t* pos) {
  size_t p = *pos;
  const bool escape = consume(s, &p, '\x1b');
  if (!consume(s, &p, '[')) return false;
  const size_t start = p;
  bool digit = false;
  while (p < s.size() && (isDigit(s[p]) || s[p] == ';') && p - start < 16) digit |= isDigit(s[p++]);
  if ((!escape && !digit) || !consume(s, &p, 'm')) return false;
  *pos = p;
  return true;
}

// Any run of colour sequences at pos; returns the position after them.
size_t skipColours(std::string_view s, size_t pos) {
  while (colourSequence(s, &pos)) {
  }
  return pos;
}

// The ':' that ends a label ("12: ", "gpu-7: ", "slurmstepd-n7: "), then a blank or the end of
// the line.
bool labelColon(std::string_view s, size_t* pos) {
  size_t p = *pos;
  if (!consume(s, &p, ':') || (p < s.size() && !isBlank(s[p]))) return false;
  *pos = p;
  return true;
}

// srun --label: "12: " (srun right-aligns the number with spaces in large jobs). Only at the
// start of the line, where srun puts it; a ':' at the end of the line also counts.
bool srunLabel(std::string_view s, size_t* pos, int32_t* task) {
  size_t p = skipBlanks(s, *pos);
  int64_t value;
  if (!unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &value) || !labelColon(s, &p)) return false;
  *pos = p;
  *task = static_cast<int32_t>(value);
  return true;
}

// pdsh's, clush's and talosctl's "host: " at the start of the line: a host name with a digit or
// a '-' (node names and IP addresses have them; "RuntimeError", "INFO" and a logger's
// "torch.distributed" do not), or with HostLabels::Addresses an IPv4 address, then ':' and a
// blank or the end of the line.
bool hostLabel(std::string_view s, size_t* pos, HostLabels form, std::string_view* host) {
  size_t p = *pos;
  if (form == HostLabels::None) return false;
  if (!hostName(s, &p, host) || !labelColon(s, &p)) return false;
  if (form == HostLabels::Addresses ? !ipv4Address(*host) : std::none_of(host->begin(), host->end(), [](char c) { return isDigit(c) || c == '-'; })) {
    return false;
  }
  *pos = p;
  return true;
}

// After a wall-clock timestamp: the syslog or journal "host prog[pid]: " ("host prog: " too
// after a syslog timestamp, where nothing else can follow; after an ISO timestamp only with a
// [pid] or for the kernel, so that "2026-01-01 10:00:00 INFO root: x" stays a message).
bool syslogSource(std::string_view s, size_t* pos, bool strict, Identity* id) {
  size_t p = *pos;
  std::string_view host;
  if (!hostName(s, &p, &host) || !consume(s, &p, ' ')) return false;
  const size_t programStart = p;
  while (p < s.size() && !isBlank(s[p]) && s[p] != ':' && s[p] != '[' && p - programStart < 128) ++p;
  if (p == programStart) return false;
  std::string_view program = s.substr(programStart, p - programStart);
  std::optional<int64_t> pid;
  if (consume(s, &p, '[')) {
    int64_t value;
    if (!unsignedNumber(s, &p, std::numeric_limits<int32_t>::max(), &value) || !consume(s, &p, ']')) return false;
    pid = value;
  }
  if (!consume(s, &p, ':') || (p < s.size() && !isBlank(s[p]))) return false;
  if (strict && !pid && program != "kernel") return false;
  *pos = p;
  id->host = host;
  id->program = program;
  id->pid = pid;
  return true;
}

// A tqdm progress bar that a paste ran into the next line (the terminal's '\r' lost):
// "Epoch 0:   0%|          | 0/500 [00:00<?, ?it/s][rank1]:[E318 07:39:53.713449198 ...] ...".
// tqdm's default format (tqdm/std.py format_meter, 4.x): "{desc}: {percentage:3.0f}%|{bar}|
// {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]". Read only at the line's
// start, and kept in the prefix only when an item follows it.
bool tqdmBar(std::string_view s, size_t* pos) {
  constexpr size_t kDescription = 160;
  const size_t percent = s.find("%|", *pos);
  if (percent == std::string_view::npos || percent - *pos > kDescription) return false;
  size_t p = s.find("| ", percent + 2);
  if (p == std::string_view::npos) return false;
  p += 2;
  auto count = [&](size_t* at) {
    const size_t from = *at;
    while (*at < s.size() && (isDigit(s[*at]) || s[*at] == '.' || s[*at] == '?' || s[*at] == 'k' || s[*at] == 'M')) ++*at;
    return *at > from;
  };
  if (!count(&p) || !consume(s, &p, '/') || !count(&p) || !consume(s, &p, ' ') || !consume(s, &p, '[')) return false;
  const size_t close = s.find(']', p);
  if (close == std::string_view::npos || s.substr(p, close - p).find('<') == std::string_view::npos) return false;
  *pos = close + 1;
  return true;
}

// GNU grep's file name in front of each matching line when it searches several files
// ("grep -r NCCL logs/": "logs/prefill-2.log:[2025-09-17 15:16:23] host:311:405 [0] ..."), with
// -n also the line number ("train.log:1234:"). Read only at the line's start, only for a name
// with a log file's extension, and kept in the prefix only when an item follows it (as the
// progress bar above), so that "train.log: permission denied" stays a message.
bool grepFileName(std::string_view s, size_t* pos) {
  constexpr size_t kPath = 512;
  size_t p = *pos;
  while (p < s.size() && p - *pos < kPath && (isHostChar(s[p]) || s[p] == '/')) ++p;
  const std::string_view path = s.substr(*pos, p - *pos);
  constexpr std::string_view kExtensions[] = {".log", ".txt", ".out", ".err"};
  if (std::none_of(std::begin(kExtensions), std::end(kExtensions), [&](std::string_view e) {
        return path.size() > e.size() && path.substr(path.size() - e.size()) == e;
      })) {
    return false;
  }
  if (!consume(s, &p, ':')) return false;
  size_t q = p;
  int64_t line;
  if (unsignedNumber(s, &q, std::numeric_limits<int32_t>::max(), &line) && consume(s, &q, ':')) p = q;
  *pos = p;
  return true;
}

// After a syslog timestamp, the kernel without a host field: "Feb 23 03:28:16 kernel: EDAC ..."
// (a file template without %HOSTNAME%, or a paste that dropped it). Only the kernel: any other
// word followed by ':' may be a message ("Nov 29 10:00:00 ERROR: ..."). A line whose host is
// named "kernel" reads as host and program as before ("... kernel kernel: ...").
bool hostlessKernel(std::string_view s, size_t* pos, Identity* id) {
  constexpr std::string_view kKernel = "kernel:";
  if (s.compare(*pos, kKernel.size(), kKernel) != 0) return false;
  const size_t p = *pos + kKernel.size();
  if (p < s.size() && !isBlank(s[p])) return false;
  id->program = s.substr(*pos, kKernel.size() - 1);
  *pos = p;
  return true;
}

// The kernel's tag at the line's start, with no time before it: syslogd's broadcast of an
// emergency to the terminals ("Message from syslogd@host at Nov 10 08:58:06 ..." then
// " kernel:[Hardware Error]: ..." or "kernel:watchdog: BUG: soft lockup - ..."), or a syslog line
// pasted without its time and host ("kernel: EDAC MC0: ..."). At most two blanks before it.
bool kernelTag(std::string_view s, size_t* pos, Identity* id) {
  size_t p = *pos;
  for (int blanks = 0; blanks < 2 && p < s.size() && isBlank(s[p]); ++blanks) ++p;
  constexpr std::string_view kKernel = "kernel:";
  if (s.compare(p, kKernel.size(), kKernel) != 0) return false;
  id->program = s.substr(p, kKernel.size() - 1);
  *pos = p + kKernel.size();
  return true;
}

// Slurm built with MULTIPLE_SLURMD names its step daemon after the node it serves
// (snprintf(argv0, "slurmstepd-%s", conf->node_name); log_set_argv0, src/slurmd/slurmstepd/mgr.c,
// Slurm 20.x-25.x), and the step's messages reach the job's output so:
// "slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0." The program is
// slurmstepd, the host the node; the message starts after the ": ".
bool stepDaemonSource(std::string_view s, size_t* pos, Identity* id) {
  constexpr std::string_view kDaemon = "slurmstepd-";
  size_t p = *pos;
  std::string_view host;
  if (s.substr(p, kDaemon.size()) != kDaemon) return false;
  p += kDaemon.size();
  // The node name may hold ':' only where a port would be, which Slurm node names never do.
  if (!hostName(s, &p, &host) || !labelColon(s, &p)) return false;
  id->program = s.substr(*pos, kDaemon.size() - 1);
  if (id->host.empty()) id->host = host;
  *pos = p;
  return true;
}

}  // namespace

size_t markdownQuoteEnd(std::string_view line, size_t pos) {
  for (int level = 0; level < 3 && line.substr(pos, 2) == "> "; ++level) pos += 2;
  return pos;
}

LinePrefix parseLinePrefix(std::string_view line, const PrefixOptions& options) {
  LinePrefix out;
  Identity id;
  // A pasted line may keep the Markdown it was quoted in: a quote's "> " (up to three levels),
  // bold's "**" ("**hostname:26407:26474 NCCL INFO ...**"), the backticks of a code span or fence
  // ("`(WorkerDict pid=835, ip=...) [rank38]:..."; up to three). A report may quote a process's
  // lines after a rule "| ", indented or not (milabench's summary of a failed run: "        |
  // [rank0]: FileNotFoundError: ..."; a Markdown table's first cell). They are skipped before
  // the first item, and belong to the prefix only when an item follows them.
  size_t pos = 0;
  if (const size_t rule = skipBlanks(line, 0); line.substr(rule, 2) == "| ") pos = rule + 2;
  pos = markdownQuoteEnd(line, pos);
  if (line.substr(pos, 2) == "**") pos += 2;
  for (int tick = 0; tick < 3 && pos < line.size() && line[pos] == '`'; ++tick) ++pos;
  const size_t lead = pos;
  // Invariant: `end` is the end of the last item recognised (out.length is one blank past it).
  size_t end = 0;
  bool haveTime = false, haveSource = false;
  int32_t task;
  std::string_view labelHost;
  if (hostLabel(line, &pos, options.hostLabels, &labelHost)) {
    id.host = labelHost;
    end = pos;
    pos = skipBlanks(line, pos);
  }
  // A progress bar run into the line: skipped, and the prefix only if items follow (below).
  // grep's file name: skipped like the bar, which may follow it.
  const bool grepped = pos == lead && grepFileName(line, &pos);
  if (grepped) pos = skipBlanks(line, pos);
  if ((pos == lead || grepped) && tqdmBar(line, &pos)) pos = skipBlanks(line, pos);
  if (pos == lead && kernelTag(line, &pos, &id)) {
    // Nothing else stacks before a bare tag; the kernel's own time may follow it.
    end = pos;
    pos = skipBlanks(line, pos);
  }
  if (options.srunLabels && srunLabel(line, &pos, &task)) {
    out.task = task;
    end = pos;
    pos = skipBlanks(line, pos);
  }
  if (options.rankLabels && pos == lead && rankLabel(line, &pos, &task)) {
    out.rank = task;
    end = pos;
    pos = skipBlanks(line, pos);
  }
  Item item;
  // Colour sequences are part of the prefix wherever they sit between items or around them, but
  // are no item: a dmesg --color timestamp after one is still at the start of the line.
  bool anyItem = end > 0;
  for (;;) {
    // Colours before an item are its own; colours before the message are the prefix's only after
    // at most the one separating blank ("[123.456] \x1b[0mNVRM"), so a message's indentation
    // ("[rank3]:    \x1b[0mFile") stays its own.
    const size_t coloured = skipColours(line, pos);
    size_t itemStart = coloured;
    if (!prefixItem(line, &itemStart, options, &item, &id)) {
      if (coloured > pos && pos <= end + 1) end = coloured;
      break;
    }
    pos = itemStart;
    if (item.kernel && !anyItem) out.kernelTimestamp = true;
    anyItem = true;
    switch (item.kind) {
      case Item::kTime:
        // The first (outermost) timestamp wins; later ones are consumed as part of the prefix.
        if (!haveTime) out.time = item.value;
        haveTime = true;
        break;
      case Item::kMonotonic:
        if (!out.monotonic) out.monotonic = item.value;
        break;
      case Item::kRank:
        if (!out.rank) out.rank = static_cast<int32_t>(*item.value);  // fits: parsed so
        break;
      case Item::kLocalRank:
        if (!out.localRank) out.localRank = static_cast<int32_t>(*item.value);
        break;
      case Item::kTask:
      case Item::kNoValue:
      case Item::kIdentity:
        break;
    }
    // A colour reset right after an item ("(pid=123)\x1b[0m") belongs to it.
    end = pos = skipColours(line, pos);
    if (item.last) break;
    // A collector's ISO time may end with ": " before what the process printed
    // ("2019-06-02T16:13:44.884Z: [1,12]<stdout>:host:815:864 [0] NCCL WARN ..."). Like any gap
    // between items, the colon becomes the prefix's only when the next item is read (`end` moves
    // past it then), so "2026-01-01 10:00:00: x" keeps ": x" as its message.
    if (item.iso && pos + 1 < line.size() && line[pos] == ':' && isBlank(line[pos + 1])) {
      pos = skipBlanks(line, pos + 1);
      continue;
    }
    const size_t afterBlanks = skipBlanks(line, pos);
    if (afterBlanks == pos && !item.glued) break;  // items are separated by blanks
    pos = afterBlanks;
    // A wall-clock timestamp may be followed by the syslog or journal host and program; the
    // kernel's own monotonic time may come after them ("host kernel: [123.456] ...").
    if (item.syslog && !haveSource && hostlessKernel(line, &pos, &id)) {
      haveSource = true;
      end = pos;
      const size_t next = skipBlanks(line, pos);
      if (next == pos) break;
      pos = next;
      continue;
    }
    if ((item.syslog || item.iso) && !haveSource && syslogSource(line, &pos, /*strict=*/!item.syslog, &id)) {
      haveSource = true;
      end = pos;
      // Only the kernel's lines carry more prefix (its monotonic time); any other program's
      // message starts here, brackets and all.
      const size_t next = skipBlanks(line, pos);
      if (next == pos || id.program != "kernel") break;
      pos = next;
    }
  }
  // slurmstepd's own name, as the job's output carries its messages: at the line's start or after
  // the items a launcher put before it ("3: slurmstepd-n7: error: ...").
  const bool separated = end == 0 || (end < line.size() && isBlank(line[end]));
  size_t daemon = end == 0 ? 0 : skipBlanks(line, end);
  if (!haveSource && separated && stepDaemonSource(line, &daemon, &id)) end = daemon;
  out.host = id.host;
  out.program = id.program;
  out.pid = id.pid;
  // One blank after the last item is the separator; the rest is the message's own indentation.
  out.length = end > 0 && end < line.size() && isBlank(line[end]) ? end + 1 : end;
  return out;
}

namespace {

// Whether `lines` are labelled by a launcher: `read(line, &label)` reads a line's label. Three in
// four non-blank lines labelled (the launcher's own lines sit among them), by at most one
// distinct label per two labelled lines (a dump of keys, or numbered lines, has one per line).
template <typename Label, typename Read>
bool labelledByFew(const std::vector<std::string_view>& lines, Read read) {
  size_t nonBlank = 0, labelled = 0;
  std::vector<Label> distinct;
  for (std::string_view line : lines) {
    if (skipBlanks(line, 0) == line.size()) continue;
    ++nonBlank;
    Label label;
    if (!read(line, &label)) continue;
    ++labelled;
    if (std::find(distinct.begin(), distinct.end(), label) == distinct.end()) distinct.push_back(label);
  }
  return labelled >= 2 && labelled * 4 >= nonBlank * 3 && distinct.size() * 2 <= labelled;
}

}  // namespace

bool hostLabelled(const std::vector<std::string_view>& lines, HostLabels form) {
  return labelledByFew<std::string_view>(lines, [form](std::string_view line, std::string_view* host) {
    size_t pos = 0;
    return hostLabel(line, &pos, form, host);
  });
}

bool rankLabelled(const std::vector<std::string_view>& lines) {
  return labelledByFew<int32_t>(lines, [](std::string_view line, int32_t* rank) {
    size_t pos = 0;
    return rankLabel(line, &pos, rank);
  });
}

}  // namespace attrib::evidence
