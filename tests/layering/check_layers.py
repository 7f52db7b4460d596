#!/usr/bin/env python3
"""Fails when a library includes a header of, or links, a library it must not depend on.

The layers (DEVELOPERS.md, "Layers"), lowest first: json (bounded parsing, typed fields),
httpd (the HTTP server) and pg (libpq) depend on no attrib library; ir and evidence are the types every layer
shares; compiler, runtime and jit work on them; driver turns rules into an engine with them; connectors, sinks, report and wire sit on those; service
and orchestrator are the applications' libraries; tools/ (the command lines), tests/ and bench/
may use anything. A library may depend only on the ones listed for it below. Checked two ways:
every `#include "DIR/..."` of a library's sources, and every attrib_* library its CMakeLists.txt
links.

Usage: tests/layering/check_layers.py [SOURCE_DIR]
"""
import os
import re
import sys

ALLOWED = {
    "json": set(),
    "httpd": set(),
    "pg": set(),
    "ir": set(),
    "evidence": {"ir", "json"},
    "compiler": {"ir"},
    "runtime": {"evidence", "ir", "json"},
    "jit": {"runtime", "evidence", "ir", "json"},
    "driver": {"compiler", "jit", "runtime", "evidence", "ir", "json"},
    "connectors": {"evidence", "ir", "json"},
    "history": {"runtime", "evidence", "ir", "json"},
    "sinks": {"pg", "history", "runtime", "evidence", "ir", "json"},
    "report": {"runtime", "evidence", "ir", "json"},
    "wire": {"evidence", "ir", "json"},
    "service": {"httpd", "pg", "wire", "history", "runtime", "evidence", "ir", "json"},
    "orchestrator": {"connectors", "sinks", "history", "wire", "runtime", "evidence", "ir", "json"},
}
# Directories whose headers are not a library's (generated files, the grammar).
IGNORED = {"grammar"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)
LINK = re.compile(r"target_link_libraries\(\s*attrib_(\w+)([^)]*)\)", re.S)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    problems = []
    for layer, allowed in ALLOWED.items():
        base = os.path.join(root, layer)
        for dirpath, _, files in os.walk(base):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if name == "CMakeLists.txt":
                    text = open(path, encoding="utf-8").read()
                    for target, deps in LINK.findall(text):
                        for dep in re.findall(r"\battrib_(\w+)", deps):
                            if dep != layer and dep not in allowed:
                                problems.append(f"{rel}: attrib_{target} links attrib_{dep}, above or beside it")
                    continue
                if not name.endswith((".h", ".cc", ".in")):
                    continue
                text = open(path, encoding="utf-8", errors="replace").read()
                for lineno, line in enumerate(text.splitlines(), 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    dep = m.group(1)
                    if dep == layer or dep in IGNORED or dep not in ALLOWED and dep not in ("tools", "tests", "bench"):
                        continue
                    if dep not in allowed:
                        problems.append(f"{rel}:{lineno}: {layer}/ includes {dep}/ ({line.strip()}), "
                                        f"which it must not depend on (allowed: {', '.join(sorted(allowed)) or 'none'})")
    for p in problems:
        print(p)
    print(f"layering: {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
