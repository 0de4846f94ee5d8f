#!/usr/bin/env bash
# `wgprof diff` against itself and against a real regression. A spec of two kernels (a chain of
# fused multiply-adds, ITERS steps per thread, and a 256 KiB copy) is run PAIRS times twice in a
# row, and each pair compared: a comparison where every kernel and the total say "no change"
# counts as quiet, any other verdict as a false alarm. Then PAIRS times the spec against a copy
# whose fma kernel runs 1.5x the steps (ITERS raised, nothing else changed): that kernel must say
# "slower" and `--fail-if-slower 10` must exit 1. Prints each comparison's verdicts at the
# threshold asked for, then, from the same reports compared again at other thresholds, one JSON
# line per threshold with the counts, and the machine's load average before and after. Usage:
#   bench/diff_false_alarms.sh WGPROF [PAIRS] [ITERATIONS] [THRESHOLD] [RUNS]
# PAIRS default 20, ITERATIONS (measured per run, after 3 warm-up) default 10, THRESHOLD (%) the
# diff's default 5, RUNS (reports a side, each its own process; the two sides' runs made in
# turn, a b a b ..., and compared as `wgprof diff A1 .. vs B1 ..`) default 1. RUN_ARGS: more
# options for every run (e.g. --reference).
set -uo pipefail
wgprof="$1"
pairs="${2:-20}"
iterations="${3:-10}"
threshold="${4:-5}"
runs="${5:-1}"
here="$(cd "$(dirname "$0")" && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

spec() { # $1: the fma kernel's ITERS; bench/specs/fma_copy.json with it
  python3 - "$here/specs/fma_copy.json" "$1" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["kernels"][0]["constants"]["ITERS"] = int(sys.argv[2])
json.dump(spec, sys.stdout, indent=1)
PY
}
spec 2000 >"$dir/base.json"
spec 3000 >"$dir/slow.json"

run() { # $1: spec, $2: report
  # shellcheck disable=SC2086 # RUN_ARGS: words
  "$wgprof" run --quiet --iterations "$iterations" ${RUN_ARGS:-} --json "$2" "$1" 2>"$dir/err" || {
    echo "wgprof run failed: $(cat "$dir/err")" >&2
    exit 1
  }
}
# verdicts REPORT: "kernel=verdict ..." and the total's, from a diff's JSON.
verdicts() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
rows = d["kernels"] + [d["total"]]
print(" ".join("%s=%s(%+.1f%%)" % (r["name"], r["verdict"].replace(" ", "_"), r["change_pct"]) for r in rows))' "$1"
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
# sides NAME I: the reports of comparison I, "A1 .. vs B1 ..", as arguments to diff.
sides() {
  local r
  for r in $(seq "$runs"); do echo "$dir/$1-a-$2-$r.json"; done
  echo vs
  for r in $(seq "$runs"); do echo "$dir/$1-b-$2-$r.json"; done
}
for i in $(seq "$pairs"); do
  for r in $(seq "$runs"); do
    run "$dir/base.json" "$dir/same-a-$i-$r.json"
    run "$dir/base.json" "$dir/same-b-$i-$r.json"
  done
  mapfile -t reports < <(sides same "$i")
  "$wgprof" diff --quiet --threshold "$threshold" --json "$dir/d.json" "${reports[@]}"
  echo "same $i: $(verdicts "$dir/d.json")"
done
for i in $(seq "$pairs"); do
  for r in $(seq "$runs"); do
    run "$dir/base.json" "$dir/slow-a-$i-$r.json"
    run "$dir/slow.json" "$dir/slow-b-$i-$r.json"
  done
  mapfile -t reports < <(sides slow "$i")
  "$wgprof" diff --quiet --threshold "$threshold" --fail-if-slower 10 --json "$dir/d.json" "${reports[@]}" 2>/dev/null
  rc=$?
  echo "slower $i: $(verdicts "$dir/d.json") exit=$rc"
done
seconds=$(($(date +%s) - start))
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
# The same reports compared at each threshold: quiet pairs, regressions found, gates failed.
for t in $(echo "$threshold 10 15 20 25 30" | tr ' ' '\n' | sort -nu); do
  quiet=0
  detected=0
  gated=0
  for i in $(seq "$pairs"); do
    mapfile -t reports < <(sides same "$i")
    "$wgprof" diff --quiet --threshold "$t" --json "$dir/d.json" "${reports[@]}"
    verdicts "$dir/d.json" | grep -Eq '=(slower|faster)' || quiet=$((quiet + 1))
    mapfile -t reports < <(sides slow "$i")
    "$wgprof" diff --quiet --threshold "$t" --fail-if-slower 10 --json "$dir/d.json" "${reports[@]}" 2>/dev/null
    [ $? -eq 1 ] && gated=$((gated + 1))
    verdicts "$dir/d.json" | grep -q 'fma=slower' && detected=$((detected + 1))
  done
  printf '{"pairs": %d, "runs": %d, "iterations": %d, "threshold_pct": %s, "same_no_change": %d, ' \
    "$pairs" "$runs" "$iterations" "$t" "$quiet"
  printf '"slower_detected": %d, ' "$detected"
  printf '"fail_if_slower_10_exit_1": %d, "seconds": %d, "load_before": "%s", "load_after": "%s"}\n' "$gated" \
    "$seconds" "$load_before" "$load_after"
done
