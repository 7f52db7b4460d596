// The form of a log pattern that Hyperscan scans raw chunks with.
//
// A pattern is written against a record's messages: `^` is the start of a line's message
// (after the prefix the reader recognises: timestamps, rank and srun labels, syslog host and
// program, NCCL's host:pid:tid; evidence/line_prefix.h), and a pattern with `\n` spans the lines
// of one record (evidence/log_record.h). Hyperscan sees the raw lines, prefixes and
// interleaved streams included, so it scans a superset of each pattern, and PCRE2 confirms the
// pattern itself on the record's messages:
//   - every `^` anchor is dropped (the message starts somewhere in the raw line);
//   - a multi-line pattern is scanned by its last line: the part after the last top-level
//     element that holds a `\n` (the line a record's match ends on), anchors dropped too; when
//     that element ends the pattern and is a group, the last line of the group's body; each
//     alternative of a `|` by its own, Hyperscan looking for any of them.
//   - a line's form with unbounded runs of any character (`A.*B`) is narrowed to the part
//     between them that has the longest literal (`B`, if its literal is longer): a superset
//     again, and much cheaper, since Hyperscan would otherwise carry the run's state from every
//     place `A` matched to the end of the line.
// A multi-line pattern that ends with a bare `\n` has no last line and no scan form.
#pragma once

#include <string>

namespace attrib {

struct ScanForm {
  std::string expression;  // what Hyperscan compiles
  bool multiline = false;  // the pattern has a `\n` outside character classes
  std::string error;       // why the pattern has no scan form (then `expression` is empty)
};

ScanForm scanForm(const std::string& regex);

// The longest run of literal text among a scan form's top-level elements (escapes decoded; ""
// when it has none): what Hyperscan looks for first. `attribc bench-patterns` measures a
// pattern set against these literals alone.
std::string literalFactor(const std::string& expression);

// A literal that every match of `regex` (with `flags`) holds and that its scan form does not
// look for, so that a line Hyperscan found by the scan form's literal can be passed over
// without running PCRE2 when this one is absent (compared without regard to case, which is only
// weaker). "" when there is none of at least 3 bytes, or when the pattern's text cannot be read
// for one safely: a top-level `|`, UTF mode, extended mode `(?x)`, verbs `(*...)`, `\Q...\E`,
// or escapes whose argument follows them (`\x41`, `\cM`, octal and back references).
// The literal is a top-level run (outside groups and classes, not quantified), so every match
// holds it: the check never rejects a line the pattern matches.
std::string requiredLiteral(const std::string& regex, const std::string& flags, const std::string& scanExpression);

}  // namespace attrib
