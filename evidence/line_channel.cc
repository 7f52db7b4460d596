#include "evidence/line_channel.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "evidence/byte_masks.h"
#include "ir/ascii.h"

namespace attrib::evidence {
namespace {

// Cursor helpers for prefixChannel: each consumes what it names at s[*at] or fails, leaving *at
// where it was on failure only where the caller relies on it (optional parts).
//
// prefixChannel runs on every line the reader indexes, most of which have no prefix it knows
// (an application's "[rank3]:..." or "2026-11-29 10:02:13,674 ..."): byte classes are one table
// load, and each form is given up at its first byte that cannot start it.
enum : uint8_t { kDigit = 1, kUpper = 2, kLower = 4, kHost = 8 };
constexpr std::array<uint8_t, 256> kByteClass = [] {
  std::array<uint8_t, 256> t{};
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    t[b] = static_cast<uint8_t>((ir::asciiDigit(c) ? kDigit : 0) | (ir::asciiUpper(c) ? kUpper : 0) |
                                (ir::asciiLowerCase(c) ? kLower : 0) | (ir::asciiHostChar(c) ? kHost : 0));
  }
  return t;
}();
bool is(char c, uint8_t cls) { return (kByteClass[static_cast<unsigned char>(c)] & cls) != 0; }
bool digit(char c) { return is(c, kDigit); }
bool upper(char c) { return is(c, kUpper); }
bool lower(char c) { return is(c, kLower); }
bool hostChar(char c) { return is(c, kHost); }

bool literal(std::string_view s, size_t* at, char c) {
  if (*at >= s.size() || s[*at] != c) return false;
  ++*at;
  return true;
}
bool digits(std::string_view s, size_t* at, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    if (*at + k >= s.size() || !digit(s[*at + k])) return false;
  }
  *at += n;
  return true;
}
// One or more digits; how many in *count.
bool someDigits(std::string_view s, size_t* at, size_t* count = nullptr) {
  size_t from = *at;
  while (*at < s.size() && digit(s[*at])) ++*at;
  if (count) *count = *at - from;
  return *at > from;
}
// "HH:MM:SS"
bool clock(std::string_view s, size_t* at) {
  return digits(s, at, 2) && literal(s, at, ':') && digits(s, at, 2) && literal(s, at, ':') && digits(s, at, 2);
}
// A syslog day: "29 ", " 9 ", "09 " or "9 ".
bool day(std::string_view s, size_t* at) {
  if (*at + 2 < s.size() && (s[*at] == ' ' || digit(s[*at])) && digit(s[*at + 1]) && s[*at + 2] == ' ') {
    *at += 3;
    return true;
  }
  if (*at + 1 < s.size() && digit(s[*at]) && s[*at + 1] == ' ') {
    *at += 2;
    return true;
  }
  return false;
}
// "Nov 29 10:42:00" with an optional ".fraction", then a blank, at the line's start (*at == 0).
// Every line of a syslog file comes here, so the fixed layout is checked at fixed offsets after
// one length check rather than byte by byte through the cursor helpers.
bool syslogTime(std::string_view s, size_t* at) {
  const size_t n = s.size();
  if (*at != 0 || n < 16) return false;
  const char* p = s.data();
  if (!(upper(p[0]) && lower(p[1]) && lower(p[2]) && p[3] == ' ')) return false;
  size_t k;  // the clock's first byte: after "29 ", " 9 ", "09 " or "9 "
  if (digit(p[4]) && p[5] == ' ') {
    k = 6;
  } else if ((p[4] == ' ' || digit(p[4])) && digit(p[5]) && p[6] == ' ') {
    k = 7;
  } else {
    return false;
  }
  if (n < k + 9) return false;
  if (!(digit(p[k]) && digit(p[k + 1]) && p[k + 2] == ':' && digit(p[k + 3]) && digit(p[k + 4]) && p[k + 5] == ':' &&
        digit(p[k + 6]) && digit(p[k + 7])))
    return false;
  k += 8;
  if (p[k] == '.') {
    ++k;
    if (!someDigits(s, &k)) return false;
  }
  *at = k;
  return literal(s, at, ' ');
}
// "2026-11-29T10:42:00" with an optional fraction ('.' or ',') and zone, then a blank.
bool isoTime(std::string_view s, size_t* at) {
  if (!(digits(s, at, 4) && literal(s, at, '-') && digits(s, at, 2) && literal(s, at, '-') && digits(s, at, 2))) return false;
  if (*at >= s.size() || (s[*at] != 'T' && s[*at] != 't' && s[*at] != ' ')) return false;
  ++*at;
  if (!clock(s, at)) return false;
  if (*at < s.size() && (s[*at] == '.' || s[*at] == ',')) {
    ++*at;
    if (!someDigits(s, at)) return false;
  }
  if (*at < s.size() && (s[*at] == 'Z' || s[*at] == 'z')) {
    ++*at;
  } else if (*at < s.size() && (s[*at] == '+' || s[*at] == '-')) {
    ++*at;
    if (!digits(s, at, 2)) return false;
    size_t m = *at;
    if (literal(s, &m, ':') && digits(s, &m, 2)) {
      *at = m;
    } else {
      m = *at;
      if (digits(s, &m, 2)) *at = m;
    }
  }
  return literal(s, at, ' ');
}
#if defined(__SSE2__)
// Bit i of the result: p[i] (i < 16) is a byte of `bytes`' kind. Syslog lines reach their host
// and program names here, whose ends the scalar loops found only after a mispredicted branch per
// name; sixteen bytes compared at once give the end as a count of trailing ones.
enum class Bytes { Host, Digit, NameEnd };
unsigned bytesOf16(const char* p, Bytes bytes) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  auto inRange = [&](char lo, char hi) { return bytesInRange(v, lo, hi); };
  auto is = [&](char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
  __m128i m;
  switch (bytes) {
    case Bytes::Digit: m = inRange('0', '9'); break;
    case Bytes::NameEnd: m = _mm_or_si128(_mm_or_si128(is('['), is(':')), is(' ')); break;
    case Bytes::Host:
    default:
      m = _mm_or_si128(_mm_or_si128(inRange('0', '9'), inRange('A', 'Z')), inRange('a', 'z'));
      m = _mm_or_si128(m, _mm_or_si128(is('_'), _mm_or_si128(is('.'), is('-'))));
      break;
  }
  return static_cast<unsigned>(_mm_movemask_epi8(m));
}
#endif

// A host: host characters, at least one of them not a digit, then a blank.
bool host(std::string_view s, size_t* at) {
  const size_t from = *at;
#if defined(__SSE2__)
  if (from + 16 <= s.size()) {
    const unsigned hostBytes = bytesOf16(s.data() + from, Bytes::Host);
    const auto length = static_cast<unsigned>(__builtin_ctz(~hostBytes));  // ~hostBytes has bits 16..31 set
    if (length < 16) {
      const unsigned inHost = (1u << length) - 1;
      const bool nonDigit = (inHost & ~bytesOf16(s.data() + from, Bytes::Digit)) != 0;
      *at = from + length;
      return length > 0 && nonDigit && literal(s, at, ' ');
    }
  }
#endif
  size_t k = from;
  bool nonDigit = false;
  while (k < s.size() && hostChar(s[k])) nonDigit |= !digit(s[k++]);
  *at = k;
  return k > from && nonDigit && literal(s, at, ' ');
}
// The table's Program markers, filed for the lookup every syslog line makes: by first byte, with
// a bit per length, so that a name is compared with the one marker (rarely two) that could be
// it, and most names (telegraf, rsyslogd, ...) with none.
struct ProgramTable {
  static constexpr size_t kMaxLength = 32;
  std::array<std::vector<const ir::ChannelMarker*>, 256> byFirstByte;
  std::array<uint32_t, 256> lengths{};  // bit L of lengths[b]: a marker starts with b and has L bytes
  const ir::ChannelMarker* kernel = nullptr;

  ProgramTable() {
    for (const ir::ChannelMarker& m : ir::channelMarkers()) {
      if (m.form != ir::MarkerForm::Program || m.text.empty()) continue;
      const auto first = static_cast<unsigned char>(m.text.front());
      byFirstByte[first].push_back(&m);
      if (m.text.size() < kMaxLength) lengths[first] |= uint32_t{1} << m.text.size();
      if (m.text == "kernel" && !kernel) kernel = &m;
    }
  }

  // The Program marker named `name` (not empty), or null: the table's first of that name.
  const ir::ChannelMarker* find(std::string_view name) const {
    const auto first = static_cast<unsigned char>(name.front());
    if (name.size() < kMaxLength && (lengths[first] & (uint32_t{1} << name.size())) == 0) return nullptr;
    for (const ir::ChannelMarker* m : byFirstByte[first]) {
      if (m->text == name) return m;
    }
    return nullptr;
  }
};

// The channel of the program at s[at] ("slurmstepd[12]: ", "kernel: "), its [pid] required when
// `pidRequired` (after an RFC 3339 time) except for the kernel, which never has one.
std::optional<ir::Channel> program(std::string_view s, size_t at, bool pidRequired) {
  static const ProgramTable table;
  static constexpr std::array<bool, 256> kNameEnd = [] {
    std::array<bool, 256> t{};
    t['['] = t[':'] = t[' '] = true;
    return t;
  }();
  const size_t n = s.size();
  size_t end = at;
#if defined(__SSE2__)
  if (at + 16 <= n) {
    const unsigned ends = bytesOf16(s.data() + at, Bytes::NameEnd);
    end = ends != 0 ? at + static_cast<size_t>(__builtin_ctz(ends)) : at + 16;
  }
#endif
  while (end < n && !kNameEnd[static_cast<unsigned char>(s[end])]) ++end;
  if (end == at || end >= n || s[end] == ' ') return std::nullopt;
  const ir::ChannelMarker* marker = table.find(s.substr(at, end - at));
  if (!marker) return std::nullopt;
  const bool kernel = marker == table.kernel;
  size_t k = end;
  if (s[k] == '[') {
    if (kernel) return std::nullopt;
    ++k;
    if (!someDigits(s, &k) || !literal(s, &k, ']')) return std::nullopt;
  } else if (pidRequired && !kernel) {
    return std::nullopt;
  }
  if (!literal(s, &k, ':')) return std::nullopt;
  if (k < n && s[k] != ' ') return std::nullopt;
  return marker->channel;
}
// The kernel's own timestamp as the line's first item: "[ 74889.644138]" (at most nine digits of
// seconds: ten and more are the epoch, as UCX writes it), "[  +0.000316]", "[Sun Nov 29 10:42:00 2026]".
bool kernelTimestamp(std::string_view s) {
  size_t at = 1;
  size_t n = 0;
  while (at < s.size() && s[at] == ' ') ++at;
  if (at >= s.size()) return false;
  size_t k = at;
  if (literal(s, &k, '+')) {
    return someDigits(s, &k) && literal(s, &k, '.') && someDigits(s, &k) && literal(s, &k, ']');
  }
  if (digit(s[at])) return someDigits(s, &k, &n) && n <= 9 && literal(s, &k, '.') && someDigits(s, &k) && literal(s, &k, ']');
  // dmesg -T: "[Www Mmm dd HH:MM:SS YYYY]", the weekday right after the bracket.
  if (at != 1 || !upper(s[1]) || s.size() < 5) return false;
  static constexpr std::string_view kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  bool weekday = false;
  for (std::string_view d : kDays) weekday |= s.substr(1, 3) == d;
  k = 4;
  if (!weekday || !literal(s, &k, ' ')) return false;
  if (!(k + 3 < s.size() && upper(s[k]) && lower(s[k + 1]) && lower(s[k + 2]) && s[k + 3] == ' ')) return false;
  k += 4;
  return day(s, &k) && clock(s, &k) && literal(s, &k, ' ') && digits(s, &k, 4) && literal(s, &k, ']');
}

}  // namespace

std::optional<ir::Channel> prefixChannel(std::string_view line) {
  if (line.empty()) return std::nullopt;
  const char first = line.front();
  // The kernel's tag with no time before it (syslogd's broadcast to the terminals, a paste
  // without time and host): "kernel:watchdog: BUG: ...", " kernel:[Hardware Error]: ...".
  if (first == 'k' || first == ' ') {
    size_t at = 0;
    while (at < 2 && at < line.size() && line[at] == ' ') ++at;
    if (line.compare(at, 7, "kernel:") == 0) return ir::Channel::Kernel;
    if (first == 'k') return std::nullopt;
  }
  if (first == '[') {
    if (kernelTimestamp(line)) return ir::Channel::Kernel;
    return std::nullopt;
  }
  size_t at = 0;
  if (upper(first)) {
    if (!syslogTime(line, &at)) return std::nullopt;
    size_t afterHost = at;
    if (host(line, &afterHost)) {
      if (std::optional<ir::Channel> c = program(line, afterHost, /*pidRequired=*/false)) return c;
    }
    // A syslog file written without the host field ("Feb 23 03:28:16 kernel: EDAC MC1: ...",
    // rsyslog's RSYSLOG_FileFormat without %HOSTNAME%, or a paste that dropped it): only the
    // kernel is read so, its name being no host a line would otherwise start with.
    while (at < line.size() && line[at] == ' ') ++at;
    if (line.compare(at, 7, "kernel:") == 0 && (at + 7 == line.size() || line[at + 7] == ' ')) return ir::Channel::Kernel;
    return std::nullopt;
  }
  if (digit(first)) {
    if (isoTime(line, &at) && host(line, &at)) return program(line, at, /*pidRequired=*/true);
  }
  return std::nullopt;
}

LineChannel classifyLine(const LinePrefix& prefix, std::string_view line, ir::Channel hint) {
  const std::string_view message = line.substr(std::min(prefix.length, line.size()));
  std::string_view unindented = message;
  while (!unindented.empty() && (unindented.front() == ' ' || unindented.front() == '\t')) unindented.remove_prefix(1);
  for (const ir::ChannelMarker& m : ir::channelMarkers()) {
    bool holds = false;
    switch (m.form) {
      case ir::MarkerForm::Program: holds = !prefix.program.empty() && prefix.program == m.text; break;
      case ir::MarkerForm::Prefix: holds = prefix.kernelTimestamp; break;
      case ir::MarkerForm::Starts: holds = unindented.starts_with(m.text); break;
      case ir::MarkerForm::Contains: holds = message.find(m.text) != std::string_view::npos; break;
    }
    if (holds) return {m.channel, true};
  }
  return {hint, false};
}

ir::Channel channelHint(std::string_view name) {
  std::string base = ir::asciiLower(name.substr(name.find_last_of('/') == std::string_view::npos ? 0 : name.find_last_of('/') + 1));
  // Compression suffixes and rotation numbers ("syslog.2.gz", "messages-20261129").
  for (bool changed = true; changed;) {
    changed = false;
    for (const char* suffix : {".gz", ".xz", ".bz2", ".zst", ".lz4"}) {
      std::string_view s(suffix);
      if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0) {
        base.resize(base.size() - s.size());
        changed = true;
      }
    }
    size_t cut = base.find_last_of(".-");
    if (cut != std::string::npos && cut + 1 < base.size() &&
        std::all_of(base.begin() + static_cast<long>(cut) + 1, base.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      base.resize(cut);
      changed = true;
    }
  }
  std::string stem = base.substr(0, base.find('.'));
  ir::Channel c;
  if (ir::channelFromName(stem, &c)) return c;
  if (stem == "applog" || stem == "container") return ir::Channel::Application;
  if (stem == "k8s_events") return ir::Channel::Orchestrator;
  auto has = [&](const char* word) { return base.find(word) != std::string::npos; };
  auto starts = [&](const char* word) { return base.starts_with(word); };
  if (starts("dmesg") || starts("kern.log") || starts("kernel")) return ir::Channel::Kernel;
  if (starts("syslog") || starts("messages") || starts("journal") || starts("daemon.log")) return ir::Channel::System;
  if (starts("slurmd") || starts("slurmctld") || starts("slurmdbd") || starts("sacct")) return ir::Channel::Scheduler;
  if (has("events") || has("describe") || starts("kubelet")) return ir::Channel::Orchestrator;
  if (starts("containerd") || starts("docker") || starts("crio")) return ir::Channel::ContainerRuntime;
  return ir::Channel::Application;
}

}  // namespace attrib::evidence
