#!/usr/bin/env bash
# wgprof record on a GPU machine (BENCHMARKS.md section 11). Throughput: the demo's decode step
# as an unmodified program (`wgprof demo`, profiling off), plain, under the in-library graph
# profiler (chain, pass) and under record (chain, inside, --sample-every 10), on each
# implementation; and a wgpu-py workload (bench/record_workload.py) plain and under record. Each
# program prints its own wall time over its measured steps ("steps: ... us a step"), so the
# ratio is of the programs' own step times, and what record costs at exit (writing the reports)
# is shown apart, as the rest of the process's wall time. Then the per-kernel medians of record
# against the graph profiler on the same steps (medians.txt).
#
# Run from the tree's root with the built wgprof, libwgprof and libwgprof_record.so copied into
# .device/build/ (cli/, record/), the .deb files in .gl/ (scripts/device-env.sh), wgpu-py's
# Python packages in .device/py/ (common/ and cpX.Y/ with cffi for the machine's Python), and OUT
# naming a folder for the results.
set -u
root="$PWD"
. scripts/device-env.sh "$OUT/env"
export LD_LIBRARY_PATH="$root/.device/build:$LD_LIBRARY_PATH"
W="$root/.device/build/cli/wgprof"
REPS=${REPS:-9}
STEPS=${STEPS:-1000}
cd "$OUT"
nvidia-smi -L
now() { date +%s%N; }
# run LABEL CMD...: one line "LABEL STEP_US WALL_MS" from the program's steps line and the wall time.
run() {
  local label=$1 t0 t1 out
  shift
  t0=$(now)
  out=$("$@" 2>>err.log)
  t1=$(now)
  printf '%s\n' "$out" >>"out-${label%% *}.log"
  echo "$label $(printf '%s\n' "$out" | sed -n 's/^steps: .*, \([0-9.]*\) us a step.*/\1/p' | head -1) $(( (t1 - t0) / 1000000 ))"
}
demo=(demo --warmup 50 --iterations "$STEPS")
for impl in wgpu-native dawn; do
  "$W" --webgpu $impl info | head -8
  for rep in $(seq "$REPS"); do
    run "$impl plain $rep" "$W" --webgpu $impl "${demo[@]}"
    run "$impl graph-chain $rep" env WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=chain "$W" --webgpu $impl "${demo[@]}" --quiet
    run "$impl graph-pass $rep" env WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=pass "$W" --webgpu $impl "${demo[@]}" --quiet
    run "$impl record-chain $rep" "$W" --webgpu $impl record -- "$W" "${demo[@]}"
    run "$impl record-inside $rep" "$W" --webgpu $impl record --strategy inside -- "$W" "${demo[@]}"
    run "$impl record-sample10 $rep" "$W" --webgpu $impl record --sample-every 10 -- "$W" "${demo[@]}"
  done | tee -a times.txt
  WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=chain "$W" --webgpu $impl demo --warmup 20 --iterations 500 --quiet \
    --json graph-$impl.json >/dev/null 2>>err.log
  WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=pass "$W" --webgpu $impl demo --warmup 20 --iterations 500 --quiet \
    --json graph-pass-$impl.json >/dev/null 2>>err.log
  "$W" --webgpu $impl record --json record-$impl.json -- "$W" demo --warmup 20 --iterations 500 >/dev/null 2>>err.log
  ls -la graph-$impl.json graph-pass-$impl.json record-$impl.json
done

# The wgpu-py workload, where the machine's Python has a cffi in .device/py.
py=$(command -v python3 || true)
pyver=$([ -n "$py" ] && "$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
echo "python: ${py:-none} ${pyver:-}"
if [ -n "$py" ] && [ -d "$root/.device/py/cp$pyver" ]; then
  export PYTHONPATH="$root/.device/py/common:$root/.device/py/cp$pyver"
  export WGPU_LIB_PATH="$root/.deps/wgpu-native/lib/libwgpu_native.so"
  work=("$py" -s "$root/bench/record_workload.py" --warmup 20 --steps 300)
  for rep in $(seq "$REPS"); do
    run "py plain $rep" "${work[@]}"
    run "py record-chain $rep" "$W" record -- "${work[@]}"
    run "py record-sample10 $rep" "$W" record --sample-every 10 -- "${work[@]}"
  done | tee -a times.txt
  "$W" record --json record-py.json -- "${work[@]}" >/dev/null 2>>err.log
else
  echo "no wgpu-py workload: no Python with a cffi in .device/py"
fi
tail -20 err.log

# Per-kernel medians of each report, side by side (the reports themselves are large).
"${py:-python3}" - graph-*.json record-*.json >medians.txt <<'PY' || true
import json, statistics, sys
for path in sys.argv[1:]:
    times = {}
    for d in json.load(open(path))["dispatches"]:
        if d.get("valid") and d.get("duration_ns") is not None:
            times.setdefault(d["kernel"], []).append(d["duration_ns"] / 1e3)
    print(path, " ".join(f"{k}={statistics.median(v):.3f}/{len(v)}" for k, v in sorted(times.items())))
PY
tar czf results.tgz times.txt medians.txt err.log out-*.log 2>/dev/null
