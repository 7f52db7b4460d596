#include "ir/log_channels.h"

#include <fmt/format.h>

#include "ir/sha256.h"
#include "ir/telling_words.h"

namespace attrib::ir {
namespace {

constexpr const char* kNames[kChannelCount] = {"kernel",       "system",           "scheduler",
                                               "orchestrator", "container_runtime", "application"};

using C = Channel;
using F = MarkerForm;

// The table. Examples are real lines (host names and ids as the tools print them); the tool
// column says what printed the form and which version it was checked against.
const std::vector<ChannelMarker> kMarkers = {
    // ---- the program field of syslog and journal lines
    {C::Kernel, F::Program, "kernel", "Nov 29 10:42:00 gpu-0007 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.", "rsyslog 8.2302 / journalctl 252"},
    {C::Scheduler, F::Program, "slurmstepd", "Nov 29 10:42:07 gpu-0007 slurmstepd[81234]: error: Detected 1 oom_kill event in StepId=4242.0.", "Slurm 22.05 slurmstepd via syslog"},
    {C::Scheduler, F::Program, "slurmd", "Nov 29 10:40:00 gpu-0007 slurmd[2210]: error: prolog failed: rc:1 output:", "Slurm 22.05 slurmd via syslog"},
    {C::Scheduler, F::Program, "slurmctld", "Nov 29 10:40:00 head slurmctld[991]: error: Nodes gpu-0007 not responding", "Slurm 22.05 slurmctld via syslog"},
    {C::Scheduler, F::Program, "slurmdbd", "Nov 29 10:40:00 head slurmdbd[991]: error: mysql_query failed", "Slurm 22.05 slurmdbd via syslog"},
    {C::Orchestrator, F::Program, "kubelet", "Nov 29 10:40:00 gpu-0007 kubelet[1501]: E1129 10:40:00.1 1501 eviction_manager.go:256] eviction manager: pods evicted", "Kubernetes 1.2x kubelet via journald"},
    {C::Orchestrator, F::Program, "k3s", "Nov 29 10:40:00 gpu-0007 k3s[1501]: E1129 10:40:00.1 1501 kuberuntime_manager.go:1] failed", "k3s 1.2x via journald"},
    {C::ContainerRuntime, F::Program, "containerd", "Nov 29 10:40:00 gpu-0007 containerd[1100]: time=\"2026-11-29T10:40:00Z\" level=error msg=\"failed to create shim task\"", "containerd 1.7 via journald"},
    {C::ContainerRuntime, F::Program, "dockerd", "Nov 29 10:40:00 gpu-0007 dockerd[1000]: time=\"2026-11-29T10:40:00Z\" level=error msg=\"Handler for POST /containers/create returned error\"", "Docker 24 via journald"},
    {C::ContainerRuntime, F::Program, "crio", "Nov 29 10:40:00 gpu-0007 crio[900]: time=\"2026-11-29T10:40:00Z\" level=error msg=\"Container creation error\"", "CRI-O 1.2x via journald"},
    {C::System, F::Program, "systemd", "Nov 29 10:40:00 gpu-0007 systemd[1]: nvidia-fabricmanager.service: Main process exited, code=exited, status=1/FAILURE", "systemd 252"},
    {C::System, F::Program, "nv-fabricmanager", "Nov 29 10:40:00 gpu-0007 nv-fabricmanager[2121]: detected NVSwitch non-fatal error 12028 on NVSwitch pci bus id 00000000:86:00.0", "NVIDIA Fabric Manager 535 via journald"},
    {C::System, F::Program, "nvidia-fabricmanager", "Nov 29 10:40:00 gpu-0007 nvidia-fabricmanager[2121]: fabric manager service is exiting", "NVIDIA Fabric Manager via journald"},
    {C::System, F::Program, "nvidia-persistenced", "Nov 29 10:40:00 gpu-0007 nvidia-persistenced[1801]: Started (1801)", "NVIDIA driver 535 via journald"},
    {C::System, F::Program, "nv-hostengine", "Nov 29 10:40:00 gpu-0007 nv-hostengine[1901]: DCGM initialized", "DCGM 3.x via journald"},
    {C::System, F::Program, "rasdaemon", "Nov 29 10:40:00 gpu-0007 rasdaemon[777]: mce_record: ... Corrected error", "rasdaemon 0.6 via journald"},
    {C::System, F::Program, "mcelog", "Nov 29 10:40:00 gpu-0007 mcelog[777]: Hardware event. This is not a software error.", "mcelog via syslog"},
    {C::System, F::Program, "sshd", "Nov 29 10:40:00 gpu-0007 sshd[12]: Accepted publickey for root", "OpenSSH via syslog"},
    {C::System, F::Program, "cron", "Nov 29 10:40:00 gpu-0007 cron[99]: (root) CMD (run-parts /etc/cron.hourly)", "cron via syslog"},
    {C::System, F::Program, "CRON", "Nov 29 10:40:00 gpu-0007 CRON[99]: (root) CMD (run-parts /etc/cron.hourly)", "Debian cron via syslog"},
    {C::System, F::Program, "chronyd", "Nov 29 10:40:00 gpu-0007 chronyd[700]: Selected source 10.0.0.1", "chrony via syslog"},
    // ---- the kernel's own timestamps
    {C::Kernel, F::Prefix, "[seconds since boot]", "[74889.644138] NVRM: Xid (PCI:0000:02:00): 79, GPU has fallen off the bus.", "dmesg (util-linux 2.38)"},
    {C::Kernel, F::Prefix, "[+delta]", "[  +0.000316] pcieport 0000:00:03.0: AER: Corrected error received: 0000:00:03.0", "dmesg --reltime (util-linux 2.38)"},
    {C::Kernel, F::Prefix, "[ctime]", "[Sun Nov 29 10:42:00 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.", "dmesg -T (util-linux 2.38)"},
    // ---- messages that start as the kernel prints them (dmesg -t, or pasted without prefix)
    {C::Kernel, F::Starts, "NVRM: ", "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.", "NVIDIA driver 470-570"},
    {C::Kernel, F::Starts, "nvidia-nvswitch", "nvidia-nvswitch3: SXid (PCI:0000:8b:00.0): 12028, Non-fatal, Link 10 egress non-posted PRIV error", "NVIDIA driver 535"},
    {C::Kernel, F::Starts, "mlx5_core ", "mlx5_core 0000:0c:00.0: mlx5_port_module_event:1156:(pid 0): Port module event: module 0, Cable unplugged", "Linux 5.15 mlx5_core"},
    {C::Kernel, F::Starts, "mlx5_ib", "mlx5_ib: mlx5_ib_event:3189:(pid 0): port 1 state changed to DOWN", "Linux 5.15 mlx5_ib"},
    {C::Kernel, F::Starts, "pcieport ", "pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error received: id=0010", "Linux 4.x-6.x AER"},
    {C::Kernel, F::Starts, "Out of memory: ", "Out of memory: Killed process 12345 (python) total-vm:123456kB, anon-rss:1234kB", "Linux 5.x oom_kill.c"},
    {C::Kernel, F::Starts, "oom-kill:", "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,task=python,pid=12345,uid=0", "Linux 5.x oom_kill.c"},
    {C::Kernel, F::Contains, " invoked oom-killer: ", "python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0", "Linux 5.x oom_kill.c"},
    {C::Kernel, F::Starts, "Memory cgroup out of memory: ", "Memory cgroup out of memory: Killed process 12345 (python) total-vm:123456kB", "Linux 5.x memcontrol.c"},
    {C::Kernel, F::Starts, "INFO: task ", "INFO: task python:12345 blocked for more than 120 seconds.", "Linux 5.x hung_task.c"},
    {C::Kernel, F::Starts, "watchdog: BUG: soft lockup", "watchdog: BUG: soft lockup - CPU#12 stuck for 22s! [python:12345]", "Linux 5.x watchdog.c"},
    {C::Kernel, F::Starts, "Kernel panic - not syncing", "Kernel panic - not syncing: Fatal hardware error!", "Linux panic.c"},
    {C::Kernel, F::Starts, "mce: ", "mce: [Hardware Error]: Machine check events logged", "Linux 5.x mce"},
    {C::Kernel, F::Starts, "EDAC ", "EDAC MC0: 1 UE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0", "Linux 5.x EDAC"},
    {C::Kernel, F::Contains, "[Hardware Error]: ", "{1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 0", "Linux 5.x APEI GHES"},
    {C::Kernel, F::Starts, "EXT4-fs ", "EXT4-fs error (device nvme0n1p1): ext4_journal_check_start:83: comm python: Detected aborted journal", "Linux 5.x ext4"},
    {C::Kernel, F::Starts, "LustreError: ", "LustreError: 11-0: scratch-OST0003-osc-ffff: operation ost_write to node 10.0.0.9@o2ib failed: rc = -107", "Lustre 2.15 client"},
    {C::Kernel, F::Starts, "LNetError: ", "LNetError: 2929:0:(o2iblnd_cb.c:3370:kiblnd_check_txs_locked()) Timed out tx: active_txs, 1 seconds", "Lustre 2.x LNet (libcfs tracefile.c)"},
    {C::Kernel, F::Starts, "nfs: server ", "nfs: server storage01 not responding, still trying", "Linux NFS client"},
    // ---- messages that start as Slurm's commands print them in a job's output
    {C::Scheduler, F::Starts, "slurmstepd: ", "slurmstepd: error: *** JOB 4242 ON gpu-0007 CANCELLED AT 2026-11-29T10:42:00 DUE TO TIME LIMIT ***", "Slurm 22.05 slurmstepd in the job's stdout"},
    {C::Scheduler, F::Starts, "slurmstepd-", "slurmstepd-gpu-0007: error: Detected 1 oom_kill event in StepId=4242.0. Some of the step tasks have been OOM Killed.", "Slurm 23.02 slurmstepd in the job's stdout"},
    {C::Scheduler, F::Starts, "srun: ", "srun: error: gpu-0007: task 3: Exited with exit code 1", "Slurm 22.05 srun"},
    {C::Scheduler, F::Starts, "salloc: ", "salloc: error: Job submit/allocate failed: Requested node configuration is not available", "Slurm 22.05 salloc"},
    {C::Scheduler, F::Starts, "sbatch: ", "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified", "Slurm 22.05 sbatch"},
    // ---- kubectl's views of events and pods
    {C::Orchestrator, F::Starts, "Warning  ", "Warning  FailedScheduling  2m (x5 over 10m)  default-scheduler  0/4 nodes are available: 4 Insufficient nvidia.com/gpu.", "kubectl 1.28 describe (Events, de-indented)"},
    {C::Orchestrator, F::Contains, "   Warning   ", "5m          Warning   Evicted   pod/trainer-0   The node was low on resource: memory.", "kubectl 1.28 get events"},
    {C::Orchestrator, F::Contains, "   Normal   ", "5m          Normal    Pulled    pod/trainer-0   Successfully pulled image \"nvcr.io/nvidia/pytorch:24.01-py3\"", "kubectl 1.28 get events"},
    {C::Orchestrator, F::Starts, "Error from server", "Error from server (BadRequest): container \"trainer\" in pod \"trainer-0\" is waiting to start: image can't be pulled", "kubectl 1.28"},
    {C::Orchestrator, F::Starts, "Reason:  ", "      Reason:       OOMKilled", "kubectl 1.28 describe pod (a container's State)"},
    {C::Orchestrator, F::Starts, "Last State:  ", "    Last State:     Terminated", "kubectl 1.28 describe pod"},
    {C::Orchestrator, F::Starts, "Exit Code:  ", "      Exit Code:    137", "kubectl 1.28 describe pod"},
    {C::Orchestrator, F::Contains, "   OOMKilled   ", "trainer-0   0/1     OOMKilled   3 (10s ago)   5m", "kubectl 1.28 get pods"},
    {C::Orchestrator, F::Contains, "   CrashLoopBackOff   ", "trainer-0   0/1     CrashLoopBackOff   4 (30s ago)   6m", "kubectl 1.28 get pods"},
    {C::Orchestrator, F::Contains, "   ImagePullBackOff   ", "trainer-0   0/1     ImagePullBackOff   0          2m", "kubectl 1.28 get pods"},
    // ---- container runtimes, as they surface in a job's or a pod's output
    {C::ContainerRuntime, F::Starts, "nvidia-container-cli: ", "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown", "NVIDIA Container Toolkit 1.14"},
    {C::ContainerRuntime, F::Contains, "OCI runtime create failed", "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process", "containerd 1.7 / runc 1.1"},
    {C::ContainerRuntime, F::Starts, "docker: Error response from daemon", "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].", "Docker 24"},
};

std::string escapeLiteral(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}/-").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::vector<MarkerExpression> buildExpressions() {
  std::vector<MarkerExpression> out;
  // Program and Prefix markers have no expression: evidence::prefixChannel reads them from a
  // line's first bytes, which costs less than anchored expressions at every line start.
  // The literals, one alternation per channel.
  for (int c = 0; c < kChannelCount; ++c) {
    std::string literals;
    for (const auto& m : kMarkers) {
      if ((m.form != F::Starts && m.form != F::Contains) || static_cast<int>(m.channel) != c) continue;
      literals += (literals.empty() ? "" : "|") + escapeLiteral(m.text);
    }
    if (!literals.empty()) out.push_back({"(?:" + literals + ")", static_cast<Channel>(c)});
  }
  return out;
}

}  // namespace

const char* channelName(Channel channel) { return kNames[static_cast<int>(channel)]; }

bool channelFromName(std::string_view name, Channel* out) {
  for (int c = 0; c < kChannelCount; ++c) {
    if (name == kNames[c]) {
      *out = static_cast<Channel>(c);
      return true;
    }
  }
  return false;
}

ChannelMask channelsOfSourceWord(std::string_view word) {
  Channel c;
  if (channelFromName(word, &c)) return maskOf(c);
  if (word == "applog" || word == "container") return maskOf(Channel::Application);
  if (word == "syslog") return maskOf(Channel::Kernel) | maskOf(Channel::System);
  if (word == "dmesg") return maskOf(Channel::Kernel);
  if (word == "k8s_events") return maskOf(Channel::Orchestrator);
  return 0;
}

const std::vector<std::string>& sourceWords() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> w(std::begin(kNames), std::end(kNames));
    for (const char* legacy : {"applog", "container", "syslog", "dmesg", "k8s_events"}) w.push_back(legacy);
    return w;
  }();
  return words;
}

const std::vector<ChannelMarker>& channelMarkers() { return kMarkers; }

const std::vector<MarkerExpression>& markerExpressions() {
  static const std::vector<MarkerExpression> expressions = buildExpressions();
  return expressions;
}

const std::string& markerTableDigest() {
  static const std::string digest = [] {
    std::string text;
    for (const auto& m : kMarkers) text += fmt::format("{}\t{}\t{}\n", static_cast<int>(m.channel), static_cast<int>(m.form), m.text);
    for (const auto& e : markerExpressions()) text += fmt::format("{}\t{}\n", e.regex, static_cast<int>(e.channel));
    // The telling words share the database and its ids (ir/telling_words.h).
    for (const auto& t : tellingWords()) text += fmt::format("telling\t{}\t{}\n", t.regex, t.weight);
    for (const auto& d : tellingDemotions()) text += fmt::format("demotion\t{}\t{}\n", d.phrase, d.weight);
    return sha256(text);
  }();
  return digest;
}

}  // namespace attrib::ir
