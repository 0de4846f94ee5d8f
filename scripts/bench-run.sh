#!/usr/bin/env bash
# Runs the benchmarks from a built tree and writes their JSON into the folder $1
# (default: out/). Set up for a GPU machine like scripts/device-run.sh (run that first there).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/out}"
rounds="${ROUNDS:-7}"
loops="${LOOPS:-4096}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$root/build:$root/.deps/wgpu-native/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$root/build/bench/bench_host" "$rounds" >"$out/bench_host.json"
"$root/build/bench/bench_accuracy" "$loops" >"$out/bench_accuracy.json"
"$root/build/bench/bench_overhead" "$rounds" >"$out/bench_overhead.json"
"$root/build/bench/bench_phases" "${PHASE_EXECUTES:-400}" >"$out/bench_phases.json"
cat "$out"/bench_*.json
