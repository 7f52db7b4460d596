#!/usr/bin/env bash
# From a fresh Debian 12 machine: install packages, build, and run attrib's main job on the
# bundled examples (examples/README.md): diagnose a workload in which a GPU fell off the bus,
# hidden behind 127 NCCL timeouts; then the rule toolchain: the example site rules on top of the
# stdlib (diagnose, check, test), and what mistakes in a rule file look like.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
attribc=build/tools/attribc/attribc
attrib=build/tools/attrib/attrib

echo "== attrib diagnose --format text examples/xid79-nccl-cascade (16 nodes, 128 ranks; --format json for the verdict)"
"$attrib" diagnose --format text examples/xid79-nccl-cascade

for example in host-oom user-code-exception; do
  echo
  echo "== attrib diagnose --format text examples/$example"
  "$attrib" diagnose --format text "examples/$example"
done

echo
echo "== attrib diagnose --rules examples/site-rules (site rules on the stdlib: the site's own outcome for a lost GPU)"
"$attrib" diagnose --format text --rules examples/site-rules examples/xid79-nccl-cascade

echo
echo "== attribc check examples/site-rules (checked against the stdlib built into attribc)"
"$attribc" check examples/site-rules

echo
echo "== attribc test examples/site-rules (the site's tests, then the stdlib's with the site's rules in place)"
"$attribc" test examples/site-rules

echo
echo "== attribc check examples/mistakes/typos.attr.txt (a file with mistakes, to show the diagnostics)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp examples/mistakes/typos.attr.txt "$tmp/typos.attr"
(cd "$tmp" && "$OLDPWD/$attribc" check typos.attr) || true

echo
echo "== the same as JSON lines (--format json), for tools; --format sarif annotates pull requests"
(cd "$tmp" && "$OLDPWD/$attribc" check --format json typos.attr | head -n 2) || true
