#!/usr/bin/env bash
# wgprof's Vulkan layer on a GPU machine (BENCHMARKS.md section 14). One run, everything paired
# within it:
#   1. what a timestamp costs the hardware: bench/vk_timestamp_cost, a raw Vulkan program (33
#      dispatches with barriers; bracketed, one per dispatch, back to back);
#   2. the demo's decode step as an unmodified program (`wgprof demo`, its own step times), on
#      each implementation, in interleaved rounds: plain; under `record` (--via auto: the layer
#      times, the webgpu.h library passes the names down; every dispatch timed, with a chain
#      across a batch's command buffers (the default) and with one per command buffer
#      (WGPROF_LAYER_CHAIN=command-buffer), read from the layer's buffer instead of its query
#      pools (WGPROF_LAYER_READBACK=buffer), --sample-every 10, and --sample-every 1000000: the
#      hooks with one dispatch of each kernel timed); `record --via vulkan` (the layer without
#      record's preload library: names from the SPIR-V); the layer for measurement only
#      (WGPROF_LAYER_TIMESTAMPS_ONLY=1: a timestamp before each dispatch, nothing else); under the
#      in-library graph profiler's chain;
#   3. per-kernel medians: the layer's report and the graph profiler's `inside` strategy on the
#      same program (layer-IMPL.json, graph-inside-IMPL.json, 200 steps: bench/layer_summary.py
#      compares them);
#   4. the layer's GPU cost per timestamp on each implementation: bench/bench_phases plain and
#      under the layer, a chain across a batch (the default) and one per command buffer, and its
#      minimal variant (phases-IMPL-{plain,layer,percb,minimal}.json); its `none` variants' GPU span grows by
#      the layer's timestamps inside it (the layer's table of that run, in err.log, gives its
#      rows);
#   4b. how much of that span the layer's per-dispatch durations account for, per chain
#      (span.txt; bench/layer_span.sh, its files in span/);
#   5. the layer's host cost per dispatch: bench/vk_record_cost plain and under the layer, PAIRS
#      interleaved pairs of processes (host-IMPL.N.json, host_cost.txt).
# With COMPARE=DIR (a second tree: DIR/cli/wgprof beside DIR/layer and DIR/record, another build
# of the layer), step 2 also runs the demo under DIR's record ("layer-compare", every dispatch
# timed), and step 4 under DIR's layer (phases-IMPL-compare.json), interleaved with the rest.
# Everything is also packed into results.tgz.
# Run from the tree's root with the built wgprof, libwgprof.so.0, the layer and its manifest, the
# preload library, vk_timestamp_cost and bench_phases copied into .device/build/ (cli/, layer/,
# record/, bench/), the .deb files in .gl/ (scripts/device-env.sh), and OUT naming a folder for the results.
set -u
root="$PWD"
. scripts/device-env.sh "$OUT/env"
export LD_LIBRARY_PATH="$root/.device/build:$LD_LIBRARY_PATH"
W="$root/.device/build/cli/wgprof"
REPS=${REPS:-15}
STEPS=${STEPS:-500}
cd "$OUT"
nvidia-smi -L
"$root/.device/build/bench/vk_timestamp_cost" 21 >timestamp_cost.json 2>timestamp_cost_rounds.txt
echo "vk_timestamp_cost: exit $?"
now() { date +%s%N; }
# run LABEL CMD...: "LABEL STEP_US WALL_MS" from the program's steps line and the wall time.
# IMPLS, CONFIGS (the demo's configurations of step 2, by name) and DEMO_ONLY=1 (step 2 alone)
# narrow a run to what a question needs.
IMPLS=${IMPLS:-wgpu-native dawn}
CONFIGS=${CONFIGS:-plain layer layer-via-vulkan layer-per-cb layer-buffer layer-minimal layer-sample10 layer-untimed layer-compare graph-chain}
# A run that fails, or prints no steps line, says FAILED (exit status) where its step time goes.
run() {
  local label=$1 t0 t1 out status step config
  shift
  config="$(echo "$label" | cut -d' ' -f2)"
  [[ " $CONFIGS " == *" $config "* ]] || return 0
  t0=$(now)
  out=$("$@" 2>>err.log)
  status=$?
  t1=$(now)
  step="$(printf '%s\n' "$out" | sed -n 's/^steps: .*, \([0-9.]*\) us a step.*/\1/p' | head -1)"
  [ "$status" -eq 0 ] && [ -n "$step" ] || step="FAILED($status)"
  echo "$label $step $(( (t1 - t0) / 1000000 ))"
}
demo=(demo --warmup 50 --iterations "$STEPS")
for impl in $IMPLS; do
  "$W" --webgpu $impl info | head -4
  for rep in $(seq "$REPS"); do
    run "$impl plain $rep" "$W" --webgpu $impl "${demo[@]}"
    run "$impl layer $rep" "$W" --webgpu $impl record -- "$W" --webgpu $impl "${demo[@]}"
    run "$impl layer-via-vulkan $rep" "$W" --webgpu $impl record --via vulkan -- "$W" --webgpu $impl "${demo[@]}"
    run "$impl layer-per-cb $rep" env WGPROF_LAYER_CHAIN=command-buffer "$W" --webgpu $impl record -- \
      "$W" --webgpu $impl "${demo[@]}"
    run "$impl layer-buffer $rep" env WGPROF_LAYER_READBACK=buffer "$W" --webgpu $impl record -- \
      "$W" --webgpu $impl "${demo[@]}"
    run "$impl layer-minimal $rep" env VK_ADD_LAYER_PATH="$root/.device/build/layer" \
      VK_INSTANCE_LAYERS=VK_LAYER_WGPROF_timing WGPROF_LAYER_TIMESTAMPS_ONLY=1 "$W" --webgpu $impl "${demo[@]}"
    run "$impl layer-sample10 $rep" "$W" --webgpu $impl record --sample-every 10 -- \
      "$W" --webgpu $impl "${demo[@]}"
    run "$impl layer-untimed $rep" "$W" --webgpu $impl record --sample-every 1000000 -- \
      "$W" --webgpu $impl "${demo[@]}"
    if [ -n "${COMPARE:-}" ]; then
      run "$impl layer-compare $rep" "$COMPARE/cli/wgprof" --webgpu $impl record -- "$W" --webgpu $impl "${demo[@]}"
    fi
    run "$impl graph-chain $rep" env WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=chain "$W" --webgpu $impl "${demo[@]}" --quiet
  done | tee -a times.txt
  [ "${DEMO_ONLY:-0}" = 1 ] && continue
  "$W" --webgpu $impl record --json layer-$impl.json -- "$W" --webgpu $impl demo --warmup 20 \
    --iterations 200 >/dev/null 2>>err.log
  WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=inside "$W" --webgpu $impl demo --warmup 20 --iterations 200 --quiet \
    --json graph-inside-$impl.json >/dev/null 2>>err.log
  WGPROF_WEBGPU=$impl "$root/.device/build/bench/bench_phases" 200 >phases-$impl-plain.json 2>>err.log
  "$W" --webgpu $impl record --via vulkan -- \
    env WGPROF_WEBGPU=$impl "$root/.device/build/bench/bench_phases" 200 >phases-$impl-layer.json 2>>err.log
  WGPROF_LAYER_CHAIN=command-buffer "$W" --webgpu $impl record --via vulkan -- \
    env WGPROF_WEBGPU=$impl "$root/.device/build/bench/bench_phases" 200 >phases-$impl-percb.json 2>>err.log
  VK_ADD_LAYER_PATH="$root/.device/build/layer" VK_INSTANCE_LAYERS=VK_LAYER_WGPROF_timing WGPROF_LAYER_TIMESTAMPS_ONLY=1 \
    WGPROF_WEBGPU=$impl "$root/.device/build/bench/bench_phases" 200 >phases-$impl-minimal.json 2>>err.log
  if [ -n "${COMPARE:-}" ]; then
    "$COMPARE/cli/wgprof" --webgpu $impl record --via vulkan -- \
      env WGPROF_WEBGPU=$impl "$root/.device/build/bench/bench_phases" 200 >phases-$impl-compare.json 2>>err.log
  fi
  # 4b. How much of the GPU span the layer's durations account for (the goal: within 1%), per
  # chain: bench/layer_span.sh into span/ (span/span.txt).
  bash "$root/bench/layer_span.sh" "$root/.device/build" 10 "$PWD/span" "$impl" 2>>err.log
  cat span/span.txt >>span.txt
  ls -la layer-$impl.json graph-inside-$impl.json phases-*-$impl.json
done
[ "${DEMO_ONLY:-0}" = 1 ] && PAIRS=0
for pair in $(seq "${PAIRS:-5}"); do
  for how in plain layer; do
    cmd=("$root/.device/build/bench/vk_record_cost" 11 --dispatches 10000)
    [ $how = layer ] && cmd=("$W" record --via vulkan -- "${cmd[@]}")
    "${cmd[@]}" >host-$how.$pair.json 2>>err.log
    echo "$how $pair $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["median_ns_per_dispatch"])' host-$how.$pair.json)"
  done
done | tee host_cost.txt
tail -n 20 err.log
tar czf results.tgz --exclude=results.tgz --exclude=env -- *
