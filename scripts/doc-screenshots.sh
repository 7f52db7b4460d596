#!/usr/bin/env bash
# Regenerates the screenshots in docs/images/ from the browser tests (tests/browser): the report
# of the xid79 example and of the 1,024-node workload, and the dashboard over the scenarios'
# verdicts, as headless chromium renders them. The PNGs are documentation images; commit them.
# Usage: scripts/doc-screenshots.sh   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/browser-artefacts
(cd build && ctest -L browser -R 'browser_report_examples|browser_report_1024_nodes|browser_dashboard' --output-on-failure)
mkdir -p docs/images
cp "$out/examples/screenshots/xid79-nccl-cascade.png" docs/images/report.png
cp "$out/large/screenshots/nodes-1024.png" docs/images/report-1024-nodes.png
cp "$out/dashboard/screenshots/dashboard.png" docs/images/dashboard.png
ls -l docs/images/*.png
