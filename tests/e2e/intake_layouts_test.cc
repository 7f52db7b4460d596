// The intake on evidence as people have it (issue 14): the same failure, written the way real
// tools print it and saved the way people save it, gives the verdict the same evidence gives in a
// workload directory. Every line below follows the format of the tool named beside it; host
// names, pids and times are the test's own.
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

using Lines = std::vector<std::string>;

void write(const fs::path& path, const Lines& lines) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  for (const auto& l : lines) out << l << '\n';
}

std::string joined(const Lines& lines) {
  std::string s;
  for (const auto& l : lines) s += l + '\n';
  return s;
}

// An archive at `path` (tar, gzip-compressed when the name ends in .gz) of `entries`: name ->
// bytes; a name is stored as given, "../" and "/" included, which is what the hostile cases need.
void writeTar(const fs::path& path, const std::vector<std::pair<std::string, std::string>>& entries) {
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (endsWith(path.string(), ".gz")) archive_write_add_filter_gzip(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const auto& [name, bytes] : entries) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(bytes.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_mtime(e, 1795984109, 0);
    archive_write_header(a, e);
    archive_write_data(a, bytes.data(), bytes.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

// Runs attrib with `input` as its standard input.
CliResult runWithInput(const std::vector<std::string>& args, const fs::path& input, const fs::path& scratch) {
  std::string cmd = quote(ATTRIB_PATH);
  for (const auto& a : args) cmd += " " + quote(a);
  fs::path out = scratch / "attrib.stdout", err = scratch / "attrib.stderr";
  cmd += " <" + quote(input.string()) + " >" + quote(out.string()) + " 2>" + quote(err.string());
  int status = std::system(cmd.c_str());
  CliResult r;
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

json parse(const CliResult& r) {
  EXPECT_EQ(r.exit, 0) << r.err;
  json v = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(v.is_discarded()) << r.out.substr(0, 500);
  return v.is_discarded() ? json::object() : v;
}

// What must agree between two forms of the same evidence.
json summary(const json& v, bool withNodes = true) {
  json outcome = v.value("outcome", json::array());
  json primary = outcome.empty() ? json::object() : outcome.front();
  json root = v.value("root_cause", json());
  auto field = [&](const char* k) { return root.is_object() ? root.value(k, json()) : json(); };
  json out = {{"outcome", primary.value("name", json())},
              {"family", primary.value("family", json())},
              {"root", field("symptom")},
              {"root_rank", field("rank")},
              {"root_gpu", field("gpu")}};
  if (withNodes) {
    out["root_node"] = field("node");
    out["bad_nodes"] = nodeNames(v.value("bad_nodes", json::array()));
  }
  return out;
}

const char* kWorkload = R"({"id": "slurm/4242", "scheduler": "slurm", "state": "FAILED", "exit_code": 1,
  "start": "2026-11-29T10:00:00Z", "end": "2026-11-29T10:53:00Z", "nodes": ["gpu-a", "gpu-b"],
  "ranks": 8, "ranks_per_node": 4})";

class IntakeLayouts : public ::testing::Test {
 protected:
  json diagnosePaths(const std::vector<std::string>& paths, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"diagnose", "--no-timings", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), paths.begin(), paths.end());
    return parse(runAttrib(args, scratch_.path()));
  }
  fs::path dir(const std::string& name) {
    fs::path p = root_.path() / name;
    fs::create_directories(p);
    return p;
  }
  fs::path workloadJson() {
    fs::path p = root_.path() / "workload.json";
    std::ofstream(p) << kWorkload;
    return p;
  }
  TempDir root_, scratch_;
};

// srun --label (Slurm 22.05) in front of torchrun (PyTorch 2.4, one task per node), with NCCL
// 2.21's host:pid:tid prefixes and PyTorch's [rankN] and c10 logger prefixes. Task 1 runs on
// gpu-b; the fault is rank 6's.
const Lines kNodeA = {
    "gpu-a:31001:31001 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>",
    "gpu-a:31002:31002 [1] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>",
    "[rank1]:[E1129 10:52:01.123456789 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=1042, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600018 milliseconds before timing out.",
    "[rank2]:[E1129 10:52:01.223456789 ProcessGroupNCCL.cpp:616] [Rank 2] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=1042, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600021 milliseconds before timing out.",
};
const Lines kNodeB = {
    "gpu-b:41004:41004 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.2<0>",
    "gpu-b:41006:41006 [2] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.2<0>",
    "[rank6]: Traceback (most recent call last):",
    "[rank6]:   File \"/workspace/train.py\", line 88, in <module>",
    "[rank6]:     loss.backward()",
    "[rank6]: RuntimeError: CUDA error: an illegal memory access was encountered",
    "[rank6]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
};

TEST_F(IntakeLayouts, SrunLabelledStdoutNamesTheRightNodeAndRank) {
  fs::path canonical = dir("canonical");
  std::ofstream(canonical / "workload.json") << kWorkload;
  write(canonical / "logs/gpu-a/applog.log", kNodeA);
  write(canonical / "logs/gpu-b/applog.log", kNodeB);
  const json want = diagnosePaths({canonical.string()});
  ASSERT_TRUE(want["root_cause"].is_object()) << want.dump(1);
  EXPECT_EQ(want["root_cause"]["node"], "gpu-b");
  EXPECT_EQ(want["root_cause"]["rank"], 6);

  // The job's stdout as sbatch writes it: both nodes interleaved, srun's labels in front.
  Lines out;
  for (size_t i = 0; i < std::max(kNodeA.size(), kNodeB.size()); ++i) {
    if (i < kNodeA.size()) out.push_back("0: " + kNodeA[i]);
    if (i < kNodeB.size()) out.push_back("1: " + kNodeB[i]);
  }
  out.push_back("srun: error: gpu-b: task 1: Exited with exit code 1");
  fs::path stdoutFile = dir("sbatch") / "slurm-4242.out";
  write(stdoutFile, out);
  const json got = diagnosePaths({stdoutFile.string()}, {"--workload", workloadJson().string()});
  EXPECT_EQ(summary(got), summary(want)) << got.dump(1).substr(0, 3000);
  // The label (task 1) is neither the rank nor the file's node: the NCCL prefix of task 1's
  // lines says it runs on gpu-b, and the rank is the application's [rank6].
  EXPECT_EQ(got["root_cause"]["node"], "gpu-b");
  EXPECT_EQ(got["root_cause"]["rank"], 6);

  // Standard input: the same bytes, the same answer.
  const json piped = parse(runWithInput({"diagnose", "--no-timings", "--format", "json", "--workload",
                                         workloadJson().string(), "-"},
                                        stdoutFile, scratch_.path()));
  EXPECT_EQ(summary(piped), summary(want));
}

// DeepSpeed's multi-node launcher (DeepSpeed 0.14, PDSHRunner) runs the ranks under pdsh
// (pdsh 2.34), which labels every line it gathers "host: "; the launcher's own line has none.
// The label names the node, as the canonical layout's directory does.
TEST_F(IntakeLayouts, PdshLabelsNameTheNode) {
  fs::path canonical = dir("canonical");
  std::ofstream(canonical / "workload.json") << kWorkload;
  write(canonical / "logs/gpu-a/applog.log", kNodeA);
  write(canonical / "logs/gpu-b/applog.log", kNodeB);
  const json want = diagnosePaths({canonical.string()});
  Lines out = {"[2026-11-29 10:00:00,123] [INFO] [multinode_runner.py:80] cmd = pdsh -S -f 1024 -w gpu-a,gpu-b export "
               "PYTHONPATH=/workspace; cd /workspace; python -u -m deepspeed.launcher.launch --world_info=... train.py"};
  for (size_t i = 0; i < std::max(kNodeA.size(), kNodeB.size()); ++i) {
    // Without NCCL's host:pid:tid, only the label says where a line was printed.
    if (i < kNodeA.size() && kNodeA[i].find("NCCL INFO") == std::string::npos) out.push_back("gpu-a: " + kNodeA[i]);
    if (i < kNodeB.size() && kNodeB[i].find("NCCL INFO") == std::string::npos) out.push_back("gpu-b: " + kNodeB[i]);
  }
  fs::path file = dir("deepspeed") / "train.log";
  write(file, out);
  const json got = diagnosePaths({file.string()}, {"--workload", workloadJson().string()});
  EXPECT_EQ(summary(got), summary(want)) << got.dump(1).substr(0, 3000);
  EXPECT_EQ(got["root_cause"]["node"], "gpu-b");
  // The traceback is one record under its label: its evidence is the whole of it.
  ASSERT_TRUE(got["root_cause"].is_object());
  EXPECT_NE(got.dump().find("loss.backward()"), std::string::npos);
}

// `srun -l python train.py` (one task per GPU): the label is the rank only because the
// workload says tasks are ranks; without that it names the node, never a rank.
TEST_F(IntakeLayouts, SrunTasksAreRanksOnlyWhenTheLayoutSaysSo) {
  const Lines out = {
      "0: gpu-a:31001:31001 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>",
      "6: gpu-b:41006:41006 [2] NCCL INFO Bootstrap : Using ib0:10.0.0.2<0>",
      "6: Traceback (most recent call last):",
      "6:   File \"/workspace/train.py\", line 88, in <module>",
      "6:     loss.backward()",
      "6: RuntimeError: CUDA error: an illegal memory access was encountered",
      "1: [E1129 10:52:01.123456789 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
      "WorkNCCL(SeqNum=1042, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600018 milliseconds before timing out.",
      "srun: error: gpu-b: task 6: Exited with exit code 1",
  };
  fs::path file = dir("sbatch") / "slurm-4243.out";
  write(file, out);
  fs::path layout = root_.path() / "tasks.json";
  std::ofstream(layout) << R"({"state": "FAILED", "start": "2026-11-29T10:00:00Z", "nodes": ["gpu-a", "gpu-b"],
    "ranks": 8, "ranks_per_node": 4, "tasks_per_node": 4})";
  json v = diagnosePaths({file.string()}, {"--workload", layout.string()});
  ASSERT_TRUE(v["root_cause"].is_object());
  EXPECT_EQ(v["root_cause"]["node"], "gpu-b");
  EXPECT_EQ(v["root_cause"]["rank"], 6);
  v = diagnosePaths({file.string()}, {"--workload", workloadJson().string()});
  ASSERT_TRUE(v["root_cause"].is_object());
  EXPECT_EQ(v["root_cause"]["node"], "gpu-b");
  EXPECT_TRUE(v["root_cause"]["rank"].is_null()) << "a task id became a rank without the layout saying so";
}

// torchrun (PyTorch 2.3) with the launcher's and the script's Python logging timestamps.
TEST_F(IntakeLayouts, TorchrunLogWithPythonLoggingTimestamps) {
  const Lines log = {
      "[2026-11-29 10:40:00,101] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default",
      "2026-11-29 10:51:58,456 - __main__ - INFO - epoch 3 step 120 loss 1.92",
      "Traceback (most recent call last):",
      "  File \"/workspace/train.py\", line 131, in <module>",
      "    out = model(batch)",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of 79.15 GiB of which 1.02 GiB is free.",
      "[2026-11-29 10:52:05,123] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 2 (pid: 1234) of binary: /usr/bin/python3",
  };
  fs::path canonical = dir("canonical");
  std::ofstream(canonical / "workload.json") << kWorkload;
  write(canonical / "logs/applog.log", log);  // directly in logs/: no node, like the plain file
  fs::path plain = dir("plain") / "train.log";
  write(plain, log);
  const json want = diagnosePaths({canonical.string()});
  ASSERT_EQ(want["outcome"][0]["family"], "device-oom") << want.dump(1).substr(0, 2000);
  const json got = diagnosePaths({plain.string()}, {"--workload", workloadJson().string()});
  EXPECT_EQ(summary(got), summary(want));
  EXPECT_EQ(got["root_cause"]["time"], "2026-11-29T10:51:58.456Z") << "the traceback takes the time of the line before it";
}

// kubectl logs (Kubernetes 1.28) with and without --timestamps (RFC 3339 with nanoseconds).
TEST_F(IntakeLayouts, KubectlLogsWithAndWithoutTimestamps) {
  const Lines lines = {
      "[rank0]: Traceback (most recent call last):",
      "[rank0]:   File \"/workspace/train.py\", line 131, in <module>",
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 512.00 MiB is free.",
  };
  Lines stamped;
  for (size_t i = 0; i < lines.size(); ++i) stamped.push_back(fmt::format("2026-11-29T10:51:0{}.123456789Z {}", i, lines[i]));
  fs::path canonical = dir("canonical");
  write(canonical / "logs/container.log", lines);
  fs::path plain = dir("k") / "pod.log", timed = dir("k") / "pod-timestamps.log";
  write(plain, lines);
  write(timed, stamped);
  const json want = diagnosePaths({canonical.string()});
  ASSERT_EQ(want["outcome"][0]["family"], "device-oom");
  EXPECT_EQ(summary(diagnosePaths({plain.string()})), summary(want));
  const json withTimes = diagnosePaths({timed.string()});
  EXPECT_EQ(summary(withTimes), summary(want));
  EXPECT_EQ(withTimes["root_cause"]["time"], "2026-11-29T10:51:00.123456789Z");
  EXPECT_EQ(withTimes["root_cause"]["rank"], 0);
}

// kubectl describe pod and kubectl get events (kubectl 1.28), saved under any names.
TEST_F(IntakeLayouts, KubectlDescribeAndGetEvents) {
  const Lines describe = {
      "Name:             trainer-worker-0",
      "Namespace:        ml",
      "Priority:         0",
      "Node:             gpu-b/10.0.0.2",
      "Start Time:       Sun, 29 Nov 2026 10:00:01 +0000",
      "Status:           Running",
      "Containers:",
      "  trainer:",
      "    Container ID:   containerd://0123abcd",
      "    Image:          nvcr.io/nvidia/pytorch:24.05-py3",
      "    State:          Waiting",
      "      Reason:       CrashLoopBackOff",
      "    Last State:     Terminated",
      "      Reason:       OOMKilled",
      "      Exit Code:    137",
      "    Restart Count:  3",
      "Events:",
      "  Type     Reason   Age                From     Message",
      "  ----     ------   ----               ----     -------",
      "  Warning  BackOff  2m (x5 over 10m)   kubelet  Back-off restarting failed container trainer in pod trainer-worker-0_ml(0b6d3c9e-1f2a-4b5c-8d7e-9f0a1b2c3d4e)",
  };
  const Lines events = {
      "LAST SEEN   TYPE      REASON      OBJECT                 MESSAGE",
      "12m         Normal    Scheduled   pod/trainer-worker-0   Successfully assigned ml/trainer-worker-0 to gpu-b",
      "2m          Warning   BackOff     pod/trainer-worker-0   Back-off restarting failed container trainer in pod trainer-worker-0_ml(0b6d3c9e)",
  };
  fs::path canonical = dir("canonical");
  write(canonical / "logs/gpu-b/k8s_events.log", describe);
  std::ofstream(canonical / "logs/gpu-b/k8s_events.log", std::ios::app) << joined(events);
  const json want = diagnosePaths({canonical.string()});
  ASSERT_TRUE(want["root_cause"].is_object()) << want.dump(1).substr(0, 3000);
  ASSERT_EQ(want["outcome"][0]["family"], "host-oom");
  // Saved as a user would: names that say nothing of Kubernetes.
  fs::path a = dir("saved") / "pod.txt", b = dir("saved") / "ev.txt";
  write(a, describe);
  write(b, events);
  const json got = diagnosePaths({a.string(), b.string()});
  EXPECT_EQ(summary(got), summary(want)) << got.dump(1).substr(0, 3000);
  EXPECT_EQ(got["root_cause"]["node"], "gpu-b") << "kubectl describe's Node: names the node";
}

// The kernel's Xid 79 through dmesg, dmesg -T, journalctl -k and journalctl -o short-iso
// (util-linux 2.38, systemd 252), next to the job's NCCL output.
TEST_F(IntakeLayouts, KernelLogForms) {
  const std::string xid = "NVRM: Xid (PCI:0000:3b:00): 79, pid=41006, GPU has fallen off the bus.";
  const Lines app = {
      "gpu-a:31001:31001 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>",
      "[rank1]:[E1129 10:52:01.123456789 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
      "WorkNCCL(SeqNum=1042, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600018 milliseconds before timing out.",
  };
  fs::path canonical = dir("canonical");
  std::ofstream(canonical / "workload.json") << kWorkload;
  write(canonical / "logs/gpu-b/syslog.log", {"Nov 29 10:42:00 gpu-b kernel: " + xid});
  write(canonical / "logs/gpu-a/applog.log", app);
  const json want = diagnosePaths({canonical.string()});
  ASSERT_EQ(want["root_cause"]["symptom"], "gpu.xid.xid79") << want.dump(1).substr(0, 2000);
  fs::path appFile = dir("job") / "slurm-4242.out";
  write(appFile, app);
  struct Form {
    const char* file;
    std::string line;
    bool namesHost;
  };
  const Form forms[] = {
      {"journal-k.txt", "Nov 29 10:42:00 gpu-b kernel: " + xid, true},
      {"journal-iso.txt", "2026-11-29T10:42:00+0000 gpu-b kernel: " + xid, true},
      {"dmesg.txt", "[ 1843.308145] " + xid, false},
      {"dmesg-T.txt", "[Sun Nov 29 10:42:00 2026] " + xid, false},
  };
  for (const Form& f : forms) {
    SCOPED_TRACE(f.file);
    fs::path k = dir("kernel") / f.file;
    write(k, {f.line});
    const json got = diagnosePaths({k.string(), appFile.string()}, {"--workload", workloadJson().string()});
    EXPECT_EQ(summary(got, f.namesHost), summary(want, f.namesHost)) << got.dump(1).substr(0, 2000);
    if (!f.namesHost) {
      EXPECT_TRUE(got["root_cause"]["node"].is_null()) << "a dmesg paste names no node";
    }
    EXPECT_EQ(got["root_cause"]["evidence"][0]["source"], "kernel");
    fs::remove(k);
  }
}

// A pasted terminal session (bash 5.2, Debian's and RHEL's default prompts; dmesg and cat from
// util-linux 2.38 and coreutils 9.1): the prompt's host is the node of the kernel's lines the
// command printed there, and of no application line, which cat shows from wherever it was written.
TEST_F(IntakeLayouts, AShellPromptNamesTheNodeOfTheKernelLinesAfterIt) {
  const std::string xid = "NVRM: Xid (PCI:0000:3b:00): 79, pid=41006, GPU has fallen off the bus.";
  fs::path canonical = dir("canonical");
  std::ofstream(canonical / "workload.json") << kWorkload;
  write(canonical / "logs/gpu-b/dmesg.log", {"[Sun Nov 29 10:42:00 2026] " + xid});
  const json want = diagnosePaths({canonical.string()});
  ASSERT_EQ(want["root_cause"]["node"], "gpu-b") << want.dump(1).substr(0, 2000);
  for (const std::string prompt : {"root@gpu-b:~# dmesg -T | grep NVRM", "(venv) [root@gpu-b ~]# dmesg -T"}) {
    SCOPED_TRACE(prompt);
    fs::path paste = dir("paste") / "terminal.txt";
    write(paste, {prompt, "[Sun Nov 29 10:42:00 2026] " + xid, "root@gpu-b:~# "});
    const json got = diagnosePaths({paste.string()}, {"--workload", workloadJson().string()});
    EXPECT_EQ(summary(got), summary(want)) << got.dump(1).substr(0, 2000);
  }
  // Two hosts' prompts: no one node. An application's lines after a prompt: not that host's.
  fs::path two = dir("two") / "terminal.txt";
  write(two, {"root@gpu-a:~# uptime", " 10:50:00 up 3 days", "root@gpu-b:~# dmesg -T", "[Sun Nov 29 10:42:00 2026] " + xid});
  EXPECT_TRUE(diagnosePaths({two.string()})["root_cause"]["node"].is_null());
  fs::path app = dir("app") / "terminal.txt";
  write(app, {"alice@login-1:~$ cat slurm-4242.out", "[rank6]: RuntimeError: CUDA error: an illegal memory access was encountered"});
  const json appVerdict = diagnosePaths({app.string()});
  ASSERT_TRUE(appVerdict["root_cause"].is_object()) << appVerdict.dump(1).substr(0, 2000);
  EXPECT_TRUE(appVerdict["root_cause"]["node"].is_null());
}

// A terminal that showed the syslog daemon's wall messages (rsyslog omusrmsg, sysklogd wallmsg:
// "Message from syslogd@%s at %.24s ...", then the kernel's line): the host they name is the node
// of the kernel's lines; wall messages of two hosts name no one node.
TEST_F(IntakeLayouts, ASyslogWallMessageNamesTheNodeOfTheKernelLineAfterIt) {
  const std::string lockup = " kernel:[55716.328117] watchdog: BUG: soft lockup - CPU#0 stuck for 27s! [python:1984]";
  fs::path one = dir("wall-one") / "console.txt";
  write(one, {"Message from syslogd@gpu-b at Dec 10 05:25:44 ...", lockup, ""});
  const json v = diagnosePaths({one.string()});
  ASSERT_TRUE(v["root_cause"].is_object()) << v.dump(1).substr(0, 2000);
  EXPECT_EQ(v["root_cause"]["node"], "gpu-b") << v.dump(1).substr(0, 2000);
  fs::path two = dir("wall-two") / "console.txt";
  write(two, {"Message from syslogd@gpu-a at Dec 10 05:25:44 ...", lockup, "",
              "Message from syslogd@gpu-b at Dec 10 05:25:45 ...", lockup, ""});
  const json w = diagnosePaths({two.string()});
  ASSERT_TRUE(w["root_cause"].is_object()) << w.dump(1).substr(0, 2000);
  EXPECT_TRUE(w["root_cause"]["node"].is_null());
}

// A sosreport (sos 4.x) unpacked: var/log/messages, sos_commands/kernel/dmesg, its hostname file,
// and configuration that is not read.
TEST_F(IntakeLayouts, SosreportTree) {
  fs::path sos = dir("sosreport-gpu-b-4242-2026-11-29-abcdef");
  write(sos / "hostname", {"gpu-b.cluster.local"});
  write(sos / "var/log/messages", {"Nov 29 10:41:59 gpu-b systemd[1]: Started Session 12 of user root.",
                                   "Nov 29 10:42:00 gpu-b kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=41006, GPU has fallen off the bus."});
  write(sos / "sos_commands/kernel/dmesg", {"[ 1843.308145] NVRM: Xid (PCI:0000:3b:00): 79, pid=41006, GPU has fallen off the bus."});
  write(sos / "etc/hosts", {"127.0.0.1 localhost", "10.0.0.2 gpu-b"});
  const json v = diagnosePaths({sos.string()}, {"--workload", workloadJson().string()});
  ASSERT_TRUE(v["root_cause"].is_object()) << v.dump(1).substr(0, 2000);
  EXPECT_EQ(v["root_cause"]["symptom"], "gpu.xid.xid79");
  EXPECT_EQ(v["root_cause"]["node"], "gpu-b");
  EXPECT_EQ(nodeNames(v["bad_nodes"]), std::vector<std::string>{"gpu-b"});
  bool skipped = false;
  for (const auto& r : v["connector_reports"]) {
    skipped |= r["reason"].is_string() && r["reason"].get<std::string>().find("sosreport's configuration") != std::string::npos;
  }
  EXPECT_TRUE(skipped) << "the report's configuration is not said to be skipped";
}

// A workload directory tarred (GNU tar's default layout: one top directory) is read in place and
// gives the directory's verdict; so does the tarball on standard input.
TEST_F(IntakeLayouts, TarballInPlaceAndOnStandardInput) {
  fs::path canonical = dir("job-4242");
  std::ofstream(canonical / "workload.json") << kWorkload;
  write(canonical / "logs/gpu-a/applog.log", kNodeA);
  write(canonical / "logs/gpu-b/applog.log", kNodeB);
  const json want = diagnosePaths({canonical.string()});
  fs::path tgz = root_.path() / "job-4242.tar.gz";
  writeTar(tgz, {{"job-4242/workload.json", kWorkload},
                 {"job-4242/logs/gpu-a/applog.log", joined(kNodeA)},
                 {"job-4242/logs/gpu-b/applog.log", joined(kNodeB)}});
  const json got = diagnosePaths({tgz.string()});
  EXPECT_EQ(summary(got), summary(want));
  EXPECT_EQ(got["workload"]["id"], "slurm/4242");
  EXPECT_NE(got["root_cause"]["evidence"][0]["where"]["location"].get<std::string>().find("job-4242.tar.gz!/"), std::string::npos);
  const json piped = parse(runWithInput({"diagnose", "--no-timings", "--format", "json", "-"}, tgz, scratch_.path()));
  EXPECT_EQ(summary(piped), summary(want));
}

// One file holding the kernel's, Slurm's and the job's lines interleaved (a node's journal
// exported with the job's output, as support bundles do): each line is read for what it is.
TEST_F(IntakeLayouts, KernelSchedulerAndApplicationLinesInOneFile) {
  const Lines kernel = {
      "Nov 29 10:50:01 gpu-b kernel: python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
      "Nov 29 10:50:01 gpu-b kernel: Out of memory: Killed process 41006 (python3) total-vm:412903468kB, anon-rss:251394756kB, file-rss:104332kB, shmem-rss:2097152kB, UID:1000 pgtables:503112kB oom_score_adj:0",
  };
  const Lines slurm = {"slurmstepd: error: Detected 1 oom_kill event in StepId=4242.0. Some of the step tasks have been OOM Killed."};
  const Lines appA = {"[rank1]:[E1129 10:52:01.123456789 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
                      "WorkNCCL(SeqNum=1042, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600018 milliseconds before timing out."};
  fs::path canonical = dir("canonical");
  std::ofstream(canonical / "workload.json") << kWorkload;
  write(canonical / "logs/gpu-b/syslog.log", kernel);
  write(canonical / "logs/gpu-b/applog.log", slurm);
  write(canonical / "logs/gpu-a/applog.log", appA);
  const json want = diagnosePaths({canonical.string()});
  ASSERT_EQ(want["outcome"][0]["family"], "host-oom") << want.dump(1).substr(0, 2000);
  fs::path one = dir("bundle") / "everything.log";
  write(one, {kernel[0], appA[0], kernel[1], slurm[0]});
  const json got = diagnosePaths({one.string()}, {"--workload", workloadJson().string()});
  // In one file the slurmstepd line follows the kernel's within the same minute, so the kernel's
  // kill is the root and the step's report its consequence (in separate files the step's line has
  // no time and the two are not ordered); the answer is the same failure on the same node.
  EXPECT_EQ(got["outcome"][0]["family"], "host-oom") << got.dump(1).substr(0, 3000);
  EXPECT_EQ(got["root_cause"]["symptom"], "host.oom.kernel_oom_kill");
  EXPECT_EQ(got["root_cause"]["node"], "gpu-b");
  EXPECT_EQ(nodeNames(got["bad_nodes"]), nodeNames(want["bad_nodes"]));
  json channels;
  for (const auto& r : got["connector_reports"]) {
    if (r.value("source", "").find("everything.log") != std::string::npos) channels = r["channels"];
  }
  EXPECT_EQ(channels, json({{"kernel", 2}, {"scheduler", 1}, {"application", 1}})) << channels;
}

// Inputs that cannot or must not be read are each said, with why; the rest is diagnosed.
TEST_F(IntakeLayouts, BadInputsAreReportedAndTheRestIsRead) {
  fs::path d = dir("collected");
  write(d / "syslog", {"Nov 29 10:42:00 gpu-b kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=41006, GPU has fallen off the bus."});
  write(d / "empty.log", {});
  std::ofstream(d / "empty.log", std::ios::trunc).close();
  ASSERT_EQ(::mkfifo((d / "pipe.log").c_str(), 0644), 0);
  fs::create_symlink(d / "loop-b", d / "loop-a");
  fs::create_symlink(d / "loop-a", d / "loop-b");
  fs::create_symlink("/etc/hostname", d / "outside.log");
  {
    std::ofstream garbage(d / "core.dump", std::ios::binary);
    for (int i = 0; i < 8192; ++i) garbage.put(static_cast<char>((i * 131 + 7) % 256));
  }
  writeTar(d / "evil.tar", {{"../escape.log", "NVRM: Xid (PCI:0000:3b:00): 48, pid=1, DBE\n"},
                            {"/etc/abs.log", "x\n"},
                            {"ok/dmesg", "[ 1843.308145] NVRM: Xid (PCI:0000:3b:00): 79, pid=41006, GPU has fallen off the bus.\n"}});
  const json v = diagnosePaths({d.string()}, {"--workload", workloadJson().string()});
  ASSERT_TRUE(v["root_cause"].is_object()) << v.dump(1).substr(0, 3000);
  EXPECT_EQ(v["root_cause"]["symptom"], "gpu.xid.xid79");
  auto reasonOf = [&](const std::string& part) {
    for (const auto& r : v["connector_reports"]) {
      if (r.value("source", "").find(part) != std::string::npos && !r.value("reason", "").empty()) {
        return r.value("status", "") + ": " + r.value("reason", "");
      }
    }
    return std::string();
  };
  EXPECT_NE(reasonOf("pipe.log").find("a FIFO"), std::string::npos) << reasonOf("pipe.log");
  EXPECT_NE(reasonOf("loop-a").find("loop"), std::string::npos) << reasonOf("loop-a");
  EXPECT_NE(reasonOf("outside.log").find("outside"), std::string::npos) << reasonOf("outside.log");
  EXPECT_NE(reasonOf("../escape.log").find("'..'"), std::string::npos) << reasonOf("../escape.log");
  EXPECT_NE(reasonOf("/etc/abs.log").find("absolute"), std::string::npos) << reasonOf("/etc/abs.log");
  EXPECT_NE(reasonOf("empty.log").find("empty"), std::string::npos) << reasonOf("empty.log");
  EXPECT_NE(reasonOf(d.string()).find("binary"), std::string::npos) << "the binary file is not counted as unread";
  // The good entry of the tar was read; the escaping one was not, so no Xid 48 was seen.
  EXPECT_FALSE(v["symptom_counts"].contains("gpu.xid.xid48"));
  EXPECT_FALSE(fs::exists(root_.path() / "escape.log"));
}

}  // namespace
}  // namespace attrib::e2e
