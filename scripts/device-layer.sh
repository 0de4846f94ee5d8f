#!/usr/bin/env bash
# wgprof's Vulkan layer on a GPU machine (BENCHMARKS.md section 14). One run, everything paired
# within it:
#   1. what a timestamp costs the hardware: bench/vk_timestamp_cost, a raw Vulkan program (33
#      dispatches with barriers; bracketed, one per dispatch, back to back);
#   2. the demo's decode step as an unmodified program (`wgprof demo`, its own step times), on
#      each implementation, in interleaved rounds: plain; under `record --via vulkan` (every
#      dispatch timed, and --sample-every 10); under the in-library graph profiler's chain;
#   3. per-kernel medians: the layer's report and the graph profiler's `inside` strategy on the
#      same program (layer-IMPL.json, graph-inside-IMPL.json).
# Run from the tree's root with the built wgprof, libwgprof.so.0, the layer and its manifest, the
# preload library and vk_timestamp_cost copied into .device/build/ (cli/, layer/, record/,
# bench/), the .deb files in .gl/ (scripts/device-env.sh), and OUT naming a folder for the results.
set -u
root="$PWD"
. scripts/device-env.sh "$OUT/env"
export LD_LIBRARY_PATH="$root/.device/build:$LD_LIBRARY_PATH"
W="$root/.device/build/cli/wgprof"
REPS=${REPS:-7}
STEPS=${STEPS:-1000}
cd "$OUT"
nvidia-smi -L
"$root/.device/build/bench/vk_timestamp_cost" 21 >timestamp_cost.json 2>timestamp_cost_rounds.txt
echo "vk_timestamp_cost: exit $?"
now() { date +%s%N; }
# run LABEL CMD...: "LABEL STEP_US WALL_MS" from the program's steps line and the wall time.
run() {
  local label=$1 t0 t1 out
  shift
  t0=$(now)
  out=$("$@" 2>>err.log)
  t1=$(now)
  echo "$label $(printf '%s\n' "$out" | sed -n 's/^steps: .*, \([0-9.]*\) us a step.*/\1/p' | head -1) $(( (t1 - t0) / 1000000 ))"
}
demo=(demo --warmup 50 --iterations "$STEPS")
for impl in wgpu-native dawn; do
  "$W" --webgpu $impl info | head -4
  for rep in $(seq "$REPS"); do
    run "$impl plain $rep" "$W" --webgpu $impl "${demo[@]}"
    run "$impl layer $rep" "$W" --webgpu $impl record --via vulkan -- "$W" --webgpu $impl "${demo[@]}"
    run "$impl layer-sample10 $rep" "$W" --webgpu $impl record --via vulkan --sample-every 10 -- \
      "$W" --webgpu $impl "${demo[@]}"
    run "$impl graph-chain $rep" env WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=chain "$W" --webgpu $impl "${demo[@]}" --quiet
  done | tee -a times.txt
  "$W" --webgpu $impl record --via vulkan --json layer-$impl.json -- "$W" --webgpu $impl demo --warmup 20 \
    --iterations 500 >/dev/null 2>>err.log
  WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=inside "$W" --webgpu $impl demo --warmup 20 --iterations 500 --quiet \
    --json graph-inside-$impl.json >/dev/null 2>>err.log
  ls -la layer-$impl.json graph-inside-$impl.json
done
tail -n 20 err.log
