#!/usr/bin/env bash
# `wgprof record --via vulkan` on a WebGPU program that knows nothing of wgprof (tests/record's C
# program, linked to the implementation WGPROF_WEBGPU names), timed by wgprof's Vulkan layer
# under the implementation's own Vulkan back end, with no webgpu.h hook at all: as a program with
# its implementation compiled in is reached. Its output must not change, and the report must
# hold every dispatch it submitted: per entry point where the implementation keeps the WGSL
# names in its SPIR-V (wgpu-native), per kernel count where it renames them (Dawn), each kernel
# under a name of its SPIR-V's that is the same in two runs; and the implementation's copies and
# clears (the program's readback copies, its own zeroing of new buffers) as rows of their own
# named by what each run of them held, in record's words ("(copy)", "(copy, clear)"), valid.
# $1 is the wgprof binary, $2 the folder the record_app_* programs are built in.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
apps="$(cd "$2" && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

impl="${WGPROF_WEBGPU:-wgpu-native}"
case "$impl" in
  wgpu-native) app="$apps/record_app_wgpu_native" ;;
  dawn) app="$apps/record_app_dawn" ;;
  *) echo "skipped: no test program for $impl"; exit 77 ;;
esac
[ -x "$app" ] || { echo "skipped: $app not built"; exit 77; }
"$wgprof" record --via vulkan -- true >probe.out 2>probe.err
if grep -q "Vulkan layer is not beside wgprof" probe.err; then
  echo "skipped: the Vulkan layer is not built (libvulkan-dev)"
  exit 77
fi

"$app" basic >plain.out 2>plain.err || { bad "the program fails by itself: $(tail -n 5 plain.err)"; finish; exit; }
for run in 1 2; do
  "$wgprof" record --via vulkan --json "run$run.json" -- "$app" basic >"rec$run.out" 2>"rec$run.err"
  status=$?
  [ "$status" -eq 0 ] && ok || bad "run $run under record --via vulkan exited $status: $(tail -n 8 "rec$run.err")"
  cmp -s plain.out "rec$run.out" && ok || bad "run $run: the output changed under the layer: $(diff plain.out "rec$run.out")"
done
python3 - "$impl" plain.out run1.json run2.json <<'PY' >check.out 2>&1 && ok || bad "$(cat check.out)"
import collections, glob, json, sys
impl, manifest, first, second = sys.argv[1:]
def report(path):
    found = [path] if glob.os.path.exists(path) else glob.glob(path[:-5] + ".[0-9]*.[0-9]*.json")
    if len(found) != 1:
        sys.exit(f"want one report for {path}, found {found}")
    return json.load(open(found[0]))
want = collections.Counter()
for line in open(manifest):
    if line.startswith("manifest "):
        name, count = line[len("manifest "):].rsplit(" ", 1)
        want[name.rsplit(":", 1)[-1]] += int(count)
a, b = report(first), report(second)
WORDS = ["copy", "clear", "query resolve"]  # record's, in its order
for r in (a, b):
    if r["invalid"]:
        sys.exit(f"{r['invalid']} invalid records: {r['invalid_by_reason']}")
    rows = [k for k in r["kernels"] if k["name"].startswith("(")]
    r["kernels"] = [k for k in r["kernels"] if not k["name"].startswith("(")]
    if r["records"] - sum(k["count"] for k in rows) != sum(want.values()):
        sys.exit(f"{r['records']} records, {[(k['name'], k['count']) for k in rows]} of the implementation's own "
                 f"work among them; the program submitted {sum(want.values())} dispatches")
    if not all(k["name"].startswith("spirv-") for k in r["kernels"]):
        sys.exit(f"names not of the SPIR-V: {[k['name'] for k in r['kernels']]}")
    for k in rows:
        words = k["name"][1:-1].split(", ")
        if not k["name"].endswith(")") or not all(w in WORDS for w in words) or \
                words != sorted(set(words), key=WORDS.index):
            sys.exit(f"a row of the implementation's own work named {k['name']!r}, not in record's words")
    if not any("copy" in k["name"] for k in rows):
        sys.exit(f"no row of copies (the program reads its results back through one): {[k['name'] for k in rows]}")
    r["rows"] = rows
names = lambda r: sorted((k["name"], k["count"]) for k in r["kernels"] + r["rows"])
if names(a) != names(b):
    sys.exit(f"names differ between two runs: {names(a)} against {names(b)}")
got = collections.Counter()
for k in a["kernels"]:
    got[k["name"].rsplit(":", 1)[-1]] += k["count"]
if impl == "wgpu-native" and got != want:
    sys.exit(f"per entry point: want {dict(want)}, got {dict(got)}")
if sorted(k["count"] for k in a["kernels"]) != sorted(want.values()):
    sys.exit(f"per kernel: want counts {sorted(want.values())}, got {names(a)}")
PY
finish
