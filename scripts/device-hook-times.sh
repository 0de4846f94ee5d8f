#!/usr/bin/env bash
# Where the layer's host time goes on a GPU machine: the demo's decode step, in interleaved rounds,
# plain, under `record` (every dispatch timed), under `record --via vulkan` (no preload library),
# the layer's minimal variant (WGPROF_LAYER_TIMESTAMPS_ONLY=1) and `record --sample-every 10`, each
# run with the layer built for measurement (bench/layer_hook_times.sh: the time in each hook, in
# each driver call and in sections of the hottest hooks, written at exit).
# Run from the tree's root with the built tree staged in .device/build/ (libwgprof.so.0 and the
# rest, as scripts/device-layer.sh says), the measuring build in HOOKS (default .device/hooks:
# bench/layer_hook_times.sh's OUT), the .deb files in .gl/, and OUT naming a folder for the results:
#   OUT=DIR [HOOKS=DIR] [COMPARE_HOOKS=DIR] [REPS=7] [STEPS=1500] [IMPLS="wgpu-native dawn"]
#   [CONFIGS="plain layer vulkan minimal sample10 compare"] bash scripts/device-hook-times.sh
# `compare`: `record` with another measuring build, COMPARE_HOOKS (its layer and the rest), in
# the same rounds.
# Writes OUT/times.txt ("IMPL CONFIG ROUND STEP_US") and OUT/IMPL/CONFIG/ROUND/hooks-PID.txt;
# bench/hook_times_summary.py OUT sums them up.
set -u
root="$PWD"
. scripts/device-staged.sh device-hook-times.sh
H="${HOOKS:-$root/.device/hooks}"
W="$H/cli/wgprof"
demo=(demo --warmup 50 --iterations "${STEPS:-1500}")
cd "$OUT"
nvidia-smi -L 2>/dev/null
for impl in ${IMPLS:-wgpu-native dawn}; do
  for rep in $(seq "${REPS:-7}"); do
    for config in ${CONFIGS:-plain layer vulkan minimal sample10}; do
      dir="$OUT/$impl/$config/$rep"
      mkdir -p "$dir"
      case $config in
        plain) cmd=("$W" --webgpu "$impl" "${demo[@]}") ;;
        layer) cmd=("$W" --webgpu "$impl" record -- "$W" --webgpu "$impl" "${demo[@]}") ;;
        vulkan) cmd=("$W" --webgpu "$impl" record --via vulkan -- "$W" --webgpu "$impl" "${demo[@]}") ;;
        minimal) cmd=(env VK_ADD_LAYER_PATH="$H/layer" VK_INSTANCE_LAYERS=VK_LAYER_WGPROF_timing
                      WGPROF_LAYER_TIMESTAMPS_ONLY=1 "$W" --webgpu "$impl" "${demo[@]}") ;;
        sample10) cmd=("$W" --webgpu "$impl" record --sample-every 10 -- "$W" --webgpu "$impl" "${demo[@]}") ;;
        compare) [ -x "${COMPARE_HOOKS:-}/cli/wgprof" ] ||
                   { echo "device-hook-times.sh: compare needs COMPARE_HOOKS, a measuring build" >&2; exit 2; }
                 cmd=("$COMPARE_HOOKS/cli/wgprof" --webgpu "$impl" record -- "$W" --webgpu "$impl" "${demo[@]}") ;;
        *) echo "device-hook-times.sh: no configuration $config" >&2; exit 2 ;;
      esac
      out=$(WGPROF_HOOK_TIMES_DIR="$dir" "${cmd[@]}" 2>&1)
      status=$?
      step="$(printf '%s\n' "$out" | sed -n 's/^steps: .*, \([0-9.]*\) us a step.*/\1/p' | head -1)"
      [ "$status" -eq 0 ] && [ -n "$step" ] || step="FAILED($status)"
      echo "$impl $config $rep $step"
    done
  done
done | tee times.txt
