#!/usr/bin/env bash
# The demo end to end: every kernel of the decode step timed with valid positive durations in
# the JSON report, the same checksum with and without profiling (and with each strategy and
# attention variant), and exit code 2 for bad flags. $1 is the wgprof binary.
set -u
wgprof="$1"
. "$(dirname "$0")/harness.sh"
checksum() { grep '^checksum:' | cut -d' ' -f2; }

plain="$("$wgprof" demo 2>/dev/null | checksum)"
[ -n "$plain" ] && ok || bad "unprofiled demo printed no checksum"
"$wgprof" demo 2>/dev/null | grep -q 'us' && bad "unprofiled demo printed a timing" || ok

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

for args in "--layers 0" "--dim 100 --heads 3" "--pos 64" "--bogus" "--iterations" "--dim abc" "--heads -2"; do
  # shellcheck disable=SC2086
  out="$("$wgprof" demo $args 2>&1)"
  status=$?
  [ "$status" -eq 2 ] && printf '%s' "$out" | grep -q -- "${args%% *}" && ok ||
    bad "demo $args: exit $status, want 2 and a message naming ${args%% *}: $out"
done
finish
