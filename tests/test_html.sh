#!/usr/bin/env bash
# The HTML report in a real browser. The demo's page (profiling on and off) and a page of
# hostile kernel names are loaded in headless Chromium: no console message but the page's own,
# no uncaught exception, nothing fetched from outside; the dumped DOM holds one bar and one table
# row per kernel of the JSON report, the efficiency and scope tables, and one page of the table
# of every dispatch, which the address can turn (on a page of 20,000 dispatches too); a
# screenshot shows the bar colours in the chart, a busy timeline, and the CPU's greys in the CPU
# lane and nowhere in the GPU's. At window widths of 1024, 1400 and 1920 px no text is clipped,
# on the demo's page and on one of long names and long times. wgprof diff's page, of the demo
# against a changed copy of its report (a kernel slower, one renamed, hostile names), loads the
# same way and shows a bar pair per kernel and a table row per kernel and scope; a page where
# which of two kernels moved is too close to call says so and that the gate read it both ways. Also the --html
# and --trace flags' usage errors (exit code 2). $1 is the wgprof binary; tests/png_inspect.py
# sits beside this script.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

chromium="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$chromium" ] || ! command -v python3 >/dev/null; then
  echo "FAIL: test_html needs chromium and python3 (Debian packages chromium, python3; scripts/install-deps.sh installs both)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
# One size for the DOM dump and the screenshot, so that the boxes the page reports in the dump
# are where the screenshot shows them.
# The window's width can be changed for one call: width=1024 browser ...
width=1400
browser() {
  timeout 120 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --force-device-scale-factor=1 --window-size="$width,1800" --user-data-dir="$tmp/profile" "$@"
}
# load PAGE [ADDRESS_SUFFIX [OUT]]: OUT.dom, OUT.log (Chromium's stderr; OUT is PAGE unless
# given); fails on any console message other than the page's own "rendered" line and on any
# uncaught exception.
load() {
  local out="${3:-$1}"
  if ! browser --enable-logging=stderr --v=0 --dump-dom "file://$tmp/$1${2:-}" >"$out.dom" 2>"$out.log"; then
    bad "chromium could not load $1${2:-}: $(tail -5 "$out.log")"
    return 1
  fi
  local others
  others="$(grep 'CONSOLE' "$out.log" | grep -Ev '"wgprof (report|diff) rendered: ' ; grep 'Uncaught' "$out.log")"
  [ -z "$others" ] && ok || bad "$1${2:-}: console errors: $others"
}
# body_attr DOM NAME: the value of the body's attribute NAME in a dumped DOM.
body_attr() {
  grep -o '<body[^>]*>' "$1" | grep -o " $2=\"[^\"]*\"" | cut -d'"' -f2 | sed 's/&quot;/"/g; s/&amp;/\&/g'
}

# Text the reader cannot see whole, found by a script added at the end of a copy of the page
# (after the page's own, which has drawn everything by then): an SVG label that leaves its
# drawing, an element whose text runs past the edge of the window or of a box that hides or
# scrolls its overflow, or an element narrower than its text that hides the rest. A name cut on
# purpose, with an ellipsis and its whole text in its title, is not counted. The script writes
# what it found into the body's data-clipped, "none" for nothing. On the layout it was written
# for, it found the chart's labels outside the chart at every width (on the page of long names
# below) and the per-kernel table past the window's edge at 1024 px (also on the demo's).
cat >clip_check.js <<'CHECK'
(function () {
  'use strict';
  var found = [];
  var view = document.documentElement.clientWidth;
  function what(el) {
    return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' "' + el.textContent.trim().slice(0, 30) + '"';
  }
  function visibleRight(el) {
    var right = view;
    for (var a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') {
        right = Math.min(right, a.getBoundingClientRect().right);
      }
    }
    return right;
  }
  function ownText(el) {
    for (var n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3 && n.textContent.trim()) {
        return true;
      }
    }
    return false;
  }
  var all = document.body.getElementsByTagName('*');
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    if (el.tagName === 'SCRIPT' || el.tagName === 'STYLE' || el.tagName === 'title' || !ownText(el)) {
      continue;
    }
    var r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') {
      continue;
    }
    if (el instanceof SVGElement) {
      var svg = el.ownerSVGElement.getBoundingClientRect();
      if (r.left < svg.left - 0.5 || r.right > Math.min(svg.right, visibleRight(el.ownerSVGElement)) + 0.5) {
        found.push(what(el) + ' outside its chart');
      }
      continue;
    }
    var titled = el.getAttribute('title') === el.textContent.trim();
    if (r.right > visibleRight(el) + 0.5) {
      found.push(what(el) + ' past the visible edge');
    } else if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible' && !titled) {
      found.push(what(el) + ' cut by its box');
    }
  }
  document.body.dataset.clipped = found.length ? found.join(' | ') : 'none';
})();
CHECK
# unclipped PAGE: a copy of PAGE with the check above, loaded at each width, finds nothing.
unclipped() {
  python3 - "$1" clip_check.js "check-$1" <<'PY'
import sys
page, check = open(sys.argv[1], encoding="utf-8").read(), open(sys.argv[2]).read()
end = page.rindex("</body>")
open(sys.argv[3], "w", encoding="utf-8").write(page[:end] + "<script>\n" + check + "</script>\n" + page[end:])
PY
  local w clipped
  for w in 1024 1400 1920; do
    width=$w load "check-$1" "" "check-$1-$w" || continue
    clipped="$(body_attr "check-$1-$w.dom" data-clipped)"
    [ "$clipped" = none ] && ok || bad "$1 at $w px: clipped text: ${clipped:-no check ran}"
  done
}
# Anything that would make the browser fetch: the page must work from file:// and offline.
self_contained() {
  local hits
  hits="$(grep -n -i -E 'https?:|//cdn|<link|[[:space:]]src=|url\(|@import|fetch\(|XMLHttpRequest|<iframe' "$1")"
  [ -z "$hits" ] && ok || bad "$1 references something outside: $hits"
}

# ---- the demo, profiled ----
if WEBGPU_TIMESTAMP_QUERY=1 "$wgprof" demo --quiet --html F.html --json F.json --trace F.trace >demo.out 2>&1 &&
  [ -s F.html ] && [ -s F.json ] && [ -s F.trace ]; then
  ok
else
  bad "profiled demo with --html --json --trace: $(cat demo.out)"
fi
[ ! -e F.html.tmp ] && ok || bad "F.html.tmp left behind"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))["traceEvents"]' F.trace && ok || bad "demo --trace wrote no trace"
self_contained F.html
load F.html
python3 - F.html.dom F.json <<'PY' && ok || bad "F.html: DOM against F.json"
import json, re, sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.body, self.bars, self.ids, self.rows, self.stack, self.text = {}, [], set(), {}, [], []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "rect" and "bar" in a.get("class", "").split():
            self.bars.append(a)
        if tag == "table":
            self.stack.append(a.get("id"))
        if tag == "tbody":
            self.stack.append("tbody")
        if tag == "tr" and self.stack[-1:] == ["tbody"]:
            self.rows.setdefault(self.stack[-2], 0)
            self.rows[self.stack[-2]] += 1
    def handle_endtag(self, tag):
        if tag in ("table", "tbody") and self.stack:
            self.stack.pop()
    def handle_data(self, data):
        self.text.append(data)

page = Page()
page.feed(open(sys.argv[1], encoding="utf-8").read())
report = json.load(open(sys.argv[2]))
kernels = [k for k in report["kernels"] if k["count"] > 0]
dispatches = sum(1 for d in report["dispatches"] if d["valid"])
assert page.body.get("data-rendered") == "ok", page.body
assert len(page.bars) == len(kernels) > 0, (len(page.bars), len(kernels))
assert len({b["fill"] for b in page.bars}) == len(kernels), "bar colours repeat"
assert page.rows.get("summary-table") == len(kernels), page.rows
ids = {"timeline", "kernel-chart", "summary-table", "efficiency-table", "scope-table", "dispatch-table", "wgprof-data"}
assert ids <= page.ids, page.ids
efficient = [k for k in report["kernels"] if "gbps" in k or "gflops" in k]
assert page.rows.get("efficiency-table") == len(efficient) > 0, (page.rows, len(efficient))
# The dispatch table: every record in the page's data, the first page of them in the document.
assert int(page.body.get("data-dispatch-rows", -1)) == len(report["dispatches"]), page.body
assert page.rows.get("dispatch-table") == min(500, len(report["dispatches"])), page.rows
# The CPU's colours are greys (equal channels) and no kernel's is: none can be taken for another.
def rgb(c):
    return [int(c[i:i + 2], 16) for i in (1, 3, 5)]
cpu = page.body.get("data-cpu-colors", "").split(",")
assert len(cpu) >= 3 and all(max(rgb(c)) - min(rgb(c)) <= 2 for c in cpu), cpu
assert all(max(rgb(b["fill"])) - min(rgb(b["fill"])) >= 40 for b in page.bars), [b["fill"] for b in page.bars]
text = " ".join(page.text)
for scope in ("embedding", "layer 0", "attention", "mlp", "layer 1", "head"):
    assert re.search(r"\b%s\b" % scope, text), scope
assert page.rows.get("scope-table", 0) >= 6, page.rows
for key in ("data-timeline-box", "data-chart-box"):
    assert re.fullmatch(r"\d+,\d+,\d+,\d+", page.body.get(key, "")), key
lanes = dict(lane.split(":") for lane in page.body.get("data-lanes", "").split(";"))
assert all(re.fullmatch(r"\d+,\d+,\d+,\d+", lanes.get(k, "")) for k in ("CPU", "GPU")), lanes
# The bars drawn large enough to show 30 px of their colour (a bar's length is its kernel's share
# of the time: a short kernel on a busy machine can draw less); most bars are.
shown = [b["fill"] for b in page.bars if float(b["width"]) * float(b["height"]) >= 60]
assert 2 * len(shown) >= len(page.bars), [(b["fill"], b["width"], b["height"]) for b in page.bars]
open("boxes", "w").write("%s\n%s\n%s\n%s\n%s\n%s\n" % (
    page.body["data-timeline-box"], page.body["data-chart-box"], ",".join(shown),
    lanes["CPU"], lanes["GPU"], ",".join(cpu)))
print("dispatches %d kernels %d" % (dispatches, len(kernels)), file=open("expect", "w"))
PY
if [ -s expect ]; then
  read -r _ dispatches _ kernels <expect
  grep -q "\"wgprof report rendered: $dispatches dispatches, $kernels kernels\"" F.html.log && ok ||
    bad "F.html: no console line 'wgprof report rendered: $dispatches dispatches, $kernels kernels'"
fi

# ---- what the browser draws ----
if browser --screenshot="$tmp/F.png" "file://$tmp/F.html" >shot.log 2>&1 && [ -s F.png ]; then
  ok
else
  bad "chromium took no screenshot: $(tail -5 shot.log)"
fi
if [ -s boxes ] && [ -s F.png ]; then
  { read -r timeline_box; read -r chart_box; read -r fills; read -r cpu_lane; read -r gpu_lane; read -r cpu_colors; } <boxes
  python3 "$here/png_inspect.py" F.png --region "$chart_box" --colors "$fills" --min-each 30 &&
    ok || bad "the bar chart's colours are not on the screenshot (region $chart_box)"
  python3 "$here/png_inspect.py" F.png --region "$timeline_box" --min-busy 20000 --min-distinct 8 &&
    ok || bad "the timeline looks blank on the screenshot (region $timeline_box)"
  python3 "$here/png_inspect.py" F.png --region "$cpu_lane" --colors "$cpu_colors" --min-each 20 &&
    ok || bad "the CPU lane does not show the CPU's colours (region $cpu_lane)"
  # A CPU span drawn in the GPU lane would be a lane tall (20+ px) even when 1 px wide; the
  # edges of kernel colours and text blended with white can hit a grey within tolerance in a
  # pixel or two, which is not a span.
  python3 "$here/png_inspect.py" F.png --region "$gpu_lane" --absent "$cpu_colors" --max-each 12 &&
    ok || bad "a CPU colour shows in the GPU lane (region $gpu_lane)"
fi

# ---- the table of every dispatch, a page at a time ----
# dispatch_rows DOM: "ROWS FIRST LAST KERNELS" of the dispatch table's body: how many rows, the
# first and last record index, how many kernel names among them.
dispatch_rows() {
  python3 - "$1" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
body = dom[dom.index('id="dispatch-table"'):]
body = body[body.index("<tbody>"):body.index("</tbody>")]
rows = re.findall(r'<tr><td>(\d+)</td>(?:<td>[^<]*</td>){2}<td class="name" title="([^"]*)"', body)
print(len(rows), rows[0][0] if rows else -1, rows[-1][0] if rows else -1, len({r[1] for r in rows}))
PY
}
load F.html '#dispatch-page=3&dispatch-rows=20' paged
read -r rows first last names < <(dispatch_rows paged.dom)
[ "$rows $first $last" = "20 40 59" ] && grep -q 'rows 41–60 of 99<' paged.dom && ok ||
  bad "#dispatch-page=3&dispatch-rows=20: $rows rows, $first to $last, want 20, 40 to 59, said so"
load F.html '#dispatch-kernel=matmul_q&dispatch-rows=10' filtered
read -r rows first last names < <(dispatch_rows filtered.dom)
[ "$rows $names" = "6 1" ] && grep -q 'rows 1–6 of 6 (of 99)<' filtered.dom && ok ||
  bad "#dispatch-kernel=matmul_q: $rows rows of $names kernels, want 6 of 1, said so"
cat >many.json <<'SPEC'
{
  "buffers": [{"name": "b", "type": "f32", "elements": 64}],
  "kernels": [{"name": "tick", "wgsl": "@group(0) @binding(0) var<storage, read_write> b: array<f32>;\n@compute @workgroup_size(1)\nfn main(@builtin(global_invocation_id) id: vec3u) { b[id.x] = b[id.x] + 1.0; }\n"}],
  "dispatches": [{"kernel": "tick", "workgroups": 1, "bindings": {"0": "b"}, "repeat": 20000}]
}
SPEC
if "$wgprof" run --warmup 0 --iterations 1 --layout single --quiet --html many.html many.json >many.out 2>&1; then
  ok
  load many.html '#dispatch-page=40' many
  read -r rows first last names < <(dispatch_rows many.dom)
  [ "$(body_attr many.dom data-dispatch-rows)" = 20000 ] && [ "$rows $first $last" = "500 19500 19999" ] && ok ||
    bad "20,000 dispatches, page 40: $(body_attr many.dom data-dispatch-rows) in all, $rows rows, $first to $last"
else
  bad "run of 20,000 dispatches with --html: $(cat many.out)"
fi

# ---- no clipped text, at three widths ----
unclipped F.html
cat >wide.json <<'SPEC'
{
  "buffers": [{"name": "b", "type": "f32", "elements": 65536}],
  "kernels": [{"name": "spin", "wgsl": "@group(0) @binding(0) var<storage, read_write> b: array<f32>;\n@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3u) { var x = b[id.x]; for (var i = 0u; i < 2000u; i++) { x = x * 1.0001 + 0.5; } b[id.x] = x; }\n"}],
  "dispatches": [
    {"kernel": "spin", "label": "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW", "workgroups": 1024, "bindings": {"0": "b"}, "bytes": 262144, "flops": 262144000},
    {"kernel": "spin", "label": "kernel_with_a_rather_long_descriptive_name_indeed", "workgroups": 256, "bindings": {"0": "b"}, "bytes": 65536},
    {"kernel": "spin", "label": "short", "workgroups": 16, "bindings": {"0": "b"}}
  ]
}
SPEC
if "$wgprof" run --warmup 1 --iterations 12 --quiet --peak-gbps 100 --html wide.html wide.json >wide.out 2>&1; then
  ok
  unclipped wide.html
else
  bad "run of long names with --html: $(cat wide.out)"
fi

# ---- no timings ----
# A report asked for turns profiling on (test_demo); on a device without timestamps there are
# none to show, and the page says why.
WGPROF_DISABLE_TIMESTAMPS=1 "$wgprof" demo --html off.html >off.out 2>&1 && [ -s off.html ] && ok ||
  bad "demo with --html, timestamps disabled: $(cat off.out)"
self_contained off.html
load off.html
grep -q 'data-rendered="ok"' off.html.dom && ok || bad "off.html did not render"
grep -q '"wgprof report rendered: 0 dispatches, 0 kernels"' off.html.log && ok || bad "off.html: console line"
grep -q 'No timings: timestamp queries disabled' off.html.dom && ok || bad "off.html does not say why there are no timings"
grep -q -E '<canvas|<svg|id="summary-table"|id="dispatch-table"' off.html.dom &&
  bad "off.html draws a timeline, chart or table" || ok

# ---- names that try to break out of the page ----
cat >hostile.json <<'EOF'
{
  "buffers": [{"name": "b", "type": "f32", "elements": 256}],
  "kernels": [{"name": "fill", "wgsl": "@group(0) @binding(0) var<storage, read_write> b: array<f32>;\n@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3u) { b[id.x] = f32(id.x); }\n"}],
  "dispatches": [
    {"kernel": "fill", "label": "</script><img id=\"injected\" src=x onerror=\"console.error(1)\">&amp;'", "workgroups": 4, "bindings": {"0": "b"}},
    {"kernel": "fill", "label": "<!--<script>", "workgroups": 4, "bindings": {"0": "b"}}
  ]
}
EOF
if "$wgprof" run --warmup 0 --iterations 2 --quiet --html hostile.html hostile.json >run.out 2>&1; then
  ok
  load hostile.html
  grep -q 'data-rendered="ok"' hostile.html.dom && ok || bad "hostile.html did not render"
  grep -q '<img' hostile.html.dom && bad "a kernel name became an element" || ok
  grep -q '&lt;/script&gt;&lt;img id="injected"' hostile.html.dom && ok || bad "hostile.html does not show the name as text"
else
  bad "run --html: $(cat run.out)"
fi

# ---- wgprof diff's page ----
# The demo's report against a copy with matmul_q 1.5x as long, rmsnorm_final renamed (removed,
# and one added) and two hostile names.
python3 - F.json F2.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["dispatches"]:
    if x["kernel"] == "matmul_q" and x["duration_ns"] is not None:
        x["duration_ns"] *= 1.5
    elif x["kernel"] == "rmsnorm_final":
        x["kernel"] = "rmsnorm_final_v2"
    elif x["kernel"] == "rope":
        x["kernel"] = "</script><img id=\"injected\" src=x onerror=\"console.error(1)\">"
    elif x["kernel"] == "silu_mul":
        x["kernel"] = "silu\u202e_mul with a long name that has to end in an ellipsis somewhere"
json.dump(d, open(sys.argv[2], "w"))
PY
# (The page of hostile names holds " src=" as text, which self_contained would take for a
# reference: it checks the page of the report against itself.)
"$wgprof" diff --quiet --html same.html F.json F.json 2>same.err && ok || bad "wgprof diff --html: $(cat same.err)"
self_contained same.html
if "$wgprof" diff --quiet --html diff.html --json diff.json F.json F2.json 2>diff.err; then
  ok
  load diff.html
  python3 - diff.html.dom diff.json <<'PY' && ok || bad "diff.html: DOM against diff.json"
import json, sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.body, self.chart, self.rows, self.table, self.tags = {}, [], {}, None, []
        self.sections, self.text = [], []
    def handle_data(self, data):
        self.text.append(data)
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "section" and "id" in a:
            self.sections.append(a["id"])
        if tag == "body":
            self.body = a
        if tag == "div" and "data-kernel" in a:
            self.chart.append((a["data-kernel"], a.get("data-verdict")))
        if tag == "table":
            self.table = a.get("id")
        if tag == "tr" and "data-verdict" in a:
            self.rows.setdefault(self.table, []).append(a["data-verdict"])

page = Page()
page.feed(open(sys.argv[1], encoding="utf-8").read())
d = json.load(open(sys.argv[2]))
assert page.body.get("data-rendered") == "ok", page.body
assert page.chart == [(k["name"], k["verdict"]) for k in d["kernels"]], page.chart
assert page.rows["kernel-table"] == [k["verdict"] for k in d["kernels"]] + [d["total"]["verdict"]], page.rows
assert page.rows["scope-table"] == [s["verdict"] for s in d["scopes"]] and len(d["scopes"]) >= 6, page.rows
verdicts = {k["name"]: k["verdict"] for k in d["kernels"]}
assert verdicts["rmsnorm_final"] == "removed" and verdicts["rmsnorm_final_v2"] == "added", verdicts
assert "img" not in page.tags
text = "".join(page.text)
assert "machine" in page.sections and ("%d rows tested" % d["rows_tested"]) in text, page.sections
assert d["separated"] == ("Common to %d of %d kernels" % (sum(k["in_common"] for k in d["kernels"]),
                                                          d["kernels_compared"]) in text), d["separated"]
PY
  kernels="$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(len(d["kernels"]), len(d["scopes"]))' diff.json)"
  grep -q "\"wgprof diff rendered: ${kernels% *} kernels, ${kernels#* } scopes\"" diff.html.log && ok ||
    bad "diff.html: no console line 'wgprof diff rendered: ${kernels% *} kernels, ${kernels#* } scopes'"
  unclipped diff.html
else
  bad "wgprof diff --html: $(cat diff.err)"
fi

# ---- wgprof diff's page where which of two kernels moved is too close to call ----
# The demo's dispatches as two kernels (matmul_q as "work", the rest as "steady") with durations
# drawn anew (seeded: the case does not hang on the demo's own timings), five runs a side, work
# 1.5x as long on the new side, whose third run went at 0.55 times the time: the page says how
# firmly the quickest times chose, and that the gate (--gate-both-ways) read it the other way.
python3 - F.json <<'PY'
import json, math, random, sys
d = json.load(open(sys.argv[1]))
rng = random.Random(5)
for side, runs in (("u", [1] * 5), ("v", [1, 1, 0.55, 1, 1])):
    for i, speed in enumerate(runs, 1):
        e = json.loads(json.dumps(d))
        for x in e["dispatches"]:
            if x["duration_ns"] is None:
                continue
            work = x["kernel"] == "matmul_q"
            x["kernel"] = "work" if work else "steady"
            x["duration_ns"] = x["exclusive_ns"] = ((640000 if work else 180000) * speed *
                                                    (1.5 if work and side == "v" else 1) *
                                                    math.exp(0.03 * rng.gauss(0, 1)))
            x["end_ns"] = x["start_ns"] + x["duration_ns"]
        json.dump(e, open("%s%d.json" % (side, i), "w"))
PY
"$wgprof" diff --quiet --fail-if-slower 10 --gate-both-ways --html unsure.html --json unsure.json u1.json u2.json \
  u3.json u4.json u5.json vs v1.json v2.json v3.json v4.json v5.json 2>unsure.err
rc=$?
if [ "$rc" -eq 1 ]; then
  load unsure.html
  python3 - unsure.html.dom unsure.json <<'PY' && ok || bad "unsure.html: the choice and the gate read the other way"
import json, sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text, self.cells, self.body = [], [], {}
    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.body = dict(attrs)
    def handle_data(self, data):
        self.text.append(data)

page = Page()
page.feed(open(sys.argv[1], encoding="utf-8").read())
d = json.load(open(sys.argv[2]))
text = "".join(page.text)
assert page.body.get("data-rendered") == "ok", page.body
assert d["common_unsure"] is True and d["failed"] is True, d
said = ("The quickest times chose these in only %.0f%% of the bootstrap's resamples: too close to call, so "
        "--fail-if-slower reads it both ways." % (d["common_support"] * 100))
assert said in text, text
assert "faster (fails the gate read the other way)" in text, text
assert "Common to 1 of 2 kernels (work)" in text and "The machine's speed, or a change that touches every kernel (not gated" in text
PY
else
  bad "wgprof diff --html, too close to call: exit $rc, $(cat unsure.err)"
fi

# ---- usage ----
for args in "demo --html" "demo --html ''" "demo --trace" "demo --trace ''" "run --html" "run --html '' spec.json"; do
  flag="$(printf '%s' "$args" | cut -d' ' -f2)"
  out="$(eval "\"\$wgprof\" $args" 2>&1)"
  status=$?
  [ "$status" -eq 2 ] && printf '%s' "$out" | grep -q -- "$flag" && ok ||
    bad "wgprof $args: exit $status, want 2 and a message naming $flag: $out"
done
"$wgprof" demo --help | grep -q -- '--html FILE' && ok || bad "demo --help does not list --html"
"$wgprof" run --help | grep -q -- '--html FILE' && ok || bad "run --help does not list --html"

finish
