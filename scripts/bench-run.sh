#!/usr/bin/env bash
# Runs the benchmarks from a built tree and writes their JSON into the folder $1
# (default: out/), on the WebGPU implementation WGPROF_WEBGPU names (wgpu-native, dawn; default
# the first found). Set up for a GPU machine as scripts/device-run.sh is (scripts/device-env.sh).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:-$root/out}" && cd "${1:-$root/out}" && pwd)"
rounds="${ROUNDS:-7}"
loops="${LOOPS:-4096}"
. "$root/scripts/device-env.sh" "$out"
"$root/build/bench/bench_host" "$rounds" >"$out/bench_host.json"
"$root/build/bench/bench_accuracy" "$loops" >"$out/bench_accuracy.json"
"$root/build/bench/bench_overhead" "$rounds" >"$out/bench_overhead.json"
"$root/build/bench/bench_phases" "${PHASE_EXECUTES:-400}" >"$out/bench_phases.json"
# The raw Vulkan floor of a timestamp's GPU cost (built where the Vulkan headers and
# glslangValidator were); its per-round lines go beside the JSON.
if [ -x "$root/build/bench/vk_timestamp_cost" ]; then
  "$root/build/bench/vk_timestamp_cost" "${TIMESTAMP_ROUNDS:-21}" >"$out/vk_timestamp_cost.json" \
    2>"$out/vk_timestamp_cost.txt"
fi
cat "$out"/bench_*.json
