#!/usr/bin/env python3
"""Fails when a binary links (DT_NEEDED) a library it must only dlopen when used.

libLLVM (the JIT's compiler: jit/llvm_backend.h), libcurl (connectors/http/curl_api.h) and libpq
(pg/libpq_api.h) cost every start of a program that links them 5-15 ms and libLLVM 45 MB of
resident memory, whether or not the run uses them (docs/performance.md). Usage:

    check_needed.py BINARY...

Prints each binary's offending libraries and exits 1 if any has one.
"""
import re
import subprocess
import sys

FORBIDDEN = re.compile(r"^(libLLVM|libcurl|libpq)\b")


def needed(path):
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    bad = 0
    for path in paths:
        libraries = needed(path)
        if not libraries:
            print(f"{path}: no NEEDED entries (not a dynamically linked ELF file?)")
            bad += 1
            continue
        forbidden = [lib for lib in libraries if FORBIDDEN.match(lib)]
        if forbidden:
            print(f"{path} links {', '.join(forbidden)}: load it with dlopen when it is used")
            bad += 1
        else:
            print(f"{path}: {len(libraries)} libraries, none of libLLVM, libcurl, libpq")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
