#include "evidence/log_record.h"

#include <algorithm>

namespace attrib::evidence {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string_view messageOf(RecordLines& lines, size_t i) {
  std::string_view line = lines.line(i);
  return line.substr(std::min(lines.prefix(i).length, line.size()));
}

bool isBlankMessage(std::string_view m) {
  return std::all_of(m.begin(), m.end(), [](char c) { return c == ' ' || c == '\t'; });
}

bool indented(std::string_view m) {
  return !isBlankMessage(m) && (m.starts_with("  ") || m.starts_with("\t"));
}

// "frame #3: ...", "#3  0x00007f... in foo ()", " 3 0x0000000000043090 killpg()  ???:0".
bool stackFrame(std::string_view m) {
  size_t p = 0;
  if (m.starts_with("frame #")) {
    p = 7;
    size_t start = p;
    while (p < m.size() && isDigit(m[p])) ++p;
    return p > start && p < m.size() && m[p] == ':';
  }
  if (!m.empty() && m[0] == '#') {
    p = 1;
    size_t start = p;
    while (p < m.size() && isDigit(m[p])) ++p;
    return p > start && p < m.size() && m[p] == ' ';
  }
  if (m.starts_with(" ")) p = 1;
  size_t start = p;
  while (p < m.size() && isDigit(m[p])) ++p;
  if (p == start || !m.substr(p).starts_with(" 0x")) return false;
  p += 3;
  size_t hex = p;
  while (p < m.size() && isHex(m[p])) ++p;
  return p - hex >= 8;
}

bool chainLine(std::string_view m) {
  return m.starts_with("During handling of the above exception, another exception occurred:") ||
         m.starts_with("The above exception was the direct cause of the following exception:");
}

bool tracebackHead(std::string_view m) { return m.starts_with("Traceback (most recent call last):"); }

// UCX's fatal-signal report (ucs/debug/debug.c, UCX 1.x): after "[host:pid:tid] Caught signal 7
// (Bus error: ...)" come "==== backtrace (tid:   7025) ====", the frames, and a border of '='.
// Only the first line carries UCX's prefix.
bool ucxBacktraceHeader(std::string_view m) { return m.starts_with("==== backtrace (tid:"); }
bool ucxBacktraceClose(std::string_view m) {
  return m.size() >= 16 && std::all_of(m.begin(), m.end(), [](char c) { return c == '='; });
}
bool ucxBacktraceBorder(std::string_view m) { return ucxBacktraceHeader(m) || ucxBacktraceClose(m); }

bool anonymous(const LinePrefix& p) {
  return p.host.empty() && p.program.empty() && !p.pid && !p.rank && !p.task && !p.localRank;
}

// A row of a table whose first column is a right-aligned id: ipmitool's `sel list` and `sel
// elist` print each System Event Log entry as "%4x | date | time | sensor | event | direction"
// (lib/ipmi_sel.c, ipmitool 1.8), so ids below 0x1000 start with blanks. Each row is an entry of
// its own, not a continuation of the row above it.
bool idColumnRow(std::string_view m) {
  size_t p = 0;
  while (p < m.size() && m[p] == ' ') ++p;
  const size_t digits = p;
  while (p < m.size() && isHex(m[p])) ++p;
  return p > digits && p - digits <= 8 && m.substr(p).starts_with(" | ");
}

// A row of the Events table of `kubectl describe` (kubectl's describe.go, DescribeEvents: after
// "Events:", each event as LEVEL_1 "%v\t%v\t%s\t%v\t%v" of type, reason, age, source and
// message, the tabs padded to blanks by a tabwriter): "  Warning  Evicted  2m  kubelet  The node
// was low on resource: memory." Indented as continuations are, but each row is an event of its
// own: three evictions are three records, not one.
bool kubectlEventRow(std::string_view m) {
  size_t p = 0;
  while (p < m.size() && (m[p] == ' ' || m[p] == '\t')) ++p;
  m.remove_prefix(p);
  for (std::string_view type : {std::string_view("Normal"), std::string_view("Warning")}) {
    if (!m.starts_with(type)) continue;
    size_t q = type.size(), gap = 0;
    for (; q < m.size() && (m[q] == ' ' || m[q] == '\t'); ++q) gap += m[q] == '\t' ? 2 : 1;
    return gap >= 2 && q < m.size() && m[q] >= 'A' && m[q] <= 'Z';
  }
  return false;
}

// A line that continues whatever came before it in its stream, by its own form.
bool continuationForm(std::string_view m) {
  return (indented(m) && !idColumnRow(m) && !kubectlEventRow(m)) || stackFrame(m) ||
         m.starts_with("Exception raised from ") || chainLine(m);
}

// A kernel message's subsystem word: what it starts with up to the first blank or ':' ("NVRM",
// "mlx5_core", "IPv6", "pcieport"), at most 32 bytes.
std::string_view subsystemWord(std::string_view m) {
  size_t n = 0;
  while (n < m.size() && n < 32 && m[n] != ' ' && m[n] != ':' && m[n] != '\t') ++n;
  return m.substr(0, n);
}

// The lines of one multi-line printk share its ring-buffer time and its subsystem word (every
// line of the NVRM probe report starts "NVRM:"). Distinct messages printed within the same
// microsecond (a burst of boot or carrier events from several drivers) also share the time; they
// are records of their own when their words differ. Two messages of one subsystem in the same
// microsecond cannot be told from one printk's lines by their form, and stay one record.
bool sameKernelRecord(RecordLines& lines, size_t previous, size_t current) {
  const LinePrefix& p = lines.prefix(previous);
  const LinePrefix& c = lines.prefix(current);
  if (!c.monotonic || !p.monotonic || *c.monotonic != *p.monotonic) return false;
  const std::string_view word = subsystemWord(messageOf(lines, current));
  return !word.empty() && word == subsystemWord(messageOf(lines, previous));
}

// Walks the lines of one stream, forwards or backwards, from a line of it.
class StreamCursor {
 public:
  StreamCursor(RecordLines& lines, size_t from, size_t budget) : lines_(lines), at_(from), budget_(budget) {}
  // The next line of the stream after (forward) or before (backward) the current one; false
  // when there is none within the budget of lines looked at.
  bool step(bool forward) {
    const LinePrefix& self = lines_.prefix(at_);
    for (size_t k = at_;;) {
      if (budget_ == 0) return false;
      --budget_;
      if (forward) {
        if (k + 1 >= lines_.size()) return false;
        ++k;
      } else {
        if (k == 0) return false;
        --k;
      }
      if (sameStream(lines_.prefix(k), self)) {
        at_ = k;
        return true;
      }
    }
  }
  size_t at() const { return at_; }

 private:
  RecordLines& lines_;
  size_t at_;
  size_t budget_;
};

// Whether line `i` is the exception line that ends a traceback: the line of its stream before
// it is indented, and walking back over indented lines reaches "Traceback (most recent call
// last):". Returns that head's index.
bool endsTraceback(RecordLines& lines, size_t i, size_t budget, size_t* head) {
  StreamCursor back(lines, i, budget);
  bool sawBody = false;
  while (back.step(false)) {
    std::string_view m = messageOf(lines, back.at());
    if (tracebackHead(m)) {
      if (!sawBody) return false;
      *head = back.at();
      return true;
    }
    if (!indented(m)) return false;
    sawBody = true;
  }
  return false;
}

}  // namespace

bool sameStream(const LinePrefix& a, const LinePrefix& b) {
  return a.host == b.host && a.program == b.program && a.pid == b.pid && a.rank == b.rank && a.task == b.task &&
         a.localRank == b.localRank;
}

std::vector<uint32_t> recordAt(RecordLines& lines, size_t i, const RecordLimits& limits) {
  // 1. The head: back over continuation lines (and through a traceback to its head).
  size_t head = i;
  {
    size_t budget = limits.maxLookBack;
    for (;;) {
      std::string_view m = messageOf(lines, head);
      size_t tracebackStart;
      if (!continuationForm(m) && !tracebackHead(m) && endsTraceback(lines, head, budget, &tracebackStart)) {
        head = tracebackStart;
        continue;  // the traceback may itself follow a chained one
      }
      StreamCursor back(lines, head, budget);
      if (!back.step(false)) break;
      const size_t before = head - back.at();
      budget = budget > before ? budget - before : 0;
      bool joins = continuationForm(m) || sameKernelRecord(lines, back.at(), head);
      // A chain line (after blank lines) continues the traceback that ends before it: the walk
      // goes on from that traceback's exception line.
      if (chainLine(m)) {
        StreamCursor before(lines, head, budget);
        while (before.step(false) && isBlankMessage(messageOf(lines, before.at()))) {
        }
        if (before.at() != head && !isBlankMessage(messageOf(lines, before.at()))) {
          size_t earlier;
          if (endsTraceback(lines, before.at(), budget, &earlier)) {
            head = earlier;
            continue;
          }
        }
      }
      // "Traceback ..." after a chain line (and its blank line) continues the chain.
      if (!joins && tracebackHead(m)) {
        StreamCursor chain(lines, head, budget);
        while (chain.step(false) && isBlankMessage(messageOf(lines, chain.at()))) {
        }
        joins = chain.at() != head && chainLine(messageOf(lines, chain.at()));
        if (joins) {
          head = chain.at();
          continue;
        }
      }
      if (!joins) break;
      head = back.at();
      if (budget == 0) break;
    }
  }
  // A backtrace printed without its writer's prefix (UCX's header, then its frames) belongs to
  // the line right before it, as the forward walk below joins it.
  if (head > 0 && anonymous(lines.prefix(head)) && ucxBacktraceHeader(messageOf(lines, head)) &&
      !anonymous(lines.prefix(head - 1))) {
    --head;
  }
  // 2. The record: forward from the head while lines continue it.
  std::vector<uint32_t> out{static_cast<uint32_t>(head)};
  size_t bytes = lines.line(head).size();
  bool inTraceback = tracebackHead(messageOf(lines, head));
  bool afterChain = chainLine(messageOf(lines, head));
  bool chainPending = false;  // blank lines between an exception line and a chain line
  StreamCursor forward(lines, head, limits.maxLookBack + limits.maxLines);
  while (out.size() < limits.maxLines) {
    // A backtrace printed without its writer's prefix (UCX's) joins the line right before it,
    // whoever wrote that: a line with no identity of its own in a backtrace's form.
    const size_t adjacent = out.back() + 1;
    if (adjacent < lines.size() && !anonymous(lines.prefix(out.front())) && anonymous(lines.prefix(adjacent))) {
      const std::string_view m = messageOf(lines, adjacent);
      const bool inBacktrace = ucxBacktraceBorder(m) || (stackFrame(m) && out.size() > 1 &&
                                                         ucxBacktraceBorder(messageOf(lines, out[1])));
      if (inBacktrace && bytes + lines.line(adjacent).size() + 1 <= limits.maxBytes) {
        bytes += lines.line(adjacent).size() + 1;
        out.push_back(static_cast<uint32_t>(adjacent));
        if (ucxBacktraceClose(m)) break;
        continue;
      }
    }
    if (!forward.step(true)) break;
    const size_t k = forward.at();
    std::string_view m = messageOf(lines, k);
    bool joins = false;
    bool endsHere = false;
    if (continuationForm(m) || sameKernelRecord(lines, out.back(), k)) {
      joins = true;
      if (chainLine(m)) {
        afterChain = true;
        chainPending = false;
      }
    } else if ((afterChain || chainPending) && isBlankMessage(m)) {
      joins = true;
    } else if (afterChain && tracebackHead(m)) {
      joins = true;
      if (tracebackHead(m)) {
        inTraceback = true;
        afterChain = false;
      }
    } else if (inTraceback && !isBlankMessage(m) && !tracebackHead(m)) {
      // The exception line ends the traceback (a chain line may still follow).
      joins = true;
      endsHere = true;
      inTraceback = false;
    }
    if (!joins) break;
    bytes += lines.line(k).size() + 1;
    if (bytes > limits.maxBytes) break;
    out.push_back(static_cast<uint32_t>(k));
    if (endsHere) {
      // A chain line after the exception line (blank lines between) continues the record;
      // anything else ends it.
      StreamCursor peek(lines, k, 8);
      while (peek.step(true) && isBlankMessage(messageOf(lines, peek.at()))) {
      }
      if (peek.at() == k || !chainLine(messageOf(lines, peek.at()))) break;
      chainPending = true;
    }
  }
  // The record must hold the line asked about; when the forward walk stopped short of it (a
  // bound), the line is a record of its own.
  if (std::find(out.begin(), out.end(), static_cast<uint32_t>(i)) == out.end()) return {static_cast<uint32_t>(i)};
  return out;
}

}  // namespace attrib::evidence
