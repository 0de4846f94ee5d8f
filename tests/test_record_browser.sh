#!/usr/bin/env bash
# `wgprof record` on WebGPU pages in Debian's Chromium, the page unmodified, through the default
# way (the Vulkan layer; record's preload library answers Dawn's direct open of SwiftShader with
# the Vulkan loader bundled beside it, record/record_browser.c). Without a GPU the adapter is
# Chromium's SwiftShader. Each page checks its own result against the same arithmetic on the CPU.
#   - headless Chromium stopped by Ctrl-C (SIGINT to the process group, as a terminal sends it)
#     once the page is done: its result as without wgprof, every dispatch of the page in the
#     report, named after its module's label (Chromium's flag that passes labels down) and the
#     page's origin; without the flag, after the SPIR-V's hash and workgroup size, and the origin;
#   - a page with two devices: one report holding both as result sets;
#   - a page that dispatches until Ctrl-C: the report whole, holding at least every dispatch
#     the page said it had made;
#   - a Playwright script (PyPI playwright, pinned: scripts/fetch-playwright.sh) that serves the
#     page over HTTP, opens it in the same Chromium and checks its result; the browser's exit ends
#     the run; its output as without wgprof.
# $1 is the wgprof binary, $2 tests/browser/.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
pages="$(cd "$2" && pwd)"
root="$(cd "$pages/../.." && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

if [ -n "${WGPROF_TEST_SANITIZED:-}" ]; then
  echo "skipped: a sanitized build's preload library and layer cannot load into Chromium (built without the runtime)"
  exit 77
fi
chromium="$(command -v chromium || true)"
real="/usr/lib/chromium/chromium"
if [ -z "$chromium" ] || [ ! -x "$real" ] || [ ! -f "/usr/lib/chromium/libvk_swiftshader.so" ]; then
  echo "skipped: no Debian Chromium with its SwiftShader here (apt-get install chromium)"
  exit 77
fi
flags=(--headless=new --no-sandbox --enable-unsafe-webgpu --enable-logging=stderr)
labels=--enable-dawn-features=use_user_defined_labels_in_backend

# page NAME QUERY WAIT [CHROMIUM FLAG...]: the page in headless Chromium under record (or by
# itself where NAME ends in .plain), in a process group of its own, sent SIGINT once its
# stderr has a line matching WAIT (60 s at most). NAME.out/.err/.json, NAME.status.
page() {
  local name="$1" query="$2" wait="$3"
  shift 3
  local run=("$wgprof" record --json "$name.json" --)
  case "$name" in *.plain) run=() ;; esac
  setsid "${run[@]}" "$chromium" "${flags[@]}" --user-data-dir="$tmp/profile-$name" "$@" \
    "file://$pages/compute.html?$query" >"$name.out" 2>"$name.err" &
  local pid=$! i
  for i in $(seq 1 600); do
    grep -q "$wait" "$name.err" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -INT -- "-$pid" 2>/dev/null
  wait "$pid"
  echo $? >"$name.status"
}
results() { grep -o 'wgprof-page: .*", source' "$1" | sed 's/", source$//'; }
# record_said NAME: what record said of NAME's run besides its tables (for a failure's message).
record_said() { grep '^wgprof record' "$1.err" | tail -n 4; }

page labels.plain "steps=20" "wgprof-page: result" "$labels"
page labels "steps=20" "wgprof-page: result" "$labels"
if ! results labels.plain.err | grep -q "result ok"; then
  bad "the page fails in this Chromium by itself: $(results labels.plain.err) $(grep -i 'webgpu\|error' labels.plain.err | tail -n 3)"
  finish
  exit
fi
[ "$(results labels.plain.err)" = "$(results labels.err)" ] && ok \
  || bad "the page's result under record differs: $(results labels.err) / without: $(results labels.plain.err)"
# kernels REPORT: one line of each set's kernels (not transfer work), "NAME COUNT SOURCE", sorted,
# and a first line "sets N partial P invalid I".
kernels() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sets = [s["report"] for s in r["result_sets"]] if "result_sets" in r else [r]
print("sets", len(sets), "partial", any(s["partial"] for s in sets), "invalid", sum(s["invalid"] for s in sets))
for s in sets:
    print(" | ".join(sorted(f"{k['name']} {k['count']} {k.get('name_source')}" for k in s["kernels"] if not k["name"].startswith("("))))
PY
}
kernels labels.json >labels.kernels 2>&1
want="sets 1 partial False invalid 0
double_mod @ file:// 20 Vulkan shader module name"
[ "$(cat labels.kernels)" = "$want" ] && ok || bad "labelled page's kernels: [$(cat labels.kernels)], want [$want]; $(record_said labels)"

page hash "steps=20" "wgprof-page: result"
kernels hash.json >hash.kernels 2>&1
grep -Eqx 'spirv-[0-9a-f]{8}\[64x1x1\] @ file:// 20 SPIR-V hash and workgroup size' <(sed -n 2p hash.kernels) \
  && head -n 1 hash.kernels | grep -qx "sets 1 partial False invalid 0" && ok \
  || bad "unlabelled page's kernels: [$(cat hash.kernels)], want spirv-HASH[64x1x1] @ file:// 20; $(record_said hash)"

page two "devices=2&steps=7" "wgprof-page: result" "$labels"
kernels two.json >two.kernels 2>&1
want="sets 2 partial False invalid 0
double_mod @ file:// 7 Vulkan shader module name
triple_mod @ file:// 7 Vulkan shader module name"
results two.err | grep -q "result ok" && [ "$(cat two.kernels)" = "$want" ] && ok \
  || bad "two devices: [$(cat two.kernels)] $(results two.err), want [$want]; $(record_said two)"

page forever "forever=1" "wgprof-page: dispatched 100\b" "$labels"
said="$(results forever.err | sed -n 's/^wgprof-page: dispatched \([0-9]*\)$/\1/p' | tail -n 1)"
kernels forever.json >forever.kernels 2>&1
python3 - forever.kernels "${said:-0}" <<'PY' >forever.check 2>&1 && ok || bad "a page stopped by Ctrl-C: $(cat forever.check)"
import sys
lines = open(sys.argv[1]).read().split("\n")
said = int(sys.argv[2])
assert said >= 100, f"the page said it made {said} dispatches"
assert lines[0] == "sets 1 partial False invalid 0", lines[0]
name, count = lines[1].rsplit(" ", 4)[0], int(lines[1].split(" ")[3])
assert lines[1].startswith("double_mod @ file:// ") and count >= said, (lines[1], said)
PY

# Playwright: the script's own check, under record; the run ends with the browser's exit.
python="$root/.deps/playwright/bin/python"
if [ ! -x "$python" ]; then
  bad "no $python: scripts/fetch-playwright.sh makes it"
else
  CHROMIUM="$real" "$python" "$pages/playwright_page.py" "$labels" >pw.plain.out 2>pw.plain.err
  CHROMIUM="$real" "$wgprof" record --json pw.json -- "$python" "$pages/playwright_page.py" "$labels" >pw.out 2>pw.err
  status=$?
  [ "$status" -eq 0 ] && grep -qx "title done ok" pw.out && diff <(grep -v '^origin ' pw.plain.out) <(grep -v '^origin ' pw.out) >pw.diff \
    && ok || bad "the Playwright script under record: exit $status $(cat pw.diff) $(tail -n 5 pw.err)"
  kernels pw.json >pw.kernels 2>&1
  want="sets 1 partial False invalid 0
double_mod @ http://127.0.0.1 20 Vulkan shader module name"
  [ "$(cat pw.kernels)" = "$want" ] && ok || bad "the Playwright page's kernels: [$(cat pw.kernels)], want [$want]"
fi
finish
