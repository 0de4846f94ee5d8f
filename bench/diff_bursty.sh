#!/usr/bin/env bash
# `wgprof diff` on a busy machine: the rounds of the benchmark in which the machine's load comes
# and goes while the runs are made (bench/bursty_load.sh: 0 to 3 `yes` hogs, changed every 0.3 to
# 2 s). A spec of two kernels, `work` and `steady` (bench/specs/diff_bursty_base.json), is run
# against a copy whose `work` does 1.5x the steps and whose `steady` is unchanged
# (diff_bursty_slow.json). Each round makes RUNS runs of each of three sides, in turn (base, slow,
# base2, base, slow, base2, ...), base2 being the base spec again, each run its own `wgprof run`
# process; then compares base against slow and base against base2 with
# `wgprof diff BASE1 .. vs NEW1 ..` (the table, and --json), and runs each comparison again with
# `--fail-if-slower 10` for its exit status, and once more with `--gate-both-ways` beside it.
# `work` should read slower against slow and every row no change against base2; `steady` no
# change in both; the gate should exit 1 against slow and 0 against base2. One line per round on
# stdout:
#   round R: slow: work=VERDICT(+x%) steady=VERDICT(+y%) total=.. gate=RC both=RC | rerun: work=.. steady=.. total=.. gate=RC both=RC
# Usage:
#   bench/diff_bursty.sh WGPROF OUT [ROUNDS] [ITERATIONS] [RUNS]
# ROUNDS default 5, ITERATIONS (measured per run, after WARMUP, default 3) default 10, RUNS (reports
# a side) default 5. OUT receives everything: meta.txt (the arguments, commit, versions, load),
# load.log (the load generator's changes), round-R/ with every report (base-K.json, slow-K.json,
# base2-K.json), each diff's table (diff-slow.txt, diff-rerun.txt), JSON (diff-slow.json,
# diff-rerun.json) and gate output (gate-slow.txt, gate-rerun.txt, and gate-both-slow.txt,
# gate-both-rerun.txt with --gate-both-ways, each with the exit status), and
# summary.txt and summary.jsonl (one line per round).
# Environment: SPECS (the specs' name: diff_bursty, the default, or diff_bursty3, which adds a
# third kernel `other` that never changes), REDIFF=1 (no runs and no load: compare again the
# reports OUT's rounds already hold, with this WGPROF, writing the diffs and summaries anew),
# BURSTY_SEED (the load's seed, default 1), BURSTY_MAX (most hogs, default 3),
# NO_LOAD=1 (no load generator: the same rounds on the machine as it is), WARMUP (default 3),
# THRESHOLD (the diff's --threshold, default: the diff's own), DIFF_ARGS (more options for every
# diff, e.g. --gate-common), RUN_ARGS (more options for every run, e.g. --reference: wgprof's
# reference kernel in every iteration, from which the diff reads the machine's speed).
# Exit status: 0 when every round ran (whatever the verdicts), 1 when a run or a diff failed, 2 on
# bad usage.
set -uo pipefail

usage() {
  sed -n '/^# Usage:/,/^# bad usage/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
if [ $# -lt 2 ] || [ $# -gt 5 ]; then usage; fi
wgprof="$1"
out="$2"
rounds="${3:-5}"
iterations="${4:-10}"
runs="${5:-5}"
warmup="${WARMUP:-3}"
seed="${BURSTY_SEED:-1}"
for v in "$rounds" "$iterations" "$runs" "$warmup" "$seed"; do
  case "$v" in '' | *[!0-9]*) echo "diff_bursty.sh: '$v' is not a non-negative integer" >&2; usage ;; esac
done
if [ "$rounds" -lt 1 ] || [ "$runs" -lt 1 ] || [ "$iterations" -lt 1 ]; then usage; fi
[ -x "$wgprof" ] || { echo "diff_bursty.sh: WGPROF '$wgprof' is not an executable" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
specs="${SPECS:-diff_bursty}"
case "$specs" in diff_bursty | diff_bursty3) ;; *) echo "diff_bursty.sh: SPECS $specs: diff_bursty or diff_bursty3" >&2; exit 2 ;; esac
base_spec="$here/specs/${specs}_base.json"
slow_spec="$here/specs/${specs}_slow.json"
rediff="${REDIFF:-0}"
for f in "$base_spec" "$slow_spec"; do
  [ -r "$f" ] || { echo "diff_bursty.sh: cannot read the spec $f" >&2; exit 2; }
done
mkdir -p "$out" || { echo "diff_bursty.sh: cannot make the folder $out" >&2; exit 2; }
threshold_args=()
[ -n "${THRESHOLD:-}" ] && threshold_args=(--threshold "$THRESHOLD")
read -r -a extra_args <<<"${DIFF_ARGS:-}"
read -r -a run_args <<<"${RUN_ARGS:-}"

load_pid=""
stop_load() {
  if [ -n "$load_pid" ]; then
    kill "$load_pid" 2>/dev/null
    wait "$load_pid" 2>/dev/null
    load_pid=""
  fi
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT
trap 'stop_load; exit 143' TERM

[ "$rediff" = 1 ] && rm -f "$out/summary.txt" "$out/summary.jsonl"
{
  [ "$rediff" = 1 ] && echo "REDIFF=1: the rounds' reports compared again"
  echo "specs: $specs"
  echo "command: $0 $*"
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "wgprof: $wgprof ($("$wgprof" --version 2>&1 | head -n 1))"
  echo "rounds $rounds, runs a side $runs, iterations $iterations, warmup $warmup"
  echo "load: $([ "${NO_LOAD:-0}" = 1 ] && echo none || echo "bench/bursty_load.sh -s $seed -m ${BURSTY_MAX:-3}")"
  echo "threshold: ${THRESHOLD:-default}; extra diff options: ${DIFF_ARGS:-none}; extra run options: ${RUN_ARGS:-none}"
  echo "nproc $(nproc); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$out/meta.txt"

if [ "${NO_LOAD:-0}" != 1 ] && [ "$rediff" != 1 ]; then
  BURSTY_MAX="${BURSTY_MAX:-3}" "$here/bursty_load.sh" -s "$seed" -l "$out/load.log" &
  load_pid=$!
fi

# run SPEC REPORT: one profiled run; its stderr kept beside the report.
run() {
  "$wgprof" run --quiet --warmup "$warmup" --iterations "$iterations" "${run_args[@]}" --json "$2" "$1" 2>"$2.err" || {
    echo "diff_bursty.sh: wgprof run $1 failed: $(cat "$2.err")" >&2
    exit 1
  }
}
# verdicts DIFF_JSON: "work=slower(+45.1%) steady=no_change(+0.3%) total=slower(+20.2%)" (the
# changes as measured; `other` too where the specs have it)
verdicts() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in d["kernels"]}
rows["total"] = d["total"]
names = [n for n in ("work", "steady", "other") if n in rows] + ["total"]
print(" ".join("%s=%s(%+.1f%%)" % (n, rows[n]["verdict"].replace(" ", "_"), rows[n]["change_pct"])
               for n in names))' "$1"
}
# compare DIR NAME NEW: base against NEW, table + JSON, then the gate, one way and both ways;
# sets gate_rc and both_rc.
compare() {
  local dir="$1" name="$2" new="$3" k args=()
  for k in $(seq "$runs"); do args+=("$dir/base-$k.json"); done
  args+=(vs)
  for k in $(seq "$runs"); do args+=("$dir/$new-$k.json"); done
  "$wgprof" diff "${threshold_args[@]}" "${extra_args[@]}" --json "$dir/diff-$name.json" "${args[@]}" \
    >"$dir/diff-$name.txt" 2>&1 || {
    echo "diff_bursty.sh: wgprof diff ($name) failed: $(cat "$dir/diff-$name.txt")" >&2
    exit 1
  }
  "$wgprof" diff "${threshold_args[@]}" "${extra_args[@]}" --fail-if-slower 10 "${args[@]}" \
    >"$dir/gate-$name.txt" 2>&1
  gate_rc=$?
  echo "exit status: $gate_rc" >>"$dir/gate-$name.txt"
  if [ "$gate_rc" -ne 0 ] && [ "$gate_rc" -ne 1 ]; then
    echo "diff_bursty.sh: wgprof diff --fail-if-slower 10 ($name) exited $gate_rc: $(cat "$dir/gate-$name.txt")" >&2
    exit 1
  fi
  "$wgprof" diff "${threshold_args[@]}" "${extra_args[@]}" --fail-if-slower 10 --gate-both-ways "${args[@]}" \
    >"$dir/gate-both-$name.txt" 2>&1
  both_rc=$?
  echo "exit status: $both_rc" >>"$dir/gate-both-$name.txt"
  if [ "$both_rc" -ne 0 ] && [ "$both_rc" -ne 1 ]; then
    echo "diff_bursty.sh: wgprof diff --fail-if-slower 10 --gate-both-ways ($name) exited $both_rc" >&2
    exit 1
  fi
}

start=$(date +%s)
for r in $(seq "$rounds"); do
  dir="$out/round-$r"
  mkdir -p "$dir" || exit 1
  for k in $(seq "$runs"); do
    [ "$rediff" = 1 ] && break
    run "$base_spec" "$dir/base-$k.json"
    run "$slow_spec" "$dir/slow-$k.json"
    run "$base_spec" "$dir/base2-$k.json"
  done
  compare "$dir" slow slow
  slow_rc=$gate_rc
  slow_both=$both_rc
  compare "$dir" rerun base2
  rerun_rc=$gate_rc
  rerun_both=$both_rc
  slow_v="$(verdicts "$dir/diff-slow.json")"
  rerun_v="$(verdicts "$dir/diff-rerun.json")"
  line="round $r: slow: $slow_v gate=$slow_rc both=$slow_both | rerun: $rerun_v gate=$rerun_rc both=$rerun_both"
  echo "$line" | tee -a "$out/summary.txt"
  python3 -c 'import json, sys
r, slow, srun, sboth, rerun, rrun, rboth, load = sys.argv[1:]
def split(v):
    return {p.split("=")[0]: p.split("=")[1] for p in v.split()}
print(json.dumps({"round": int(r), "slow": split(slow), "slow_gate_exit": int(srun),
                  "slow_gate_both_ways_exit": int(sboth), "rerun": split(rerun), "rerun_gate_exit": int(rrun),
                  "rerun_gate_both_ways_exit": int(rboth), "load_after": load}))' \
    "$r" "$slow_v" "$slow_rc" "$slow_both" "$rerun_v" "$rerun_rc" "$rerun_both" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    >>"$out/summary.jsonl"
done
stop_load
echo "seconds: $(($(date +%s) - start)); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta.txt"
