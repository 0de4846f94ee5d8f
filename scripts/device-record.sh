#!/usr/bin/env bash
# wgprof record on a GPU machine (BENCHMARKS.md section 11): the demo's decode step as an
# unmodified program, plain and under record (chain, inside, --sample-every 10), on each
# implementation; and the per-kernel medians of record against the in-library graph profiler
# (chain) on the same steps. Run from the tree's root with the built wgprof, libwgprof and
# libwgprof_record.so copied into .device/build/ (tools/, tools/record/), the .deb files in .gl/
# (scripts/device-env.sh), and OUT naming a folder for the results.
set -u
root="$PWD"
. scripts/device-env.sh "$OUT/env"
export LD_LIBRARY_PATH="$root/.device/build:$LD_LIBRARY_PATH"
W="$root/.device/build/tools/wgprof"
cd "$OUT"
nvidia-smi -L
now() { date +%s%N; }
run_ns() { local t0; t0=$(now); "$@" >/dev/null 2>>err.log; echo $(( $(now) - t0 )); }
for impl in wgpu-native dawn; do
  "$W" --webgpu $impl info | head -8
  for rep in 1 2 3 4 5; do
    for n in 100 1100; do
      echo "$impl rep=$rep n=$n plain $(run_ns "$W" --webgpu $impl demo --warmup 20 --iterations $n)"
      echo "$impl rep=$rep n=$n chain $(run_ns "$W" --webgpu $impl record -- "$W" demo --warmup 20 --iterations $n)"
      echo "$impl rep=$rep n=$n inside $(run_ns "$W" --webgpu $impl record --strategy inside -- "$W" demo --warmup 20 --iterations $n)"
      echo "$impl rep=$rep n=$n sample10 $(run_ns "$W" --webgpu $impl record --sample-every 10 -- "$W" demo --warmup 20 --iterations $n)"
    done
  done | tee -a times.txt
  WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=chain "$W" --webgpu $impl demo --warmup 20 --iterations 500 --quiet --json graph-$impl.json >/dev/null 2>>err.log
  "$W" --webgpu $impl record --json record-$impl.json -- "$W" demo --warmup 20 --iterations 500 >/dev/null 2>>err.log
  ls -la graph-$impl.json record-$impl.json
done
tail -20 err.log
