#!/usr/bin/env bash
# Installs the Debian 12 packages attrib needs to build and test (DEVELOPERS.md lists
# them and why). Idempotent: packages already installed are skipped, and apt-get runs
# only when something is missing. Needs root (or sudo) only when it has work to do.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache clang-14 clang libclang-rt-14-dev
  # grammar: the ANTLR 4.7.2 tool (Java) generates C++ for the 4.9 runtime
  antlr4 libantlr4-runtime-dev default-jre-headless
  # compiler back-ends and pattern engines
  llvm-14-dev libhyperscan-dev libpcre2-dev
  # libraries
  libfmt-dev nlohmann-json3-dev libcurl4-openssl-dev libsqlite3-dev zlib1g-dev libssl-dev
  libgtest-dev libgmock-dev libcpp-httplib-dev libcli11-dev libyaml-cpp-dev
  # evidence intake: tarballs (and the other archive formats libarchive reads) read in place
  libarchive-dev
  # the Service's HTTP server (Boost.Beast and Asio, header-only)
  libboost-dev
  # test and benchmark helpers (bench/run: GNU time for peak RSS, ripgrep as a baseline)
  python3 sqlite3 time ripgrep
  # a real single-host Slurm cluster for the connector tests (tests/slurm/cluster.sh), with
  # accounting (slurmdbd on a throwaway MariaDB) and the REST daemon (local and JWT auth)
  munge slurmctld slurmd slurm-client slurmdbd slurmrestd slurm-wlm-jwt-plugin mariadb-server
  # a real Prometheus for the metrics source's tests (promtool backfills their history)
  prometheus
  # PostgreSQL: libpq for the sink and the session store, and a real server for their tests
  # (tests/pg/postgres_server.h runs its own initdb/postgres in a temp dir)
  libpq-dev postgresql-15
  # a real browser, headless, for the report and dashboard tests (ctest -L browser)
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Packages with daemons (munge, slurmctld, slurmd, slurmdbd, slurmrestd, mariadb, postgresql) must not start them: the tests run their own.
# A policy-rc.d that refuses service starts does that; ours is removed again afterwards.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod +x "$policy"
  own_policy=1
fi
trap '[ "$own_policy" = 1 ] && $sudo rm -f "$policy"' EXIT
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
