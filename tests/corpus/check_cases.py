#!/usr/bin/env python3
"""Checks every case of the real-log corpus against tests/corpus/README.md.

Usage: tests/corpus/check_cases.py [CASES_DIR]      (default: tests/corpus/cases)
Prints one line per problem and a summary; exit 1 when any case is malformed.
"""
import hashlib
import json
import os
import sys

FAMILIES = {
    "accelerator-gpu", "accelerator-memory", "accelerator-fabric", "network-fabric", "host-hardware",
    "kernel-fatal", "host-oom", "device-oom", "storage", "communication", "scheduler-timeout",
    "scheduler-preemption", "scheduler-cancel", "node-failure", "orchestration", "software-framework",
    "user-code", "numerics", "unknown",
}
STATES = {"COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
          "EVICTED", "BOOT_FAIL", "DEADLINE", "RUNNING", "UNKNOWN"}
FIELDS = {"id", "source_url", "family", "benign", "root_line", "root_node", "root_rank", "label_certainty",
          "label_basis", "misleading_cascade", "tools", "workload", "forms"}


def held_out(url):
    """The held-out part: the first byte of sha256(url) is divisible by 3."""
    return hashlib.sha256(url.encode("utf-8")).digest()[0] % 3 == 0


def log_lines(logs_dir):
    for root, _, files in os.walk(logs_dir):
        for name in sorted(files):
            with open(os.path.join(root, name), "rb") as f:
                for line in f.read().decode("utf-8", "replace").splitlines():
                    yield line


def check_case(path):
    problems = []
    name = os.path.basename(path)
    try:
        with open(os.path.join(path, "case.json"), encoding="utf-8") as f:
            case = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{name}: case.json: {e}"]
    missing = FIELDS - case.keys()
    extra = case.keys() - FIELDS
    if missing:
        problems.append(f"{name}: missing fields {sorted(missing)}")
    if extra:
        problems.append(f"{name}: unknown fields {sorted(extra)}")
    if case.get("id") != name:
        problems.append(f"{name}: id {case.get('id')!r} is not the folder's name")
    url = case.get("source_url")
    if not isinstance(url, str) or not url.startswith("https://"):
        problems.append(f"{name}: source_url must be an https URL")
    benign = case.get("benign")
    if not isinstance(benign, bool):
        problems.append(f"{name}: benign must be true or false")
    family = case.get("family")
    if benign:
        if family is not None or case.get("root_line") is not None:
            problems.append(f"{name}: a benign case has family null and root_line null")
    elif family not in FAMILIES:
        problems.append(f"{name}: family {family!r} is not one of the 19")
    if case.get("label_certainty") not in ("stated", "inferred"):
        problems.append(f"{name}: label_certainty must be 'stated' or 'inferred'")
    if not isinstance(case.get("label_basis"), str) or not case.get("label_basis"):
        problems.append(f"{name}: label_basis must say why")
    if not isinstance(case.get("misleading_cascade"), bool):
        problems.append(f"{name}: misleading_cascade must be true or false")
    if not isinstance(case.get("tools"), dict):
        problems.append(f"{name}: tools must be an object")
    workload = case.get("workload")
    if not isinstance(workload, dict):
        problems.append(f"{name}: workload must be an object")
    else:
        bad = set(workload) - {"scheduler", "state", "exit_code"}
        if bad:
            problems.append(f"{name}: workload may say only scheduler, state, exit_code (not {sorted(bad)})")
        if "state" in workload and workload["state"] not in STATES:
            problems.append(f"{name}: workload.state {workload['state']!r} is not a terminal state")
    if not isinstance(case.get("forms"), list):
        problems.append(f"{name}: forms must be a list")
    for key in ("root_node",):
        if case.get(key) is not None and not isinstance(case.get(key), str):
            problems.append(f"{name}: {key} must be a string or null")
    if case.get("root_rank") is not None and not isinstance(case.get("root_rank"), int):
        problems.append(f"{name}: root_rank must be an integer or null")
    logs = os.path.join(path, "logs")
    if not os.path.isdir(logs):
        problems.append(f"{name}: no logs/ folder")
        return problems
    lines = list(log_lines(logs))
    if not lines:
        problems.append(f"{name}: logs/ holds no lines")
    root = case.get("root_line")
    if root is not None:
        if not isinstance(root, str) or not root.strip():
            problems.append(f"{name}: root_line must be a non-empty string")
        elif not any(root in line for line in lines):
            problems.append(f"{name}: root_line is not a substring of any line in logs/")
    return problems


def main():
    cases_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "cases")
    names = sorted(n for n in os.listdir(cases_dir) if os.path.isdir(os.path.join(cases_dir, n)))
    problems = []
    held = benign = 0
    for n in names:
        problems += check_case(os.path.join(cases_dir, n))
        try:
            with open(os.path.join(cases_dir, n, "case.json"), encoding="utf-8") as f:
                case = json.load(f)
            held += held_out(case.get("source_url", ""))
            benign += bool(case.get("benign"))
        except (OSError, ValueError):
            pass
    # Every case belongs to exactly one generation (tests/corpus/generations/N.txt), listed when it
    # was collected, before any rule was written from it.
    gen_dir = os.path.join(os.path.dirname(os.path.abspath(cases_dir)), "generations")
    seen = {}
    if os.path.isdir(gen_dir):
        for f in sorted(os.listdir(gen_dir)):
            if not f.endswith(".txt"):
                continue
            with open(os.path.join(gen_dir, f), encoding="utf-8") as fh:
                for case_id in fh.read().split():
                    if case_id in seen:
                        problems.append(f"{case_id}: in generations {seen[case_id]} and {f}")
                    seen[case_id] = f
                    if case_id not in names:
                        problems.append(f"{case_id}: listed in generations/{f} but no such case")
        for n in names:
            if n not in seen:
                problems.append(f"{n}: in no generation (add its id to the newest tests/corpus/generations/N.txt)")
    for p in problems:
        print(p)
    print(f"{len(names)} cases ({benign} benign, {held} held out), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
