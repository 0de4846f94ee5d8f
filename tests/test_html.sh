#!/usr/bin/env bash
# The HTML report in a real browser. The demo's page (profiling on and off) and a page of
# hostile kernel names are loaded in headless Chromium: no console message but the page's own,
# no uncaught exception, nothing fetched from outside; the dumped DOM holds one bar and one table
# row per kernel of the JSON report, and the scope table; a screenshot shows the bar colours in
# the chart and a busy timeline. Also the --html and --trace flags' usage errors (exit code 2).
# $1 is the wgprof binary; tests/png_inspect.py sits beside this script.
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
browser() {
  timeout 120 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --force-device-scale-factor=1 --window-size=1400,1800 --user-data-dir="$tmp/profile" "$@"
}
# load PAGE: PAGE.dom, PAGE.log (Chromium's stderr); fails on any console message other than the
# page's own "rendered" line and on any uncaught exception.
load() {
  if ! browser --enable-logging=stderr --v=0 --dump-dom "file://$tmp/$1" >"$1.dom" 2>"$1.log"; then
    bad "chromium could not load $1: $(tail -5 "$1.log")"
    return 1
  fi
  local others
  others="$(grep 'CONSOLE' "$1.log" | grep -v '"wgprof report rendered: ' ; grep 'Uncaught' "$1.log")"
  [ -z "$others" ] && ok || bad "$1: console errors: $others"
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
assert {"timeline", "kernel-chart", "summary-table", "scope-table", "wgprof-data"} <= page.ids, page.ids
text = " ".join(page.text)
for scope in ("embedding", "layer 0", "attention", "mlp", "layer 1", "head"):
    assert re.search(r"\b%s\b" % scope, text), scope
assert page.rows.get("scope-table", 0) >= 6, page.rows
for key in ("data-timeline-box", "data-chart-box"):
    assert re.fullmatch(r"\d+,\d+,\d+,\d+", page.body.get(key, "")), key
open("boxes", "w").write("%s\n%s\n%s\n" % (page.body["data-timeline-box"], page.body["data-chart-box"],
                                           ",".join(b["fill"] for b in page.bars)))
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
  { read -r timeline_box; read -r chart_box; read -r fills; } <boxes
  python3 "$here/png_inspect.py" F.png --region "$chart_box" --colors "$fills" --min-each 30 &&
    ok || bad "the bar chart's colours are not on the screenshot (region $chart_box)"
  python3 "$here/png_inspect.py" F.png --region "$timeline_box" --min-busy 20000 --min-distinct 8 &&
    ok || bad "the timeline looks blank on the screenshot (region $timeline_box)"
fi

# ---- profiling off ----
env -u WEBGPU_TIMESTAMP_QUERY "$wgprof" demo --html off.html >off.out 2>&1 && [ -s off.html ] && ok ||
  bad "unprofiled demo with --html: $(cat off.out)"
self_contained off.html
load off.html
grep -q 'data-rendered="ok"' off.html.dom && ok || bad "off.html did not render"
grep -q '"wgprof report rendered: 0 dispatches, 0 kernels"' off.html.log && ok || bad "off.html: console line"
grep -q 'No timings: profiling off' off.html.dom && ok || bad "off.html does not say why there are no timings"
grep -q -E '<canvas|<svg|id="summary-table"' off.html.dom && bad "off.html draws a timeline, chart or table" || ok

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
