#!/usr/bin/env bash
# wgprof's wheel on a GPU machine that can fetch nothing (Ubuntu 24.04, Python 3.12, NVIDIA's
# driver): installed with pip from the wheels carried in .whl/ (wgprof's, from make wheel, and
# the pinned wgpu-py 0.32.0 with its dependencies, checked against the pins of
# scripts/fetch-wgpu-py.sh), then, from a folder outside the tree, `wgprof info`, `wgprof demo`
# and `wgprof record --json --html -- python script.py` on a wgpu-py script, the report read
# back with wgprof.load. One line per check in $OUT/wheel-summary.txt ("ok ..." or "FAIL ...").
# Run from the tree's root, the Vulkan loader's .deb files in .gl/ (scripts/device-env.sh).
set -u
root="$PWD"
. scripts/device-env.sh "$OUT/env"
site=/tmp/wgprof-site
rm -rf "$site" /tmp/wgprof-work && mkdir -p /tmp/wgprof-work
say() { echo "$@" | tee -a "$OUT/wheel-summary.txt"; }
pins="$(grep -oh '[0-9a-f]\{64\}' scripts/fetch-wgpu-py.sh scripts/fetch-wgpu-native.sh | sort -u)"
for w in .whl/*.whl; do
  case "$w" in */wgprof-*) continue ;; esac
  grep -qx "$(sha256sum "$w" | cut -d' ' -f1)" <<<"$pins" || { say "FAIL $w: not a pinned wheel"; exit 1; }
done
python3 -m pip install --quiet --no-index --no-deps --no-compile --target "$site" .whl/*.whl >"$OUT/pip.log" 2>&1 \
  && say "ok pip install: $(cd .whl && ls)" || { say "FAIL pip install: $(tail -n 5 "$OUT/pip.log")"; exit 1; }
export PYTHONPATH="$site" PATH="$site/bin:$PATH"
cp tests/record/compute.py /tmp/wgprof-work/script.py
cd /tmp/wgprof-work || exit 1
nvidia-smi -L | tee -a "$OUT/wheel-summary.txt"
python3 --version | tee -a "$OUT/wheel-summary.txt"
wgprof info >info.out 2>info.err && grep -q '^WebGPU implementation: *wgpu-native' info.out && grep -qi nvidia info.out \
  && say "ok wgprof info: $(grep -E '^(adapter|driver|WebGPU implementation|timestamp period)' info.out | tr -s ' ' | tr '\n' ';')" \
  || say "FAIL wgprof info: $(cat info.out info.err | tail -n 8)"
wgprof demo >demo.out 2>demo.err && say "ok wgprof demo: $(grep -iE 'decode|step|total' demo.out | head -n 3 | tr -s ' ' | tr '\n' ';')" \
  || say "FAIL wgprof demo: $(tail -n 8 demo.err)"
python3 script.py >plain.out 2>plain.err
wgprof record --json out.json --html out.html -- python3 script.py >rec.out 2>rec.err
status=$?
[ "$status" -eq 0 ] && cmp -s plain.out rec.out && [ -s out.html ] \
  && say "ok wgprof record of a wgpu-py script: output unchanged; $(grep '^timed by' rec.err | cut -c1-60)" \
  || say "FAIL wgprof record: exit $status $(diff plain.out rec.out | head -n 3) $(tail -n 5 rec.err)"
python3 - plain.out <<'PY' >load.out 2>&1 && say "ok wgprof.load: $(cat load.out)" || say "FAIL wgprof.load: $(tail -n 5 load.out)"
import sys
import wgprof
r = wgprof.load("out.json")
want = {l.split()[1]: int(l.split()[2]) for l in open(sys.argv[1]) if l.startswith("manifest ")}
got = {k.name: k.count for k in r.kernels if not k.name.startswith("(")}
assert got == want and not r.partial, (got, want, r.partial_reason)
print(r.adapter.name, "|", ", ".join(f"{k.name} {k.count}x median {k.median_ns / 1e3:.1f} us" for k in r.slowest(3)))
try:
    import pandas  # installed there, not by wgprof
except ImportError:
    print("| pandas not installed: to_pandas not tried")
else:
    frame = r.dispatches.to_pandas()
    assert len(frame) == len(r.dispatches) and "duration_ns" in frame.columns, frame.columns
    print(f"| to_pandas: {len(frame)} rows, pandas {pandas.__version__}")
PY
cp info.out demo.out rec.err out.json "$OUT/" 2>/dev/null
