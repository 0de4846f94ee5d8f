#!/usr/bin/env bash
# What moves a memory-bound kernel against a compute-bound one between two `wgprof run`s of one
# spec (the false alarms of one run a side, bench/diff_false_alarms.sh). A spec of three kernels:
# `fma` (2,000 dependent fused multiply-adds in each of 4,096 threads), and `copy` and `copy2`,
# the same 256 KiB copy between two pairs of buffers of their own. PROCESSES runs of ITERATIONS
# iterations, each its own process; then one run of LONG iterations. Prints, per run, each
# kernel's median and the ratios copy/copy2 (the buffers' placement: each pair is its own
# allocation) and copy/fma (what one run a side compares); then, for the long run, each
# iteration's copy and fma medians in order (whether the copy moves within one process, between
# iterations, or only between processes). Usage:
#   bench/copy_vs_fma.sh WGPROF [PROCESSES] [ITERATIONS] [LONG]
# PROCESSES default 12, ITERATIONS default 10 (after 3 warm-up), LONG default 100.
# Exit status: 0 when every run ran, 1 when one failed, 2 on bad usage.
set -uo pipefail
if [ $# -lt 1 ] || [ $# -gt 4 ]; then
  sed -n '/^# Usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
wgprof="$1"
processes="${2:-12}"
iterations="${3:-10}"
long="${4:-100}"
for v in "$processes" "$iterations" "$long"; do
  case "$v" in '' | *[!0-9]* | 0) echo "copy_vs_fma.sh: '$v' is not a positive integer" >&2; exit 2 ;; esac
done
[ -x "$wgprof" ] || { echo "copy_vs_fma.sh: WGPROF '$wgprof' is not an executable" >&2; exit 2; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

# bench/specs/fma_copy.json (diff_false_alarms.sh's spec), and copy2: the copy again, between
# buffers of its own
python3 - "$(dirname "$0")/specs/fma_copy.json" "$dir/spec.json" <<'PY'
import copy, json, sys
spec = json.load(open(sys.argv[1]))
for name in ("src", "dst"):
    twin = copy.deepcopy(next(b for b in spec["buffers"] if b["name"] == name))
    twin["name"] = name + "2"
    spec["buffers"].append(twin)
spec["kernels"].append(dict(next(k for k in spec["kernels"] if k["name"] == "copy"), name="copy2"))
spec["dispatches"].append(dict(next(d for d in spec["dispatches"] if d["kernel"] == "copy"), kernel="copy2",
                               bindings={"0": "src2", "1": "dst2"}))
json.dump(spec, open(sys.argv[2], "w"), indent=1)
PY

run() { # $1: iterations, $2: report
  "$wgprof" run --quiet --iterations "$1" --json "$2" "$dir/spec.json" 2>"$dir/err" || {
    echo "copy_vs_fma.sh: wgprof run failed: $(cat "$dir/err")" >&2
    exit 1
  }
}
echo "== bench/copy_vs_fma.sh $* $(date -u +%FT%TZ) $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null) nproc $(nproc) load $(cut -d' ' -f1-3 /proc/loadavg)"
for k in $(seq "$processes"); do run "$iterations" "$dir/run-$k.json"; done
run "$long" "$dir/long.json"
python3 - "$dir" "$processes" <<'PY'
import json, statistics, sys
folder, processes = sys.argv[1], int(sys.argv[2])
print("run  fma_us  copy_us  copy2_us  copy/copy2  copy/fma")
for k in range(1, processes + 1):
    m = {x["name"]: x["median_ns"] / 1e3 for x in json.load(open("%s/run-%d.json" % (folder, k)))["kernels"]}
    print("%3d %7.1f %8.1f %9.1f %11.3f %9.4f" % (k, m["fma"], m["copy"], m["copy2"], m["copy"] / m["copy2"],
                                                  m["copy"] / m["fma"]))
by_iteration = {}
for d in json.load(open("%s/long.json" % folder))["dispatches"]:
    if d["valid"]:
        by_iteration.setdefault(d["iteration"], {}).setdefault(d["kernel"], []).append(d["duration_ns"] / 1e3)
order = sorted(by_iteration)
for name in ("copy", "fma"):
    print("long run, %s median of each iteration (us): %s" % (
        name, " ".join("%.0f" % statistics.median(by_iteration[i][name]) for i in order)))
PY
