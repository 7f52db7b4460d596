#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in ./build-fuzz and runs each for a
# bounded time: the rule compiler (seeded with every .attr file in the repository), the
# bundle loader (seeded with a compiled stdlib bundle and its IR), the Service's request
# parsing (seeded with a small valid body for each parser) and the intake's reading of log lines
# (prefixes, channels, records; seeded with the real-log corpus and the example logs).
# Usage: scripts/fuzz.sh [SECONDS]   (default 60, per fuzzer)
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on relative paths below the checkout, so every clone shares one cache.
export CCACHE_BASEDIR="$PWD"
seconds=${1:-60}
jobs=${ATTRIB_JOBS:-$(nproc)}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DATTRIB_BUILD_FUZZERS=ON -DATTRIB_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz -j "$jobs" --target rule_compiler_fuzzer bundle_loader_fuzzer request_parsing_fuzzer line_prefix_fuzzer

corpus=$(mktemp -d)
bundles=$(mktemp -d)
requests=$(mktemp -d)
logs=$(mktemp -d)
trap 'rm -rf "$corpus" "$bundles" "$requests" "$logs"' EXIT
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

# Seeds for the request parser: one per parser (the first byte picks it), from small valid bodies.
python3 - "$requests" <<'EOF'
import json, os, sys
out = sys.argv[1]
line = {"node": "gpu-07", "source": "syslog", "time": "2026-11-29T10:42:00Z", "rank": 3, "text": "NVRM: Xid 79",
        "where": {"connector": "files", "location": "/x", "offset": 0, "line": 1}}
seeds = [
    (0, json.dumps({"id": "slurm/77", "state": "FAILED", "start": "2026-11-29T10:00:00Z", "nodes": ["gpu-07"], "exit_code": 1})),
    (1, json.dumps(line) + "\n" + json.dumps({"metric": "m", "labels": {"gpu": "0"}, "time": 1, "value": "NaN"}) + "\n" +
        json.dumps({"report": {"connector": "loki", "status": "partial", "observations": 3}}) + "\n" +
        json.dumps({"file": {"path": "/l", "rank": 1}, "offset": 0, "data": "aGVsbG8K"})),
    (2, json.dumps({"streams": [{"stream": {"node": "gpu-07", "rank": "1"}, "values": [["1795948920000000000", "x"]]}]})),
    (3, json.dumps({"data": {"resultType": "streams", "result": [{"stream": {"host": "n"}, "values": [["1", "y"]]}]}})),
    (4, json.dumps({"data": {"resultType": "matrix", "result": [{"metric": {"__name__": "T", "Hostname": "n:9400"}, "values": [[1.5, "+Inf"]]}]}})),
    (5, json.dumps({"context": {"format": "raw_loki_streams", "source": "syslog"},
                    "body": json.dumps([{"stream": {"hostname": "n"}, "values": [["1", json.dumps({"body": "b", "attributes": {"hostname": "n"}})]]}])})),
    (6, json.dumps({"a": [1, {"b": None}], "c": "d"})),
]
for i, (parser, text) in enumerate(seeds):
    open(os.path.join(out, "seed%d" % i), "wb").write(bytes([parser]) + text.encode())
EOF
echo "fuzz: running request_parsing_fuzzer for ${seconds}s on $(ls "$requests" | wc -l) seed requests"
./build-fuzz/tests/fuzz/request_parsing_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -artifact_prefix=build-fuzz/ "$requests"

# Seeds for the line reader: the first 4 KiB of every corpus and example log, behind each
# options byte's low bits (srun labels, a reference year, a UTC offset).
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  { printf "\\x$(printf %02x $((n % 16)))"; head -c 4096 "$f"; } > "$logs/seed$n"
done < <(find tests/corpus/cases examples -path '*/logs/*' -type f -print0 | sort -z)
echo "fuzz: running line_prefix_fuzzer for ${seconds}s on $(ls "$logs" | wc -l) seed logs"
./build-fuzz/tests/fuzz/line_prefix_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=16384 -print_final_stats=1 -artifact_prefix=build-fuzz/ "$logs"
