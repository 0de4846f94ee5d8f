#!/usr/bin/env bash
# Do the layer's per-dispatch durations add up to the GPU span of the step they time? bench_phases
# (the demo's decode step encoded directly, its `none` variants: no timestamps of its own inside,
# each bracketed by two of its own in a second section) under `wgprof record --via vulkan`, on
# each implementation, with a chain per command buffer (the default) and across a batch
# (WGPROF_LAYER_CHAIN=submit); bench/layer_span.py finds each bracket's records by their ticks
# and adds their durations up against its span (the goal: within 1%).
#
# usage: bench/layer_span.sh [BUILD [EXECUTES [OUT [IMPLS]]]]
#   defaults: build 10 bench/results/lavapipe/layer_span "wgpu-native dawn"
# BUILD holds cli/wgprof, the layer and bench/bench_phases. Writes OUT/IMPL-CHAIN.json.gz (the
# layer's report), OUT/IMPL-CHAIN.frames (the brackets' ticks), OUT/IMPL-CHAIN.phases.json
# (bench_phases' own output) and OUT/span.txt (a line a layout, implementation and chain, also
# printed). On this machine's Vulkan as the environment chooses it (VK_DRIVER_FILES).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}" executes="${2:-10}"
out="${3:-$root/bench/results/lavapipe/layer_span}" impls="${4:-wgpu-native dawn}"
wgprof="$build/cli/wgprof" phases="$build/bench/bench_phases"
for f in "$wgprof" "$phases"; do
  [ -x "$f" ] || { echo "layer_span: no $f (a build with the Vulkan layer and the benchmarks)" >&2; exit 1; }
done
mkdir -p "$out"
: >"$out/span.txt"
for impl in $impls; do
  for chain in command-buffer submit; do
    name="$out/$impl-$chain"
    if ! WGPROF_LAYER_CHAIN=$chain "$wgprof" record --via vulkan --json "$name.json" -- \
      env WGPROF_WEBGPU="$impl" "$phases" "$executes" --frames "$name.frames" >"$name.phases.json" 2>"$name.err"; then
      echo "layer_span: $impl, chain $chain: bench_phases under the layer failed: $(tail -n 3 "$name.err")" >&2
      exit 1
    fi
    python3 "$root/bench/layer_span.py" "$name.json" "$name.frames" | sed "s/^/$impl $chain: /" | tee -a "$out/span.txt"
    gzip -f "$name.json"
    rm -f "$name.err"
  done
done
