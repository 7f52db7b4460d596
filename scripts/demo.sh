#!/usr/bin/env bash
# From a fresh Debian 12 machine: install packages, build, and run attrib's main job on the
# bundled examples: check the stdlib rule library and the example site rules together, show what
# a mistake in a rule file looks like, then diagnose an example workload (examples/README.md):
# a GPU that fell off the bus, hidden behind 127 NCCL timeouts.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
attribc=build/tools/attribc/attribc
attrib=build/tools/attrib/attrib

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

echo
echo "== attrib diagnose --format text examples/xid79-nccl-cascade (16 nodes, 128 ranks; --format json for the verdict)"
"$attrib" diagnose --format text examples/xid79-nccl-cascade
