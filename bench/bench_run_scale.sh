#!/usr/bin/env bash
# `wgprof run` at scale: generates specs of N dispatches of a tiny kernel over four buffers,
# either as N distinct entries ("distinct") or as one entry with "repeat": N ("repeat"), runs
# each in one iteration and prints one JSON object per run: peak RSS and wall time
# (/usr/bin/time), the encoding time per dispatch when the execute was submitted in parts (the
# debug log), and the valid records. Usage:
#   bench/bench_run_scale.sh WGPROF [SIZES] [ROUNDS] [LAYOUT]
# SIZES: comma-separated (default 10000,100000,1000000); ROUNDS per size (default 3); LAYOUT
# pass (default) or single.
set -uo pipefail
wgprof="$1"
sizes="${2:-10000,100000,1000000}"
rounds="${3:-3}"
layout="${4:-pass}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

gen() { # $1: dispatches, $2: distinct or repeat
  python3 - "$1" "$2" <<'PY'
import json, sys
n, form = int(sys.argv[1]), sys.argv[2]
kernel = ("@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
          "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) i: vec3u) { v[i.x] = v[i.x] + 1.0; }")
spec = {"buffers": [{"name": "b%d" % k, "elements": 64} for k in range(4)],
        "kernels": [{"name": "inc", "wgsl": kernel}]}
if form == "repeat":
    spec["dispatches"] = [{"kernel": "inc", "workgroups": 1, "bindings": {"0": "b0"}, "repeat": n}]
else:
    spec["dispatches"] = [{"kernel": "inc", "workgroups": 1, "bindings": {"0": "b%d" % (i % 4)}} for i in range(n)]
json.dump(spec, sys.stdout, separators=(",", ":"))
PY
}

for n in ${sizes//,/ }; do
  for form in distinct repeat; do
    gen "$n" "$form" >"$dir/spec.json"
    for round in $(seq "$rounds"); do
      WGPROF_LOG=debug /usr/bin/time -f "rss_kb %M wall_s %e" "$wgprof" run --warmup 0 --iterations 1 --quiet \
        --layout "$layout" --json "$dir/report.json" "$dir/spec.json" 2>"$dir/err"
      rc=$?
      python3 - "$n" "$form" "$round" "$layout" "$rc" "$dir" <<'PY'
import json, re, sys
n, form, rnd, layout, rc, d = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6]
err = open(d + "/err").read()
t = re.search(r"rss_kb (\d+) wall_s ([\d.]+)", err)
enc = re.search(r"dispatches in (\d+) submits: ([\d.]+) ms encoding", err)
out = {"dispatches": n, "form": form, "layout": layout, "round": rnd, "exit": rc,
       "peak_rss_mb": round(int(t.group(1)) / 1024, 1) if t else None,
       "wall_s": float(t.group(2)) if t else None, "submits": int(enc.group(1)) if enc else 1,
       "encode_us_per_dispatch": round(float(enc.group(2)) * 1e3 / n, 3) if enc else None}
try:
    r = json.load(open(d + "/report.json"))
    out["valid"] = r["records"] - r["invalid"]
    b = r["batches"][0]
    # One submit: the batch's own encode span (encoding and finishing, up to the submit).
    if out["encode_us_per_dispatch"] is None:
        out["encode_us_per_dispatch"] = round((b["cpu_submit_ns"] - b["cpu_encode_ns"]) / 1e3 / n, 3)
except (OSError, ValueError, KeyError, IndexError):
    out["valid"] = None
print(json.dumps(out))
PY
    done
  done
done
