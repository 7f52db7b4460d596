#!/usr/bin/env python3
"""Synthetic workload for the scanning benchmark (bench/run): a workload directory as
`attrib diagnose` reads it (docs/workloads.md):

    OUT/workload.json
    OUT/logs/<node>/applog.log     training output of the node's ranks ("[rank12]:" prefixes)
    OUT/logs/<node>/syslog.log     "Nov 29 10:00:00 host prog[pid]: ..." (kernel lines too)
    OUT/logs/<node>/dmesg.log      "[12345.678901] ..." kernel ring buffer
    OUT/expected.json              what the verdict should say (attrib ignores this file)

Noise: PyTorch training steps, data loader and checkpoint lines, NCCL INFO lines, Python
warnings, syslog daemons, kernel messages (including NVRM lines that are not Xids). None of
it matches a stdlib pattern.

Injected failure with a cascade (--failure xid79, the default):
  T       one node's kernel: NVRM: Xid (PCI:...): 79 ... GPU has fallen off the bus (syslog and
          dmesg), then Xid 45 clean-up; the rank on that GPU logs a CUDA error traceback
  T+600s  every other rank: NCCL watchdog timeout, then "taking the entire process down"
  T+605s  every node's torchrun agent: worker failed, SIGTERM to the others, ChildFailedError
          with the SIGABRT summary; srun/slurmstepd tear-down lines in the first node's log
Expected verdict: root gpu.xid.xid79 on the bad node, outcome gpu.xid.gpu_lost.

Deterministic: the same arguments (and --seed) give byte-identical output. Python 3 standard
library only. Lines are built from precomputed tables and written in blocks of a few MB, so
1 GB takes a few seconds to a few tens of seconds.
"""

import argparse
import gzip
import json
import os
import random
import sys
import time

DATE = (2026, 11, 29)
DATE_ISO = "2026-11-29"
SYSLOG_DAY = "Nov 29"
START_SEC = 10 * 3600          # 10:00:00 UTC, seconds since midnight
FAIL_SEC = 13 * 3600 + 42 * 60  # 13:42:00: the Xid
WATCHDOG_SEC = FAIL_SEC + 600   # NCCL's default 10-minute timeout
TEARDOWN_SEC = WATCHDOG_SEC + 5
END_SEC = TEARDOWN_SEC + 60
BOOT_SEC = START_SEC - 36 * 3600 - 1234.567  # the nodes booted a day and a half earlier

FLUSH_BYTES = 4 << 20
SHARES = {"applog": 0.80, "syslog": 0.12, "dmesg": 0.08}
PCI_BUSES = ["18", "2a", "3b", "5d", "9a", "ab", "ba", "db"]  # GPU 0..7 (HGX layout)


def parse_size(text):
    """'1G', '100M', '512K', '12345' -> bytes (K/M/G are powers of 1024)."""
    t = text.strip().upper().rstrip("B").rstrip("I")
    mult = 1
    if t and t[-1] in "KMGT":
        mult = 1024 ** ("KMGT".index(t[-1]) + 1)
        t = t[:-1]
    try:
        value = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError("bad size %r (examples: 1G, 100M, 512K)" % text)
    if value <= 0:
        raise argparse.ArgumentTypeError("size must be positive")
    return int(value * mult)


def hms(sec):
    """Seconds since midnight -> 'HH:MM:SS' (the timeline stays within one day)."""
    s = int(sec)
    return "%02d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)


def asctime(sec):
    """Python logging's asctime: '2026-11-29 10:03:12,345'."""
    return "%s %s,%03d" % (DATE_ISO, hms(sec), int(sec * 1000) % 1000)


def mono(sec):
    """dmesg's '[ 129834.123456]' for a wall-clock second of the day."""
    return "[%12.6f]" % (sec - BOOT_SEC)


class Sink:
    """Buffered writer of one log file, counting the bytes it was given."""

    def __init__(self, path, compress):
        self.path = path + (".gz" if compress else "")
        if compress:
            self.f = gzip.open(self.path, "wb", compresslevel=1)
        else:
            self.f = open(self.path, "wb", buffering=0)
        self.parts = []
        self.pending = 0
        self.written = 0

    def add(self, text):
        self.parts.append(text)
        self.pending += len(text)
        if self.pending >= FLUSH_BYTES:
            self.flush()

    def flush(self):
        if self.parts:
            data = "".join(self.parts).encode("ascii")
            self.f.write(data)
            self.written += len(data)
            self.parts = []
            self.pending = 0

    def close(self):
        self.flush()
        self.f.close()


class Tables:
    """Precomputed value strings, indexed arithmetically while writing (no per-line RNG)."""

    def __init__(self, rng):
        self.loss = ["%.4f" % (1.6 + rng.random() * 1.2) for _ in range(1009)]
        self.gnorm = ["%.3f" % (0.2 + rng.random() * 1.4) for _ in range(1013)]
        self.tps = ["%d" % rng.randint(380000, 440000) for _ in range(1019)]
        self.steptime = ["%.3f" % (1.05 + rng.random() * 0.3) for _ in range(1021)]
        self.mem = ["%.2f" % (58 + rng.random() * 18) for _ in range(1031)]
        self.mfu = ["%.3f" % (0.38 + rng.random() * 0.08) for _ in range(1033)]
        self.hex = ["%012x" % rng.getrandbits(48) for _ in range(1039)]
        self.ip = ["10.%d.%d.%d" % (rng.randint(0, 3), rng.randint(0, 255), rng.randint(1, 254)) for _ in range(1049)]
        self.port = ["%d" % rng.randint(32768, 60999) for _ in range(1051)]
        self.pid = ["%d" % rng.randint(2000, 4000000) for _ in range(1061)]
        self.sha = ["".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(43))
                    for _ in range(61)]
        self.uuid = ["%08x-%04x-%04x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16),
                                                    rng.getrandbits(16), rng.getrandbits(48)) for _ in range(8)]


# ---- noise ---------------------------------------------------------------------------------

def applog_noise(sink, node, base_rank, rpn, nranks, target, tables, pids):
    """Training steps of the node's ranks until `target` bytes; returns the last step."""
    T = tables
    span = FAIL_SEC - 0.5 - START_SEC
    ranks = [(base_rank + l, l) for l in range(rpn)]
    tid = [str(int(p) + 57) for p in pids]
    step = 0
    while sink.written + sink.pending < target:
        sec = START_SEC + span * (sink.written + sink.pending) / target
        ts = asctime(sec)
        k = step
        for g, l in ranks:
            i = k + g
            sink.add("[rank%d]:[%s] [INFO] [trainer.py:412] step %d | loss %s | lr 2.998e-04 | grad_norm %s"
                     " | tokens/s %s | step_time %ss | mem %sGiB\n"
                     % (g, ts, step, T.loss[i % 1009], T.gnorm[i % 1013], T.tps[i % 1019],
                        T.steptime[i % 1021], T.mem[i % 1031]))
        if base_rank == 0:
            sink.add('[rank0]:[%s] [INFO] [metrics.py:57] {"step": %d, "loss": %s, "mfu": %s, "tflops": 412.7,'
                     ' "consumed_tokens": %d, "lr": 0.0002998}\n'
                     % (ts, step, T.loss[k % 1009], T.mfu[k % 1033], step * 4194304))
        if step % 10 == 3:
            for g, l in ranks:
                sink.add("[rank%d]:[%s] [INFO] [data.py:211] prefetch queue 6/8, shard %05d offset %d, %s samples/s\n"
                         % (g, ts, (step // 10 + g) % 4096, step * 512, T.tps[(k + l) % 1019][:4]))
        if step % 25 == 11:
            for g, l in ranks:
                peer = (g + 1) % nranks
                pid = pids[l]
                sink.add("[rank%d]:%s:%s:%s [%d] NCCL INFO Channel %02d/32 : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA\n"
                         "[rank%d]:%s:%s:%s [%d] NCCL INFO comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000"
                         " commId 0x%s - Init COMPLETE\n"
                         "[rank%d]:%s:%s:%s [%d] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB"
                         " [3]mlx5_5:1/IB ; OOB ib0:%s<0>\n"
                         % (g, node, pid, tid[l], l, (step // 25) % 32, g, l, peer, peer % rpn, l,
                            g, node, pid, tid[l], l, T.hex[(k + g) % 1039], g, nranks, l, l, PCI_BUSES[l % 8],
                            T.hex[step % 1039],
                            g, node, pid, tid[l], l, T.ip[(g * 7) % 1049]))
        if step % 100 == 7:
            sink.add("[rank%d]:/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning:"
                     " torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version"
                     " 2.4 we will raise an exception if use_reentrant is not passed.\n" % base_rank)
            sink.add("[rank%d]:  warnings.warn(\n" % base_rank)
        if step % 500 == 499:
            for g, l in ranks:
                sink.add("[rank%d]:[%s] [INFO] [checkpoint.py:88] saved checkpoint step %d to"
                         " /lustre/ckpt/run-4242/step_%08d/rank_%05d.pt (1.42 GB in %ss)\n"
                         % (g, ts, step, step, g, T.steptime[(k + g) % 1021]))
        step += 1
    return step


SYSLOG_TEMPLATES = [
    "%(ts)s %(host)s kernel: %(mono)s mlx5_core 0000:%(bus)s:00.1: mlx5_pcie_event:301:(pid %(pid)s): PCIe slot advertised sufficient power (27W).\n",
    "%(ts)s %(host)s systemd[1]: Started Session %(n)d of User root.\n",
    "%(ts)s %(host)s systemd-logind[1123]: New session %(n)d of user root.\n",
    "%(ts)s %(host)s sshd[%(pid)s]: Accepted publickey for slurm from %(ip)s port %(port)s ssh2: ED25519 SHA256:%(sha)s\n",
    "%(ts)s %(host)s CRON[%(pid)s]: (root) CMD (/usr/local/sbin/node-health-check --quiet --timeout 60)\n",
    "%(ts)s %(host)s slurmd[2211]: slurmd: debug:  _rpc_acct_gather_update: Energy plugin usage: node %(host)s, 8 GPUs\n",
    "%(ts)s %(host)s dcgm-exporter[3102]: time=\"%(iso)s\" level=info msg=\"Collecting metrics\" gpus=8 fields=42 elapsed=%(ms)sms\n",
    "%(ts)s %(host)s chronyd[981]: Selected source %(ip)s (ntp1.cluster.local)\n",
    "%(ts)s %(host)s kernel: %(mono)s audit: type=1400 audit(%(epoch)s:%(n)d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.activate\" name=\"/proc/%(pid)s/mounts\" pid=%(pid)s comm=\"snap-confine\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0\n",
    "%(ts)s %(host)s nvidia-persistenced[1544]: Verbose syslog connection opened, device 0000:%(bus)s:00.0 persistence mode enabled\n",
    "%(ts)s %(host)s kernel: %(mono)s NVRM: GPU at PCI:0000:%(bus)s:00: GPU-%(uuid)s\n",
    "%(ts)s %(host)s nv-fabricmanager[2050]: [INFO] [%(iso)s] fabric manager heartbeat, 4 NVSwitches, 18 NVLink trunks up\n",
    "%(ts)s %(host)s telegraf[2761]: %(iso)s I! [outputs.prometheus_client] Listening on http://0.0.0.0:9273/metrics\n",
    "%(ts)s %(host)s kernel: %(mono)s infiniband mlx5_%(l)d: mlx5_ib_event:7310:(pid %(pid)s): port 1 change event, LID 0x%(lid)04x\n",
    "%(ts)s %(host)s rsyslogd[902]: imjournal: %(n)d messages lost due to rate-limiting (20000 allowed within 600 seconds)\n",
    "%(ts)s %(host)s systemd[1]: session-%(n)d.scope: Deactivated successfully.\n",
    "%(ts)s %(host)s containerd[1301]: time=\"%(iso)s\" level=info msg=\"cleaning up dead shim\" namespace=k8s.io\n",
    "%(ts)s %(host)s kernel: %(mono)s perf: interrupt took too long (%(n)d > 2500), lowering kernel.perf_event_max_sample_rate to 79750\n",
]

DMESG_TEMPLATES = [
    "%(mono)s mlx5_core 0000:%(bus)s:00.1: mlx5_fw_tracer_handle_traces:737:(pid %(pid)s): FW tracer: events lost\n",
    "%(mono)s IPv6: ADDRCONF(NETDEV_CHANGE): ib%(l)d: link becomes ready\n",
    "%(mono)s EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.\n",
    "%(mono)s nvidia-nvswitch%(l)d: open (major=509)\n",
    "%(mono)s audit: type=1400 audit(%(epoch)s:%(n)d): apparmor=\"STATUS\" operation=\"profile_replace\" info=\"same as current profile, skipping\" profile=\"unconfined\" name=\"docker-default\" pid=%(pid)s comm=\"apparmor_parser\"\n",
    "%(mono)s NVRM: GPU at PCI:0000:%(bus)s:00: GPU-%(uuid)s\n",
    "%(mono)s NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023\n",
    "%(mono)s nvidia 0000:%(bus)s:00.0: enabling device (0000 -> 0002)\n",
    "%(mono)s infiniband mlx5_%(l)d: mlx5_ib_event:7310:(pid %(pid)s): port 1 change event, LID 0x%(lid)04x\n",
    "%(mono)s docker0: port %(l)d(veth%(short)s) entered forwarding state\n",
    "%(mono)s Lustre: lustre-OST%(l)04x-osc-ffff8f2a%(short)s: Connection restored to %(ip)s@o2ib (at %(ip)s@o2ib)\n",
    "%(mono)s perf: interrupt took too long (%(n)d > 2500), lowering kernel.perf_event_max_sample_rate to 79750\n",
]


# A ConnectX port coming up, as the mlx5 driver's netdev_info prints it (mlx5e_update_carrier,
# drivers/net/ethernet/mellanox/mlx5/core/en_main.c): the routine context line of a chatty fabric.
LINK_UP_SYSLOG = "%(ts)s %(host)s kernel: %(mono)s mlx5_core 0000:%(bus)s:00.1 ib%(l)d: Link up\n"
LINK_UP_DMESG = "%(mono)s mlx5_core 0000:%(bus)s:00.1 ib%(l)d: Link up\n"


def template_noise(sink, node, templates, target, tables, link_up=None, link_up_share=0.0):
    """Syslog or dmesg noise until `target` bytes, timestamps spread from START to FAIL. With
    `link_up`, that share of the lines is that line instead of a template (same byte budget)."""
    T = tables
    span = FAIL_SEC - 1 - START_SEC
    order = list(range(len(templates)))
    n = 0
    fields = {"host": node}
    while sink.written + sink.pending < target:
        sec = START_SEC + span * (sink.written + sink.pending) / target
        fields["mono"] = mono(sec)
        fields["ts"] = "%s %s" % (SYSLOG_DAY, hms(sec))
        fields["iso"] = "%sT%s.%03dZ" % (DATE_ISO, hms(sec), int(sec * 1000) % 1000)
        fields["epoch"] = "%.3f" % (1795946400 - 36000 + sec)
        # A burst of 16 lines per timestamp; templates cycle in a rotated order.
        for j in range(16):
            k = n + j
            l = k % 8
            fields["n"] = 1000 + k % 7919
            fields["pid"] = T.pid[k % 1061]
            fields["ip"] = T.ip[k % 1049]
            fields["port"] = T.port[k % 1051]
            fields["sha"] = T.sha[k % 61]
            fields["bus"] = PCI_BUSES[l]
            fields["uuid"] = T.uuid[l]
            fields["l"] = l
            fields["lid"] = 0x100 + k % 997
            fields["ms"] = k % 97
            fields["short"] = T.hex[k % 1039][:7]
            if link_up and (k * 7919 % 1000) < link_up_share * 1000:
                sink.add(link_up % fields)
            else:
                sink.add(templates[order[(k * 5 + k // len(templates)) % len(templates)]] % fields)
        n += 16


# ---- the injected failure ------------------------------------------------------------------

def xid_lines(bus, pid):
    return [
        "NVRM: GPU at PCI:0000:%s:00: GPU-3f1c2a9e-5b7d-4e21-9a0c-7d4e1f6b2c88" % bus,
        "NVRM: GPU Board Serial Number: 1654923017522",
        "NVRM: Xid (PCI:0000:%s:00): 79, pid=%s, name=python3, GPU has fallen off the bus." % (bus, pid),
        "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus,
        "NVRM: A GPU crash dump has been created. If possible, please run",
        "NVRM: nvidia-bug-report.sh as root to collect this data before",
        "NVRM: the NVIDIA kernel module is unloaded.",
    ], [
        "NVRM: Xid (PCI:0000:%s:00): 45, pid=%s, name=python3, Ch 00000008" % (bus, pid),
    ]


def inject_kernel(node_sinks, node, bus, pid):
    """The Xid 79 (and its Xid 45 clean-up) in the bad node's syslog and dmesg."""
    first, later = xid_lines(bus, pid)
    sys_sink, dmesg_sink = node_sinks["syslog"], node_sinks["dmesg"]
    for i, text in enumerate(first):
        sec = FAIL_SEC + i * 0.0001
        sys_sink.add("%s %s %s kernel: %s %s\n" % (SYSLOG_DAY, hms(sec), node, mono(sec), text))
        dmesg_sink.add("%s %s\n" % (mono(sec), text))
    for text in later:
        sec = WATCHDOG_SEC + 4.2
        sys_sink.add("%s %s %s kernel: %s %s\n" % (SYSLOG_DAY, hms(sec), node, mono(sec), text))
        dmesg_sink.add("%s %s\n" % (mono(sec), text))


def inject_exception(sink, rank, step):
    """The rank whose GPU fell off the bus: a logged exception with its traceback."""
    ts = asctime(FAIL_SEC + 0.412)
    lines = [
        "[rank%d]:[%s] [ERROR] [trainer.py:455] training step %d raised; traceback follows" % (rank, ts, step),
        "[rank%d]: Traceback (most recent call last):" % rank,
        '[rank%d]:   File "/workspace/train.py", line 455, in train_step' % rank,
        "[rank%d]:     loss.backward()" % rank,
        '[rank%d]:   File "/usr/local/lib/python3.10/dist-packages/torch/_tensor.py", line 522, in backward' % rank,
        "[rank%d]:     torch.autograd.backward(" % rank,
        '[rank%d]:   File "/usr/local/lib/python3.10/dist-packages/torch/autograd/__init__.py", line 266, in backward' % rank,
        "[rank%d]:     Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass" % rank,
        "[rank%d]: RuntimeError: CUDA error: unspecified launch failure" % rank,
        "[rank%d]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect." % rank,
        "[rank%d]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1." % rank,
    ]
    sink.add("\n".join(lines) + "\n")


def inject_watchdog(sink, rank, seq, jitter):
    sec = WATCHDOG_SEC + jitter
    ts = asctime(sec)
    numel = 1 << (10 + seq % 13)
    sink.add("[rank%d]:[%s] [E ProcessGroupNCCL.cpp:563] [Rank %d] Watchdog caught collective operation timeout:"
             " WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=%d, NumelOut=%d, Timeout(ms)=600000) ran for %d"
             " milliseconds before timing out.\n"
             "[rank%d]:[%s] [E ProcessGroupNCCL.cpp:577] [Rank %d] Some NCCL operations have failed or timed out."
             " Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on"
             " corrupted/incomplete data.\n"
             "[rank%d]:[%s] [E ProcessGroupNCCL.cpp:583] [Rank %d] To avoid data inconsistency, we are taking the"
             " entire process down.\n"
             % (rank, ts, rank, seq, numel, numel, 600000 + int(jitter * 1000) + 17,
                rank, ts, rank, rank, ts, rank))


def inject_teardown(sink, node, base_rank, rpn, pids, first_local, exit_sig):
    sec = TEARDOWN_SEC
    ts = "[%s]" % asctime(sec)
    api = "torch.distributed.elastic.multiprocessing.api"
    out = ["%s %s: [ERROR] failed (exitcode: -%d) local_rank: %d (pid: %s) of binary: /usr/bin/python3"
           % (ts, api, exit_sig, first_local, pids[first_local])]
    for l in range(rpn):
        if l != first_local:
            out.append("%s %s: [WARNING] Sending process %s closing signal SIGTERM" % (ts, api, pids[l]))
    signame = {6: "SIGABRT", 15: "SIGTERM", 9: "SIGKILL"}[exit_sig]
    out += [
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 347, in wrapper',
        "    return f(*args, **kwargs)",
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "/workspace/train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : %s_%s" % (DATE_ISO, hms(sec)),
        "  host      : %s" % node,
        "  rank      : %d (local_rank: %d)" % (base_rank + first_local, first_local),
        "  exitcode  : -%d (pid: %s)" % (exit_sig, pids[first_local]),
        "  error_file: <N/A>",
        "  traceback : Signal %d (%s) received by PID %s" % (exit_sig, signame, pids[first_local]),
        "============================================================",
    ]
    sink.add("\n".join(out) + "\n")


def inject_srun(sink, nodes, rpn):
    sec = TEARDOWN_SEC + 3
    out = ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."]
    for i, n in enumerate(nodes):
        out.append("srun: error: %s: tasks %d-%d: Exited with exit code 1" % (n, i * rpn, i * rpn + rpn - 1))
    out.append("slurmstepd: error: *** STEP 4242.0 ON %s CANCELLED AT %sT%s ***" % (nodes[0], DATE_ISO, hms(sec + 2)))
    sink.add("\n".join(out) + "\n")


def tail_noise(node_sinks, node):
    """A few lines after the failure, so the kernel logs do not end on the fault."""
    sec = END_SEC
    node_sinks["syslog"].add("%s %s %s slurmd[2211]: slurmd: done with job 4242\n" % (SYSLOG_DAY, hms(sec), node))
    node_sinks["syslog"].add("%s %s %s systemd[1]: Stopping user-1000.slice...\n" % (SYSLOG_DAY, hms(sec + 1), node))
    node_sinks["dmesg"].add("%s docker0: port 1(vethc0ffee) entered disabled state\n" % mono(sec))


# ---- driver --------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output directory (created; must be empty or absent)")
    ap.add_argument("--nodes", type=int, default=16)
    ap.add_argument("--ranks-per-node", type=int, default=8)
    ap.add_argument("--size", type=parse_size, default=parse_size("1G"),
                    help="total bytes of logs, e.g. 1G, 100M (K/M/G = 1024^n; default 1G)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gzip", action="store_true", help="write <source>.log.gz (compresslevel 1)")
    ap.add_argument("--failure", choices=["xid79", "none"], default="xid79")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--link-up-share", type=float, default=0.0,
                    help="share (0..1) of syslog and dmesg lines that are mlx5 'Link up' lines, "
                         "for a high match density on the same byte budget (default 0)")
    args = ap.parse_args()
    if args.nodes < 1 or args.ranks_per_node < 1:
        ap.error("--nodes and --ranks-per-node must be positive")
    if not 0.0 <= args.link_up_share <= 1.0:
        ap.error("--link-up-share must be between 0 and 1")
    if os.path.exists(args.out) and os.listdir(args.out):
        ap.error("%s exists and is not empty" % args.out)

    started = time.time()
    rng = random.Random(args.seed)
    tables = Tables(rng)
    rpn = args.ranks_per_node
    nranks = args.nodes * rpn
    nodes = ["node%04d" % i for i in range(1, args.nodes + 1)]
    bad_index = rng.randrange(args.nodes) if args.failure != "none" else -1
    bad_local = rng.randrange(rpn)
    bad_bus = PCI_BUSES[bad_local % 8]
    node_pids = [[tables.pid[(i * rpn + l) * 13 % 1061] for l in range(rpn)] for i in range(args.nodes)]

    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    per_node = args.size / args.nodes
    total = 0
    files = 0
    for i, node in enumerate(nodes):
        d = os.path.join(args.out, "logs", node)
        os.makedirs(d, exist_ok=True)
        sinks = {s: Sink(os.path.join(d, s + ".log"), args.gzip) for s in SHARES}
        base = i * rpn
        nrng = random.Random(args.seed * 1000003 + i)
        last_step = applog_noise(sinks["applog"], node, base, rpn, nranks, per_node * SHARES["applog"],
                                 tables, node_pids[i])
        template_noise(sinks["syslog"], node, SYSLOG_TEMPLATES, per_node * SHARES["syslog"], tables,
                       LINK_UP_SYSLOG, args.link_up_share)
        template_noise(sinks["dmesg"], node, DMESG_TEMPLATES, per_node * SHARES["dmesg"], tables,
                       LINK_UP_DMESG, args.link_up_share)
        if args.failure == "xid79":
            if i == bad_index:
                inject_kernel(sinks, node, bad_bus, node_pids[i][bad_local])
                inject_exception(sinks["applog"], base + bad_local, last_step)
            for l in range(rpn):
                if i == bad_index and l == bad_local:
                    continue
                inject_watchdog(sinks["applog"], base + l, 40000 + last_step % 1000, nrng.random() * 2)
            first = bad_local if i == bad_index else nrng.randrange(rpn)
            inject_teardown(sinks["applog"], node, base, rpn, node_pids[i], first, 6)
            if i == 0:
                inject_srun(sinks["applog"], nodes, rpn)
        tail_noise(sinks, node)
        for s in sinks.values():
            s.close()
            total += s.written
            files += 1

    workload = {
        "id": "4242", "scheduler": "slurm", "name": "llm-pretrain-%dn" % args.nodes, "user": "alice",
        "partition": "gpu", "state": "FAILED" if args.failure != "none" else "COMPLETED",
        "exit_code": 1 if args.failure != "none" else 0,
        "start": "%sT%sZ" % (DATE_ISO, hms(START_SEC)), "end": "%sT%sZ" % (DATE_ISO, hms(END_SEC)),
        "nodes": nodes, "ranks_per_node": rpn, "ranks": nranks,
    }
    with open(os.path.join(args.out, "workload.json"), "w") as f:
        json.dump(workload, f, indent=1)
        f.write("\n")
    expected = {"failure": args.failure, "bytes": total, "files": files, "nodes": args.nodes, "ranks": nranks,
                "seed": args.seed, "link_up_share": args.link_up_share}
    if args.failure == "xid79":
        expected.update({"root": "gpu.xid.xid79", "node": nodes[bad_index], "rank": base_rank(bad_index, rpn, bad_local),
                         "outcome": "gpu.xid.gpu_lost", "watchdog_ranks": nranks - 1})
    with open(os.path.join(args.out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    if not args.quiet:
        print("generate: %s: %d files, %d bytes (%.2f GB), %d nodes x %d ranks, %.1f s%s"
              % (args.out, files, total, total / 1e9, args.nodes, rpn, time.time() - started,
                 ", failure xid79 on %s" % nodes[bad_index] if bad_index >= 0 else ""), file=sys.stderr)


def base_rank(node_index, rpn, local):
    return node_index * rpn + local


if __name__ == "__main__":
    main()
