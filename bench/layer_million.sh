#!/usr/bin/env bash
# A million dispatches in one command buffer under wgprof's Vulkan layer, on lavapipe: the wall
# time of bench/vk_record_cost 1 --dispatches N (one command buffer of N dispatches recorded,
# submitted and waited for, twice: a warm-up round and the round it reports) as separate
# processes interleaved in pairs: plain; the layer as `wgprof record --via vulkan` enables it
# (by name, a private results folder, its report checked: every dispatch there and valid); and
# the layer's minimal variant (WGPROF_LAYER_TIMESTAMPS_ONLY=1: the same timestamps written,
# nothing else), so that what lavapipe's execution of the timestamps costs is told from what the
# layer's bookkeeping costs in the same pairs.
# A configuration's ratio is the median over the pairs of its wall time over the plain run's of
# the same pair.
#
# usage: bench/layer_million.sh [BUILD [PAIRS [DISPATCHES [OUT]]]]
#   defaults: build 3 1000000 bench/results/lavapipe/layer_million
# Writes OUT/CONFIG.N.{json,err} (the program's own output; for the layer its report's check),
# OUT/wall.txt (one line a run: config, pair, wall, user and system seconds) and
# OUT/summary.jsonl (one line a configuration, also printed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}" pairs="${2:-3}" dispatches="${3:-1000000}"
out="${4:-$root/bench/results/lavapipe/layer_million}"
app="$build/bench/vk_record_cost"
[ -x "$app" ] || { echo "layer_million: no $app (built where the Vulkan headers and glslangValidator are)" >&2; exit 1; }
layer_dir="$(cd "$build/layer" && pwd)"
[ -f "$layer_dir/VkLayer_wgprof_timing.json" ] || { echo "layer_million: no layer in $layer_dir" >&2; exit 1; }
icd="${VK_DRIVER_FILES:-$root/.deps/mesa/lvp_icd.json}"
[ -f "$icd" ] || { echo "layer_million: no lavapipe driver file $icd" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "layer_million: needs /usr/bin/time" >&2; exit 1; }
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
{
  echo "# $(date -u +%FT%TZ) $(uname -n) nproc $(nproc) load at start: $(cut -d' ' -f1-3 /proc/loadavg) driver $icd"
  echo "# bench/layer_million.sh $build $pairs $dispatches: config pair wall_s user_s sys_s"
} >"$out/wall.txt"

run() { # CONFIG PAIR ENV...
  local config="$1" pair="$2"
  shift 2
  env VK_DRIVER_FILES="$icd" "$@" /usr/bin/time -o "$tmp/time" -f "%e %U %S" \
    "$app" 1 --dispatches "$dispatches" >"$out/$config.$pair.json" 2>"$out/$config.$pair.err"
  echo "$config $pair $(cat "$tmp/time")" | tee -a "$out/wall.txt"
}

for p in $(seq 1 "$pairs"); do
  run plain "$p"
  rec="$(mktemp -d "$tmp/rec.XXXXXX")"
  run layer "$p" VK_ADD_LAYER_PATH="$layer_dir" VK_INSTANCE_LAYERS=VK_LAYER_WGPROF_timing \
    WGPROF_RECORD_DIR="$rec" WGPROF_RECORD_DIR_ID="$(stat -c %d:%i "$rec")"
  python3 "$root/bench/layer_report_check.py" "$rec" "$((2 * dispatches))" >>"$out/layer.$p.err"
  rm -rf "$rec"
  run minimal "$p" VK_ADD_LAYER_PATH="$layer_dir" VK_INSTANCE_LAYERS=VK_LAYER_WGPROF_timing \
    WGPROF_LAYER_TIMESTAMPS_ONLY=1
done

python3 - "$out/wall.txt" <<'PY' | tee -a "$out/summary.jsonl"
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    config, pair, wall, user, sys_s = line.split()
    runs.setdefault(config, {})[int(pair)] = (float(wall), float(user), float(sys_s))
plain = runs["plain"]
for config, by_pair in runs.items():
    print(json.dumps({
        "config": config, "pairs": len(by_pair),
        "median_wall_s": round(statistics.median(w for w, _, _ in by_pair.values()), 2),
        "median_ratio_to_plain": round(statistics.median(by_pair[p][0] / plain[p][0] for p in by_pair), 3),
        "wall_s": [by_pair[p][0] for p in sorted(by_pair)],
        "user_s": [by_pair[p][1] for p in sorted(by_pair)],
        "sys_s": [by_pair[p][2] for p in sorted(by_pair)]}))
PY
