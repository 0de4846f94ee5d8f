#!/usr/bin/env bash
# `pip install wgprof` as a user gets it: the wheel built as it ships (scripts/build-wheel.sh:
# manylinux_2_28, auditwheel show passing) and the sdist, which builds a wheel too; the wheel
# installed into a fresh virtual environment with nothing of the checkout on any path (a clean
# environment, run from a folder outside the checkout), where
#   - `wgprof info` without a WebGPU implementation says what is missing (exit 1), and with the
#     pinned wgpu-py installed beside it finds that package's wgpu-native;
#   - `wgprof record --json --html -- python script.py` times an unmodified wgpu-py script through
#     the wheel's layer and record library, the script's output unchanged;
#   - `wgprof.load` reads the report back as typed objects, every kernel of the script's
#     manifest there with its dispatch count; result sets picked with set=K; a file that is no
#     report refused with ReportError naming where; to_pandas saying pandas is missing;
#   - `python -m wgprof` is the CLI, and a C program builds against libwgprof with pkg-config
#     (wgprof --pkgconfig-dir) and runs.
# $1: the checkout's root.
set -u
root="$(cd "$1" && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

if ! python3 -m venv --help >/dev/null 2>&1; then
  echo "skipped: python3's venv module is missing (Debian: python3-venv)"
  exit 77
fi
if ! "$root/scripts/build-wheel.sh" --sdist "$tmp/dist" >build.out 2>build.err; then
  bad "the wheel does not build: $(tail -n 20 build.err)"
  finish
  exit
fi
wheel="$(ls "$tmp"/dist/wgprof-*-py3-none-manylinux_2_28_x86_64.whl 2>/dev/null)"
[ -f "$wheel" ] && grep -q 'platform tag to "manylinux_2_28_x86_64"' build.out && ok \
  || bad "no manylinux_2_28 wheel, or auditwheel show does not say it: $(ls dist) $(tail -n 5 build.out)"
grep -q "^build-wheel: wgprof-.*\.tar\.gz builds wgprof-" build.out && ok || bad "no wheel built from the sdist: $(tail -n 3 build.out)"
# What the wheel holds: wgprof's own files, no WebGPU implementation, Vulkan loader or driver.
python3 - "$wheel" <<'PY' >contents.check 2>&1 && ok || bad "the wheel's contents: $(cat contents.check)"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
want = ["wgprof/bin/wgprof", "wgprof/lib/libwgprof.so.0", "wgprof/lib/libwgprof_record.so",
        "wgprof/lib/libwgprof_layer.so", "wgprof/lib/VkLayer_wgprof_timing.json",
        "wgprof/lib/wgprof-implicit-layer/vulkan/implicit_layer.d/VkLayer_wgprof_timing.json",
        "wgprof/include/wgprof/wgprof.h", "wgprof/include/webgpu/webgpu.h", "wgprof/lib/pkgconfig/wgprof.pc",
        "wgprof/__init__.py"]
missing = [w for w in want if w not in names]
foreign = [n for n in names if any(k in n.rsplit("/", 1)[-1] for k in ("wgpu_native", "webgpu_dawn", "libvulkan", "lvp", "nvidia"))]
if missing or foreign:
    sys.exit(f"missing {missing}; not wgprof's own {foreign}")
PY

# A clean environment: the venv's bin and the system's, a home of the test's own, no variable of
# the caller's (the checkout's build folder, LD_LIBRARY_PATH, WGPROF_*) but the Vulkan driver's.
mkdir home work
python3 -m venv venv || { bad "python3 -m venv failed"; finish; exit; }
clean() {
  env -i HOME="$tmp/home" PATH="$tmp/venv/bin:/usr/bin:/bin" ${VK_DRIVER_FILES:+VK_DRIVER_FILES="$VK_DRIVER_FILES"} "$@"
}
clean pip install --quiet --disable-pip-version-check --no-deps "$wheel" >pip.out 2>&1 && ok \
  || bad "pip install of the wheel failed: $(tail -n 5 pip.out)"
cd work || exit 1
clean wgprof info >info0.out 2>info0.err
status=$?
[ "$status" -eq 1 ] && grep -q "no WebGPU implementation found: pip install 'wgprof\[wgpu\]'" info0.err && ok \
  || bad "wgprof info with no implementation: exit $status, want 1 saying what to install: $(cat info0.err)"
# The pinned wgpu-py (what the wgpu extra names), its dependencies' hashes pinned as
# scripts/fetch-wgpu-py.sh pins them (it writes them beside the environment it makes).
requirements="$root/.deps/wgpu-py/requirements.txt"
[ -f "$requirements" ] || "$root/scripts/fetch-wgpu-py.sh" >/dev/null
if ! clean pip install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: \
  -r "$requirements" >pipw.out 2>&1; then
  bad "the pinned wgpu-py does not install: $(tail -n 5 pipw.out)"
  finish
  exit
fi
clean wgprof info >info.out 2>info.err
status=$?
[ "$status" -eq 0 ] && grep -q "^WebGPU implementation: *wgpu-native" info.out && ok \
  || bad "wgprof info with wgpu-py installed: exit $status: $(cat info.out info.err | tail -n 5)"
clean python -m wgprof info >minfo.out 2>&1 && cmp -s <(grep -v '^timestamp period' info.out) <(grep -v '^timestamp period' minfo.out) \
  && ok || bad "python -m wgprof info differs from wgprof info: $(diff info.out minfo.out)"

cp "$root/tests/record/compute.py" script.py
clean python script.py >plain.out 2>plain.err || bad "the wgpu-py script fails by itself: $(tail -n 5 plain.err)"
clean wgprof record --json out.json --html out.html -- python script.py >rec.out 2>rec.err
status=$?
[ "$status" -eq 0 ] && cmp -s plain.out rec.out && [ -s out.html ] && grep -q "^timed by wgprof's Vulkan layer" rec.err && ok \
  || bad "wgprof record of the script: exit $status, output $(diff plain.out rec.out | head -n 5): $(tail -n 5 rec.err)"
clean python - plain.out <<'PY' >load.check 2>&1 && ok || bad "wgprof.load: $(cat load.check)"
import collections, json, os, sys
import wgprof
r = wgprof.load("out.json")
want = {l.split()[1]: int(l.split()[2]) for l in open(sys.argv[1]) if l.startswith("manifest ")}
got = {k.name: k.count for k in r.kernels if not k.name.startswith("(")}
assert got == want, f"kernels and counts {got}, the script's manifest {want}"
raw = json.load(open("out.json"))
assert len(r.dispatches) == len(raw["dispatches"]) and all(isinstance(d, wgprof.Dispatch) for d in r.dispatches)
assert all(d.duration_ns == x["duration_ns"] and d.kernel == x["kernel"] for d, x in zip(r.dispatches, raw["dispatches"]))
assert r.adapter.name == raw["adapter"]["name"] and not r.partial and r.total_ns == raw["total_ns"]
top = r.slowest(1)[0]
assert top.total_ns == max(k.total_ns for k in r.kernels), (top, [k.total_ns for k in r.kernels])
assert {k.name: k.name_source for k in r.kernels}["pymod:offset"] == "shader module label"
assert [s.path for s in r.scopes][:2] == [s["path"] for s in raw["scopes"]][:2]
# Several result sets: one is picked with set=K; without it, the sets are named.
sets = {"format_version": 1, "wgprof_version": raw["wgprof_version"],
        "result_sets": [{"process": 7, "device": 0, "report": raw}, {"process": 7, "device": 1, "report": raw}]}
json.dump(sets, open("sets.json", "w"))
assert [(s.process, s.device) for s in wgprof.load_sets("sets.json")] == [(7, 0), (7, 1)]
assert wgprof.load("sets.json", set=2).device == 1
for bad_call, says in ((lambda: wgprof.load("sets.json"), "2 result sets (1 (process 7, device 0)"),
                       (lambda: wgprof.load("sets.json", set=3), "the report holds sets 1 to 2"),
                       (lambda: wgprof.load("script.py"), "script.py:1:3: not JSON"),
                       (lambda: wgprof.load("plain.out"), "plain.out:1:1: not JSON")):
    try:
        bad_call()
        sys.exit(f"no ReportError, want one saying {says!r}")
    except wgprof.ReportError as e:
        assert says in str(e), (str(e), says)
# A FIFO is refused, not read forever.
os.mkfifo("report.fifo")
try:
    wgprof.load("report.fifo")
    sys.exit("a FIFO read as a report")
except wgprof.ReportError as e:
    assert "report.fifo: not a regular file" in str(e), str(e)
json.dump({"format_version": 2}, open("v2.json", "w"))
try:
    wgprof.load("v2.json")
    sys.exit("a report of format 2 read")
except wgprof.ReportError as e:
    assert "$.format_version is 2" in str(e), str(e)
try:
    r.kernels.to_pandas()
    sys.exit("to_pandas without pandas did not raise")
except ImportError as e:
    assert "pip install pandas" in str(e), str(e)
PY
# C users: the header and the library through pkg-config, from the wheel's own folders.
pcdir="$(clean wgprof --pkgconfig-dir)"
case "$pcdir" in "$tmp/venv/"*) ok ;; *) bad "wgprof --pkgconfig-dir: '$pcdir', not in the venv" ;; esac
cat >use.c <<'C'
#include <stdio.h>
#include <wgprof/wgprof.h>
int main(void) { printf("wgprof %s\n", wgprof_version()); return 0; }
C
if command -v pkg-config >/dev/null && command -v cc >/dev/null; then
  # shellcheck disable=SC2046 # pkg-config's flags, split
  cc use.c $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs wgprof) -o use >cc.out 2>&1 \
    && clean ./use >use.out 2>&1 && grep -q "^wgprof $(sed -n 's/^project(wgprof VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")$" use.out \
    && ok || bad "a C program against the wheel's libwgprof: $(cat cc.out use.out 2>/dev/null)"
fi
finish
