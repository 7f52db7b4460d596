// Every row of NVIDIA's Xid and SXid catalogues (stdlib-rules/data/*.tsv), one canonical driver line
// each, through the whole stdlib: the row's symptom is found, with its family and actions, and the
// verdict treats it as its role says. The tables are read here on their own (not through the
// generator), and the bucket table is written out again below: a generator that drifts from the
// documented mapping (stdlib-rules/data/README.md, docs/verdict.md) fails this test.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/bundle.h"
#include "runtime/engine.h"
#include "tests/runtime/engine_util.h"

namespace attrib {
namespace {

using testing::countOf;
using testing::diagnose;
using testing::line;

using Row = std::map<std::string, std::string>;

std::vector<Row> table(const std::string& name) {
  std::ifstream in(std::string(ATTRIB_SOURCE_DIR) + "/stdlib-rules/data/" + name);
  EXPECT_TRUE(in) << name;
  std::vector<std::string> header;
  std::vector<Row> rows;
  for (std::string text; std::getline(in, text);) {
    std::vector<std::string> cells;
    std::stringstream cut(text);
    for (std::string cell; std::getline(cut, cell, '\t');) cells.push_back(cell);
    if (text.ends_with('\t')) cells.emplace_back();
    if (header.empty()) {
      header = cells;
      continue;
    }
    EXPECT_EQ(cells.size(), header.size()) << name << ": " << text;
    Row row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream cut(list);
  for (std::string item; std::getline(cut, item, ',');) out.push_back(item);
  return out;
}

// The documented table: NVIDIA's bucket -> attrib's actions.
std::vector<std::string> bucketActions(const std::string& immediate, const std::string& investigatory) {
  static const std::map<std::string, std::vector<std::string>> now = {
      {"RESTART_APP", {"restart"}}, {"RESET_GPU", {"reset_gpu"}}, {"RESTART_BM", {"reboot_node", "drain_node"}},
      {"RESTART_VM", {"reboot_node"}}, {"CONTACT_SUPPORT", {"investigate"}}, {"IGNORE", {}},
      {"CHECK_MECHANICALS", {"drain_node", "investigate"}}, {"CHECK_UVM", {"investigate"}},
      {"UPDATE_SWFW", {"fix_config"}}, {"WORKFLOW_NVLINK_ERR", {"reset_gpu", "drain_node"}},
      {"WORKFLOW_NVLINK5_ERR", {"reset_gpu", "check_fabric"}}, {"WORKFLOW_XID_45", {}},
      {"WORKFLOW_XID_48", {"reset_gpu"}}, {"XID_154", {}}, {"", {}}};
  static const std::map<std::string, std::vector<std::string>> later = {
      {"CONTACT_SUPPORT", {"investigate"}}, {"CHECK_APP/CUDA", {"investigate"}}, {"IGNORE", {}},
      {"IGNORE (sympathetic)", {}}, {"INVESTIGATE_LINK_SI", {"check_fabric"}}, {"INVESTIGATE_SW", {"investigate"}},
      {"INVESTIGATE_SW_USER", {"investigate"}}, {"N/A Informational only regarding another Xid", {}},
      {"SYMPATHETIC_REPORT_SOLO", {"investigate"}}, {"Solo: RESTART_FM; Not Solo: IGNORE (follow other Xid)", {}},
      {"UPDATE_SWFW", {"fix_config"}}, {"WORKFLOW_NVLINK5_ERR", {}}, {"WORKFLOW_XID_13", {"fix_code"}},
      {"WORKFLOW_XID_31", {"fix_code"}}, {"WORKFLOW_XID_48", {}}, {"XID_137_FLOW", {"fix_code"}}, {"", {}}};
  EXPECT_TRUE(now.count(immediate)) << "a bucket the documented table does not have: " << immediate;
  EXPECT_TRUE(later.count(investigatory)) << "a bucket the documented table does not have: " << investigatory;
  std::vector<std::string> out;
  for (const auto* part : {&now, &later}) {
    auto it = part->find(part == &now ? immediate : investigatory);
    if (it == part->end()) continue;
    for (const auto& a : it->second) {
      if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
    }
  }
  if (out.empty()) out.push_back("none");
  return out;
}

const ir::Symptom* symptomNamed(const runtime::Engine& engine, const std::string& name) {
  for (const auto& s : engine.bundle().program.symptoms) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

bool hasInterestingSymptom(const runtime::Verdict& v, const std::string& symptom) {
  for (const auto& n : v.interestingNodes) {
    if (std::find(n.symptoms.begin(), n.symptoms.end(), symptom) != n.symptoms.end()) return true;
  }
  return false;
}

// The canonical line of an Xid: the message the rules read for 144-150 and 154, a channel for
// the others (the driver prints `pid=N, name=P, ` when it knows the process).
std::string xidLine(int code) {
  std::string message = "Ch 00000010";
  if (code >= 144 && code <= 150) message = "NETIR_LINK_EVT  Fatal   XC0 i0 Link 09 (0x025525c6 0x00000000 0x00000000)";
  if (code == 154) message = "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)";
  return fmt::format("NVRM: Xid (PCI:0000:3b:00): {}, pid=1234, name=python3, {}", code, message);
}

TEST(Catalogue, EveryXidRowGivesItsSymptomWithItsFamilyAndActions) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  std::vector<Row> rows = table("xid.tsv");
  ASSERT_EQ(rows.size(), 172u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    int code = std::stoi(row.at("code"));
    ASSERT_EQ(code, static_cast<int>(i) + 1) << "the catalogue lists Xid 1 to 172, one row each";
    std::string name = fmt::format("gpu.xid.xid{}", code);
    SCOPED_TRACE(name + " (" + row.at("mnemonic") + ")");
    EXPECT_FALSE(row.at("source").empty());

    const ir::Symptom* s = symptomNamed(*engine, name);
    ASSERT_TRUE(s);
    std::vector<std::string> actions =
        row.at("actions").empty() ? bucketActions(row.at("immediate_bucket"), row.at("investigatory_bucket"))
                                  : split(row.at("actions"));
    EXPECT_EQ(s->title, row.at("title"));
    EXPECT_EQ(s->family, row.at("family"));
    EXPECT_EQ(ir::severityName(s->severity), row.at("severity"));
    EXPECT_EQ(ir::blameName(s->blame), row.at("blame"));
    EXPECT_EQ(ir::roleName(s->role), row.at("role"));
    EXPECT_EQ(s->actions, actions);
    ASSERT_EQ(s->refs.size(), 1u);
    EXPECT_EQ(s->refs[0], row.at("source"));
    // The description names the code, the mnemonic and NVIDIA's buckets.
    EXPECT_NE(s->description.find(fmt::format("Xid {} ({})", code, row.at("mnemonic"))), std::string::npos);
    for (const char* bucket : {"immediate_bucket", "investigatory_bucket"}) {
      EXPECT_NE(s->description.find(row.at(bucket)), std::string::npos) << bucket;
    }

    runtime::Verdict v = diagnose(*engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", xidLine(code))});
    EXPECT_EQ(countOf(v, name), 1u);
    EXPECT_EQ(countOf(v, "gpu.xid.xid_unlisted"), 0u);
    if (row.at("role") == "cause") {
      ASSERT_TRUE(v.root);
      EXPECT_EQ(v.root->symptom, name);
      EXPECT_EQ(v.root->family, row.at("family"));
      EXPECT_EQ(v.root->gpu, "0000:3b:00");
      auto meaning = std::find_if(v.symptoms.begin(), v.symptoms.end(), [&](const auto& e) { return e.first == name; });
      ASSERT_NE(meaning, v.symptoms.end());
      EXPECT_EQ(meaning->second.description, s->description);
      // The row's first (most important) action is recommended, by its outcome or as the
      // catalogue's own (the generic outcomes).
      EXPECT_NE(std::find(v.actions.begin(), v.actions.end(), actions[0]), v.actions.end());
      bool blamesHardware = row.at("blame") == "gpu" || row.at("blame") == "node";
      EXPECT_EQ(v.badNodes.size(), blamesHardware ? 1u : 0u);
      EXPECT_FALSE(v.outcomes.empty()) << "a catalogued cause has an outcome";
    } else {
      // Context and clean-up: never the root, never a bad node; a context Xid of severity
      // warning or above still shows its node, an info one does not (docs/verdict.md).
      EXPECT_FALSE(v.root) << v.root->symptom;
      EXPECT_TRUE(v.badNodes.empty());
      if (row.at("role") == "context") {
        EXPECT_EQ(hasInterestingSymptom(v, name), row.at("severity") != "info");
      }
    }
  }
}

TEST(Catalogue, EverySxidRowGivesItsSymptomInTheKernelAndFabricManagerForms) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  std::vector<Row> rows = table("sxid.tsv");
  ASSERT_EQ(rows.size(), 92u);
  for (const Row& row : rows) {
    int code = std::stoi(row.at("code"));
    std::string name = fmt::format("gpu.nvswitch.sxid{}", code);
    SCOPED_TRACE(name + " (" + row.at("name") + ")");
    const ir::Symptom* s = symptomNamed(*engine, name);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->title, row.at("title"));
    EXPECT_EQ(s->family, row.at("family"));
    EXPECT_EQ(ir::severityName(s->severity), row.at("severity"));
    EXPECT_EQ(ir::roleName(s->role), row.at("role"));
    EXPECT_EQ(s->actions, split(row.at("actions")));
    ASSERT_EQ(s->refs.size(), 1u);
    EXPECT_EQ(s->refs[0], row.at("source"));
    bool fatal = row.at("fatal") == "fatal";
    EXPECT_NE(s->description.find(fmt::format("SXid {} ({}), {} in NVIDIA's Fabric Manager guide", code,
                                              row.at("name"), fatal ? "fatal" : "non-fatal")),
              std::string::npos);
    // The driver's report and its continuation lines, and the Fabric Manager's.
    std::vector<std::string> forms = {
        fmt::format("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): {}, {}, Link 04 {} (First)", code,
                    fatal ? "Fatal" : "Non-fatal", row.at("name")),
        fmt::format("nv-fabricmanager[841]: [ERROR] [tid 841] detected NVSwitch {} error {} on fid 0 on NVSwitch pci "
                    "bus id 00000000:05:00.0 physical id 0 port 4",
                    fatal ? "fatal" : "non-fatal", code)};
    for (const auto& form : forms) {
      runtime::Verdict v = diagnose(
          *engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", form),
                    line("n1", "syslog", "2026-01-01T10:00:00Z",
                         fmt::format("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): {}, Severity 1 Engine instance 04 "
                                     "Sub-engine instance 00", code)),
                    line("n1", "syslog", "2026-01-01T10:00:00Z",
                         fmt::format("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): {}, Data {{0x00000000, 0x00000000}}",
                                     code))});
      SCOPED_TRACE(form);
      EXPECT_EQ(countOf(v, name), 1u);
      EXPECT_EQ(countOf(v, "gpu.nvswitch.sxid_unlisted_fatal") + countOf(v, "gpu.nvswitch.sxid_unlisted_nonfatal"), 0u);
      if (row.at("role") == "cause") {
        ASSERT_TRUE(v.root);
        EXPECT_EQ(v.root->symptom, name);
        EXPECT_EQ(v.root->family, "accelerator-fabric");
        ASSERT_EQ(v.badNodes.size(), 1u);
        ASSERT_EQ(v.outcomes.size(), 1u);
        EXPECT_EQ(v.outcomes[0].name, "gpu.nvlink.nvswitch_fault");
        EXPECT_EQ(v.actions, split(row.at("actions")));
      } else {
        EXPECT_FALSE(v.root);
        EXPECT_TRUE(v.badNodes.empty());
        EXPECT_EQ(hasInterestingSymptom(v, name), row.at("severity") != "info");
      }
    }
  }
}

// The floor: a code the catalogue does not list is still an event of that GPU or NVSwitch, with its
// code, GPU and node, at a conservative severity.
TEST(Catalogue, AnUnlistedCodeIsStillAnEventOfItsGpuOrNvswitch) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  for (int code : {0, 173, 185, 999, 1540}) {
    std::string text = fmt::format("NVRM: Xid (PCI:0000:3b:00): {}, pid='<unknown>', name=<unknown>, Sparing event", code);
    SCOPED_TRACE(text);
    runtime::Verdict v = diagnose(*engine, {line("n3", "dmesg", "2026-01-01T10:00:00Z", text)});
    EXPECT_EQ(countOf(v, "gpu.xid.xid_unlisted"), 1u);
    ASSERT_TRUE(v.root);
    EXPECT_EQ(v.root->symptom, "gpu.xid.xid_unlisted");
    EXPECT_EQ(v.root->node, "n3");
    EXPECT_EQ(v.root->gpu, "0000:3b:00");
    EXPECT_EQ(v.root->evidence.at(0).line, text);  // the code is in the evidence
    ASSERT_EQ(v.outcomes.size(), 1u);
    EXPECT_EQ(v.outcomes[0].name, "gpu.xid.gpu_unlisted_xid");
    EXPECT_EQ(v.actions, std::vector<std::string>{"investigate"});
  }
  // An Xid 45 naming an unlisted cause gives that cause.
  runtime::Verdict named = diagnose(*engine, {line("n3", "dmesg", "2026-01-01T10:00:00Z",
                                                   "NVRM: Xid (PCI:0000:3b:00): 45, pid=77, name=python3, Ch 00000008 "
                                                   "caused by previous Xid 185")});
  EXPECT_EQ(countOf(named, "gpu.xid.xid_unlisted"), 1u);
  EXPECT_EQ(countOf(named, "gpu.xid.xid45"), 1u);
  ASSERT_TRUE(named.root);
  EXPECT_EQ(named.root->symptom, "gpu.xid.xid_unlisted");

  runtime::Verdict fatal = diagnose(*engine, {line("n2", "syslog", "2026-01-01T10:00:00Z",
                                                   "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 28006, Fatal, Link 29 MC TS "
                                                   "crumbstore MCTO")});
  ASSERT_TRUE(fatal.root);
  EXPECT_EQ(fatal.root->symptom, "gpu.nvswitch.sxid_unlisted_fatal");
  EXPECT_EQ(fatal.root->node, "n2");
  runtime::Verdict nonfatal = diagnose(*engine, {line("n2", "syslog", "2026-01-01T10:00:00Z",
                                                      "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20009, Non-fatal, Link 28 RX "
                                                      "Short Error Rate")});
  EXPECT_FALSE(nonfatal.root);
  EXPECT_EQ(countOf(nonfatal, "gpu.nvswitch.sxid_unlisted_nonfatal"), 1u);
  EXPECT_TRUE(hasInterestingSymptom(nonfatal, "gpu.nvswitch.sxid_unlisted_nonfatal"));
  EXPECT_TRUE(nonfatal.badNodes.empty());
}

// Lines that mention Xids and SXids without being the driver's report give nothing.
TEST(Catalogue, LinesThatOnlyMentionXidsGiveNothing) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  for (const char* text : {"[rank0]: health check: dcgmi diag -r 1 passed, no Xid 79 or Xid 48 in the last 24 h",
                           "NVRM: GPU at PCI:0000:3b:00: GPU-12345678-1234-5678-9abc-def012345678",
                           "kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15",
                           "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 24007, Severity 1 Engine instance 44",
                           "NVRM: Xid (PCI:0000:3b:00): , pid=1, name=x, no code"}) {
    runtime::Verdict v = diagnose(*engine, {line("n1", "syslog", "2026-01-01T10:00:00Z", text)});
    EXPECT_EQ(v.stats.symptoms, 0u) << text;
  }
}

// A healthy job's NCCL_DEBUG=INFO start-up and the driver's routine lines: no new hardware blame.
TEST(Catalogue, ABenignNcclInfoLogBlamesNoHardware) {
  auto engine = testing::stdlibEngine();
  ASSERT_TRUE(engine);
  std::vector<evidence::LogLine> lines;
  for (const char* text : {
           "gpu-0001:4242:4299 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
           "gpu-0001:4242:4299 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.0.1<0>",
           "gpu-0001:4242:4299 [0] NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7",
           "gpu-0001:4242:4299 [0] NCCL INFO Channel 03/0 : 0[3b000] -> 1[5e000] via P2P/CUMEM/read",
           "gpu-0001:4242:4299 [0] NCCL INFO NVLS multicast support is available on dev 0",
           "gpu-0001:4242:4299 [0] NCCL INFO comm 0x55d0c8a0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 3b000 commId 0x1a2b - Init COMPLETE",
           "[rank0]: step 1200 | loss 2.3456 | lr 3.0e-04 | 412 ms/step",
       }) {
    lines.push_back(line("n1", "applog", "2026-01-01T10:00:00Z", text));
  }
  for (const char* text : {
           "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024",
           "nvidia-nvswitch0: open (major=511)",
           "nvidia-fabricmanager[2345]: Successfully configured all the available NVSwitches to route GPU NVLink traffic.",
           "nvidia-persistenced[1234]: Started (1234)",
           "NVRM: GPU 0000:3b:00.0: RmInitAdapter succeeded",
       }) {
    lines.push_back(line("n1", "syslog", "2026-01-01T09:00:00Z", text));
  }
  evidence::Workload w;
  w.state = ir::State::Completed;
  w.nodes = {"n1"};
  runtime::Verdict v = diagnose(*engine, lines, w);
  EXPECT_FALSE(v.root);
  EXPECT_TRUE(v.badNodes.empty());
  for (const auto& [symptom, n] : v.symptomCounts) {
    EXPECT_FALSE(symptom.starts_with("gpu.")) << symptom << " x" << n;
  }
}

}  // namespace
}  // namespace attrib
