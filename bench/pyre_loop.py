#!/usr/bin/env python3
"""What a Python rules engine does: for every line of every log file, try every compiled log
pattern with `re` (pattern.search(line)). The baseline "python re loop" of bench/run.

    pyre_loop.py PATTERNS_JSON DIR [--budget 50M]

PATTERNS_JSON is bench/patterns.py's patterns.json. DIR is a workload directory (its logs/ tree)
or a directory of logs. With --budget, only the first budget/total share of each file is read
(whole lines), so the subset has the same mix of sources as the whole input; the throughput of
the subset stands for the whole (the loop is linear in lines and patterns). Prints one JSON
object: bytes and lines read, matches, matched lines, seconds, GB/s.
"""

import argparse
import json
import os
import re
import sys
import time


def parse_size(text):
    t = text.strip().upper().rstrip("B").rstrip("I")
    mult = 1
    if t and t[-1] in "KMGT":
        mult = 1024 ** ("KMGT".index(t[-1]) + 1)
        t = t[:-1]
    return int(float(t) * mult)


def log_files(root):
    logs = os.path.join(root, "logs")
    if os.path.isdir(logs):
        root = logs
    out = []
    for d, dirs, names in os.walk(root):
        dirs.sort()
        for n in sorted(names):
            if ".log" in n:
                out.append(os.path.join(d, n))
    return out


def plain_size(path):
    """Bytes of the decompressed file (gzip's ISIZE trailer: exact below 4 GiB)."""
    if path.endswith(".gz"):
        with open(path, "rb") as f:
            f.seek(-4, os.SEEK_END)
            return int.from_bytes(f.read(4), "little")
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("patterns")
    ap.add_argument("dir")
    ap.add_argument("--budget", type=parse_size, default=None, help="bytes to read in total (default: all)")
    args = ap.parse_args()

    with open(args.patterns) as f:
        specs = json.load(f)
    compiled = []
    for rx, flags in specs:
        fl = 0
        if "i" in flags:
            fl |= re.IGNORECASE
        if "s" in flags:
            fl |= re.DOTALL
        compiled.append(re.compile(rx, fl))
    searches = [p.search for p in compiled]

    files = log_files(args.dir)
    sizes = [plain_size(f) for f in files]
    total = sum(sizes)
    share = 1.0 if not args.budget or args.budget >= total else args.budget / total

    started = time.perf_counter()
    nbytes = nlines = matches = matched_lines = 0
    for path, size in zip(files, sizes):
        limit = size * share if share < 1.0 else float("inf")
        opener = open
        if path.endswith(".gz"):
            import gzip
            opener = gzip.open
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="\n") as f:
            read = 0
            for line in f:
                hit = False
                for search in searches:
                    if search(line):
                        matches += 1
                        hit = True
                if hit:
                    matched_lines += 1
                nlines += 1
                read += len(line)
                if read >= limit:
                    break
            nbytes += read
    elapsed = time.perf_counter() - started
    print(json.dumps({"patterns": len(compiled), "files": len(files), "bytes": nbytes, "lines": nlines,
                      "share": round(share, 6), "matches": matches, "matched_lines": matched_lines,
                      "seconds": round(elapsed, 4), "gb_per_s": round(nbytes / elapsed / 1e9, 6) if elapsed else 0}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
