#!/usr/bin/env bash
# A throwaway single-host Slurm cluster for the connector tests (ctest label `slurm`), from
# Debian's packages: munge, slurmctld, slurmd, slurm-client, and with accounting: mariadb-server,
# slurmdbd, slurmrestd, slurm-wlm-jwt-plugin. Everything (config, state, database, logs, sockets)
# lives in DIR; the daemons listen on 127.0.0.1 only (or a unix socket), on the ports given.
#
#   tests/slurm/cluster.sh start DIR CTLD_PORT SLURMD_PORT                       # jobcomp only
#   tests/slurm/cluster.sh start DIR CTLD_PORT SLURMD_PORT DBD_PORT DB_PORT REST_PORT
#   tests/slurm/cluster.sh stop DIR
#
# start prints KEY=VALUE lines when everything is ready (SLURM_CONF, and with accounting
# REST_SOCKET, REST_URL, REST_USER, TOKEN_FILE). With the three extra ports it also starts:
#   - MariaDB (own datadir, socket and pid file in DIR/mysql, TCP 127.0.0.1:DB_PORT, run as root)
#     with the accounting database and user;
#   - slurmdbd (AccountingStorageType=accounting_storage/slurmdbd), the cluster registered with
#     sacctmgr before slurmctld starts;
#   - two slurmrestd, as the plain user attrib-rest (created if missing; slurmrestd refuses root):
#     rest_auth/local on the unix socket DIR/rest/slurmrestd.sock, and rest_auth/jwt on
#     127.0.0.1:REST_PORT, with a token for attrib-rest in DIR/rest/token (mode 600).
# AuthAltTypes=auth/jwt with a key in DIR is in both slurm.conf and slurmdbd.conf.
#
# Jobs run as root (the tests run as root in CI); the job-completion log (jobcomp/filetxt, read
# with `sacct -c`) is kept in both modes. Follows ../shared/reference/connectors.md, 3.1-3.5.
# Every wait has a deadline; a failed start stops whatever it started. `stop` kills every daemon
# by its pid file (never by name).
set -euo pipefail
cmd=${1:?usage: cluster.sh start|stop DIR [CTLD_PORT SLURMD_PORT [DBD_PORT DB_PORT REST_PORT]]}
dir=${2:?usage: cluster.sh start|stop DIR [CTLD_PORT SLURMD_PORT [DBD_PORT DB_PORT REST_PORT]]}
rest_user=attrib-rest

# A pid that still runs (a zombie waiting for a reaper does not count).
alive() { [ -e "/proc/$1" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }

# Every daemon by its pid file: TERM to all, up to 10 s for them to exit, then KILL.
stop() {
  local pids=()
  for pidfile in "$dir"/slurmrestd-jwt.pid "$dir"/slurmrestd-local.pid "$dir"/slurmd.pid "$dir"/slurmctld.pid \
                 "$dir"/slurmdbd.pid "$dir"/mysql/mariadbd.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    rm -f "$pidfile"
    case "$pid" in ''|*[!0-9]*) continue ;; esac
    kill "$pid" 2>/dev/null && pids+=("$pid")
  done
  for _ in $(seq 100); do
    local left=0
    for pid in "${pids[@]}"; do alive "$pid" && left=1; done
    [ "$left" = 0 ] && return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do alive "$pid" && kill -9 "$pid" 2>/dev/null; done
  return 0
}

# wait_for SECONDS WHAT PID COMMAND...: runs COMMAND every 0.2 s until it succeeds, the deadline
# passes, or PID (a daemon that stays in the foreground; "-" for none) exits. The deadlines are
# generous on purpose: they cost nothing when a daemon is quick and only bound a failure, and on two
# cores under ctest -j2 (chromium, PostgreSQL, the other cluster) MariaDB's first start has taken
# more than 30 s. A failure prints the tail of every daemon's log, since the test removes DIR.
wait_for() {
  local seconds=$1 what=$2 pid=$3
  shift 3
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if [ "$pid" != - ] && ! alive "$pid"; then
      echo "cluster.sh: $what exited before it was ready" >&2
      show_logs
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "cluster.sh: $what not ready within ${seconds} s" >&2
      show_logs
      return 1
    fi
    sleep 0.2
  done
}

# The last lines of each non-empty log under DIR/log, on stderr.
show_logs() {
  local f
  for f in "$dir"/log/*; do
    [ -s "$f" ] || continue
    echo "--- ${f#"$dir"/} (last 15 lines)" >&2
    tail -n 15 "$f" >&2
  done
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi
[ "$cmd" = start ] || { echo "cluster.sh: unknown command '$cmd'" >&2; exit 2; }
ctld_port=${3:?CTLD_PORT}
slurmd_port=${4:?SLURMD_PORT}
dbd_port=${5:-}
db_port=${6:-}
rest_port=${7:-}
accounting=0
if [ -n "$dbd_port" ]; then
  [ -n "$db_port" ] && [ -n "$rest_port" ] || { echo "cluster.sh: give DBD_PORT, DB_PORT and REST_PORT together" >&2; exit 2; }
  accounting=1
fi
tools=(munged slurmctld slurmd sbatch sacct)
[ "$accounting" = 1 ] && tools+=(mariadbd mariadb-install-db mariadb slurmdbd sacctmgr slurmrestd setpriv)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "cluster.sh: $tool is not installed (scripts/install-deps.sh installs it)" >&2; exit 3; }
done
if [ "$accounting" = 1 ] && [ ! -e /usr/lib/x86_64-linux-gnu/slurm-wlm/auth_jwt.so ] && ! ls /usr/lib/*/slurm-wlm/auth_jwt.so >/dev/null 2>&1; then
  echo "cluster.sh: auth/jwt is missing (package slurm-wlm-jwt-plugin)" >&2; exit 3
fi
if [ "$(id -u)" != 0 ]; then echo "cluster.sh: the test cluster runs as root" >&2; exit 3; fi
trap 'rc=$?; if [ $rc != 0 ]; then echo "cluster.sh: start failed; stopping what started" >&2; stop; fi' EXIT

mkdir -p "$dir"/state "$dir"/spool "$dir"/log "$dir"/munge
chmod 755 "$dir" "$dir"/munge  # slurmrestd runs as a plain user and needs the munge socket
host=$(hostname -s)
# munge: our own daemon and socket, with the key the package created.
key=/etc/munge/munge.key
[ -f "$key" ] || { echo "cluster.sh: no $key (the munge package creates it; or run mungekey --create)" >&2; exit 3; }
munged --force --socket="$dir/munge/munge.socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" --key-file="$key"

accounting_conf="AccountingStorageType=accounting_storage/none"
if [ "$accounting" = 1 ]; then
  # JWT: 32 random bytes, owned by SlurmUser (root here), mode 600.
  head -c 32 /dev/urandom > "$dir/jwt_hs256.key"
  chmod 600 "$dir/jwt_hs256.key"
  # MariaDB: a throwaway instance on 127.0.0.1:DB_PORT, its socket and files in DIR/mysql.
  mkdir -p "$dir/mysql"
  my=(--no-defaults --datadir="$dir/mysql/data" --socket="$dir/mysql/mysqld.sock" --port="$db_port"
      --bind-address=127.0.0.1 --pid-file="$dir/mysql/mariadbd.pid" --log-error="$dir/log/mariadb.log"
      --user=root --skip-name-resolve --innodb-buffer-pool-size=32M --innodb-log-file-size=16M
      --skip-log-bin --performance-schema=OFF)
  mariadb-install-db --no-defaults --datadir="$dir/mysql/data" --user=root --auth-root-authentication-method=socket \
    --skip-test-db > "$dir/log/mariadb-install.log" 2>&1 \
    || { echo "cluster.sh: mariadb-install-db failed; see $dir/log/mariadb-install.log" >&2; exit 1; }
  mariadbd "${my[@]}" > /dev/null 2>&1 &
  mariadbd_pid=$!
  db() { mariadb --no-defaults --socket="$dir/mysql/mysqld.sock" -u root "$@"; }
  wait_for 180 "MariaDB" "$mariadbd_pid" db -e 'select 1'
  db -e "CREATE DATABASE slurm_acct_db;
         CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'attrib-test';
         GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
  cat > "$dir/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$dir/jwt_hs256.key
DbdHost=$host
DbdAddr=127.0.0.1
DbdPort=$dbd_port
CommunicationParameters=NoInAddrAny
SlurmUser=root
LogFile=$dir/log/slurmdbd.log
PidFile=$dir/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=attrib-test
StorageLoc=slurm_acct_db
CONF
  chmod 600 "$dir/slurmdbd.conf"  # slurmdbd refuses other modes
  accounting_conf="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStoragePass=$dir/munge/munge.socket
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$dir/jwt_hs256.key"
fi

cat > "$dir/slurm.conf" <<CONF
ClusterName=attribtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
# Bind to the configured addresses (127.0.0.1), not to every interface: NoCtldInAddrAny for
# slurmctld, NoInAddrAny for slurmd (and, in slurmdbd.conf, for slurmdbd).
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=1
JobAcctGatherParams=OverMemoryKill
$accounting_conf
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=100
ReturnToService=2
MpiDefault=none
MinJobAge=600
SlurmdTimeout=20
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# More CPUs than the machine has, so the tests' jobs run side by side (config_overrides).
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
chmod 644 "$dir/slurm.conf"
export SLURM_CONF="$dir/slurm.conf"

if [ "$accounting" = 1 ]; then
  slurmdbd  # reads slurmdbd.conf next to SLURM_CONF; creates its tables on first start
  wait_for 120 "slurmdbd" - sacctmgr -n list cluster
  sacctmgr -i add cluster attribtest > "$dir/log/sacctmgr.log" 2>&1
fi
slurmctld -f "$SLURM_CONF"
wait_for 60 "slurmctld" - scontrol ping
slurmd -f "$SLURM_CONF"
idle() { case "$(sinfo -h -o %T 2>/dev/null)" in idle*) return 0 ;; *) return 1 ;; esac; }
wait_for 60 "the node (idle)" - idle

if [ "$accounting" = 1 ]; then
  # slurmrestd refuses root: a plain user runs it. setpriv execs (no forked parent), so the pid
  # file names slurmrestd itself.
  id -u "$rest_user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$rest_user"
  mkdir -p "$dir/rest"
  chown "$rest_user" "$dir/rest"
  as_rest=(setpriv --reuid="$rest_user" --regid="$(id -g "$rest_user")" --init-groups)
  "${as_rest[@]}" env SLURM_CONF="$SLURM_CONF" slurmrestd -a rest_auth/local "unix:$dir/rest/slurmrestd.sock" \
    > "$dir/log/slurmrestd-local.log" 2>&1 &
  echo $! > "$dir/slurmrestd-local.pid"
  "${as_rest[@]}" env SLURM_CONF="$SLURM_CONF" SLURM_JWT=daemon slurmrestd -a rest_auth/jwt "127.0.0.1:$rest_port" \
    > "$dir/log/slurmrestd-jwt.log" 2>&1 &
  echo $! > "$dir/slurmrestd-jwt.pid"
  token=$(scontrol token username="$rest_user" lifespan=3600)
  (umask 077; printf '%s\n' "${token#SLURM_JWT=}" > "$dir/rest/token")
  wait_for 60 "slurmrestd (unix socket)" "$(cat "$dir/slurmrestd-local.pid")" test -S "$dir/rest/slurmrestd.sock"
  listening() { (exec 3<>"/dev/tcp/127.0.0.1/$rest_port") 2>/dev/null; }
  wait_for 60 "slurmrestd (127.0.0.1:$rest_port)" "$(cat "$dir/slurmrestd-jwt.pid")" listening
  # The cluster's registration reaches slurmdbd shortly after slurmctld starts.
  registered() { sacctmgr -n -P list cluster format=cluster,controlport | grep -q "^attribtest|$ctld_port"; }
  wait_for 60 "the cluster's registration with slurmdbd" - registered
fi

echo "SLURM_CONF=$SLURM_CONF"
if [ "$accounting" = 1 ]; then
  echo "REST_SOCKET=$dir/rest/slurmrestd.sock"
  echo "REST_URL=http://127.0.0.1:$rest_port"
  echo "REST_USER=$rest_user"
  echo "TOKEN_FILE=$dir/rest/token"
fi
