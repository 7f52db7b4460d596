#!/usr/bin/env bash
# Configures and builds attrib in ./build (Release with debug info; ccache when present).
# Usage: scripts/build.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on relative paths below the checkout, so every clone shares one cache.
export CCACHE_BASEDIR="$PWD"
jobs=${ATTRIB_JOBS:-$(nproc)}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j "$jobs"
