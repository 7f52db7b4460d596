#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in ./build-fuzz and runs each for a
# bounded time: the rule compiler (seeded with every .attr file in the repository) and the
# bundle loader (seeded with a compiled stdlib bundle and its IR).
# Usage: scripts/fuzz.sh [SECONDS]   (default 60, per fuzzer)
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on relative paths below the checkout, so every clone shares one cache.
export CCACHE_BASEDIR="$PWD"
seconds=${1:-60}
jobs=${ATTRIB_JOBS:-$(nproc)}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DATTRIB_BUILD_FUZZERS=ON -DATTRIB_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz -j "$jobs" --target rule_compiler_fuzzer bundle_loader_fuzzer

corpus=$(mktemp -d)
bundles=$(mktemp -d)
trap 'rm -rf "$corpus" "$bundles"' EXIT
find stdlib-rules examples tests -name '*.attr' -exec cp {} "$corpus"/ \; 2>/dev/null || true
# The ANTLR runtime is not instrumented; its containers would trip false container-overflow reports.
export ASAN_OPTIONS=detect_container_overflow=0:detect_leaks=1
echo "fuzz: running rule_compiler_fuzzer for ${seconds}s on $(ls "$corpus" | wc -l) seed files"
./build-fuzz/tests/fuzz/rule_compiler_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=8192 -print_final_stats=1 -artifact_prefix=build-fuzz/ "$corpus"

# Seeds for the loader: a real bundle (from the normal build when present) and small ones.
attribc=build/tools/attribc/attribc
if [ -x "$attribc" ]; then
  "$attribc" build -o "$bundles/stdlib.attrb" 2>/dev/null || true
  "$attribc" build -o "$bundles/site.attrb" examples/site-rules 2>/dev/null || true
fi
echo "fuzz: running bundle_loader_fuzzer for ${seconds}s on $(ls "$bundles" | wc -l) seed bundles"
./build-fuzz/tests/fuzz/bundle_loader_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=200000 -print_final_stats=1 -artifact_prefix=build-fuzz/ "$bundles"
