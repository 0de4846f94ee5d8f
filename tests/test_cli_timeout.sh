#!/usr/bin/env bash
# --timeout on a kernel that does not end: `wgprof run` gives up on the iteration, prints what the
# completed iterations measured, and exits 3 soon after the time-out, never hanging. Every
# command runs under `timeout 60`, so that the test itself never hangs.
#
# The kernel: each invocation loops until a buffer holds a value nothing ever writes, read with
# atomicLoad each time round, so that the shader compiler can neither prove the loop infinite nor
# hoist the load. llvmpipe ends any invocation after 65535 loop iterations (its loop limiter,
# LP_MAX_TGSI_LOOP_ITERATIONS), so one invocation alone would end in milliseconds: the dispatch
# has 65535 x 65535 workgroups of 64 invocations, each workgroup about 50 ms of looping on
# lavapipe: years. A GPU without such a limiter loops forever in the first invocation.
# $1 is the wgprof binary.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

# elapsed COMMAND...: runs it under `timeout 60`; sets $status and $seconds.
elapsed() {
  local start end
  start="$(date +%s%N)"
  timeout 60 "$@"
  status=$?
  end="$(date +%s%N)"
  seconds=$(((end - start) / 1000000000))
}

spin='@group(0) @binding(0) var<storage, read_write> s: array<atomic<u32>>;\n@compute @workgroup_size(64)\nfn main() {\n  if (atomicLoad(&s[2]) < FROM) { return; }\n  loop {\n    if (atomicLoad(&s[0]) == 12345u) { break; }\n    atomicAdd(&s[1], 1u);\n  }\n}\n'
count='@group(0) @binding(0) var<storage, read_write> s: array<atomic<u32>>;\n@compute @workgroup_size(1)\nfn main() { atomicAdd(&s[2], 1u); }\n'

# Every dispatch spins.
printf '{"buffers": [{"name": "s", "type": "u32", "elements": 4}],
 "kernels": [{"name": "spin", "wgsl": "%s"}],
 "dispatches": [{"kernel": "spin", "workgroups": [65535, 65535, 1], "bindings": {"0": "s"}}]}\n' \
  "${spin//FROM/0u}" >forever.json
elapsed "$wgprof" run --timeout 5 forever.json >forever.out 2>forever.err
[ "$status" -eq 3 ] && [ "$seconds" -lt 15 ] && ok ||
  bad "an endless kernel with --timeout 5: exit $status after $seconds s (want 3 within 15 s): $(tail -5 forever.err)"
grep -q -- "--timeout" forever.err && ok || bad "the time-out is not explained: $(tail -5 forever.err)"

# Each iteration first counts itself (s[2]), then runs the spinning dispatch, whose invocations
# return at once in the first two iterations (256 x 256 workgroups: a fraction of a second on
# lavapipe, even beside other tests and under AddressSanitizer) and spin from the third on (an
# hour): the two measured iterations that completed are reported, in the table and in the JSON
# report.
printf '{"buffers": [{"name": "s", "type": "u32", "elements": 4}],
 "kernels": [{"name": "count", "wgsl": "%s"}, {"name": "third", "wgsl": "%s"}],
 "dispatches": [{"kernel": "count", "workgroups": 1, "bindings": {"0": "s"}},
                {"kernel": "third", "workgroups": [256, 256, 1], "bindings": {"0": "s"}}]}\n' \
  "$count" "${spin//FROM/3u}" >third.json
elapsed "$wgprof" run --warmup 0 --iterations 5 --timeout 5 --json third.report.json third.json >third.out 2>third.err
[ "$status" -eq 3 ] && [ "$seconds" -lt 15 ] && ok ||
  bad "a kernel ending twice then spinning: exit $status after $seconds s (want 3 within 15 s): $(tail -5 third.err)"
grep -q '^third ' third.out && ok || bad "no table of the completed iterations: $(cat third.out)"
python3 - <<'PY' && ok || bad "the JSON report of the completed iterations: $(head -c 300 third.report.json)"
import json
r = json.load(open("third.report.json"))
valid = [d for d in r["dispatches"] if d["valid"] and d["kernel"] == "third"]
assert r["iterations"] == 2 and len(valid) == 2 and all(d["duration_ns"] > 0 for d in valid), r["iterations"]
PY
finish
