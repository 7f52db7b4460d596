#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: install packages, build, run every
# ctest test (unit, CLI, rule library), then fuzz the rule compiler for a bounded time.
# Usage: scripts/test.sh            (ATTRIB_FUZZ_SECONDS=0 skips the fuzzing stage)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j "${ATTRIB_JOBS:-$(nproc)}")
fuzz_seconds=${ATTRIB_FUZZ_SECONDS:-60}
if [ "$fuzz_seconds" -gt 0 ]; then
  scripts/fuzz.sh "$fuzz_seconds"
fi
