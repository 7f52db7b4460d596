#!/usr/bin/env bash
# From a fresh Debian 12 machine: install packages, build, and run attrib's main job on the
# bundled examples. Today that job is the rule toolchain: check the stdlib rule library and the
# example site rules together, show what a mistake looks like, and print the canonical form.
# (`attrib diagnose examples/<workload>` joins this script when the runtime lands.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
attribc=build/tools/attribc/attribc

echo "== attribc check stdlib-rules examples/rules"
"$attribc" check stdlib-rules examples/rules

echo
echo "== attribc check examples/mistakes/typos.attr.txt (a file with mistakes, to show the diagnostics)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp examples/mistakes/typos.attr.txt "$tmp/typos.attr"
(cd "$tmp" && "$OLDPWD/$attribc" check typos.attr) || true

echo
echo "== the same as JSON lines (--format json), for tools; --format sarif annotates pull requests"
(cd "$tmp" && "$OLDPWD/$attribc" check --format json typos.attr | head -n 2) || true
