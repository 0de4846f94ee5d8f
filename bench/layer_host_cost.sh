#!/usr/bin/env bash
# What wgprof's Vulkan layer costs the program's thread per timed dispatch, on lavapipe: the CPU
# time of recording vkCmdDispatch (bench/vk_record_cost: Begin..End of its command buffers timed,
# the submit, the wait and the layer's readback outside), without the layer and with it, as
# separate processes interleaved (plain, layer, plain, layer, ...) so that a change in the
# machine's load falls on both. The layer is enabled as `wgprof record --via vulkan` enables it:
# its manifest through VK_ADD_LAYER_PATH, by name in VK_INSTANCE_LAYERS, a private 0700 results
# folder of its own for each run (WGPROF_RECORD_DIR and its identity).
# Two configurations: every command buffer timed ("every"), and one in ten
# (WGPROF_RECORD_SAMPLE_EVERY=10, "sample10": the round's dispatches in 10 command buffers, so
# that each round holds one timed buffer and its mean is what sampling costs a dispatch).
# On each lavapipe found: Mesa 25's in .deps/mesa (VK_DRIVER_FILES) and the system's.
# A configuration's layer cost is the median over the pairs of (layer's median - plain's median)
# in ns per dispatch; the ratio is the median of the layer's run medians over the plain's.
#
# usage: bench/layer_host_cost.sh [BUILD [PAIRS [ROUNDS [DISPATCHES [OUT]]]]]
#   defaults: build 7 21 20000 bench/results/lavapipe/layer_host
# Writes OUT/DRIVER.CONFIG.{plain,layer}.N.{json,err} (the program's own output) and
# OUT/summary.jsonl (one line a driver and configuration, also printed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}" pairs="${2:-7}" rounds="${3:-21}" dispatches="${4:-20000}"
out="${5:-$root/bench/results/lavapipe/layer_host}"
app="$build/bench/vk_record_cost"
layer_dir="$(cd "$build/layer" && pwd)"
[ -x "$app" ] || { echo "layer_host_cost: no $app (built where the Vulkan headers and glslangValidator are)" >&2; exit 1; }
[ -f "$layer_dir/VkLayer_wgprof_timing.json" ] || { echo "layer_host_cost: no layer in $layer_dir" >&2; exit 1; }
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

drivers=()
[ -f "$root/.deps/mesa/lvp_icd.json" ] && drivers+=("mesa25=$root/.deps/mesa/lvp_icd.json")
for f in /usr/share/vulkan/icd.d/lvp_icd.*.json; do
  [ -f "$f" ] && drivers+=("system=$f") && break
done
[ ${#drivers[@]} -gt 0 ] || { echo "layer_host_cost: no lavapipe found" >&2; exit 1; }

run() { # DRIVER_JSON CONFIG WITH_LAYER FILE_STEM
  local icd="$1" config="$2" with="$3" stem="$4" buffers=1 every=1
  [ "$config" = sample10 ] && buffers=10 every=10
  local args=("$rounds" --dispatches "$dispatches" --buffers "$buffers")
  if [ "$with" = 1 ]; then
    local dir
    dir="$(mktemp -d "$tmp/rec.XXXXXX")" # 0700, as the CLI makes it
    env VK_DRIVER_FILES="$icd" VK_ADD_LAYER_PATH="$layer_dir" VK_INSTANCE_LAYERS=VK_LAYER_WGPROF_timing \
      WGPROF_RECORD_DIR="$dir" WGPROF_RECORD_DIR_ID="$(stat -c %d:%i "$dir")" WGPROF_RECORD_SAMPLE_EVERY="$every" \
      "$app" "${args[@]}" >"$stem.json" 2>"$stem.err"
    # The layer must have been there and timed: its results set, with the dispatches it saw.
    local meta
    meta="$(ls "$dir"/*.meta 2>/dev/null | head -1)"
    [ -n "$meta" ] || { echo "layer_host_cost: the layer wrote no results for $stem" >&2; cat "$stem.err" >&2; exit 1; }
    { echo "--- layer's meta:"; cat "$meta"; } >>"$stem.err"
  else
    env VK_DRIVER_FILES="$icd" "$app" "${args[@]}" >"$stem.json" 2>"$stem.err"
  fi
}

echo "# $(date -u +%FT%TZ) $(uname -n) nproc $(nproc) load at start: $(cut -d' ' -f1-3 /proc/loadavg)" >"$out/summary.jsonl"
for spec in "${drivers[@]}"; do
  driver="${spec%%=*}" icd="${spec#*=}"
  for config in every sample10; do
    for ((i = 1; i <= pairs; i++)); do
      run "$icd" "$config" 0 "$out/$driver.$config.plain.$i"
      run "$icd" "$config" 1 "$out/$driver.$config.layer.$i"
    done
    python3 - "$out" "$driver" "$config" "$pairs" "${icd#"$root"/}" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY' | tee -a "$out/summary.jsonl"
import json, statistics, sys
out, driver, config, pairs, icd, load = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
def med(kind, i):
    with open(f"{out}/{driver}.{config}.{kind}.{i}.json") as f:
        return json.load(f)["median_ns_per_dispatch"]
plain = [med("plain", i) for i in range(1, pairs + 1)]
layer = [med("layer", i) for i in range(1, pairs + 1)]
diffs = [l - p for p, l in zip(plain, layer)]
print(json.dumps({"driver": driver, "icd": icd, "config": config, "pairs": pairs,
                  "plain_ns_per_dispatch": plain, "layer_ns_per_dispatch": layer,
                  "plain_median": round(statistics.median(plain), 2), "layer_median": round(statistics.median(layer), 2),
                  "layer_cost_ns_per_dispatch": round(statistics.median(diffs), 2),
                  "ratio_of_medians": round(statistics.median(layer) / statistics.median(plain), 3),
                  "load_at_end": load}))
PY
  done
done
