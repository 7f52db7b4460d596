#!/usr/bin/env python3
"""Generates the stdlib's Xid and SXid symptoms from NVIDIA's catalogues (xid.tsv, sxid.tsv).

    generate.py DATA_DIR OUT_DIR

writes, below OUT_DIR (the build tree: CMake runs this at build time, nothing generated is
committed):

    gpu/xid_catalogue.attr    package gpu.xid: one symptom per Xid row (xid1 .. xid172) and the
                              floor for the Xids the catalogue does not list (xid_unlisted)
    gpu/sxid_catalogue.attr   package gpu.nvswitch: one symptom per SXid row (sxid10001 ...) and
                              the floors for unlisted fatal and non-fatal SXids
    gpu/dcgm_xid.attr         package gpu.dcgm: the DCGM_FI_DEV_XID_ERRORS symptoms, whose lists
                              of hardware Xids come from the catalogue's classification

The hand-written rules (stdlib-rules/gpu/xid.attr, nvlink.attr, dcgm.attr) hold the reasoning the
table cannot say and refer to these symptoms by name. The output is in `attribc fmt`'s canonical
layout (ctest rule_files_formatted checks it) and is the same, byte for byte, for the same rows.

A row's actions are NVIDIA's resolution buckets mapped by IMMEDIATE and INVESTIGATORY below
(the table documented in stdlib-rules/data/README.md and docs/verdict.md); a non-empty
`actions` column replaces them for that row. Errors name the file, line and column and exit 1.
Python 3 standard library only.
"""
import os
import re
import sys

# ---- the vocabulary (docs/language.md, "Properties")

FAMILIES = {
    "accelerator-gpu", "accelerator-memory", "accelerator-fabric", "network-fabric", "host-hardware",
    "kernel-fatal", "host-oom", "device-oom", "storage", "communication", "scheduler-timeout",
    "scheduler-preemption", "scheduler-cancel", "node-failure", "orchestration", "software-framework",
    "user-code", "numerics", "unknown",
}
SEVERITIES = {"critical", "error", "warning", "info"}
BLAMES = {"gpu", "node", "rank", "workload", "none"}
ROLES = {"cause", "consequence", "context"}
ACTIONS = {
    "none", "restart", "resubmit", "drain_node", "reboot_node", "reset_gpu", "replace_gpu", "check_fabric",
    "check_storage", "fix_code", "fix_config", "increase_memory", "increase_time_limit", "investigate", "stop",
}

# ---- NVIDIA's resolution buckets -> attrib's actions (the documented table)

IMMEDIATE = {
    "RESTART_APP": ["restart"],
    "RESET_GPU": ["reset_gpu"],
    "RESTART_BM": ["reboot_node", "drain_node"],
    "RESTART_VM": ["reboot_node"],  # attrib has no VM action: the VM is the node
    "CONTACT_SUPPORT": ["investigate"],
    "IGNORE": [],
    "CHECK_MECHANICALS": ["drain_node", "investigate"],
    "CHECK_UVM": ["investigate"],
    "UPDATE_SWFW": ["fix_config"],
    "WORKFLOW_NVLINK_ERR": ["reset_gpu", "drain_node"],
    # The decoded status decides (gpu/xid.attr drops the Nonfatal ones); a fatal one needs a reset.
    "WORKFLOW_NVLINK5_ERR": ["reset_gpu", "check_fabric"],
    "WORKFLOW_XID_45": [],  # follow the accompanying Xid (gpu/xid.attr's cascade rules)
    "WORKFLOW_XID_48": ["reset_gpu"],
    "XID_154": [],  # the action the line reports (gpu/xid.attr's gpu_recovery_* outcomes)
    "": [],
}
INVESTIGATORY = {
    "CONTACT_SUPPORT": ["investigate"],
    "CHECK_APP/CUDA": ["investigate"],
    "IGNORE": [],
    "IGNORE (sympathetic)": [],
    "INVESTIGATE_LINK_SI": ["check_fabric"],
    "INVESTIGATE_SW": ["investigate"],
    "INVESTIGATE_SW_USER": ["investigate"],
    "N/A Informational only regarding another Xid": [],
    "SYMPATHETIC_REPORT_SOLO": ["investigate"],
    "Solo: RESTART_FM; Not Solo: IGNORE (follow other Xid)": [],
    "UPDATE_SWFW": ["fix_config"],
    "WORKFLOW_NVLINK5_ERR": [],
    "WORKFLOW_XID_13": ["fix_code"],
    "WORKFLOW_XID_31": ["fix_code"],
    "WORKFLOW_XID_48": [],
    "XID_137_FLOW": ["fix_code"],
    "": [],
}


def bucket_actions(immediate, investigatory):
    """The actions of a row's two buckets, immediate first, without repeats; `none` when empty."""
    out = []
    for a in IMMEDIATE[immediate] + INVESTIGATORY[investigatory]:
        if a not in out:
            out.append(a)
    return out or ["none"]


# ---- reading the tables

XID_COLUMNS = ["code", "mnemonic", "title", "description", "immediate_bucket", "investigatory_bucket",
               "architectures", "family", "severity", "blame", "role", "actions", "source", "cross_check"]
SXID_COLUMNS = ["code", "name", "title", "description", "fatal", "impact", "immediate_bucket", "family",
                "severity", "blame", "role", "actions", "source", "cross_check"]
ARCHITECTURES = {"A100", "H100", "B100", "GB200"}


class TableError(Exception):
    pass


def read_table(path, columns):
    """Rows as dicts (plus 'line'), checked: the header, the cell count, sorted unique codes, the
    mapping's vocabulary and a source on every row."""
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise TableError(f"{path}: error: cannot read the table: {e.strerror}")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].split("\t") != columns:
        raise TableError(f"{path}:1:1: error: the header must be: {' '.join(columns)}")
    rows, previous = [], None

    def fail(line, column, message):
        col = 1 + sum(len(c) + 1 for c in lines[line - 1].split("\t")[:columns.index(column)])
        raise TableError(f"{path}:{line}:{col}: error: {message}\n    {lines[line - 1][:160]}")

    for n, text in enumerate(lines[1:], start=2):
        cells = text.split("\t")
        if len(cells) != len(columns):
            raise TableError(f"{path}:{n}:1: error: {len(cells)} cells, {name} has {len(columns)} columns")
        row = dict(zip(columns, cells))
        row["line"] = n
        if not re.fullmatch(r"[1-9][0-9]*", row["code"]):
            fail(n, "code", f"the code '{row['code']}' is not a number")
        code = int(row["code"])
        if previous is not None and code <= previous:
            fail(n, "code", f"code {code} is out of order or repeated (rows are sorted by code)")
        previous = code
        for column, allowed in (("family", FAMILIES), ("severity", SEVERITIES), ("blame", BLAMES), ("role", ROLES)):
            if row[column] not in allowed:
                fail(n, column, f"unknown {column} '{row[column]}'; one of: {', '.join(sorted(allowed))}")
        if row["actions"]:
            for a in row["actions"].split(","):
                if a not in ACTIONS:
                    fail(n, "actions", f"unknown action '{a}'; one of: {', '.join(sorted(ACTIONS))}")
        for column in ("title", "description", "source"):
            if not row[column].strip():
                fail(n, column, f"the {column} is empty (every row names its {column})")
        rows.append(row)
    return rows


def read_xids(path):
    rows = read_table(path, XID_COLUMNS)
    for r in rows:
        if r["immediate_bucket"] not in IMMEDIATE:
            raise TableError(f"{path}:{r['line']}: error: unknown immediate bucket '{r['immediate_bucket']}'; "
                             "add it to IMMEDIATE in generate.py and to the table in README.md")
        if r["investigatory_bucket"] not in INVESTIGATORY:
            raise TableError(f"{path}:{r['line']}: error: unknown investigatory bucket '{r['investigatory_bucket']}'; "
                             "add it to INVESTIGATORY in generate.py and to the table in README.md")
        arch = r["architectures"]
        if arch != "none" and not set(arch.split(",")) <= ARCHITECTURES:
            raise TableError(f"{path}:{r['line']}: error: unknown architectures '{arch}'")
        derived = bucket_actions(r["immediate_bucket"], r["investigatory_bucket"])
        r["actions"] = r["actions"].split(",") if r["actions"] else derived
    return rows


def read_sxids(path):
    rows = read_table(path, SXID_COLUMNS)
    for r in rows:
        if r["fatal"] not in ("fatal", "nonfatal"):
            raise TableError(f"{path}:{r['line']}: error: 'fatal' is '{r['fatal']}'; write fatal or nonfatal")
        if not r["actions"]:
            raise TableError(f"{path}:{r['line']}: error: an SXid row needs its actions (the guide has no buckets)")
        r["actions"] = r["actions"].split(",")
    return rows


# ---- writing rules

HEADER = """// Generated by stdlib-rules/data/generate.py from stdlib-rules/data/{table}; do not edit: change
// the table (or the generator) and rebuild. Mapping and sources: stdlib-rules/data/README.md.
"""

SOURCES = "on log(source in [syslog, dmesg])"

# NVRM: Xid (PCI:0000:3b:00): 38, pid=1234, name=python, ...
# NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:00): 13, ...   (MIG: the GPU and compute instance)
# NVRM: Xid (PCI:0000:3b:00): 45, pid=..., name=..., Ch 00000008 caused by previous Xid 79
# The driver prints `pid=N, name=P, ` only when it knows the process ('<unknown>' otherwise).
#
# Every Xid symptom has the same two patterns, with the code as the capture `xid`, and a `when` on
# the code: identical patterns are one Hyperscan expression and one PCRE2 program however many
# symptoms use them (ir/bundle_format.h), where a pattern per code made Hyperscan's compile ten
# times slower. The optional tails capture what the rules read of the message: the process
# (`pid`, `process`), the recovery Xid 154 states (`previous`, `recovery`), the NVLink5 sub-unit
# event (`unit`, 144-150) and the Xid an Xid 45 names (`cause`).
XID_HEAD = r"NVRM: Xid \(PCI:(?<gpu>[0-9a-fA-F:.]+)( GPU-I:[0-9]+( GPU-CI:[0-9]+)?)?\): "
XID_LINE = (XID_HEAD + r"(?<xid>[0-9]+)\b(, pid=('?(?<pid>[0-9]+)'?|'<unknown>')(, name=(?<process>[^,]+))?)?"
            r"(, GPU recovery action changed from 0x[0-9a-fA-F]+ \((?<previous>[^)]*)\) to 0x[0-9a-fA-F]+ \((?<recovery>[^)]*)\))?"
            r"(, (?<unit>[A-Z][A-Z0-9_]+))?(.* caused by previous Xid (?<cause>[0-9]+)\b)?")
XID_POINTER = XID_HEAD + r"45\b.* caused by previous Xid (?<xid>[0-9]+)\b"

# nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 24007, Fatal, Link 44 sourcetrack timeout error (First)
# nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error
# nv-fabricmanager: ... detected NVSwitch fatal error 20034 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 ...
# The continuation lines of a report (", Severity 1 Engine instance ...", ", Data {...}") carry
# no Fatal/Non-fatal word and match nothing.
# As for the Xids, every SXid symptom shares the two patterns; `status` is the driver's word.
SXID_LINE = r"(?<nvswitch>nvidia-nvswitch[0-9]+):? SXid \(PCI:(?<pci>[0-9a-fA-F:.]+)\): (?<sxid>[0-9]+), (?<status>Fatal|Non-fatal)\b"
FM_LINE = (r"detected NVSwitch (?<status>fatal|non-fatal) error (?<sxid>[0-9]+) on fid [0-9]+ on NVSwitch pci bus id "
           r"(?<pci>[0-9a-fA-F:.]+)")


def quoted(s):
    """An .attr string literal (docs/language.md, "Literals")."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def code_set(codes):
    """An .attr list or range of the codes: [1 .. 172] when they are contiguous."""
    codes = sorted(codes)
    if codes == list(range(codes[0], codes[-1] + 1)):
        return f"[{codes[0]} .. {codes[-1]}]"
    return "[" + ", ".join(str(c) for c in codes) + "]"


def symptom(name, title, matches, props, when=None, description=None, refs=()):
    out = [f"symptom {name} {quoted(title)} {{", f"  {SOURCES}"]
    out += [f"  match /{m}/" for m in matches]
    if when:
        out.append(f"  when {when}")
    if description:
        out.append(f"  description {quoted(description)}")
    out += [f"  {k} {v}" for k, v in props]
    out += [f"  ref {quoted(r)}" for r in refs]
    out.append("}")
    return "\n".join(out)


def mapping(r):
    return [("family", r["family"]), ("severity", r["severity"]), ("blame", r["blame"]), ("role", r["role"]),
            ("action", ", ".join(r["actions"]))]


def architectures(r):
    if r["architectures"] == "none":  # the description says so
        return ""
    return "; applies to " + ", ".join(r["architectures"].split(","))


def buckets(r):
    imm, inv = r["immediate_bucket"], r["investigatory_bucket"]
    if not imm and not inv:
        return "NVIDIA's catalog gives no resolution bucket"
    parts = [f"immediate {imm}" if imm else "no immediate bucket", f"investigatory {inv}" if inv else "no investigatory bucket"]
    return "NVIDIA's resolution: " + ", ".join(parts)


def xid_file(rows):
    out = [HEADER.format(table="xid.tsv").rstrip("\n"),
           "// One symptom per row of NVIDIA's Xid catalog. Each matches the driver's line for its code, and an",
           "// Xid 45 (preemptive clean-up) that names it as its cause: \"... caused by previous Xid N\". All share",
           "// two patterns (one Hyperscan expression each) and tell their code apart with `when`: the GPU's PCI",
           "// address is `gpu`, the code `xid`, the process `pid` and `process` when the driver names it.",
           "package gpu.xid"]
    codes = [int(r["code"]) for r in rows]
    for r in rows:
        code = int(r["code"])
        description = (f"Xid {code} ({r['mnemonic']}): {r['description']} {buckets(r)}{architectures(r)}.")
        out.append("")
        out.append(symptom(f"xid{code}", r["title"], [XID_LINE, XID_POINTER], mapping(r), when=f"int(xid) == {code}",
                           description=description, refs=[r["source"]]))
    out.append("")
    out.append("// The floor: an Xid the catalog does not list (a newer driver's, or a misprint) is still an event")
    out.append("// of that GPU, at a conservative severity: never silence. A clean-up that names an unlisted Xid")
    out.append("// gives that Xid too.")
    out.append(symptom(
        "xid_unlisted", "An Xid that NVIDIA's catalog (as attrib has it) does not list",
        [XID_LINE, XID_POINTER],
        [("family", "accelerator-gpu"), ("severity", "warning"), ("blame", "gpu"), ("role", "cause"),
         ("action", "investigate")],
        when=f"int(xid) not in {code_set(codes)}",
        description=("An Xid number missing from the catalog attrib was built with (Xid "
                     f"{codes[0]} to {codes[-1]}): look it up in NVIDIA's current Xid catalog."),
        refs=["https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"]))
    return "\n".join(out) + "\n"


def sxid_file(rows):
    out = [HEADER.format(table="sxid.tsv").rstrip("\n"),
           "// One symptom per row of the Fabric Manager User Guide's SXid tables: the kernel's line for the",
           "// code (Fatal or Non-fatal, as `status`) and the Fabric Manager's report of it, two patterns all",
           "// symptoms share: the switch's PCI address is `pci`, the code `sxid`. An NVSwitch error blames the",
           "// node: recovering needs the baseboard's NVSwitches and GPUs reset.",
           "package gpu.nvswitch"]
    codes = [int(r["code"]) for r in rows]
    for r in rows:
        code = int(r["code"])
        kind = "fatal" if r["fatal"] == "fatal" else "non-fatal"
        description = (f"SXid {code} ({r['name']}), {kind} in NVIDIA's Fabric Manager guide: {r['description']} "
                       f"Impact: {r['impact']}.")
        out.append("")
        out.append(symptom(f"sxid{code}", r["title"], [SXID_LINE, FM_LINE], mapping(r), when=f"int(sxid) == {code}",
                           description=description, refs=[r["source"]]))
    listed = code_set(codes)
    guide = "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html"
    out.append("")
    out.append("// The floors: an SXid the guide does not list keeps the driver's own word for it.")
    out.append(symptom(
        "sxid_unlisted_fatal", "NVSwitch fatal error (an SXid the Fabric Manager guide does not list)",
        [SXID_LINE, FM_LINE],
        [("family", "accelerator-fabric"), ("severity", "critical"), ("blame", "node"), ("role", "cause"),
         ("action", "drain_node, reboot_node")],
        when=f"lower(status) == \"fatal\" and int(sxid) not in {listed}",
        description="The driver reports the SXid as fatal; the guide's tables do not list its code.",
        refs=[guide]))
    out.append("")
    out.append(symptom(
        "sxid_unlisted_nonfatal", "NVSwitch non-fatal error (an SXid the Fabric Manager guide does not list)",
        [SXID_LINE, FM_LINE],
        [("family", "accelerator-fabric"), ("severity", "warning"), ("blame", "node"), ("role", "context"),
         ("action", "investigate")],
        when=f"lower(status) == \"non-fatal\" and int(sxid) not in {listed}",
        description="The driver reports the SXid as non-fatal; the guide's tables do not list its code.",
        refs=[guide]))
    return "\n".join(out) + "\n"


HARDWARE = {"accelerator-gpu", "accelerator-memory", "accelerator-fabric", "host-hardware"}


def dcgm_file(rows):
    # Hardware faults: causes of a hardware family blamed on the GPU or its node. NVLink5 (WORKFLOW_NVLINK5_ERR) is left
    # out: the metric does not say whether the error was Fatal or Nonfatal.
    hardware = [int(r["code"]) for r in rows
                if r["role"] == "cause" and r["blame"] in ("gpu", "node") and r["family"] in HARDWARE
                and r["immediate_bucket"] != "WORKFLOW_NVLINK5_ERR"]
    listed = ", ".join(str(c) for c in hardware)
    fields = "https://docs.nvidia.com/datacenter/dcgm/latest/dcgm-api/dcgm-api-field-ids.html"
    out = [HEADER.format(table="xid.tsv").rstrip("\n"),
           "// DCGM_FI_DEV_XID_ERRORS holds the value of the last Xid the GPU reported (0: none). The Xids that",
           "// are hardware faults are those the catalog maps to hardware causes blamed on the GPU or its node,",
           "// but the NVLink5 ones (144-150: the metric does not say whether they were Fatal or Nonfatal).",
           "package gpu.dcgm", "",
           "symptom fatal_xid_reported \"DCGM reports a hardware Xid on a GPU\" {",
           "  on metric DCGM_FI_DEV_XID_ERRORS",
           f"  when int(value) in [{listed}]",
           "  family accelerator-gpu", "  severity critical", "  blame gpu", "  action reset_gpu, drain_node",
           f"  ref {quoted(fields)}, \"https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html\"",
           "}", "",
           "// Any other Xid: worth a look, not a cause by itself.",
           "symptom xid_reported \"DCGM reports an Xid on a GPU\" {",
           "  on metric DCGM_FI_DEV_XID_ERRORS",
           f"  when value > 0 and int(value) not in [{listed}]",
           "  family accelerator-gpu", "  severity warning", "  blame gpu", "  role context", "  action investigate",
           f"  ref {quoted(fields)}",
           "}"]
    return "\n".join(out) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print("usage: generate.py DATA_DIR OUT_DIR  (writes OUT_DIR/gpu/*.attr from DATA_DIR/xid.tsv and sxid.tsv)",
              file=sys.stderr)
        return 2
    data, out = argv[1], argv[2]
    try:
        xids = read_xids(os.path.join(data, "xid.tsv"))
        sxids = read_sxids(os.path.join(data, "sxid.tsv"))
    except TableError as e:
        print(f"generate.py: {e}", file=sys.stderr)
        return 1
    write(os.path.join(out, "gpu", "xid_catalogue.attr"), xid_file(xids))
    write(os.path.join(out, "gpu", "sxid_catalogue.attr"), sxid_file(sxids))
    write(os.path.join(out, "gpu", "dcgm_xid.attr"), dcgm_file(xids))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
