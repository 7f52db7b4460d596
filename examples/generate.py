#!/usr/bin/env python3
"""Writes the example workload directories under examples/ (see examples/README.md).

    python3 examples/generate.py           # (re)write the three example directories
    python3 examples/generate.py --check   # exit 1 if a committed file differs from its output

Deterministic: the same script writes the same bytes on every machine (seeded random numbers, no
clock, no environment), so the committed examples can always be reproduced from it. Python 3
standard library only.

The logs are synthetic but shaped like what the software prints:
  syslog  rsyslog's traditional format, "Nov 29 10:42:00 gpu-0007 kernel: NVRM: ...". The kernel,
          slurmd, cron, systemd and chronyd lines are as those programs write them.
  applog  each node's job output (torchrun and its 8 ranks, srun on the batch host), as the site's
          log collector stores it: every record starts with the RFC 3339 time the collector read
          it; the continuation lines of a multi-line record (a Python traceback, torchrun's
          failure summary) carry no time of their own. The ranks' lines keep torchrun's "[rankN]:"
          prefix; torchrun's own log lines keep their "[2026-11-29 10:52:05,311]" asctime.
"""

import datetime as dt
import json
import math
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
UTC = dt.timezone.utc
GPUS_PER_NODE = 8
# PCI bus ids of the 8 GPUs of an HGX H100 board, in CUDA device order.
GPU_PCI = ["18", "2a", "3b", "5d", "9a", "ab", "ba", "db"]
TORCH_DIST = "/usr/local/lib/python3.10/dist-packages/torch"


# ---- time formats

def t(s):
    """A UTC instant from '2026-11-29T10:42:00.123456'."""
    return dt.datetime.fromisoformat(s).replace(tzinfo=UTC)


def stamp(when):
    """The collector's RFC 3339 receive time."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def asctime(when):
    """Python logging's default asctime, as torchrun prints it: 2026-11-29 10:52:05,311."""
    return when.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (when.microsecond // 1000)


def syslog_time(when):
    """rsyslog's traditional timestamp: 'Nov 29 10:42:00' (the day padded with a space)."""
    month = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()[when.month - 1]  # not %b: no locale
    return "%s %2d %s" % (month, when.day, when.strftime("%H:%M:%S"))


def slurm_time(when):
    return when.strftime("%Y-%m-%dT%H:%M:%S")


def secs(x):
    return dt.timedelta(seconds=x)


# ---- log builders

class Log:
    """Lines of one file with the time each was written; rendered in time order (stable)."""

    def __init__(self):
        self.entries = []  # (time, sequence, text)

    def add(self, when, text):
        self.entries.append((when, len(self.entries), text))

    def text(self):
        return "".join(line + "\n" for _, _, line in sorted(self.entries))


class AppLog(Log):
    """A node's job output as the collector stores it."""

    def record(self, when, first, *continuation):
        """One record: a stamped first line and unstamped continuation lines."""
        self.add(when, stamp(when) + " " + first)
        for line in continuation:
            # Continuations keep the record's time for ordering, after its first line.
            self.entries.append((when, len(self.entries), line))


class SysLog(Log):
    def __init__(self, host):
        super().__init__()
        self.host = host

    def msg(self, when, program, text):
        self.add(when, "%s %s %s: %s" % (syslog_time(when), self.host, program, text))


class Job:
    """Placement and process ids of a torchrun job: one torchrun per node, 8 ranks each."""

    def __init__(self, rng, job_id, nodes, first_ip):
        self.rng = rng
        self.job_id = job_id
        self.nodes = nodes
        self.ip = {n: "10.1.0.%d" % (first_ip + i) for i, n in enumerate(nodes)}
        self.agent_pid = {}
        self.pid = {}  # global rank -> pid
        for i, n in enumerate(nodes):
            base = rng.randrange(20000, 400000)
            self.agent_pid[n] = base
            for local in range(GPUS_PER_NODE):
                self.pid[i * GPUS_PER_NODE + local] = base + 1 + local

    def ranks(self, node):
        i = self.nodes.index(node)
        return list(range(i * GPUS_PER_NODE, (i + 1) * GPUS_PER_NODE))

    def node_of(self, rank):
        return self.nodes[rank // GPUS_PER_NODE]

    @property
    def world(self):
        return len(self.nodes) * GPUS_PER_NODE


def workload_json(fields):
    return json.dumps(fields, indent=2) + "\n"


# ---- pieces shared by the examples

def torchrun_banner(log, when):
    # torchrun's warning about OMP_NUM_THREADS, one record per line as Python logging writes it.
    prefix = "[%s] torch.distributed.run: [WARNING] " % asctime(when)
    for line in ["", "*****************************************",
                 "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid "
                 "your system being overloaded, please further tune the variable for optimal performance in "
                 "your application as needed. ",
                 "*****************************************"]:
        log.record(when, prefix + line)


def nccl_init(log, job, node, when, rng, nccl_version="2.20.5"):
    """NCCL_DEBUG=INFO start-up lines of each rank on the node (NCCL prints them without a time)."""
    host = node
    for rank in job.ranks(node):
        local = rank % GPUS_PER_NODE
        pid = job.pid[rank]
        w = when + secs(rng.uniform(0.0, 0.8))
        tag = "%s:%d:%d [%d] NCCL INFO " % (host, pid, pid, local)
        if rank == 0:
            log.record(w, tag + "Bootstrap : Using ibp26s0:%s<0>" % job.ip[node])
            log.record(w, tag + "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: "
                       "No such file or directory No plugin found (libnccl-net.so), using internal implementation")
            log.record(w, tag + "cudaDriverVersion 12040")
            log.record(w, tag + "NCCL version %s+cuda12.4" % nccl_version)
        log.record(w + secs(0.05), tag + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB "
                   "[3]mlx5_5:1/IB [4]mlx5_6:1/IB [5]mlx5_9:1/IB [6]mlx5_10:1/IB [7]mlx5_11:1/IB ; OOB ibp26s0:%s<0>"
                   % job.ip[node])
        log.record(w + secs(0.06), tag + "Using network IB")
        log.record(w + secs(1.9), tag + "comm 0x%x rank %d nranks %d cudaDev %d "
                   "nvmlDev %d busId %s000 commId 0x%x - Init COMPLETE"
                   % (rng.randrange(0x5500000, 0x5600000) & ~0xf, rank, job.world, local,
                      local, GPU_PCI[local], 0x6b3f2a9c1d8e4f70))


def checkpoint_warning(log, rank, when):
    log.record(when, "[rank%d]: %s/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant "
               "parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant "
               "is not passed. use_reentrant=False is recommended, but if you need to preserve the current default "
               "behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences "
               "between the two variants." % (rank, TORCH_DIST),
               "[rank%d]:   return fn(*args, **kwargs)" % rank)


def training_steps(log, rng, start, end, first_step, step_seconds, every, loss0, floor, tflops):
    """Rank 0's progress lines; the loss falls from loss0 towards floor."""
    step, when = first_step, start
    while when < end:
        if step % every == 0:
            loss = floor + (loss0 - floor) * math.exp(-step / 300.0) + rng.uniform(-0.03, 0.03)
            ms = step_seconds * 1000 * rng.uniform(0.985, 1.015)
            log.record(when, "[rank0]: step %d | loss %.4f | lr %.3e | grad_norm %.3f | %.1f ms/step | %.1f "
                       "TFLOP/s/GPU | mem 61.%d GiB" % (step, loss, 3e-4 * min(1.0, step / 2000.0),
                                                         rng.uniform(0.28, 0.55), ms, tflops * ms / (step_seconds * 1000),
                                                         rng.randrange(0, 9)))
        step += 1
        when += secs(step_seconds)
    return step


def rank_step_line(rank, step, loss, lr, ms, fwd_bwd, allreduce_wait):
    """A progress line of a training script that logs from every rank with its own timers (the per-rank
    variant of training_steps' format): '[rank12]: step 1200 | loss 2.3142 | lr 3.000e-04 | 1013.2 ms/step |
    fwd_bwd 640.1 ms | allreduce_wait 310.5 ms'. In synchronous data parallel every rank's ms/step is the same (they
    wait for each other at the allreduce); a slow rank shows a high fwd_bwd and a low allreduce_wait."""
    return ("[rank%d]: step %d | loss %.4f | lr %.3e | %.1f ms/step | fwd_bwd %.1f ms | allreduce_wait %.1f ms"
            % (rank, step, loss, lr, ms, fwd_bwd, allreduce_wait))


def checkpoints(log, job, node, rng, saves, model):
    for step, when in saves:
        for rank in job.ranks(node):
            w = when + secs(rng.uniform(3.5, 6.5))
            log.record(w, "[rank%d]: checkpoint: saved shard %d/%d of step %d to /checkpoints/%s/step_%07d (%.2f GiB, "
                       "%.1f s)" % (rank, rank, job.world, step, model, step, rng.uniform(3.1, 3.3),
                                    (w - when).total_seconds()))


def torchrun_failure(log, node, when, failures, script="/workspace/pretrain.py"):
    """torchrun's exit after a worker failed: its traceback and failure summary (one record).
    failures: [(rank, local_rank, exitcode, pid, signal text or None, time)], first is the root."""
    lines = ["  File \"/usr/local/bin/torchrun\", line 8, in <module>",
             "    sys.exit(main())",
             "  File \"%s/distributed/elastic/multiprocessing/errors/__init__.py\", line 347, in wrapper" % TORCH_DIST,
             "    return f(*args, **kwargs)",
             "  File \"%s/distributed/run.py\", line 879, in main" % TORCH_DIST,
             "    run(args)",
             "  File \"%s/distributed/run.py\", line 870, in run" % TORCH_DIST,
             "    elastic_launch(",
             "  File \"%s/distributed/launcher/api.py\", line 132, in __call__" % TORCH_DIST,
             "    return launch_agent(self._config, self._entrypoint, list(args))",
             "  File \"%s/distributed/launcher/api.py\", line 263, in launch_agent" % TORCH_DIST,
             "    raise ChildFailedError(",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
             "============================================================",
             "%s FAILED" % script,
             "------------------------------------------------------------",
             "Failures:"]

    def entry(index, f):
        rank, local, code, pid, signal, when_failed = f
        return ["[%d]:" % index,
                "  time      : %s" % when_failed.strftime("%Y-%m-%d_%H:%M:%S"),
                "  host      : %s" % node,
                "  rank      : %d (local_rank: %d)" % (rank, local),
                "  exitcode  : %d (pid: %d)" % (code, pid),
                "  error_file: <N/A>",
                "  traceback : %s" % (signal or "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")]

    if len(failures) == 1:
        lines.append("  <NO_OTHER_FAILURES>")
    else:
        for i, f in enumerate(failures[1:], start=1):
            lines += entry(i, f)
    lines += ["------------------------------------------------------------",
              "Root Cause (first observed failure):"]
    lines += entry(0, failures[0])
    lines.append("============================================================")
    log.record(when, "Traceback (most recent call last):", *lines)


def nccl_remote_error(log, when, rank, job, node, peer_node, rng):
    """A rank's NCCL watchdog sees its peer on peer_node vanish (ncclRemoteError over InfiniBand)."""
    log.record(when, "[rank%d]:[E ProcessGroupNCCL.cpp:1182] [Rank %d] NCCL watchdog thread terminated with exception: "
               "NCCL error: remote process exited or there was a network error, NCCL version 2.20.5" % (rank, rank),
               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
               "Last error:",
               "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
               "::ffff:%s remoteGid ::ffff:%s" % (job.ip[peer_node], rng.randrange(40000, 60000),
                                                 job.ip[node], job.ip[peer_node]))


def elastic(log, when, level, text, module="torch.distributed.elastic.multiprocessing.api"):
    log.record(when, "[%s] %s: [%s] %s" % (asctime(when), module, level, text))


def syslog_noise(log, rng, start, end, cron_every=300):
    """cron's health check, chrony, the daily tmpfiles clean-up: what a quiet node logs."""
    when = start - secs(start.minute % 5 * 60 + start.second) + secs(cron_every)
    while when < end:
        pid = rng.randrange(100000, 999999)
        log.msg(when + secs(rng.uniform(0.0, 0.4)), "CRON[%d]" % pid,
                "(root) CMD (/usr/sbin/nhc -q -t 60 >/dev/null 2>&1)")
        if rng.random() < 0.25:
            server = rng.choice([1, 2])
            log.msg(when + secs(rng.uniform(20, 200)), "chronyd[1187]",
                    "Selected source 10.0.0.%d (ntp%d.cluster.internal)" % (10 + server, server))
        when += secs(cron_every)
    w = start + secs(rng.uniform(600, 1500))
    log.msg(w, "systemd[1]", "Starting Cleanup of Temporary Directories...")
    log.msg(w + secs(0.2), "systemd[1]", "systemd-tmpfiles-clean.service: Deactivated successfully.")
    log.msg(w + secs(0.2), "systemd[1]", "Finished Cleanup of Temporary Directories.")


def slurmd_step_start(log, job, node, when, slurmd_pid, uid=1000, batch=False):
    if batch:
        log.msg(when - secs(2.1), "slurmd[%d]" % slurmd_pid, "slurmd: Launching batch job %d for UID %d"
                % (job.job_id, uid))
    log.msg(when, "slurmd[%d]" % slurmd_pid, "slurmd: launch task StepId=%d.0 request from UID:%d GID:%d HOST:%s "
            "PORT:%d" % (job.job_id, uid, uid, job.ip[job.nodes[0]], 40000 + job.job_id % 20000))
    log.msg(when + secs(0.01), "kernel", "nvidia-nvlink: Nvlink Core is being initialized, major device number 0")


def slurmd_step_end(log, job, node, when, slurmd_pid, batch=False):
    log.msg(when, "slurmd[%d]" % slurmd_pid, "slurmd: done with step %d.0" % job.job_id)
    if batch:
        log.msg(when + secs(1.2), "slurmd[%d]" % slurmd_pid, "slurmd: done with job %d" % job.job_id)


# ---- example 1: a GPU falls off the bus; 127 ranks time out in NCCL ten minutes later

def xid79_nccl_cascade():
    rng = random.Random(79)
    nodes = ["gpu-%04d" % i for i in range(1, 17)]
    job = Job(rng, 418207, nodes, 11)
    model = "pretrain-llama3-8b"
    start, end = t("2026-11-29T09:58:12"), t("2026-11-29T10:52:41")
    bad, bad_local = "gpu-0007", 2  # PCI 3b:00 is CUDA device 2
    lost_rank = job.ranks(bad)[bad_local]
    xid_time = t("2026-11-29T10:42:00")
    timeout_base = t("2026-11-29T10:52:00.410")
    files = {}
    files["workload.json"] = workload_json({
        "id": "slurm/%d" % job.job_id, "scheduler": "slurm", "name": model, "user": "mchen",
        "partition": "h100", "state": "FAILED", "exit_code": 1, "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "end": end.strftime("%Y-%m-%dT%H:%M:%SZ"), "nodes": nodes, "ranks_per_node": GPUS_PER_NODE,
        "ranks": job.world, "reason": "NonZeroExitCode"})

    launch = start + secs(6.2)
    first_step = launch + secs(52.7)
    saves = [(500, first_step + secs(500 * 1.62)), (1000, first_step + secs(1000 * 1.62) + secs(6)),
             (1500, first_step + secs(1500 * 1.62) + secs(12))]
    seq = 58211  # the allreduce that never completes
    exits = {}  # node -> time torchrun exited
    slurmd_pids = {}
    for ni, node in enumerate(nodes):
        app = AppLog()
        sys_ = SysLog(node)
        slurmd_pid = slurmd_pids[node] = 2000 + rng.randrange(0, 400)
        batch = ni == 0
        if batch:
            app.record(start + secs(1.1), "MASTER_ADDR=gpu-0001 MASTER_PORT=29500 NNODES=16 GPUS_PER_NODE=8")
            app.record(start + secs(1.1), "+ srun --cpu-bind=none torchrun --nnodes 16 "
                       "--nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint gpu-0001:29500 --rdzv-id 418207 "
                       "/workspace/pretrain.py --config configs/llama3_8b.yaml")
        torchrun_banner(app, launch + secs(rng.uniform(0.0, 0.3)))
        nccl_init(app, job, node, launch + secs(31.5), rng)
        if batch:
            app.record(first_step - secs(3.0), "[rank0]: config: llama3_8b world_size=128 tp=1 pp=1 dp=128 "
                       "micro_batch=2 global_batch=1024 seq_len=8192 zero_stage=1 bf16=True")
            training_steps(app, rng, first_step, xid_time, 0, 1.62, 25, 10.8, 2.3, 412.0)
        checkpoints(app, job, node, rng, saves, model)

        # 10 minutes after the GPU fell off the bus every other rank's allreduce times out.
        failed = []
        for rank in job.ranks(node):
            if rank == lost_rank:
                continue
            w = timeout_base + secs(rng.uniform(0.0, 1.9))
            ran = 600000 + int((w - timeout_base).total_seconds() * 1000) + rng.randrange(0, 40)
            tag = "[rank%d]:[E ProcessGroupNCCL.cpp:%d] [Rank %d] "
            app.record(w, (tag % (rank, 563, rank)) + "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, "
                       "OpType=ALLREDUCE, NumelIn=262144000, NumelOut=262144000, Timeout(ms)=600000) ran for %d "
                       "milliseconds before timing out." % (seq, ran))
            app.record(w + secs(0.001), "[rank%d]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank %d] Timeout at NCCL work: %d, "
                       "last enqueued NCCL work: %d, last completed NCCL work: %d." % (rank, rank, seq, seq, seq - 1))
            app.record(w + secs(0.001), (tag % (rank, 577, rank)) + "Some NCCL operations have failed or timed out. Due "
                       "to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
                       "corrupted/incomplete data.")
            app.record(w + secs(0.002), (tag % (rank, 583, rank)) + "To avoid data inconsistency, we are taking the "
                       "entire process down.")
            failed.append((w, rank))
        failed.sort()
        first_w, first_rank = failed[0]
        noticed = first_w + secs(rng.uniform(1.2, 1.8))
        for rank in job.ranks(node):
            if rank != first_rank:
                elastic(app, noticed, "WARNING", "Sending process %d closing signal SIGTERM" % job.pid[rank])
        failures = [(first_rank, first_rank % 8, -6, job.pid[first_rank], "Signal 6 (SIGABRT) received by PID %d"
                     % job.pid[first_rank], noticed)]
        done = noticed + secs(rng.uniform(1.0, 2.5))
        if node == bad:
            # The rank on the lost GPU is stuck in the driver and ignores SIGTERM.
            done = noticed + secs(30.05)
            elastic(app, done, "WARNING", "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via "
                    "Signals.SIGKILL" % job.pid[lost_rank])
            failures.append((lost_rank, bad_local, -9, job.pid[lost_rank], "Signal 9 (SIGKILL) received by PID %d"
                             % job.pid[lost_rank], done))
        elastic(app, done + secs(0.3), "ERROR", "failed (exitcode: -6) local_rank: %d (pid: %d) of binary: "
                "/usr/bin/python3" % (first_rank % 8, job.pid[first_rank]))
        torchrun_failure(app, node, done + secs(0.31), failures)
        exits[node] = done + secs(0.4)

        # syslog
        syslog_noise(sys_, rng, start, end)
        slurmd_step_start(sys_, job, node, start + secs(4.9 + rng.uniform(0, 0.5)), slurmd_pid, batch=batch)
        if node == bad:
            w = xid_time - secs(0.38)
            sys_.msg(w, "kernel", "pcieport 0000:39:01.0: AER: Uncorrected (Fatal) error received: 0000:39:01.0")
            sys_.msg(w, "kernel", "pcieport 0000:39:01.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction "
                     "Layer, (Receiver ID)")
            sys_.msg(xid_time, "kernel", "NVRM: GPU at PCI:0000:3b:00: GPU-5f3c8a21-0b7e-4d9c-a1f2-9e8d7c6b5a43")
            sys_.msg(xid_time, "kernel", "NVRM: GPU Board Serial Number: 1654922019384")
            sys_.msg(xid_time, "kernel", "NVRM: Xid (PCI:0000:3b:00): 79, pid=%d, GPU has fallen off the bus."
                     % job.pid[lost_rank])
            sys_.msg(xid_time, "kernel", "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.")
            sys_.msg(xid_time, "kernel", "NVRM: A GPU crash dump has been created. If possible, please run")
            sys_.msg(xid_time, "kernel", "NVRM: nvidia-bug-report.sh as root to collect this data before")
            sys_.msg(xid_time, "kernel", "NVRM: the NVIDIA kernel module is unloaded.")
            sys_.msg(xid_time + secs(4), "nvidia-persistenced[1342]", "device 0000:3b:00.0 - persistence mode disabled.")
            sys_.msg(xid_time + secs(4), "nvidia-persistenced[1342]", "device 0000:3b:00.0 - NUMA memory offlined.")
        files["logs/%s/applog.log" % node] = app
        files["logs/%s/syslog.log" % node] = sys_

    # srun on the batch host reports each node's torchrun exit and ends the step.
    batch_log = files["logs/gpu-0001/applog.log"]
    for task, node in sorted(enumerate(nodes), key=lambda x: exits[x[1]]):
        batch_log.record(exits[node] + secs(0.05), "srun: error: %s: task %d: Exited with exit code 1" % (node, task))
    last = max(exits.values())
    for ni, node in enumerate(nodes):
        slurmd_step_end(files["logs/%s/syslog.log" % node], job, node, last + secs(0.9 + ni * 0.01),
                        slurmd_pids[node], batch=ni == 0)
    return files


# ---- example 2: the host runs out of memory on one node

def host_oom():
    rng = random.Random(9)
    nodes = ["gpu-%04d" % i for i in range(21, 25)]
    job = Job(rng, 5123, nodes, 121)
    model = "finetune-mixtral-8x7b"
    start, end = t("2026-11-29T13:40:03"), t("2026-11-29T14:17:44")
    bad = "gpu-0023"
    victim = job.ranks(bad)[6]
    kill_time = t("2026-11-29T14:17:31.208")
    files = {}
    files["workload.json"] = workload_json({
        "id": "slurm/%d" % job.job_id, "scheduler": "slurm", "name": model, "user": "aokafor",
        "partition": "h100", "state": "OUT_OF_MEMORY", "exit_code": 0, "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "end": end.strftime("%Y-%m-%dT%H:%M:%SZ"), "nodes": nodes, "ranks_per_node": GPUS_PER_NODE,
        "ranks": job.world, "reason": "OutOfMemory"})
    launch = start + secs(5.4)
    first_step = launch + secs(71.0)
    saves = [(250, first_step + secs(250 * 3.9))]
    noticed = kill_time + secs(3.6)   # torchrun on the bad node sees its worker die
    cancel = noticed + secs(6.3)      # srun --kill-on-bad-exit ends the step everywhere
    for ni, node in enumerate(nodes):
        app = AppLog()
        sys_ = SysLog(node)
        slurmd_pid = 1900 + rng.randrange(0, 300)
        if ni == 0:
            app.record(start + secs(1.0), "+ srun --kill-on-bad-exit=1 torchrun --nnodes 4 --nproc-per-node 8 "
                       "--rdzv-backend c10d --rdzv-endpoint gpu-0021:29500 /workspace/finetune.py "
                       "--deepspeed configs/zero3_offload.json")
        torchrun_banner(app, launch + secs(rng.uniform(0.0, 0.3)))
        nccl_init(app, job, node, launch + secs(40.2), rng, nccl_version="2.20.5")
        for rank in job.ranks(node):
            checkpoint_warning(app, rank, first_step + secs(rng.uniform(0.5, 1.5)))
        if ni == 0:
            w = first_step - secs(20.4)
            app.record(w, "[rank0]: [%s] [INFO] [config.py:1000:print]   zero_config .................. stage=3 "
                       "offload_param=DeepSpeedZeroOffloadParamConfig(device='cpu', pin_memory=True) "
                       "offload_optimizer=DeepSpeedZeroOffloadOptimizerConfig(device='cpu', pin_memory=True)"
                       % asctime(w))
            training_steps(app, rng, first_step, kill_time, 0, 3.9, 10, 1.9, 1.1, 296.0)
        checkpoints(app, job, node, rng, saves, model)
        if node == bad:
            elastic(app, noticed, "WARNING", "Sending process %d closing signal SIGTERM" % job.pid[job.ranks(bad)[0]])
            for rank in job.ranks(bad)[1:]:
                if rank != victim:
                    elastic(app, noticed, "WARNING", "Sending process %d closing signal SIGTERM" % job.pid[rank])
            elastic(app, noticed + secs(2.1), "ERROR", "failed (exitcode: -9) local_rank: 6 (pid: %d) of binary: "
                    "/usr/bin/python3" % job.pid[victim])
            torchrun_failure(app, node, noticed + secs(2.11), [(victim, 6, -9, job.pid[victim],
                                                                "Signal 9 (SIGKILL) received by PID %d" % job.pid[victim],
                                                                noticed)], script="/workspace/finetune.py")
            app.record(noticed + secs(4.2), "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=%d.0. Some of "
                       "your processes may have been killed by the cgroup out-of-memory handler." % job.job_id)
        else:
            # The peers of the killed rank see its connections drop, then srun stops them.
            for rank in job.ranks(node):
                if rank % 8 not in (5, 6, 7):
                    continue  # the ranks that talk to gpu-0023 over the ring
                w = kill_time + secs(rng.uniform(0.6, 1.4))
                nccl_remote_error(app, w, rank, job, node, bad, rng)
            w = cancel + secs(rng.uniform(0.05, 0.2))
            elastic(app, w, "WARNING", "Received Signals.SIGTERM death signal, shutting down workers",
                    module="torch.distributed.elastic.agent.server.api")
            for rank in job.ranks(node):
                elastic(app, w + secs(0.001), "WARNING", "Sending process %d closing signal SIGTERM" % job.pid[rank])
        files["logs/%s/applog.log" % node] = app

        syslog_noise(sys_, rng, start, end)
        slurmd_step_start(sys_, job, node, start + secs(4.1 + rng.uniform(0, 0.5)), slurmd_pid, batch=ni == 0)
        if node == bad:
            oom_report(sys_, rng, kill_time, job.pid[victim], job.job_id)
        slurmd_step_end(sys_, job, node, cancel + secs(2.5 + ni * 0.02), slurmd_pid, batch=ni == 0)
        files["logs/%s/syslog.log" % node] = sys_

    batch_log = files["logs/gpu-0021/applog.log"]
    batch_log.record(noticed + secs(6.2), "srun: error: %s: task 2: Out Of Memory" % bad)
    batch_log.record(noticed + secs(6.2), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    batch_log.record(cancel, "slurmstepd: error: *** STEP %d.0 ON gpu-0021 CANCELLED AT %s ***"
                     % (job.job_id, slurm_time(cancel)))
    for task, node in enumerate(nodes):
        if node != bad:
            batch_log.record(cancel + secs(2.0 + task * 0.01), "srun: error: %s: task %d: Terminated" % (node, task))
    batch_log.record(cancel + secs(2.1), "srun: Force Terminated StepId=%d.0" % job.job_id)
    return files


def oom_report(log, rng, when, pid, job_id):
    """The kernel's OOM-killer report, abridged to its usual first and last lines."""
    k = lambda text: log.msg(when, "kernel", text)
    k("python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
    k("CPU: 87 PID: %d Comm: python Tainted: P           OE     5.15.0-105-generic #115-Ubuntu" % (pid + 41))
    k("Hardware name: Dell Inc. PowerEdge XE9680/0RGTMV, BIOS 1.6.10 01/23/2024")
    k("Call Trace:")
    k(" <TASK>")
    for frame in ["dump_stack_lvl+0x4a/0x63", "dump_header+0x4a/0x1f3", "oom_kill_process.cold+0xb/0x10",
                  "out_of_memory+0x1bd/0x4f0", "__alloc_pages_slowpath.constprop.0+0xc1b/0xcf0",
                  "__alloc_pages+0x30e/0x330", "alloc_pages_vma+0x9d/0x380", "do_anonymous_page+0xf8/0x3b0",
                  "handle_mm_fault+0xd8/0x2c0", "do_user_addr_fault+0x1c9/0x670", "exc_page_fault+0x77/0x170",
                  "asm_exc_page_fault+0x27/0x30"]:
        k(" " + frame)
    k(" </TASK>")
    k("Mem-Info:")
    k("active_anon:503112447 inactive_anon:1283817 isolated_anon:0#012 active_file:1123 inactive_file:977 "
      "isolated_file:0#012 unevictable:0 dirty:0 writeback:0#012 slab_reclaimable:381274 slab_unreclaimable:921355")
    k("Node 0 Normal free:11624kB boost:0kB min:11768kB low:1060344kB high:2108920kB")
    k("Node 1 Normal free:11532kB boost:0kB min:11768kB low:1060344kB high:2108920kB")
    k("Tasks state (memory values in pages):")
    k("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name")
    for i in range(8):
        k("[%7d]  1000 %6d %8d %8d %14d        0             0 python" % (pid - 6 + i, pid - 6 + i,
                                                                          103225867 + i * 1311, 62848689 - i * 211,
                                                                          515207168 + i * 4096))
    k("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
      "task_memcg=/system.slice/slurmstepd.scope/job_%d/step_0/user/task_0,task=python,pid=%d,uid=1000" % (job_id, pid))
    k("Out of memory: Killed process %d (python) total-vm:412903468kB, anon-rss:251394756kB, file-rss:104332kB, "
      "shmem-rss:2097152kB, UID:1000 pgtables:503112kB oom_score_adj:0" % pid)
    log.msg(when + secs(1.9), "kernel", "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, "
            "shmem-rss:2097152kB" % pid)


# ---- example 3: a rank raises a ValueError; the others are torn down

def user_code_exception():
    rng = random.Random(13)
    nodes = ["gpu-%04d" % i for i in range(41, 45)]
    job = Job(rng, 6120, nodes, 141)
    model = "sft-llama3-70b-v3"
    start, end = t("2026-11-29T15:20:41"), t("2026-11-29T16:05:29")
    bad_rank = 13
    bad = job.node_of(bad_rank)
    raised = t("2026-11-29T16:05:13.482")
    files = {}
    files["workload.json"] = workload_json({
        "id": "slurm/%d" % job.job_id, "scheduler": "slurm", "name": model, "user": "priya",
        "partition": "h100", "state": "FAILED", "exit_code": 1, "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "end": end.strftime("%Y-%m-%dT%H:%M:%SZ"), "nodes": nodes, "ranks_per_node": GPUS_PER_NODE,
        "ranks": job.world, "reason": "NonZeroExitCode"})
    launch = start + secs(4.8)
    first_step = launch + secs(48.3)
    eval_start = t("2026-11-29T16:05:02.117")
    noticed = raised + secs(1.7)
    cancel = noticed + secs(5.9)
    for ni, node in enumerate(nodes):
        app = AppLog()
        sys_ = SysLog(node)
        slurmd_pid = 2100 + rng.randrange(0, 300)
        if ni == 0:
            app.record(start + secs(1.0), "+ srun --kill-on-bad-exit=1 torchrun --nnodes 4 --nproc-per-node 8 "
                       "--rdzv-backend c10d --rdzv-endpoint gpu-0041:29500 /workspace/sft.py --config "
                       "configs/sft_70b.yaml")
        torchrun_banner(app, launch + secs(rng.uniform(0.0, 0.3)))
        nccl_init(app, job, node, launch + secs(29.0), rng)
        for rank in job.ranks(node):
            checkpoint_warning(app, rank, first_step + secs(rng.uniform(0.5, 1.5)))
        if ni == 0:
            training_steps(app, rng, first_step, eval_start, 0, 4.41, 10, 1.45, 0.9, 388.0)
            app.record(eval_start, "[rank0]: eval: running validation at step 600 (64 batches per rank)")
        for rank in job.ranks(node):
            app.record(eval_start + secs(rng.uniform(0.01, 0.1)), "[rank%d]: data: validation shard %d/%d: "
                       "/data/sft/val/shard-%05d.bin" % (rank, rank, job.world, 400 + rank))
        if node == bad:
            tb = ["  File \"/workspace/sft.py\", line 412, in <module>",
                  "    main()",
                  "  File \"/workspace/sft.py\", line 398, in main",
                  "    val_loss = evaluate(model, val_loader, step)",
                  "  File \"/workspace/sft.py\", line 301, in evaluate",
                  "    for batch in loader:",
                  "  File \"/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py\", line 631, in __next__",
                  "    data = self._next_data()",
                  "  File \"/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py\", line 675, in _next_data",
                  "    data = self._dataset_fetcher.fetch(index)  # may raise StopIteration",
                  "  File \"/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/fetch.py\", line 54, in fetch",
                  "    return self.collate_fn(data)",
                  "  File \"/workspace/data/collate.py\", line 57, in collate",
                  "    raise ValueError(",
                  "ValueError: sequence length 4113 exceeds max_seq_len 4096 (sample 88123 in /data/sft/val/shard-00413.bin)"]
            app.record(raised, "[rank%d]: Traceback (most recent call last):" % bad_rank,
                       *["[rank%d]: %s" % (bad_rank, line) for line in tb])
            local = bad_rank % 8
            for rank in job.ranks(node):
                if rank != bad_rank:
                    elastic(app, noticed, "WARNING", "Sending process %d closing signal SIGTERM" % job.pid[rank])
            elastic(app, noticed + secs(1.4), "ERROR", "failed (exitcode: 1) local_rank: %d (pid: %d) of binary: "
                    "/usr/bin/python3" % (local, job.pid[bad_rank]))
            torchrun_failure(app, node, noticed + secs(1.41), [(bad_rank, local, 1, job.pid[bad_rank], None, raised)],
                             script="/workspace/sft.py")
        else:
            for rank in job.ranks(node):
                if rank % 8 not in (5,):
                    continue  # rank 13's peers in the ring
                w = noticed - secs(rng.uniform(0.2, 0.9))
                nccl_remote_error(app, w, rank, job, node, bad, rng)
            w = cancel + secs(rng.uniform(0.05, 0.2))
            elastic(app, w, "WARNING", "Received Signals.SIGTERM death signal, shutting down workers",
                    module="torch.distributed.elastic.agent.server.api")
            for rank in job.ranks(node):
                elastic(app, w + secs(0.001), "WARNING", "Sending process %d closing signal SIGTERM" % job.pid[rank])
        files["logs/%s/applog.log" % node] = app
        syslog_noise(sys_, rng, start, end)
        slurmd_step_start(sys_, job, node, start + secs(3.9 + rng.uniform(0, 0.5)), slurmd_pid, batch=ni == 0)
        slurmd_step_end(sys_, job, node, cancel + secs(2.2 + ni * 0.02), slurmd_pid, batch=ni == 0)
        files["logs/%s/syslog.log" % node] = sys_

    batch_log = files["logs/gpu-0041/applog.log"]
    task = nodes.index(bad)
    batch_log.record(noticed + secs(5.8), "srun: error: %s: task %d: Exited with exit code 1" % (bad, task))
    batch_log.record(noticed + secs(5.8), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    batch_log.record(cancel, "slurmstepd: error: *** STEP %d.0 ON gpu-0041 CANCELLED AT %s ***"
                     % (job.job_id, slurm_time(cancel)))
    for i, node in enumerate(nodes):
        if node != bad:
            batch_log.record(cancel + secs(2.0 + i * 0.01), "srun: error: %s: task %d: Terminated" % (node, i))
    batch_log.record(cancel + secs(2.1), "srun: Force Terminated StepId=%d.0" % job.job_id)
    return files


EXAMPLES = {
    "xid79-nccl-cascade": xid79_nccl_cascade,
    "host-oom": host_oom,
    "user-code-exception": user_code_exception,
}


def render(files):
    out = {}
    for path, content in files.items():
        out[path] = (content.text() if isinstance(content, Log) else content).encode("utf-8")
    return out


def write_tree(root, files):
    """Writes files ({relative path: bytes}) under root, creating directories."""
    for path, data in sorted(files.items()):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


def check_tree(root, files, label):
    """Compares the tree under root with files; prints one line per difference and returns their count."""
    on_disk = set()
    for dirpath, _, names in os.walk(root):
        for n in names:
            on_disk.add(os.path.relpath(os.path.join(dirpath, n), root))
    problems = 0
    for path in sorted(on_disk | set(files)):
        if path not in files:
            print("%s/%s: not written by generate.py" % (label, path))
        elif path not in on_disk:
            print("%s/%s: missing" % (label, path))
        else:
            with open(os.path.join(root, path), "rb") as f:
                if f.read() == files[path]:
                    continue
            print("%s/%s: differs from generate.py's output" % (label, path))
        problems += 1
    return problems


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        sys.stderr.write("usage: generate.py [--check]\n")
        return 2
    problems = 0
    for name, build in EXAMPLES.items():
        root = os.path.join(HERE, name)
        files = render(build())
        if check:
            problems += check_tree(root, files, name)
            continue
        shutil.rmtree(root, ignore_errors=True)
        write_tree(root, files)
        print("%s: %d files, %d bytes" % (name, len(files), sum(len(d) for d in files.values())))
    if check:
        print("examples are %s" % ("up to date" if problems == 0 else "out of date: run python3 examples/generate.py"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
