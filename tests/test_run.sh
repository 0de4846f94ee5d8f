#!/usr/bin/env bash
# wgprof run as a user meets it. Every example runs with valid timings and its trace, CSV and
# JSON files are checked; the copy example's GB/s is recomputed by hand from the per-dispatch
# rows; and malformed specs of every kind give exit code 2 and a message naming the place.
# $1 is the wgprof binary, $2 the examples folder.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
. "$(dirname "$0")/harness.sh"
# A spec's outputs are written relative to the spec's folder: the examples run from a copy, so
# that the source tree is never written to.
cp -R "$2" "$tmp/examples" || exit 1
examples="$tmp/examples"
cd "$tmp" || exit 1

# ---- the examples ----
for name in matmul reduction softmax copy; do
  if ! "$wgprof" run --warmup 1 --iterations 3 --quiet --trace "$name.trace.json" --csv "$name.csv" \
    --csv-summary "$name.summary.csv" --json "$name.json" "$examples/$name.json" 2>"$name.err"; then
    bad "example $name failed: $(cat "$name.err")"
    continue
  fi
  python3 - "$name" <<'PY' && ok || bad "example $name: reports"
import csv, json, sys
name = sys.argv[1]
trace = json.load(open(name + ".trace.json"))
events = trace["traceEvents"]
dispatches = [e for e in events if e.get("ph") == "X" and e.get("cat") == "dispatch"]
iterations = [e for e in events if e.get("ph") == "X" and e.get("cat") == "iteration"]
assert dispatches and len(iterations) == 3, (len(dispatches), len(iterations))
names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
gpu = [pid for pid, n in names.items() if n.startswith("GPU")]
assert len(gpu) == 1 and "CPU" in names.values(), names
for e in dispatches:
    assert e["dur"] > 0 and e["ts"] >= 0 and e["pid"] == gpu[0] and e["tid"] == 1
    a = e["args"]
    assert a["valid"] is True and len(a["workgroups"]) == 3 and a["dispatch_id"] >= 1
assert {e["args"]["iteration"] for e in dispatches} == {0, 1, 2}
# One timeline: each iteration's submit on the CPU comes before its first dispatch on the GPU,
# to within the clock fit's uncertainty.
slack = trace["otherData"]["clock_uncertainty_ns"] / 1e3
submits = {e["args"]["iteration"]: e["ts"] for e in events if e.get("cat") == "cpu" and e["name"] == "submit"}
for it in (0, 1, 2):
    first = min(e["ts"] for e in dispatches if e["args"]["iteration"] == it)
    assert submits[it] <= first + slack, (it, submits[it], first, slack)
report = json.load(open(name + ".json"))
assert report["iterations"] == 3 and report["invalid"] == 0
assert len(report["dispatches"]) == len(dispatches)
rows = list(csv.DictReader(open(name + ".csv")))
assert len(rows) == len(dispatches) and all(r["valid"] == "1" and float(r["duration_ns"]) > 0 for r in rows)
summary = list(csv.DictReader(open(name + ".summary.csv")))
assert {r["kernel"] for r in summary} == {k["name"] for k in report["kernels"]}
PY
done

# Efficiency by hand: the copy moves 33554432 bytes per dispatch.
python3 <<'PY' && ok || bad "copy example: GB/s does not match bytes / time"
import csv
rows = list(csv.DictReader(open("copy.csv")))
total_ns = sum(float(r["duration_ns"]) for r in rows)
by_hand = 33554432 * len(rows) / total_ns
reported = float(next(csv.DictReader(open("copy.summary.csv")))["gbps"])
assert abs(reported - by_hand) <= 0.0005 + 1e-6 * by_hand, (reported, by_hand)
PY

# The reduction's result, read back through the spec's outputs: 4 partial sums of 65536 ones.
python3 -c 'import struct,sys; v=struct.unpack("4f", open("examples/reduction_result.bin","rb").read()); sys.exit(v != (65536.0,)*4)' &&
  ok || bad "reduction result"
"$wgprof" run --quiet --warmup 0 --iterations 1 "$examples/matmul.json" 2>/dev/null &&
  python3 - <<'PY' && ok || bad "naive and tiled matmul disagree"
import struct
n = 128 * 128
a = struct.unpack(f"{n}f", open("examples/matmul_naive.bin", "rb").read())
b = struct.unpack(f"{n}f", open("examples/matmul_tiled.bin", "rb").read())
assert max(abs(x - y) for x, y in zip(a, b)) < 1e-3 and max(abs(x) for x in a) > 0
PY

# A spec's paths (wgsl_file, outputs) are relative to its folder, wherever wgprof runs.
mkdir -p elsewhere/specs && cp "$examples/reduction.json" elsewhere/specs/ && cp -R "$examples/kernels" elsewhere/specs/
(cd elsewhere && "$wgprof" run --quiet --warmup 0 --iterations 1 specs/reduction.json 2>/dev/null) &&
  [ -f elsewhere/specs/reduction_result.bin ] && [ ! -e elsewhere/reduction_result.bin ] &&
  ok || bad "outputs[].file is not relative to the spec's folder"

table="$("$wgprof" run --warmup 1 --iterations 2 --peak-gbps 100 "$examples/copy.json" 2>/dev/null)"
printf '%s' "$table" | grep -q 'copy_16MiB' && printf '%s' "$table" | grep -q 'of_peak' &&
  printf '%s' "$table" | grep -Eq '[0-9.]+%' && ok || bad "table with --peak-gbps: $table"

# Fail-open: without timestamp queries the spec still runs, exits 0, and the report says why.
if WGPROF_DISABLE_TIMESTAMPS=1 "$wgprof" run --quiet --warmup 0 --iterations 1 --json open.json \
  "$examples/reduction.json" 2>/dev/null; then
  python3 - <<'PY' && ok || bad "fail-open run: JSON report"
import json, struct
r = json.load(open("open.json"))
assert r["profiling"] is False and "disabled" in r["unavailable_reason"] and r["dispatches"] == []
assert struct.unpack("4f", open("examples/reduction_result.bin", "rb").read()) == (65536.0,) * 4
PY
else
  bad "fail-open run exited non-zero"
fi

# ---- bad input: exit 2 and the place ----
write() { cat >"$1"; }
expect() { # expect FILE PATTERN: wgprof run FILE exits 2 and prints PATTERN
  local out status
  out="$("$wgprof" run --quiet --warmup 0 --iterations 1 "$1" 2>&1)"
  status=$?
  if [ "$status" -eq 2 ] && printf '%s' "$out" | grep -Fq -- "$2"; then ok; else
    bad "$1: exit $status (want 2), want '$2' in: $out"
  fi
}
wgsl='@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] = v[id.x] + 1.0; }'
good_kernel="{\"name\": \"k\", \"wgsl\": \"$wgsl\"}"
good_buffer='{"name": "v", "elements": 64}'
good_dispatch='{"kernel": "k", "workgroups": 1, "bindings": {"0": "v"}}'
spec() { printf '{"buffers": [%s], "kernels": [%s], "dispatches": [%s]}\n' "$1" "$2" "$3"; }

printf '{"kernels": [\n  {"name": "k",, }\n]}\n' | write syntax.json
expect syntax.json "syntax.json:2:"
printf '[1, 2]' | write array.json
expect array.json 'array.json: $: a spec is a JSON object, not an array'
printf '{"buffers": [], "dispatches": []}' | write nokernels.json
expect nokernels.json 'missing "kernels"'
printf '{"kernels": [%s]}' "$good_kernel" | write nodispatches.json
expect nodispatches.json 'missing "dispatches"'
printf '{"kernels": [%s], "dispatches": [%s], "dispatchs": []}' "$good_kernel" "$good_dispatch" | write typo.json
expect typo.json 'unknown key "dispatchs"'
spec '{"name": "v"}' "$good_kernel" "$good_dispatch" | write nosize.json
expect nosize.json '$.buffers[0]: missing "elements" or "bytes"'
spec '{"name": "v", "elements": "many"}' "$good_kernel" "$good_dispatch" | write wrongtype.json
expect wrongtype.json '$.buffers[0].elements: expected an integer'
spec '{"name": "v", "bytes": 10}' "$good_kernel" "$good_dispatch" | write bytes.json
expect bytes.json 'not a multiple of 4'
spec "$good_buffer, $good_buffer" "$good_kernel" "$good_dispatch" | write dupbuffer.json
expect dupbuffer.json '$.buffers[1]: buffer name "v" is used twice'
# Names in parentheses are wgprof's own rows ((reference), record's (copy)).
spec '{"name": "(v)", "elements": 64}' "$good_kernel" '{"kernel": "k", "workgroups": 1, "bindings": {"0": "(v)"}}' |
  write ownbuffer.json
expect ownbuffer.json '$.buffers[0]: buffer name "(v)": names starting with "(" are wgprof'"'"'s own rows'
spec "$good_buffer" "{\"name\": \"(reference)\", \"wgsl\": \"$wgsl\"}" '{"kernel": "(reference)", "workgroups": 1, "bindings": {"0": "v"}}' |
  write ownkernel.json
expect ownkernel.json '$.kernels[0]: kernel name "(reference)": names starting with "("'
spec "$good_buffer" "$good_kernel" '{"kernel": "k", "label": "(copy)", "workgroups": 1, "bindings": {"0": "v"}}' |
  write ownlabel.json
expect ownlabel.json '$.dispatches[0]: label "(copy)": names starting with "("'
spec "$good_buffer" "$good_kernel" '{"kernel": "k", "workgroups": 1, "bindings": {"0": "nope"}}' | write unknownbuf.json
expect unknownbuf.json '$.dispatches[0].bindings["0"]: unknown buffer "nope"'
spec "$good_buffer" "$good_kernel" '{"kernel": "q", "workgroups": 1}' | write unknownkernel.json
expect unknownkernel.json '$.dispatches[0]: unknown kernel "q"'
spec "$good_buffer" "$good_kernel" '{"kernel": "k", "workgroups": 0, "bindings": {"0": "v"}}' | write zero.json
expect zero.json '$.dispatches[0].workgroups: 0 is out of range'
spec "$good_buffer" "$good_kernel" '{"kernel": "k", "workgroups": 1, "repeat": 0, "bindings": {"0": "v"}}' | write repeat.json
expect repeat.json '$.dispatches[0].repeat: 0 is out of range'
spec "$good_buffer" "$good_kernel" '{"kernel": "k", "workgroups": 1, "bindings": {"x": "v"}}' | write bindkey.json
expect bindkey.json 'a binding is named by its number'
spec "$good_buffer" '{"name": "k", "wgsl": "x", "wgsl_file": "k.wgsl"}' "$good_dispatch" | write both.json
expect both.json '$.kernels[0]: give exactly one of "wgsl"'
spec "$good_buffer" '{"name": "k", "wgsl_file": "missing.wgsl"}' "$good_dispatch" | write nofile.json
expect nofile.json "\$.kernels[0].wgsl_file: cannot read 'missing.wgsl': No such file or directory"
spec '{"name": "v", "init": {"file": "missing.bin"}}' "$good_kernel" "$good_dispatch" | write noinit.json
expect noinit.json "\$.buffers[0].init: cannot read 'missing.bin'"
spec '{"name": "v", "elements": 64, "init": {"random": {"min": 2, "max": 1}}}' "$good_kernel" "$good_dispatch" | write minmax.json
expect minmax.json '$.buffers[0].init.random: max (1) is below min (2)'
printf '{"kernels": [], "kernels": []}' | write dupkey.json
expect dupkey.json 'dupkey.json:1:'
expect "$tmp/absent.json" "absent.json"
# What only the device can tell.
spec "$good_buffer" '{"name": "k", "wgsl": "fn main( {"}' "$good_dispatch" | write wgsl.json
expect wgsl.json 'wgsl.json: $.kernels[0].wgsl:1:10: error: ' # the words are naga's or Tint's
spec "$good_buffer" "{\"name\": \"k\", \"entry\": \"other\", \"wgsl\": \"$wgsl\"}" "$good_dispatch" | write entry.json
expect entry.json 'no pipeline for entry point "other"'
spec "$good_buffer" "$good_kernel" '{"kernel": "k", "workgroups": 1, "bindings": {"0": "v", "5": "v"}}' | write extra.json
expect extra.json '$.dispatches[0].bindings: binds group 0 binding 5, which kernel "k" does not declare'
spec "$good_buffer" "$good_kernel" '{"kernel": "k", "workgroups": 1}' | write missingbind.json
expect missingbind.json '$.dispatches[0].bindings: kernel "k" uses group 0 (binding 0:'
spec "$good_buffer" "$good_kernel" '{"kernel": "k", "workgroups": [70000, 1, 1], "bindings": {"0": "v"}}' | write limit.json
expect limit.json "\$.dispatches[0].workgroups[0]: 70000 exceeds the device's limit of 65535"

# Usage errors.
out="$("$wgprof" run 2>&1)"; [ $? -eq 2 ] && printf '%s' "$out" | grep -q 'no spec file' && ok || bad "run without spec"
out="$("$wgprof" run --iterations 0 x.json 2>&1)"; [ $? -eq 2 ] && printf '%s' "$out" | grep -q -- '--iterations 0' && ok || bad "iterations 0"
out="$("$wgprof" run --strategy fast x.json 2>&1)"; [ $? -eq 2 ] && printf '%s' "$out" | grep -q -- '--strategy fast' && ok || bad "bad strategy"
out="$("$wgprof" run --frobnicate x.json 2>&1)"; [ $? -eq 2 ] && printf '%s' "$out" | grep -q "unknown option '--frobnicate'" && ok || bad "unknown option"
"$wgprof" run --help | grep -q -- '--csv-summary FILE' && ok || bad "run --help"
# Nothing is written when the spec is bad.
"$wgprof" run --json never.json wgsl.json >/dev/null 2>&1; [ ! -e never.json ] && ok || bad "a report was written for a bad spec"
# ---- init values outside their buffer's type: refused, never rounded, wrapped or clamped ----
coerce() { # coerce NAME TYPE INIT PATTERN
  spec "{\"name\": \"v\", \"elements\": 64, \"type\": \"$2\", \"init\": $3}" "$good_kernel" "$good_dispatch" >"$1.json"
  expect "$1.json" "$4"
}
coerce u32neg u32 '{"constant": -1}' '$.buffers[0].init.constant: -1 is not a u32'
coerce f32big f32 '{"constant": 1e40}' '$.buffers[0].init.constant: 1e+40 is outside the range of f32'
coerce i32frac i32 '{"constant": 3.7}' '$.buffers[0].init.constant: 3.7 is not an i32'
coerce u32frac u32 '{"random": {"seed": 1, "min": 0.5, "max": 0.6}}' '$.buffers[0].init.random.min: 0.5 is not a u32'
coerce i32big i32 '{"random": {"seed": 1, "min": 0, "max": 3e9}}' '$.buffers[0].init.random.max: 3e+09 is not an i32'

# ---- the workgroup size, read from the shader: literals, and overrides resolved ----
# The llama.cpp style: @workgroup_size(WG_SIZE) with WG_SIZE an override the spec's constants set.
wg_override='override WG_SIZE: u32 = 64;\n@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n@compute @workgroup_size(WG_SIZE) fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] = v[id.x] + 1.0; }'
for case in "256:\"constants\": {\"WG_SIZE\": 256}" "64:\"entry\": \"main\""; do
  size="${case%%:*}"
  spec '{"name": "v", "elements": 1024}' "{\"name\": \"k\", \"wgsl\": \"$wg_override\", ${case#*:}}" \
    '{"kernel": "k", "workgroups": 2, "bindings": {"0": "v"}}' >"override$size.json"
  if "$wgprof" run --quiet --warmup 0 --iterations 1 --csv "override$size.csv" "override$size.json" 2>"override$size.err"; then
    python3 - "override$size.csv" "$size" <<'PY' && ok || bad "override $size: the CSV's sizes: $(cat "override$size.csv")"
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
size = int(sys.argv[2])
assert (int(row["local_x"]), int(row["global_x"]), int(row["wg_x"])) == (size, 2 * size, 2), row
PY
  else
    bad "override $size: $(cat "override$size.err")"
  fi
done
spec '{"name": "v", "elements": 1024}' \
  "{\"name\": \"k\", \"wgsl\": \"$wg_override\", \"constants\": {\"WG_SIZE\": 128}, \"workgroup_size\": 64}" \
  '{"kernel": "k", "workgroups": 2, "bindings": {"0": "v"}}' >wgmismatch.json
expect wgmismatch.json '$.kernels[0].workgroup_size: [64, 1, 1] disagrees with the shader'"'"'s @workgroup_size, [128, 1, 1]'
wg_expr='const HALF: u32 = 32u;\n@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n@compute @workgroup_size(HALF * 2u) fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] = v[id.x] + 1.0; }'
spec "$good_buffer" "{\"name\": \"k\", \"wgsl\": \"$wg_expr\"}" "$good_dispatch" >wgexpr.json
expect wgexpr.json 'cannot tell the workgroup size'
spec "$good_buffer" "{\"name\": \"k\", \"wgsl\": \"$wg_expr\", \"workgroup_size\": 64}" "$good_dispatch" >wgexprgiven.json
"$wgprof" run --quiet --warmup 0 --iterations 1 wgexprgiven.json 2>/dev/null && ok ||
  bad "an expression the spec's workgroup_size stands for does not run"

# ---- --shader-checks: the kernels compiled without the implementation's runtime checks ----
# wgpu-native can drop them (wgpuDeviceCreateShaderModuleTrusted): the same results, and the
# reports name the setting. Dawn cannot: exit 2 and a message that says so.
loop_wgsl='override ITERS: u32 = 8u;\n@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) { var x = f32(id.x) * 0.01; for (var k = 0u; k < ITERS; k++) { x = fma(x, 0.5, 1.0); } v[id.x] = x; }'
spec '{"name": "v", "elements": 1024}' "{\"name\": \"k\", \"wgsl\": \"$loop_wgsl\", \"constants\": {\"ITERS\": 100}}" \
  '{"kernel": "k", "workgroups": 16, "bindings": {"0": "v"}}' |
  sed 's|}$|, "outputs": [{"buffer": "v", "file": "loop.bin"}]}|' >loop.json
implementation="$("$wgprof" info --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["implementation"])')"
"$wgprof" run --quiet --warmup 0 --iterations 1 loop.json 2>/dev/null && mv loop.bin loop.default.bin ||
  bad "loop kernel with the default checks"
for checks in none no-loop-bounding; do
  out="$("$wgprof" run --warmup 0 --iterations 2 --json "loop.$checks.json" --shader-checks "$checks" loop.json 2>&1)"
  status=$?
  case "$implementation" in
  wgpu-native*)
    [ "$status" -eq 0 ] && printf '%s' "$out" | head -n 1 | grep -q "| shader checks $checks\$" &&
      python3 - "loop.$checks.json" "$checks" <<'PY' && cmp -s loop.bin loop.default.bin && ok ||
import json, sys
r = json.load(open(sys.argv[1]))
assert r["shader_checks"] == sys.argv[2] and r["adapter"]["implementation"].startswith("wgpu-native"), r["shader_checks"]
assert r["invalid"] == 0 and len(r["dispatches"]) == 2
PY
      bad "--shader-checks $checks on $implementation: exit $status: $out"
    ;;
  *)
    [ "$status" -eq 2 ] && printf '%s' "$out" | grep -q -- "--shader-checks $checks: .*only wgpu-native can drop them" &&
      [ ! -e "loop.$checks.json" ] && ok || bad "--shader-checks $checks on $implementation: exit $status (want 2): $out"
    ;;
  esac
done
out="$("$wgprof" run --shader-checks off x.json 2>&1)"; [ $? -eq 2 ] && printf '%s' "$out" | grep -q -- '--shader-checks off: expected default, no-loop-bounding or none' && ok || bad "bad --shader-checks"
"$wgprof" run --help | grep -q -- '--shader-checks C' && ok || bad "run --help names --shader-checks"

finish
