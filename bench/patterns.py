#!/usr/bin/env python3
"""The log patterns of a rule set, for the baselines of bench/run.

Reads .attr files (or directories searched recursively, in sorted order) and takes every
`match /REGEX/FLAGS` of every symptom declared `on log(...)`: exactly what `attribc build` puts
into the bundle's Hyperscan database (compiler/bundle_writer.cc, ir/bundle_format.cc), where a
pattern several symptoms share is one expression; --expect counts them all, the files hold each once. The
regex is the text between the slashes, unchanged (as the compiler stores it).

Writes into OUTDIR:
  patterns.hs     FLAGS<TAB>REGEX per line, unchanged: for bench/hs_scan (raw Hyperscan)
  patterns.ere    one POSIX ERE per line for GNU `grep -E -f` (named groups made plain, ...)
  patterns.rg     one Rust-regex per line for `rg -f`
  patterns.json   [[python_regex, flags], ...] for bench/pyre_loop.py (Python `re`)
  summary.json    counts, and which patterns each tool could not take and why

Translations only change syntax, never which lines match: (?<name>..) and (?P<name>..) become
plain groups (grep, rg) or (?P<name>..) (Python); an escaped character that needs no escape
loses its backslash; \\d and friends become classes for ERE; a lazy quantifier becomes greedy
for ERE (same lines match). A pattern a tool cannot express (ERE has no per-pattern case
flag, no look-around, ...) is skipped for that tool and counted. With --check, every translated
pattern is also compiled by the tool itself (grep -E, rg, re.compile) and skipped if refused.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys


# ---- reading .attr files -------------------------------------------------------------------

def regex_token(text, i):
    """text[i] == '/': returns (pattern, flags, end) like compiler/literals.cc regexClosingSlash."""
    j = i + 1
    in_class = False
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c in "\r\n":
            break
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
        elif c == "/":
            k = j + 1
            while k < len(text) and text[k].isalpha():
                k += 1
            return text[i + 1:j], text[j + 1:k], k
        j += 1
    raise ValueError("unterminated regex")


IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tokens(text):
    """Identifiers, strings, regexes after `match`/`matches`, and punctuation; no comments."""
    i, n = 0, len(text)
    prev_word = None
    while i < n:
        c = text[i]
        if c in " \t\r\n\f":
            i += 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            yield ("string", text[i + 1:j], i)
            i = j + 1
            prev_word = None
            continue
        if c == "/" and prev_word in ("match", "matches"):
            pattern, flags, end = regex_token(text, i)
            yield ("regex", (pattern, flags), i)
            i = end
            prev_word = None
            continue
        m = IDENT.match(text, i)
        if m:
            prev_word = m.group(0)
            yield ("word", prev_word, i)
            i = m.end()
            continue
        yield ("punct", c, i)
        prev_word = None
        i += 1


def log_patterns(path):
    """[(symptom, regex, flags)] of the symptoms declared `on log` in one file, in order."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = []
    depth = 0
    symptom = None     # inside `symptom NAME ... { }` at depth 1
    on_log = False
    pending = []
    expect_name = False
    prev = None
    for kind, value, _ in tokens(text):
        if kind == "punct" and value == "{":
            depth += 1
        elif kind == "punct" and value == "}":
            depth -= 1
            if depth == 0 and symptom is not None:
                if on_log:
                    out.extend((symptom, p, fl) for p, fl in pending)
                symptom, on_log, pending = None, False, []
        elif kind == "word" and depth == 0 and value == "symptom":
            expect_name = True
        elif kind == "word" and expect_name:
            symptom, expect_name = value, False
        elif kind == "word" and depth == 1 and symptom is not None and prev == ("word", "on"):
            on_log = value == "log"
        elif kind == "regex" and depth == 1 and symptom is not None and prev == ("word", "match"):
            pending.append(value)
        prev = (kind, value)
    return out


def attr_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs.sort()
                files.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".attr"))
        else:
            files.append(p)
    return files


# ---- translations --------------------------------------------------------------------------

class Unsupported(Exception):
    pass


ERE_SPECIAL = set(".[]()*+?{}|^$\\")
RUST_META = set("\\.+*?()|[]{}^$#&-~")
CLASS_ESCAPES = {"d": "0-9", "w": "A-Za-z0-9_", "s": " \\t"}


def parse_class(rx, i):
    """rx[i] == '[': returns (list of items, end) where items are chars or ('esc', c)."""
    j = i + 1
    items = []
    if j < len(rx) and rx[j] == "^":
        items.append("^")
        j += 1
    first = True
    while j < len(rx):
        c = rx[j]
        if c == "]" and not first:
            return items, j + 1
        if c == "\\" and j + 1 < len(rx):
            items.append(("esc", rx[j + 1]))
            j += 2
        else:
            items.append(c)
            j += 1
        first = False
    raise Unsupported("unterminated class")


def to_ere(rx):
    """PCRE -> POSIX ERE (GNU grep -E), or Unsupported."""
    out = []
    i = 0
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            if i + 1 >= len(rx):
                raise Unsupported("trailing backslash")
            e = rx[i + 1]
            if e == "d":
                out.append("[0-9]")
            elif e == "D":
                out.append("[^0-9]")
            elif e in "bBwWsS":
                out.append("\\" + e)  # GNU extensions
            elif e in ERE_SPECIAL:
                out.append("\\" + e)
            elif e.isalnum():
                raise Unsupported("escape \\%s" % e)
            else:
                out.append(e)  # \/ \- \' ... need no escape
            i += 2
            continue
        if c == "[":
            items, end = parse_class(rx, i)
            body = []
            for it in items:
                if isinstance(it, tuple):
                    e = it[1]
                    if e in CLASS_ESCAPES and e != "s":
                        body.append(CLASS_ESCAPES[e])
                    elif e in ".:/'\"_,;=@#%&!~<>`":
                        body.append(e)
                    else:
                        raise Unsupported("escape \\%s inside a class" % e)
                else:
                    body.append(it)
            out.append("[" + "".join(body) + "]")
            i = end
            continue
        if c == "(" and rx.startswith("(?", i):
            if rx.startswith("(?P<", i) or (rx.startswith("(?<", i) and rx[i + 3:i + 4] not in ("=", "!")):
                close = rx.find(">", i)
                out.append("(")
                i = close + 1
                continue
            if rx.startswith("(?:", i):
                out.append("(")
                i += 3
                continue
            raise Unsupported("group construct %s" % rx[i:i + 4])
        if c in "*+?}" and i + 1 < len(rx) and rx[i + 1] == "?":
            out.append(c)  # lazy: the same lines match greedily
            i += 2
            continue
        if c in "*+?}" and i + 1 < len(rx) and rx[i + 1] == "+":
            raise Unsupported("possessive quantifier")
        out.append(c)
        i += 1
    return "".join(out)


def to_rust(rx):
    """PCRE -> Rust regex (ripgrep 13): plain groups, no needless escapes."""
    out = []
    i = 0
    in_class = False
    while i < len(rx):
        c = rx[i]
        if c == "\\" and i + 1 < len(rx):
            e = rx[i + 1]
            if e.isalnum() or e in RUST_META or e == " ":
                out.append(rx[i:i + 2])
            else:
                out.append(e)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            if rx[i + 1:i + 2] == "^":
                out.append("^")
                i += 1
            if rx[i + 1:i + 2] == "]":
                out.append("\\]")
                i += 1
            i += 1
            continue
        if rx.startswith("(?P<", i) or (rx.startswith("(?<", i) and rx[i + 3:i + 4] not in ("=", "!")):
            out.append("(")
            i = rx.find(">", i) + 1
            continue
        if rx.startswith("(?=", i) or rx.startswith("(?!", i) or rx.startswith("(?<=", i) or rx.startswith("(?<!", i):
            raise Unsupported("look-around")
        out.append(c)
        i += 1
    return "".join(out)


def to_python(rx):
    """PCRE -> Python re: (?<name>..) -> (?P<name>..)."""
    out = []
    i = 0
    in_class = False
    while i < len(rx):
        c = rx[i]
        if c == "\\" and i + 1 < len(rx):
            out.append(rx[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if rx[i + 1:i + 2] == "^":
                out.append("[^")
                i += 2
                if rx[i:i + 1] == "]":
                    out.append("\\]")
                    i += 1
                continue
        elif rx.startswith("(?<", i) and rx[i + 3:i + 4] not in ("=", "!"):
            out.append("(?P<")
            i += 3
            continue
        out.append(c)
        i += 1
    return "".join(out)


def tool_accepts(tool, pattern):
    """Whether the tool itself compiles the pattern (exit status 0/1 on empty input, no warning)."""
    if tool == "grep":
        cmd = ["grep", "-E", "-e", pattern]
    else:
        cmd = ["rg", "--no-config", "-e", pattern, "-"]
    r = subprocess.run(cmd, input=b"", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C"))
    return r.returncode in (0, 1) and not r.stderr.strip(), r.stderr.decode(errors="replace").strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help=".attr files or directories")
    ap.add_argument("-o", "--outdir", required=True)
    ap.add_argument("--expect", type=int, help="fail unless exactly this many log patterns (attribc build's count)")
    ap.add_argument("--check", action="store_true", help="also compile each pattern with grep, rg and re")
    args = ap.parse_args()

    found = []
    for f in attr_files(args.paths):
        found.extend(log_patterns(f))
    if args.expect is not None and len(found) != args.expect:
        print("patterns: found %d log patterns, attribc build reports %d" % (len(found), args.expect), file=sys.stderr)
        return 1
    total = len(found)
    # A pattern several symptoms share is one expression in attrib's database (ir/bundle_format.h):
    # every tool gets it once.
    seen = set()
    found = [p for p in found if (p[1], p[2]) not in seen and not seen.add((p[1], p[2]))]
    os.makedirs(args.outdir, exist_ok=True)

    ere, rust, py = [], [], []
    skipped = {"grep": [], "rg": [], "python": []}
    for symptom, rx, flags in found:
        # grep -E: one flag set for all patterns; a per-pattern case flag cannot be expressed.
        try:
            if "i" in flags:
                raise Unsupported("per-pattern /i")
            e = to_ere(rx)
            if args.check and shutil.which("grep"):
                ok, why = tool_accepts("grep", e)
                if not ok:
                    raise Unsupported("grep: " + why)
            ere.append(e)
        except Unsupported as ex:
            skipped["grep"].append({"symptom": symptom, "regex": rx, "why": str(ex)})
        try:
            r = to_rust(rx)
            inline = "".join(f for f in flags if f in "is")
            if inline:
                r = "(?%s)%s" % (inline, r)
            if args.check and shutil.which("rg"):
                ok, why = tool_accepts("rg", r)
                if not ok:
                    raise Unsupported("rg: " + why.splitlines()[-1] if why else "rg refused it")
            rust.append(r)
        except Unsupported as ex:
            skipped["rg"].append({"symptom": symptom, "regex": rx, "why": str(ex)})
        try:
            p = to_python(rx)
            try:
                re.compile(p)
            except re.error as err:
                raise Unsupported("re: %s" % err)
            py.append([p, flags])
        except Unsupported as ex:
            skipped["python"].append({"symptom": symptom, "regex": rx, "why": str(ex)})

    def write(name, lines):
        with open(os.path.join(args.outdir, name), "w", encoding="utf-8") as f:
            for line in lines:
                f.write(line + "\n")

    write("patterns.hs", ["%s\t%s" % (fl, rx) for _, rx, fl in found])
    write("patterns.ere", ere)
    write("patterns.rg", rust)
    with open(os.path.join(args.outdir, "patterns.json"), "w", encoding="utf-8") as f:
        json.dump(py, f, indent=0)
    summary = {"patterns": total, "distinct": len(found), "grep": len(ere), "rg": len(rust), "python": len(py), "skipped": skipped}
    with open(os.path.join(args.outdir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    print("patterns: %d log patterns, %d distinct; grep -E takes %d (%d skipped), rg %d (%d skipped), python re %d (%d skipped)"
          % (total, len(found), len(ere), len(skipped["grep"]), len(rust), len(skipped["rg"]), len(py),
             len(skipped["python"])))
    for tool, items in skipped.items():
        for s in items:
            print("  %s skips %s /%s/: %s" % (tool, s["symptom"], s["regex"], s["why"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
