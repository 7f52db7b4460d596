#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: install packages, build, run every
# ctest test (unit, CLI, rule library, end to end, and the connectors against a real Slurm, a real
# Prometheus and stub Loki/Kubernetes servers), run the unit, CLI, end-to-end and stub-server tests
# again under AddressSanitizer and UndefinedBehaviorSanitizer, then fuzz the rule compiler and the
# bundle loader for a bounded time.
# Usage: scripts/test.sh   (ATTRIB_SANITIZE=0 skips the sanitizer stage, ATTRIB_FUZZ_SECONDS=0 fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${ATTRIB_JOBS:-$(nproc)}
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j "$jobs")

if [ "${ATTRIB_SANITIZE:-1}" != 0 ]; then
  export CCACHE_BASEDIR="$PWD"
  cmake --preset asan >/dev/null
  cmake --build build-asan -j "$jobs"
  # The slowest inputs (10 MB lines, 64 KiB of random bytes, a 2 GiB file) and the noise-robustness
  # runs (the scenarios' own code paths, diagnosed again shuffled and renamed: minutes under ASan)
  # run in the plain build only; the ANTLR runtime is not instrumented, so container-overflow
  # checks would misfire. So do the three CLI tests that compile the whole stdlib under site rules
  # four times over (a minute or more each under ASan): the compile path they take is the one
  # every other CLI test takes, on the stdlib once.
  # malloc_context_size=5: ASan records 5 frames of each allocation's stack instead of 30; the
  # stdlib's compile (Hyperscan's allocations above all) then runs about a fifth faster under it,
  # and a report still names the bad access's whole stack and where the memory was allocated.
  (cd build-asan && ASAN_OPTIONS=detect_container_overflow=0:malloc_context_size=5 \
     ctest --output-on-failure -j "$jobs" -L 'unit|cli|e2e|loki|k8s' \
       -E 'TenMegabyteSingleLine|BinaryGarbage|TwoGigabyteFile|NoiseRobustnessTest|TheDigestDependsOnTheSourcesAlone|SiteTestsRunWithTheStdlibs|SourcesAreCompiledOnceThenReadFromTheCache')
fi

fuzz_seconds=${ATTRIB_FUZZ_SECONDS:-60}
if [ "$fuzz_seconds" -gt 0 ]; then
  scripts/fuzz.sh "$fuzz_seconds"
fi
