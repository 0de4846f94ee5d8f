#!/usr/bin/env bash
# What wgprof's Vulkan layer costs a vkQueueSubmit, on lavapipe, and whether that grows with the
# work in flight: bench/vk_record_cost --submits (N one-dispatch command buffers recorded once,
# then, each round, submitted one by one without waiting, only the submits timed; the fence on
# the last waited for outside the timing) without the layer and with each layer given, as
# separate processes interleaved (plain, layer A, layer B, plain, ...). A round's first pass
# submits fresh command buffers; every later round submits them again, each one's previous
# results to be read first. The layer is enabled as `wgprof record --via vulkan` enables it by
# name (VK_INSTANCE_LAYERS, its manifest's folder on VK_ADD_LAYER_PATH), a private results folder
# each run; every run's report must hold every dispatch, valid.
#
# usage: bench/layer_submit_cost.sh [BUILD [PAIRS [ROUNDS [SUBMITS [OUT [NAME=LAYER_DIR...]]]]]]
#   defaults: build 3 5 32000 bench/results/lavapipe/layer_submit, and the layer of BUILD
#   named "layer"; more layers (another build's layer/ folder) compared in the same runs.
# Writes OUT/NAME.N.{json,err} and OUT/summary.jsonl (one line a configuration, also printed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}" pairs="${2:-3}" rounds="${3:-5}" submits="${4:-32000}"
out="${5:-$root/bench/results/lavapipe/layer_submit}"
shift $(($# < 5 ? $# : 5))
layers=("layer=$(cd "$build/layer" && pwd)" "$@")
app="$build/bench/vk_record_cost"
[ -x "$app" ] || { echo "layer_submit_cost: no $app" >&2; exit 1; }
icd="${VK_DRIVER_FILES:-$root/.deps/mesa/lvp_icd.json}"
[ -f "$icd" ] || { echo "layer_submit_cost: no lavapipe driver file $icd" >&2; exit 1; }
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%FT%TZ) $(uname -n) nproc $(nproc) load at start: $(cut -d' ' -f1-3 /proc/loadavg) driver $icd" \
  >"$out/summary.jsonl"
for p in $(seq 1 "$pairs"); do
  env VK_DRIVER_FILES="$icd" "$app" "$rounds" --dispatches "$submits" --submits >"$out/plain.$p.json" 2>"$out/plain.$p.err"
  for spec in "${layers[@]}"; do
    name="${spec%%=*}" dir="${spec#*=}"
    rec="$(mktemp -d "$tmp/rec.XXXXXX")"
    env VK_DRIVER_FILES="$icd" VK_ADD_LAYER_PATH="$dir" VK_INSTANCE_LAYERS=VK_LAYER_WGPROF_timing \
      WGPROF_RECORD_DIR="$rec" WGPROF_RECORD_DIR_ID="$(stat -c %d:%i "$rec")" \
      "$app" "$rounds" --dispatches "$submits" --submits >"$out/$name.$p.json" 2>"$out/$name.$p.err"
    python3 "$root/bench/layer_report_check.py" "$rec" "$(( (rounds + 1) * submits ))" >>"$out/$name.$p.err"
  done
done
python3 - "$out" "$pairs" "${layers[@]%%=*}" <<'PY' | tee -a "$out/summary.jsonl"
import json, statistics, sys
out, pairs, names = sys.argv[1], int(sys.argv[2]), ["plain"] + sys.argv[3:]
for name in names:
    runs = [json.load(open(f"{out}/{name}.{p}.json"))["ns_per_submit"] for p in range(1, pairs + 1)]
    first = statistics.median(r[0] for r in runs)
    again = statistics.median(statistics.median(r[1:]) for r in runs) if len(runs[0]) > 1 else None
    print(json.dumps({"config": name, "pairs": pairs, "first_round_ns_per_submit": round(first, 1),
                      "later_rounds_ns_per_submit": round(again, 1) if again is not None else None,
                      "rounds": runs}))
PY
