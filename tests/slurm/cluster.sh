#!/usr/bin/env bash
# A throwaway single-host Slurm cluster for the connector tests (ctest label `slurm`), from
# Debian's packages: munge, slurmctld, slurmd, slurm-client. Everything (config, state, logs,
# sockets) lives in DIR; the daemons listen on 127.0.0.1 only, on the ports given.
#
#   tests/slurm/cluster.sh start DIR CTLD_PORT SLURMD_PORT   # prints SLURM_CONF=... when ready
#   tests/slurm/cluster.sh stop DIR
#
# Jobs run as root (the tests run as root in CI); accounting is the job-completion log
# (jobcomp/filetxt), read with `sacct -c`. Follows ../shared/reference/connectors.md, 3.1-3.2.
set -euo pipefail
cmd=${1:?usage: cluster.sh start|stop DIR [CTLD_PORT SLURMD_PORT]}
dir=${2:?usage: cluster.sh start|stop DIR [CTLD_PORT SLURMD_PORT]}

stop() {
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi
[ "$cmd" = start ] || { echo "cluster.sh: unknown command '$cmd'" >&2; exit 2; }
ctld_port=${3:?CTLD_PORT}
slurmd_port=${4:?SLURMD_PORT}
for tool in munged slurmctld slurmd sbatch sacct; do
  command -v "$tool" >/dev/null || { echo "cluster.sh: $tool is not installed (scripts/install-deps.sh installs it)" >&2; exit 3; }
done
if [ "$(id -u)" != 0 ]; then echo "cluster.sh: the test cluster runs as root" >&2; exit 3; fi

mkdir -p "$dir"/state "$dir"/spool "$dir"/log "$dir"/munge
chmod 700 "$dir"/munge
host=$(hostname -s)
# munge: our own daemon and socket, with the key the package created.
key=/etc/munge/munge.key
[ -f "$key" ] || { echo "cluster.sh: no $key (the munge package creates it; or run mungekey --create)" >&2; exit 3; }
munged --force --socket="$dir/munge/munge.socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" --key-file="$key"
cat > "$dir/slurm.conf" <<CONF
ClusterName=attribtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
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
AccountingStorageType=accounting_storage/none
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
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
for _ in $(seq 100); do scontrol ping >/dev/null 2>&1 && break; sleep 0.1; done
slurmd -f "$SLURM_CONF"
for _ in $(seq 150); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  case "$state" in idle*) echo "SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
  sleep 0.2
done
echo "cluster.sh: the node did not become idle (sinfo: '${state:-}'); see $dir/log" >&2
stop
exit 1
