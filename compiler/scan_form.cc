#include "compiler/scan_form.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace attrib {
namespace {

// One top-level element of a pattern: [begin, end) in the source, quantifier included.
struct Element {
  size_t begin, end;
  bool newline;  // holds a `\n` outside character classes
};

bool isQuantifierStart(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

// The end of an escape starting at `i` (the backslash); sets `newline` for `\n`.
size_t escapeEnd(std::string_view s, size_t i, bool* newline) {
  if (i + 1 >= s.size()) return s.size();
  char c = s[i + 1];
  if (c == 'n') *newline = true;
  if (c == 'Q') {  // \Q...\E: literal text
    size_t e = s.find("\\E", i + 2);
    return e == std::string_view::npos ? s.size() : e + 2;
  }
  if ((c == 'x' || c == 'p' || c == 'P' || c == 'N' || c == 'o' || c == 'g' || c == 'k') && i + 2 < s.size() &&
      s[i + 2] == '{') {
    size_t e = s.find('}', i + 3);
    return e == std::string_view::npos ? s.size() : e + 1;
  }
  return i + 2;
}

// The end of a character class starting at `i` (its '[').
size_t classEnd(std::string_view s, size_t i) {
  size_t p = i + 1;
  if (p < s.size() && s[p] == '^') ++p;
  if (p < s.size() && s[p] == ']') ++p;  // a ']' first is literal
  while (p < s.size() && s[p] != ']') {
    if (s[p] == '\\') {
      p += 2;
    } else if (s[p] == '[' && p + 1 < s.size() && s[p + 1] == ':') {
      size_t e = s.find(":]", p + 2);
      p = e == std::string_view::npos ? s.size() : e + 2;
    } else {
      ++p;
    }
  }
  return p < s.size() ? p + 1 : s.size();
}

// The end of the quantifier (if any) at `i`, lazy and possessive suffixes included.
size_t quantifierEnd(std::string_view s, size_t i) {
  if (i >= s.size() || !isQuantifierStart(s[i])) return i;
  size_t p = i;
  if (s[p] == '{') {
    size_t e = s.find('}', p);
    // "{" that is not a counted repetition is a literal: no quantifier.
    if (e == std::string_view::npos) return i;
    for (size_t k = p + 1; k < e; ++k) {
      if (!(s[k] >= '0' && s[k] <= '9') && s[k] != ',') return i;
    }
    p = e + 1;
  } else {
    ++p;
  }
  if (p < s.size() && (s[p] == '?' || s[p] == '+')) ++p;
  return p;
}

// Splits the pattern into top-level elements; false on a top-level '|'.
bool topLevel(std::string_view s, std::vector<Element>* out, bool* alternation) {
  *alternation = false;
  size_t i = 0;
  while (i < s.size()) {
    Element e{i, i, false};
    char c = s[i];
    if (c == '\\') {
      i = escapeEnd(s, i, &e.newline);
    } else if (c == '[') {
      i = classEnd(s, i);
    } else if (c == '(') {
      int depth = 0;
      size_t p = i;
      while (p < s.size()) {
        if (s[p] == '\\') {
          p = escapeEnd(s, p, &e.newline);
          continue;
        }
        if (s[p] == '[') {
          p = classEnd(s, p);
          continue;
        }
        if (s[p] == '(') ++depth;
        if (s[p] == ')' && --depth == 0) {
          ++p;
          break;
        }
        ++p;
      }
      i = p;
    } else if (c == '|') {
      *alternation = true;
      ++i;
    } else {
      ++i;
    }
    i = quantifierEnd(s, i);
    e.end = i;
    out->push_back(e);
  }
  return true;
}

// The pattern without its `^` anchors (outside character classes and escapes).
std::string withoutAnchors(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '\\') {
      bool ignored = false;
      size_t e = escapeEnd(s, i, &ignored);
      out.append(s.substr(i, e - i));
      i = e;
    } else if (s[i] == '[') {
      size_t e = classEnd(s, i);
      out.append(s.substr(i, e - i));
      i = e;
    } else if (s[i] == '^') {
      ++i;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// The body of a group element "(...)", "(?:...)", "(?<name>...)", "(?i:...)" with any quantifier,
// or false when the element is not a group.
bool groupBody(std::string_view element, std::string_view* body) {
  if (element.empty() || element[0] != '(') return false;
  size_t close = element.rfind(')');
  if (close == std::string_view::npos || close == 0) return false;
  size_t open = 1;
  if (open < element.size() && element[open] == '?') {
    if (open + 1 < element.size() && (element[open + 1] == '<' || element[open + 1] == 'P' || element[open + 1] == '\'')) {
      size_t end = element.find_first_of(">'", open + 2);
      if (end == std::string_view::npos || end > close) return false;
      open = end + 1;
    } else {
      size_t colon = element.find(':', open);
      if (colon == std::string_view::npos || colon > close) return false;  // lookaround etc.
      open = colon + 1;
    }
  }
  *body = element.substr(open, close - open);
  return true;
}

// Splits at top-level '|'.
std::vector<std::string_view> alternatives(std::string_view s) {
  std::vector<Element> elements;
  bool alternation = false;
  topLevel(s, &elements, &alternation);
  std::vector<std::string_view> out;
  size_t from = 0;
  for (const Element& e : elements) {
    if (e.end == e.begin + 1 && s[e.begin] == '|') {
      out.push_back(s.substr(from, e.begin - from));
      from = e.end;
    }
  }
  out.push_back(s.substr(from));
  return out;
}

// Whether a top-level element is a run of any characters: `.` repeated without an upper bound
// (`.*`, `.+`, `.*?`, `.{2,}`). Hyperscan keeps state for such a run from every place its
// left part matched to the end of the line, which on common left parts (`step N |`) costs more
// than all other patterns together.
bool isDotRun(std::string_view s, const Element& e) {
  if (e.end - e.begin < 2 || s[e.begin] != '.') return false;
  std::string_view q = s.substr(e.begin + 1, e.end - e.begin - 1);
  if (q[0] == '*' || q[0] == '+') return true;
  return q[0] == '{' && q.find(',') != std::string_view::npos && q[q.find(',') + 1] == '}';
}

// Whether a top-level element sets flags for the rest of its alternative: `(?i)`, `(?s-i)`.
bool isInlineFlags(std::string_view s, const Element& e) {
  std::string_view t = s.substr(e.begin, e.end - e.begin);
  if (t.size() < 4 || t.substr(0, 2) != "(?" || t.back() != ')') return false;
  for (char c : t.substr(2, t.size() - 3)) {
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '-') return false;
  }
  return true;
}

// Bytes of literal text an element contributes to a run of them: 1 for a plain character or an
// escaped punctuation character, 0 for anything else (classes, groups, quantified elements,
// `\d`-style escapes) -- which ends the run.
size_t literalBytes(std::string_view s, const Element& e) {
  std::string_view t = s.substr(e.begin, e.end - e.begin);
  if (t.size() == 1) return std::string_view(".^$|()[]{}*+?\\").find(t[0]) == std::string_view::npos ? 1 : 0;
  if (t.size() == 2 && t[0] == '\\') {
    unsigned char c = static_cast<unsigned char>(t[1]);
    return (c < 0x80 && !std::isalnum(c)) ? 1 : 0;
  }
  return 0;
}

// A single-line alternative narrowed to its part between unbounded dot runs that has the
// longest literal (the last one on a tie, which ends where the pattern ends). Every line the
// alternative matches holds a match of each such part, so the part is a superset and PCRE2,
// which confirms every candidate line with the whole pattern, decides as before.
std::string narrowed(std::string_view alt) {
  std::vector<Element> elements;
  bool alternation = false;
  topLevel(alt, &elements, &alternation);
  size_t bestBegin = 0, bestEnd = alt.size(), bestLiteral = 0, from = 0, longest = 0, run = 0;
  bool split = false;
  auto close = [&](size_t end) {
    if (longest >= bestLiteral && longest > 0) {
      bestLiteral = longest;
      bestBegin = from;
      bestEnd = end;
    }
  };
  for (const Element& e : elements) {
    if (isInlineFlags(alt, e)) return std::string(alt);  // `(?i)` reaches the parts after it
    if (isDotRun(alt, e)) {
      split = true;
      close(e.begin);
      from = e.end;
      longest = run = 0;
      continue;
    }
    size_t n = literalBytes(alt, e);
    run = n ? run + n : 0;
    longest = std::max(longest, run);
  }
  close(alt.size());
  if (!split || bestLiteral == 0) return std::string(alt);
  return std::string(alt.substr(bestBegin, bestEnd - bestBegin));
}

// The expression with each top-level alternative narrowed (see narrowed()).
std::string narrowedAlternatives(std::string_view expression) {
  std::string out;
  bool first = true;
  for (std::string_view alt : alternatives(expression)) {
    out += (first ? "" : "|") + narrowed(alt);
    first = false;
  }
  return out;
}

ScanForm formOf(std::string_view regex, int depth) {
  ScanForm out;
  if (depth > 32) {
    out.error = "a pattern that spans lines nests its groups too deeply to be scanned";
    return out;
  }
  std::vector<std::string_view> alts = alternatives(regex);
  if (alts.size() > 1) {
    // Each alternative is found by its own last line; Hyperscan looks for any of them.
    std::string joined;
    for (std::string_view alt : alts) {
      ScanForm f = formOf(alt, depth + 1);
      if (!f.error.empty()) return f;
      out.multiline |= f.multiline;
      joined += (joined.empty() ? "" : "|") + f.expression;
    }
    out.expression = out.multiline ? "(?:" + joined + ")" : narrowedAlternatives(withoutAnchors(regex));
    return out;
  }
  std::vector<Element> elements;
  bool alternation = false;
  topLevel(regex, &elements, &alternation);
  size_t lastNewline = std::string::npos;
  for (size_t k = 0; k < elements.size(); ++k) {
    if (elements[k].newline) {
      out.multiline = true;
      lastNewline = k;
    }
  }
  if (!out.multiline) {
    out.expression = narrowedAlternatives(withoutAnchors(regex));
    return out;
  }
  std::string tail = withoutAnchors(regex.substr(elements[lastNewline].end));
  bool substance = false;
  for (char c : tail) substance |= c != '$' && c != '(' && c != ')' && c != '?' && c != ':';
  if (substance) {
    out.expression = narrowedAlternatives(tail);
    return out;
  }
  // The pattern ends with the element that spans lines: a group is found by the last line of
  // its body; a bare '\n' has no line after it to find it by.
  const Element& last = elements[lastNewline];
  std::string_view body;
  if (groupBody(regex.substr(last.begin, last.end - last.begin), &body)) {
    ScanForm inner = formOf(body, depth + 1);
    if (!inner.error.empty()) return inner;
    out.expression = inner.expression;
    return out;
  }
  out.error = "a pattern that spans lines must end with its last line's text (after the last '\\n'), which finds it";
  return out;
}

}  // namespace

ScanForm scanForm(const std::string& regex) { return formOf(regex, 0); }

std::string literalFactor(const std::string& expression) {
  std::vector<Element> elements;
  bool alternation = false;
  topLevel(expression, &elements, &alternation);
  std::string best, run;
  for (const Element& e : elements) {
    if (literalBytes(expression, e) == 0) {
      run.clear();
      continue;
    }
    run += expression[e.end - 1];  // the character itself, or the escaped one
    if (run.size() > best.size()) best = run;
  }
  return best;
}

std::string requiredLiteral(const std::string& regex, const std::string& flags, const std::string& scanExpression) {
  if (flags.find('u') != std::string::npos || regex.find("(*") != std::string::npos) return "";
  for (size_t i = regex.find("(?"); i != std::string::npos; i = regex.find("(?", i + 2)) {
    size_t p = i + 2;
    while (p < regex.size() && (std::isalpha(static_cast<unsigned char>(regex[p])) || regex[p] == '-')) {
      if (regex[p] == 'x') return "";
      ++p;
    }
  }
  for (size_t i = 0; i + 1 < regex.size(); ++i) {
    if (regex[i] != '\\') continue;
    const char c = regex[i + 1];
    if (std::string_view("xcogkpPNQ").find(c) != std::string_view::npos || (c >= '0' && c <= '9')) return "";
    ++i;  // the escaped character is not the start of another escape
  }
  // Top-level literal runs, escapes decoded.
  auto runsOf = [](std::string_view expression, bool* alternation) {
    std::vector<Element> elements;
    topLevel(expression, &elements, alternation);
    std::vector<std::string> runs(1);
    for (const Element& e : elements) {
      if (literalBytes(expression, e) == 0) {
        if (!runs.back().empty()) runs.emplace_back();
        continue;
      }
      runs.back() += expression[e.end - 1];  // the character itself, or the escaped one
    }
    return runs;
  };
  bool alternation = false, scanAlternation = false;
  const std::vector<std::string> runs = runsOf(regex, &alternation);
  if (alternation) return "";
  const std::vector<std::string> scanned = runsOf(scanExpression, &scanAlternation);
  std::string best;
  for (const std::string& run : runs) {
    if (run.size() < 3 || run.size() <= best.size()) continue;
    const bool lookedFor = std::any_of(scanned.begin(), scanned.end(),
                                       [&](const std::string& s) { return s.find(run) != std::string::npos; });
    if (!lookedFor) best = run;
  }
  return best;
}

}  // namespace attrib
