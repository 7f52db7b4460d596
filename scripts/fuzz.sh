#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in ./build-fuzz and runs the rule
# compiler fuzzer for a bounded time, seeded with every .attr file in the repository.
# Usage: scripts/fuzz.sh [SECONDS]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
jobs=${ATTRIB_JOBS:-$(nproc)}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DATTRIB_BUILD_FUZZERS=ON -DATTRIB_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz -j "$jobs" --target rule_compiler_fuzzer

corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
find stdlib-rules examples tests -name '*.attr' -exec cp {} "$corpus"/ \; 2>/dev/null || true
# The ANTLR runtime is not instrumented; its containers would trip false container-overflow reports.
export ASAN_OPTIONS=detect_container_overflow=0:detect_leaks=1
echo "fuzz: running rule_compiler_fuzzer for ${seconds}s on $(ls "$corpus" | wc -l) seed files"
./build-fuzz/tests/fuzz/rule_compiler_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=8192 -print_final_stats=1 -artifact_prefix=build-fuzz/ "$corpus"
