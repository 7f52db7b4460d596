#!/usr/bin/env python3
"""attrib's HTML in a real browser: Debian's chromium, headless, on loopback only.

    browser_tests.py reports   --attrib A --out DIR WORKLOAD_DIR...   each workload's report
    browser_tests.py hostile   --attrib A --out DIR                   a log line with <script>, </svg>, quotes, bad bytes
    browser_tests.py large     --attrib A --out DIR                   a 1,024-node workload (bench/generate.py)
    browser_tests.py dashboard --attrib A --out DIR SCENARIO_DIR...   the dashboard over `attrib run`'s database

For every page: `attrib` writes it, chromium loads it (--dump-dom, and --screenshot into
DIR/screenshots/, the test's artefact), and the DOM after the page's script ran is checked
against the verdict: the outcome, the root cause with its line and place, the lanes, the
reference links, one script (the page's own, admitted by its Content-Security-Policy: the script
marks the timeline when it ran, and chromium's log must show no refused resource). The
dashboard's tables are compared with SQL run directly on the database.

Bounded: one chromium per page with a 60 s timeout, two at a time. Python standard library only.
"""

import argparse
import concurrent.futures
import hashlib
import html.parser
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]
FAILURES = []


def fail(what):
    FAILURES.append(what)
    print(f"FAIL: {what}", flush=True)


def check(cond, what):
    if not cond:
        fail(what)
    return cond


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("browser_tests: chromium is not installed (scripts/install-deps.sh installs it)")


def render(url, screenshot, height=1600):
    """The DOM of `url` after its scripts ran, and chromium's log; a screenshot into `screenshot`."""
    with tempfile.TemporaryDirectory(prefix="attrib-chromium-") as profile:
        args = [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size=1280,{height}",
                f"--screenshot={screenshot}", "--dump-dom", url]
        r = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=profile)
    return r.stdout, r.stderr


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.parts = tag, dict(attrs), parent, [], []

    def text(self):
        return "".join(p if isinstance(p, str) else p.text() for p in self.parts)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, tag=None, cls=None, **attrs):
        for n in self.walk():
            if tag and n.tag != tag:
                continue
            if cls and cls not in n.attrs.get("class", "").split():
                continue
            if all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items()):
                yield n

    def by_id(self, id_):
        return next(self.find(id=id_), None)


VOID = {"meta", "link", "br", "img", "input", "hr", "area", "base", "col", "embed", "source", "track", "wbr"}


class Dom(html.parser.HTMLParser):
    """A small tree of the serialised DOM (chromium's --dump-dom output is well formed)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.cur = self.root
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.parts.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.parts.append(n)

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.parts.append(data)


def refused(log):
    return [l for l in log.splitlines() if "Refused to" in l or "Content Security Policy" in l or "Uncaught" in l]


def check_report(name, verdict, dom_text, log, max_lanes=40):
    """The report's DOM says what the verdict says."""
    dom = Dom(dom_text).root
    ok = True
    outcome = dom.by_id("outcome")
    titles = [o["title"] for o in verdict["outcome"]]
    ok &= check(outcome is not None and (outcome.text() in titles or verdict["outcome"][0]["name"] == "unknown"),
                f"{name}: #outcome is {outcome.text() if outcome else None!r}, want one of {titles}")
    ok &= check(dom.by_id("family").text() == verdict["outcome"][0]["family"], f"{name}: #family")
    scripts = list(dom.find("script"))
    ok &= check(len(scripts) == 1, f"{name}: {len(scripts)} script elements, want the report's own only")
    svg = dom.by_id("timeline-svg")
    root = verdict["root_cause"]
    if svg is None:
        ok &= check(root is None and not verdict["downstream"], f"{name}: no timeline although the verdict has times")
    else:
        ok &= check(svg.attrs.get("data-interactive") == "1", f"{name}: the timeline script did not run (policy?)")
        lanes = [g.attrs["data-node"] for g in svg.find("g", cls="lane") if g.attrs.get("data-node")]
        ok &= check(0 < len(lanes) <= max_lanes or not verdict["workload"]["nodes"], f"{name}: {len(lanes)} lanes")
        ok &= check(len(lanes) == int(svg.attrs["data-lanes"]), f"{name}: lanes drawn != data-lanes")
        ok &= check(len(set(lanes)) == len(lanes), f"{name}: a node has two lanes")
        if root and root["node"]:
            ok &= check(lanes and lanes[0] == root["node"], f"{name}: the first lane is {lanes[:1]}, not the root's node {root['node']}")
            ok &= check(any(True for _ in svg.find("g", cls="root")), f"{name}: the root is not marked on the timeline")
        for n in verdict["bad_nodes"][:max_lanes]:
            ok &= check(n["node"] in lanes, f"{name}: bad node {n['node']} has no lane")
        bands = list(svg.find("g", cls="downstream-band"))
        ok &= check(len(bands) == min(len(verdict["downstream"]), 12), f"{name}: {len(bands)} bands")
        for b, d in zip(bands, verdict["downstream"]):
            ok &= check(b.attrs["data-symptom"] == d["symptom"] and b.attrs["data-count"] == str(d["count"]),
                        f"{name}: band {b.attrs} is not {d['symptom']} x{d['count']}")
    rc = dom.by_id("root-cause")
    if root:
        text = rc.text()
        ok &= check(root["symptom"] in text, f"{name}: #root-cause lacks {root['symptom']}")
        e = root["evidence"][0]
        ok &= check(e["line"] in text, f"{name}: #root-cause lacks the evidence line {e['line']!r}")
        place = f"{e['where']['location']}:{e['where']['line']}" if e["where"]["line"] else e["where"]["location"]
        ok &= check(place in text, f"{name}: #root-cause lacks the place {place}")
        links = {a.attrs.get("href") for a in dom.find("a", cls="ref")}
        for ref in verdict["symptoms"][root["symptom"]]["refs"]:
            if ref.startswith(("http://", "https://")):
                ok &= check(ref in links, f"{name}: no link to {ref}")
    else:
        ok &= check("none found" in rc.text(), f"{name}: #root-cause should say none found")
    actions = [d.attrs["data-action"] for d in dom.find("div", cls="action")]
    ok &= check(actions == verdict["recommendation"]["actions"], f"{name}: actions {actions}")
    if "drain_node" in actions and verdict["workload"]["scheduler"] == "slurm":
        cmd = " ".join(c.text() for c in dom.find("span", cls="cmd"))
        nodes = ",".join(verdict["recommendation"]["nodes"])
        ok &= check(f"scontrol update nodename={nodes} state=drain" in cmd, f"{name}: the drain command is {cmd!r}")
    ok &= check(not refused(log), f"{name}: chromium refused something: {refused(log)[:2]}")
    return dom, ok


def diagnose(attrib, workload, out_dir, name):
    report = os.path.join(out_dir, f"{name}.html")
    r = subprocess.run([attrib, "diagnose", "--no-timings", "--report", report, workload], capture_output=True,
                       timeout=120, text=True, errors="replace")
    if r.returncode != 0:
        fail(f"{name}: attrib diagnose exited {r.returncode}: {r.stderr.strip()}")
        return None, None
    return json.loads(r.stdout), report


def report_one(attrib, workload, out, name, max_lanes=40):
    started = time.monotonic()
    verdict, path = diagnose(attrib, workload, out, name)
    if not verdict:
        return None
    dom_text, log = render("file://" + os.path.abspath(path), os.path.join(out, "screenshots", f"{name}.png"))
    dom, ok = check_report(name, verdict, dom_text, log, max_lanes)
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {os.path.getsize(path)} bytes, {time.monotonic() - started:.1f} s", flush=True)
    return verdict, dom, path


def cmd_reports(args):
    names = [os.path.basename(os.path.normpath(d)) for d in args.dirs]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda d, n: report_one(args.attrib, d, args.out, n), args.dirs, names))
    return len(names)


def cmd_hostile(args):
    """The cascade example with its Xid line carrying markup, quotes and invalid UTF-8."""
    work = os.path.join(args.out, "hostile-workload")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(SOURCE, "examples", "xid79-nccl-cascade"), work)
    payload = (b" <script>document.body.setAttribute('data-pwned','1')</script></svg>"
               b"<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\"> \"double\" 'single' \xff\xfe\xc0\xaf end")
    syslog = os.path.join(work, "logs", "gpu-0007", "syslog.log")
    lines = open(syslog, "rb").read().split(b"\n")
    hit = [i for i, l in enumerate(lines) if b"NVRM: Xid" in l and b": 79," in l]
    check(hit, "hostile: the example has no Xid 79 line to poison")
    for i in hit:
        lines[i] += payload
    open(syslog, "wb").write(b"\n".join(lines))
    result = report_one(args.attrib, work, args.out, "hostile")
    if not result:
        return 1
    verdict, dom, path = result
    body = next(dom.find("body"))
    check("data-pwned" not in body.attrs, f"hostile: the log line's markup ran ({body.attrs})")
    pre = [p.text() for p in dom.by_id("root-cause").find("pre")]
    want = "<script>document.body.setAttribute('data-pwned','1')</script></svg><img src=x onerror="
    check(any(want in p and "\"double\" 'single'" in p and "\ufffd" in p for p in pre),
          f"hostile: the line is not shown as text: {pre}")
    check(not list(dom.find("img")), "hostile: an <img> element made it into the DOM")
    svgs = list(dom.find("svg"))
    check(len(svgs) == 1 and svgs[0].attrs.get("id") == "timeline-svg" and list(svgs[0].find("g", cls="downstream-band")),
          "hostile: the timeline's SVG was closed early or another one opened")
    return 1


def cmd_large(args):
    work = os.path.join(args.out, "workload-1024")
    if not os.path.exists(os.path.join(work, "workload.json")):
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(SOURCE, "bench", "generate.py"), work, "--nodes", "1024",
                        "--ranks-per-node", "8", "--size", "12M", "--quiet"], check=True, timeout=300)
    result = report_one(args.attrib, work, args.out, "nodes-1024")
    if not result:
        return 1
    verdict, dom, path = result
    svg = dom.by_id("timeline-svg")
    lanes = int(svg.attrs["data-lanes"])
    # The interesting nodes: the root's, the bad ones, other causes', where each group began.
    interesting = {verdict["root_cause"]["node"]} | {n["node"] for n in verdict["bad_nodes"] + verdict["interesting_nodes"]}
    interesting |= {c["node"] for c in verdict["other_causes"] if c["node"]}
    interesting |= {e["node"] for d in verdict["downstream"] for e in d["earliest_nodes"]}
    check(lanes == min(40, len(interesting)) and lanes >= 17, f"nodes-1024: {lanes} lanes, want {min(40, len(interesting))}")
    check(int(svg.attrs["data-rest"]) == 1024 - lanes, f"nodes-1024: the other nodes are {svg.attrs['data-rest']}, not {1024 - lanes}")
    rest = [t.text() for t in svg.find("text", cls="rest")]
    check(rest == [f"+ {1024 - lanes} other node(s)"], f"nodes-1024: the collapsed lane says {rest}")
    check(os.path.getsize(path) < 2 << 20, f"nodes-1024: the report is {os.path.getsize(path)} bytes, over 2 MB")
    # The script's time axis: a window of 2 s around the root puts the root in the middle.
    t = float(next(svg.find("g", cls="root")).attrs["data-t"])
    left, right = float(svg.attrs["data-left"]), float(svg.attrs["data-right"])
    dom_text, log = render("file://" + os.path.abspath(path) + f"#view={t - 1000:.0f},{t + 1000:.0f}",
                           os.path.join(args.out, "screenshots", "nodes-1024-zoomed.png"))
    zoomed = Dom(dom_text).root.by_id("timeline-svg")
    x = float(re.match(r"translate\(([-\d.]+),", next(zoomed.find("g", cls="root")).attrs["transform"]).group(1))
    check(abs(x - (left + right) / 2) < 1, f"nodes-1024: zoomed in on the root, it is at x={x}, not {(left + right) / 2}")
    check(zoomed.attrs.get("data-interactive") == "1" and not refused(log), "nodes-1024: the zoomed page's script did not run")
    return 1


def blueprint(scenario, db):
    return f"""context:
  static:
    workload: {scenario}/workload.json
sources:
  - files:
      roots: [{scenario}/logs]
      patterns:
        - glob: "{scenario}/logs/${{node}}/*.log*"
sinks:
  - sqlite: {{path: {db}}}
"""


def fetch(url, token=None, method="GET"):
    req = urllib.request.Request(url, method=method)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


class Dashboard:
    def __init__(self, attrib, db, token_file=None):
        args = [attrib, "dashboard", db, "--listen", "127.0.0.1:0"] + (["--token-file", token_file] if token_file else [])
        self.proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError(f"attrib dashboard did not start: {line}")
        self.url = f"http://127.0.0.1:{m.group(1)}"

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def rows(dom, table_id, keys):
    t = dom.by_id(table_id)
    out = []
    for tr in t.find("tr"):
        if all(f"data-{k}" in tr.attrs for k in keys):
            out.append(tuple(tr.attrs[f"data-{k}"] for k in keys))
    return out


def cmd_dashboard(args):
    db = os.path.join(args.out, "verdicts.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    env = dict(os.environ)

    def run(scenario):
        bp = os.path.join(args.out, "blueprints", os.path.basename(os.path.normpath(scenario)) + ".yaml")
        os.makedirs(os.path.dirname(bp), exist_ok=True)
        open(bp, "w").write(blueprint(os.path.abspath(scenario), db))
        r = subprocess.run([args.attrib, "run", "--config", bp], capture_output=True, text=True, timeout=120, env=env)
        check(r.returncode == 0, f"attrib run {scenario}: {r.stderr.strip()[-300:]}")

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(run, args.dirs))
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    stored = con.execute("SELECT count(*) FROM verdicts").fetchone()[0]
    # A verdict is keyed by its workload's id (two scenarios share one: the later replaces it).
    ids = {json.load(open(os.path.join(d, "workload.json")))["id"] for d in args.dirs}
    check(stored == len(ids), f"dashboard: {stored} verdicts stored, want {len(ids)}")
    print(f"ok   attrib run on {len(args.dirs)} scenarios: {time.monotonic() - started:.1f} s", flush=True)
    digest = hashlib.sha256(open(db, "rb").read()).hexdigest()

    d = Dashboard(args.attrib, db)
    try:
        dom_text, log = render(d.url + "/?days=366", os.path.join(args.out, "screenshots", "dashboard.png"), 1500)
        dom = Dom(dom_text).root
        # "Which nodes were blamed most this week" and "failures per family", as SQL says.
        want = con.execute("""
SELECT b.node, count(*) AS verdicts FROM bad_nodes b JOIN verdicts v USING (verdict_id)
WHERE v.created_ns >= (unixepoch('now') - 7 * 86400) * 1000000000
GROUP BY b.node ORDER BY verdicts DESC, b.node LIMIT 20""").fetchall()
        got = [(n, int(c)) for n, c in rows(dom, "blamed-nodes", ["node", "count"])]
        check(len(want) >= 10 and got == want, f"dashboard: blamed nodes {got[:3]}... != SQL {want[:3]}...")
        want = con.execute("""
SELECT v.family, count(*) FROM verdicts v JOIN workloads w USING (workload_id, ruleset_digest)
WHERE w.state <> 'COMPLETED' AND coalesce(w.end_ns, v.created_ns) >= (unixepoch('now') - 366 * 86400) * 1000000000
GROUP BY v.family""").fetchall()
        got = [(f, int(c)) for f, c in rows(dom, "families", ["family", "count"])]
        check(len(want) >= 10 and sorted(got) == sorted(want), f"dashboard: families {sorted(got)} != SQL {sorted(want)}")
        check([c for _, c in got] == sorted([c for _, c in got], reverse=True), "dashboard: families not by count")
        check(not refused(log), f"dashboard: chromium refused something: {refused(log)[:2]}")
        links = [a.attrs["href"] for a in dom.by_id("blamed-nodes").find("a", cls="verdict-link")]
        check(links and all(re.fullmatch(r"/verdicts/\d+", l) for l in links), f"dashboard: recent-verdict links {links[:3]}")

        dom_text, log = render(d.url + "/verdicts?family=accelerator-gpu", os.path.join(args.out, "screenshots", "dashboard-verdicts.png"))
        dom = Dom(dom_text).root
        want = [str(r[0]) for r in con.execute(
            "SELECT verdict_id FROM verdicts WHERE family = 'accelerator-gpu' ORDER BY created_ns DESC, verdict_id DESC")]
        got = [r[0] for r in rows(dom, "verdicts", ["verdict"])]
        check(got == want and want, f"dashboard: accelerator-gpu verdicts {got} != SQL {want}")
        check(len(list(dom.find("script"))) == 1, "dashboard: the verdict list has scripts not its own")
        reports = [a.attrs["href"] for a in dom.by_id("verdicts").find("a", cls="report-link")]
        check(len(reports) == len(want), "dashboard: a verdict without a link to its report")
        # Each linked report renders in the browser, from the stored verdict.
        vid = reports[0].rsplit("/", 1)[1]
        stored_json = con.execute("SELECT verdict_json FROM verdicts WHERE verdict_id = ?", (vid,)).fetchone()[0]
        dom_text, log = render(d.url + reports[0], os.path.join(args.out, "screenshots", "dashboard-report.png"))
        check_report(f"dashboard report {vid}", json.loads(stored_json), dom_text, log)
        # Read-only: other methods are refused; nothing changed the file.
        status, _ = fetch(d.url + "/verdicts", method="POST")
        check(status == 405, f"dashboard: POST gave {status}, want 405")
        status, _ = fetch(d.url + "/verdicts/999999")
        check(status == 404, f"dashboard: a missing verdict gave {status}")
    finally:
        d.stop()
    check(hashlib.sha256(open(db, "rb").read()).hexdigest() == digest, "dashboard: the database file changed")

    # With a token: nothing without it.
    token = os.path.join(args.out, "dashboard-token")
    open(token, "w").write("s3cret-token\n")
    d = Dashboard(args.attrib, db, token)
    try:
        status, body = fetch(d.url + "/")
        check(status == 401 and "s3cret" not in body, f"dashboard with a token: no token gave {status}")
        status, _ = fetch(d.url + "/", token="wrong")
        check(status == 401, f"dashboard with a token: a wrong token gave {status}")
        status, body = fetch(d.url + "/verdicts", token="s3cret-token")
        check(status == 200 and 'id="verdicts"' in body, f"dashboard with a token: the token gave {status}")
    finally:
        d.stop()
    con.close()
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["reports", "hostile", "large", "dashboard"])
    ap.add_argument("--attrib", required=True)
    ap.add_argument("--out", required=True, help="where reports, screenshots and databases go (the test's artefacts)")
    ap.add_argument("dirs", nargs="*")
    args = ap.parse_intermixed_args()
    os.makedirs(os.path.join(args.out, "screenshots"), exist_ok=True)
    started = time.monotonic()
    count = {"reports": cmd_reports, "hostile": cmd_hostile, "large": cmd_large, "dashboard": cmd_dashboard}[args.what](args)
    print(f"browser_tests {args.what}: {count} page set(s) in {time.monotonic() - started:.1f} s; "
          f"screenshots in {os.path.join(args.out, 'screenshots')}")
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
