#include "report/assets.h"

#include <openssl/evp.h>

#include "ir/sha256.h"

namespace attrib::report {

const std::string_view kStyle = R"css(
:root{--fg:#1d2430;--muted:#5b6575;--line:#d8dde5;--bg:#fff;--soft:#f4f6f9;--bad:#b3261e;--warn:#b26a00;--ok:#1b7f3b;--accent:#2456a6}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1180px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
a{color:var(--accent)}code,pre,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
pre{white-space:pre-wrap;word-break:break-all;margin:0}
.muted{color:var(--muted)}.bad{color:var(--bad);font-weight:600}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;background:var(--soft);border:1px solid var(--line);font-size:12px;margin-right:6px}
.badge.family{background:#e8eefb;border-color:#bccdf0}.badge.state{background:#fbeaea;border-color:#efc1c1}
.answer{border:1px solid var(--line);border-left:5px solid var(--bad);border-radius:6px;padding:14px 18px;background:#fffdfd}
.answer.unknown{border-left-color:var(--warn)}.answer.ok{border-left-color:var(--ok)}
.grid{display:grid;grid-template-columns:150px 1fr;gap:6px 14px;margin-top:10px}
.grid>dt{color:var(--muted)}.grid>dd{margin:0}
.line{background:var(--soft);border:1px solid var(--line);border-radius:4px;padding:6px 8px;margin:4px 0}
.place{color:var(--muted);font-size:12px}
.action{margin:6px 0}.action b{font-family:"DejaVu Sans Mono",monospace}
.cmd{display:block;background:#1d2430;color:#f2f4f8;border-radius:4px;padding:5px 8px;margin:3px 0 0;white-space:pre-wrap;word-break:break-all}
.cmd code{color:inherit}
table{border-collapse:collapse;width:100%;margin:6px 0 10px}
th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600;font-size:12.5px}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.meter{display:inline-block;width:120px;height:8px;background:var(--soft);border:1px solid var(--line);border-radius:4px;vertical-align:middle}
.meter>i{display:block;height:100%;background:var(--accent);border-radius:4px}
.tl-tools{margin:6px 0}.tl-tools button{font:inherit;font-size:12px;padding:2px 9px;margin-right:4px;border:1px solid var(--line);background:var(--soft);border-radius:4px;cursor:pointer}
.tl{width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff;touch-action:none;cursor:grab;user-select:none}
.tl text{font-size:11px;fill:var(--fg)}.tl .lbl{font-family:"DejaVu Sans Mono",monospace}
.tl .lbl.bad{fill:var(--bad);font-weight:700}.tl .lbl.rest{fill:var(--muted);font-style:italic}
.tl .grid line{stroke:#eef1f5}.tl .axis text{fill:var(--muted)}
.tl .sched{stroke:#6b7687;stroke-dasharray:4 3}.tl .band{opacity:.35}.tl .arrow{fill:none;stroke:#6b7687;stroke-width:1.2}
.status-ok{color:var(--ok)}.status-error,.status-partial{color:var(--bad);font-weight:600}.status-empty{color:var(--warn)}
details>summary{cursor:pointer;color:var(--accent)}
footer{margin-top:36px;color:var(--muted);font-size:12px}
nav.top{background:#1d2430;color:#fff;padding:8px 24px}nav.top a{color:#fff;margin-right:16px;text-decoration:none}
.bar{display:inline-block;height:10px;background:var(--accent);vertical-align:middle;border-radius:2px}
input.filter{font:inherit;padding:4px 8px;width:320px;border:1px solid var(--line);border-radius:4px}
)css";

const std::string_view kTimelineScript = R"js(
(function () {
  var svg = document.getElementById('timeline-svg');
  if (!svg) return;
  var ds = svg.dataset, L = +ds.left, R = +ds.right, H = +ds.height;
  var view = {incident: [+ds.t0, +ds.t1], job: [+ds.j0, +ds.j1]};
  var d0 = view.incident[0], d1 = view.incident[1];
  // A link may name the window to open: report.html#view=T0,T1 (milliseconds since the epoch).
  var asked = /^#view=(\d+(?:\.\d+)?),(\d+(?:\.\d+)?)$/.exec(location.hash);
  if (asked && +asked[2] - +asked[1] >= 1000) { d0 = +asked[1]; d1 = +asked[2]; }
  var steps = [1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5];
  function x(t) { return L + (t - d0) / (d1 - d0) * (R - L); }
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function label(t, step, first) {
    var d = new Date(t), s = pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes());
    if (step < 6e4) s += ':' + pad(d.getUTCSeconds());
    return first ? d.toISOString().slice(0, 10) + ' ' + s : s;
  }
  function ticks() {
    var g = svg.querySelector('g.axis'), step = steps[steps.length - 1];
    for (var i = 0; i < steps.length; ++i) if ((d1 - d0) / steps[i] <= 8) { step = steps[i]; break; }
    var out = '', first = true;
    for (var t = Math.ceil(d0 / step) * step; t <= d1; t += step) {
      var X = x(t).toFixed(1);
      out += '<line x1="' + X + '" x2="' + X + '" y1="18" y2="' + H + '"></line><text x="' + X + '" y="13" text-anchor="middle">' +
             label(t, step, first) + '</text>';
      first = false;
    }
    g.innerHTML = out;
  }
  function draw() {
    svg.querySelectorAll('[data-t]').forEach(function (e) {
      var X = x(+e.dataset.t);
      if (e.tagName === 'g') e.setAttribute('transform', 'translate(' + X.toFixed(1) + ',' + e.dataset.y + ')');
      else if (e.tagName === 'line') { e.setAttribute('x1', X); e.setAttribute('x2', X); }
      else if (e.tagName === 'rect') { var X2 = x(+e.dataset.t2); e.setAttribute('x', X); e.setAttribute('width', Math.max(3, X2 - X)); }
      else if (e.tagName === 'path') {
        var X2 = x(+e.dataset.t2);
        e.setAttribute('d', 'M' + X.toFixed(1) + ',' + e.dataset.y + ' C' + (X - 40).toFixed(1) + ',' + e.dataset.y + ' ' +
                       (X2 - 40).toFixed(1) + ',' + e.dataset.y2 + ' ' + X2.toFixed(1) + ',' + e.dataset.y2);
      }
      else if (e.tagName === 'text') {
        var right = X > (L + R) / 2;  // labels on the right half read leftwards, so none is cut off
        e.setAttribute('x', right ? X - 6 : X + 6); e.setAttribute('text-anchor', right ? 'end' : 'start');
      }
    });
    ticks();
  }
  function at(evt) {
    var p = svg.createSVGPoint(); p.x = evt.clientX; p.y = evt.clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse()).x;
  }
  function zoom(f, px) {
    var c = d0 + (Math.min(Math.max(px, L), R) - L) / (R - L) * (d1 - d0);
    var n0 = c - (c - d0) * f, n1 = c + (d1 - c) * f;
    if (n1 - n0 < 1000) return;
    d0 = n0; d1 = n1; draw();
  }
  // Only with Ctrl or Shift held: a plain wheel scrolls the page past the timeline.
  svg.addEventListener('wheel', function (e) {
    if (!e.ctrlKey && !e.shiftKey) return;
    e.preventDefault(); zoom(e.deltaY < 0 ? 0.8 : 1.25, at(e));
  }, {passive: false});
  var drag = null;
  svg.addEventListener('pointerdown', function (e) { drag = {x: at(e), d0: d0, d1: d1}; svg.setPointerCapture(e.pointerId); });
  svg.addEventListener('pointermove', function (e) {
    if (!drag) return;
    var dt = (at(e) - drag.x) / (R - L) * (drag.d1 - drag.d0);
    d0 = drag.d0 - dt; d1 = drag.d1 - dt; draw();
  });
  svg.addEventListener('pointerup', function () { drag = null; });
  document.querySelectorAll('[data-zoom]').forEach(function (b) {
    b.addEventListener('click', function () {
      var z = b.dataset.zoom;
      if (z === 'in') zoom(0.5, (L + R) / 2); else if (z === 'out') zoom(2, (L + R) / 2);
      else { d0 = view[z][0]; d1 = view[z][1]; draw(); }
    });
  });
  draw();
  svg.setAttribute('data-interactive', '1');  // the script ran (the page's policy admitted it)
})();
)js";

const std::string_view kTableFilterScript = R"js(
(function () {
  var box = document.getElementById('filter');
  if (!box) return;
  var rows = document.querySelectorAll('#verdicts tbody tr'), count = document.getElementById('shown');
  box.addEventListener('input', function () {
    var q = box.value.toLowerCase(), n = 0;
    rows.forEach(function (r) { var hit = r.textContent.toLowerCase().indexOf(q) >= 0; r.hidden = !hit; n += hit; });
    if (count) count.textContent = n;
  });
})();
)js";

namespace {

std::string hashSource(std::string_view text) {
  std::string raw = sha256(text);
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(raw.data()),
                          static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return "'sha256-" + out + "'";
}

}  // namespace

std::string contentSecurityPolicy(std::string_view style, const std::vector<std::string_view>& scripts) {
  std::string policy = "default-src 'none'; style-src " + hashSource(style) + "; script-src";
  if (scripts.empty()) policy += " 'none'";
  for (auto s : scripts) policy += " " + hashSource(s);
  return policy + "; img-src data:; form-action 'self'; base-uri 'none'";
}

}  // namespace attrib::report
