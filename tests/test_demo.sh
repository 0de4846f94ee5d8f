#!/usr/bin/env bash
# The demo end to end: every kernel of the decode step timed with valid positive durations in
# the JSON report, the same checksum with and without profiling (and with each strategy and
# attention variant), no first-iteration outlier after the warm-up, nothing on stderr from the
# driver's display probe without XDG_RUNTIME_DIR, and exit code 2 for bad flags. $1 is the
# wgprof binary.
set -u
wgprof="$1"
. "$(dirname "$0")/harness.sh"
checksum() { grep '^checksum:' | cut -d' ' -f2; }

plain="$("$wgprof" demo 2>/dev/null | checksum)"
[ -n "$plain" ] && ok || bad "unprofiled demo printed no checksum"
# Unprofiled, the one figure is the steps' wall time, over the measured steps.
"$wgprof" demo 2>/dev/null | grep -v '^steps: ' | grep -q 'us' && bad "unprofiled demo printed a GPU timing" || ok
"$wgprof" demo --iterations 5 2>/dev/null | grep -Eq '^steps: 5 in [0-9.]+ ms, [0-9.]+ us a step' && ok \
  || bad "unprofiled demo printed no wall time for its 5 steps"

for strategy in auto pass inside chain; do
  out="$(WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=$strategy "$wgprof" demo --json "$tmp/r.json" 2>&1)" ||
    bad "profiled demo ($strategy) failed: $out"
  [ "$(printf '%s\n' "$out" | checksum)" = "$plain" ] && ok || bad "checksum differs with strategy $strategy"
  printf '%s\n' "$out" | grep -q "strategy $strategy\|strategy chain" && ok || bad "table does not name strategy $strategy"
  python3 - "$tmp/r.json" <<'PY' && ok || bad "JSON report of strategy $strategy"
import json, sys
r = json.load(open(sys.argv[1]))
expected = {"embedding", "rmsnorm_attn", "matmul_q", "matmul_k", "matmul_v", "rope", "kv_cache_update",
            "attn_scores", "attn_softmax", "attn_weighted_sum", "matmul_o", "rmsnorm_mlp", "matmul_gate",
            "matmul_up", "silu_mul", "matmul_down", "rmsnorm_final", "logits"}
names = {k["name"] for k in r["kernels"]}
assert expected <= names, expected - names
assert r["dispatches"] and all(d["valid"] and d["duration_ns"] > 0 for d in r["dispatches"])
assert all(k["invalid"] == 0 and k["count"] > 0 for k in r["kernels"])
assert r["iterations"] == 3 and r["timestamp_period_ns"] > 0
PY
done

fused="$(WEBGPU_TIMESTAMP_QUERY=1 "$wgprof" demo --fused-sdpa --quiet --json "$tmp/f.json" 2>/dev/null)"
[ "$(printf '%s\n' "$fused" | checksum)" = "$plain" ] && ok || bad "fused SDPA changes the checksum"
grep -q '"sdpa_kv_cache"' "$tmp/f.json" && ok || bad "fused SDPA kernel missing from the report"

# An environment wgprof cannot read never stops the work: a strategy it does not know, with
# profiling off and on, is warned about and taken as auto (0.1 exited 2 here).
for switch in 0 1; do
  out="$(WEBGPU_TIMESTAMP_QUERY=$switch WGPROF_STRATEGY=garbage "$wgprof" demo 2>"$tmp/garbage.err")" &&
    [ "$(printf '%s\n' "$out" | checksum)" = "$plain" ] && grep -q "WGPROF_STRATEGY=garbage" "$tmp/garbage.err" &&
    ok || bad "WGPROF_STRATEGY=garbage, WEBGPU_TIMESTAMP_QUERY=$switch: exit $?, $(tail -3 "$tmp/garbage.err")"
done

WGPROF_DISABLE_TIMESTAMPS=1 WEBGPU_TIMESTAMP_QUERY=1 "$wgprof" demo --json "$tmp/off.json" >"$tmp/off.txt" 2>/dev/null &&
  [ "$(checksum <"$tmp/off.txt")" = "$plain" ] && grep -q '"unavailable_reason": "timestamp queries disabled' "$tmp/off.json" &&
  ok || bad "fail-open demo"

# A report file asked for without WEBGPU_TIMESTAMP_QUERY: asking for one is asking for
# timings, so the demo profiles, says so in one line, and the page has timings.
env -u WEBGPU_TIMESTAMP_QUERY "$wgprof" demo --quiet --html "$tmp/asked.html" >/dev/null 2>"$tmp/asked.err" &&
  [ "$(grep -c 'profiling on for the report files asked for' "$tmp/asked.err")" = 1 ] &&
  ! grep -q 'No timings' "$tmp/asked.html" && grep -q 'attn_softmax' "$tmp/asked.html" &&
  ok || bad "demo --html without WEBGPU_TIMESTAMP_QUERY: $(tail -3 "$tmp/asked.err")"
# Without a report file the environment still decides: no profiling, no such line.
env -u WEBGPU_TIMESTAMP_QUERY "$wgprof" demo --quiet >/dev/null 2>"$tmp/plain.err" &&
  ! grep -q 'profiling on for' "$tmp/plain.err" && ok || bad "demo without reports turned profiling on"

# Warm-up: the first execute of each kernel includes its pipeline's compilation (on lavapipe up
# to tens of times the kernel's own time); the demo executes the step once before the measured
# iterations, so no kernel's first measured dispatch may be over 3x the kernel's median. Other
# processes on a small machine slow single dispatches as much, in any iteration, while the
# compilation lands in the first one every time: the demo runs again (5 runs at most) while
# some kernel has been over 3x in every run so far, and those kernels fail.
first_outliers() {
  python3 - "$@" <<'PY'
import json, sys
failing, seen = None, {}
for path in sys.argv[1:]:
    r = json.load(open(path))
    kernels = {k["name"]: k for k in r["kernels"]}
    first = {}
    for d in sorted(r["dispatches"], key=lambda d: (d["iteration"], d["index"])):
        first.setdefault(d["kernel"], d)
    assert set(first) == set(kernels) and all(d["iteration"] == 0 for d in first.values())
    slow = {name for name, d in first.items() if d["duration_ns"] > 3 * kernels[name]["median_ns"]}
    failing = slow if failing is None else failing & slow
    for name in slow:
        seen.setdefault(name, []).append("first %.0f us, median %.0f us, max %.0f us" % (
            first[name]["duration_ns"] / 1e3, kernels[name]["median_ns"] / 1e3, kernels[name]["max_ns"] / 1e3))
for name in sorted(failing):
    print("%s: %s" % (name, "; ".join(seen[name])))
sys.exit(1 if failing else 0)
PY
}
runs=""
for attempt in 1 2 3 4 5; do
  out="$(WEBGPU_TIMESTAMP_QUERY=1 "$wgprof" demo --iterations 5 --quiet --json "$tmp/warm$attempt.json" 2>&1)" ||
    { bad "profiled demo for the warm-up check failed: $out"; break; }
  if [ "$attempt" -eq 1 ]; then
    printf '%s\n' "$out" | grep -q 'warmup=1 iterations=5' && ok || bad "the demo's header does not say warmup=1: $out"
  fi
  runs="$runs $tmp/warm$attempt.json"
  # shellcheck disable=SC2086
  if outliers="$(first_outliers $runs)"; then
    ok
    break
  elif [ "$attempt" -eq 5 ]; then
    bad "first measured dispatch over 3x the median in each of 5 runs despite the warm-up:
$outliers"
  fi
done

# Without XDG_RUNTIME_DIR (ssh, containers, CI), libwayland-client, asked for a display by Mesa's
# device-selection layer, prints "error: XDG_RUNTIME_DIR is invalid ..." twice; the CLI routes
# libwayland's messages to its log, where only WGPROF_LOG=debug shows them.
env -u XDG_RUNTIME_DIR WEBGPU_TIMESTAMP_QUERY=1 "$wgprof" demo --quiet >"$tmp/xdg.out" 2>"$tmp/xdg.err" &&
  ! grep -q 'error:' "$tmp/xdg.err" && ok || bad "demo without XDG_RUNTIME_DIR: exit $?, stderr: $(cat "$tmp/xdg.err")"
env -u XDG_RUNTIME_DIR WGPROF_LOG=debug "$wgprof" demo --quiet >/dev/null 2>"$tmp/xdg-debug.err" &&
  ! grep -v '^wgprof: ' "$tmp/xdg-debug.err" | grep -q 'XDG_RUNTIME_DIR' && ok ||
  bad "demo without XDG_RUNTIME_DIR, WGPROF_LOG=debug: a line not through the log: $(cat "$tmp/xdg-debug.err")"

# --warmup N sets the executes before the measured ones; 0 runs none.
out="$(WEBGPU_TIMESTAMP_QUERY=1 "$wgprof" demo --warmup 0 --iterations 2 --quiet --json "$tmp/cold.json" 2>&1)" &&
  printf '%s\n' "$out" | grep -q 'warmup=0 iterations=2' &&
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if sorted({d["iteration"] for d in r["dispatches"]}) == [0, 1] else 1)' "$tmp/cold.json" &&
  ok || bad "demo --warmup 0 --iterations 2: $out"

for args in "--layers 0" "--dim 100 --heads 3" "--pos 64" "--bogus" "--iterations" "--dim abc" "--heads -2" "--warmup -1" "--warmup" "--warmup 1000001"; do
  # shellcheck disable=SC2086
  out="$("$wgprof" demo $args 2>&1)"
  status=$?
  [ "$status" -eq 2 ] && printf '%s' "$out" | grep -q -- "${args%% *}" && ok ||
    bad "demo $args: exit $status, want 2 and a message naming ${args%% *}: $out"
done
finish
