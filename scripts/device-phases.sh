#!/usr/bin/env bash
# bench_phases in interleaved rounds on a GPU machine: where a step's host time goes (encode,
# submit, wait) with wgprof's Vulkan layer against the same program plain and under the layer's
# minimal variant (WGPROF_LAYER_TIMESTAMPS_ONLY=1: the timestamps alone), each configuration once
# a round, so that every difference is paired within a round (bench/phases_pairs.py).
# Configurations: plain; layer (`record --via vulkan`, every dispatch timed); minimal; untimed
# (`record --via vulkan --sample-every 1000000`: the hooks with one dispatch of each kernel
# timed); compare (with COMPARE=DIR, another build's `record --via vulkan` as scripts/device-layer.sh
# takes it).
# Run from the tree's root with the built tree staged in .device/build/ and the .deb files in
# .gl/ as scripts/device-layer.sh says, OUT naming a folder for the results:
#   OUT=DIR [ROUNDS=7] [IMPLS="wgpu-native dawn"] [CONFIGS="plain layer minimal untimed"]
#   [EXECUTES=200] bash scripts/device-phases.sh
# Writes OUT/phases-IMPL-CONFIG.ROUND.json (bench_phases' output), OUT/err.log, and prints
# bench/phases_pairs.py's summary.
set -u
root="$PWD"
. scripts/device-staged.sh device-phases.sh
W="$root/.device/build/cli/wgprof"
P="$root/.device/build/bench/bench_phases"
ROUNDS=${ROUNDS:-7}
IMPLS=${IMPLS:-wgpu-native dawn}
CONFIGS=${CONFIGS:-plain layer minimal untimed}
EXECUTES=${EXECUTES:-200}
cd "$OUT"
for round in $(seq "$ROUNDS"); do
  for impl in $IMPLS; do
    for config in $CONFIGS; do
      case $config in
        plain) cmd=(env WGPROF_WEBGPU="$impl" "$P" "$EXECUTES") ;;
        layer) cmd=("$W" --webgpu "$impl" record --via vulkan -- env WGPROF_WEBGPU="$impl" "$P" "$EXECUTES") ;;
        minimal) cmd=(env VK_ADD_LAYER_PATH="$root/.device/build/layer" VK_INSTANCE_LAYERS=VK_LAYER_WGPROF_timing
                      WGPROF_LAYER_TIMESTAMPS_ONLY=1 WGPROF_WEBGPU="$impl" "$P" "$EXECUTES") ;;
        untimed) cmd=("$W" --webgpu "$impl" record --via vulkan --sample-every 1000000 --
                      env WGPROF_WEBGPU="$impl" "$P" "$EXECUTES") ;;
        compare) cmd=("${COMPARE:?compare needs COMPARE=DIR}/cli/wgprof" --webgpu "$impl" record --via vulkan --
                      env WGPROF_WEBGPU="$impl" "$P" "$EXECUTES") ;;
        *) echo "device-phases.sh: no configuration $config" >&2; exit 2 ;;
      esac
      "${cmd[@]}" >"phases-$impl-$config.$round.json" 2>>err.log
      echo "$impl $config $round: exit $?"
    done
  done
done
python3 "$root/bench/phases_pairs.py" "$OUT"
