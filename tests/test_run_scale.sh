#!/usr/bin/env bash
# wgprof run at scale, and bindings of a buffer range. A generated spec of many distinct dispatch
# entries over a few buffers runs in one iteration: every dispatch is reported valid, the
# buffers read back show that each one ran, and the debug log shows the execute submitted in
# parts. A kernel bound at an offset writes exactly its range; bad offsets and sizes exit 2 with
# their JSON path. $1 is the wgprof binary.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

# ---- many dispatches: 40,000 entries, four buffers, two kernels, one iteration ----
n=40000
python3 - "$n" >scale.json <<'PY'
import json, sys
n = int(sys.argv[1])
inc = ("@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
       "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) i: vec3u) { v[i.x] = v[i.x] + 1.0; }")
add = ("@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
       "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) i: vec3u) { v[i.x] = v[i.x] + 2.0; }")
buffers = [{"name": "b%d" % k, "elements": 128} for k in range(4)]
dispatches = []
for i in range(n):
    k = i % 4
    # b0 and b1 whole; b2 and b3 by their second half, 256 bytes in.
    binding = "b%d" % k if k < 2 else {"buffer": "b%d" % k, "offset": 256}
    dispatches.append({"kernel": "add" if i % 3 == 0 else "inc", "workgroups": 1, "bindings": {"0": binding}})
json.dump({"buffers": buffers, "kernels": [{"name": "inc", "wgsl": inc}, {"name": "add", "wgsl": add}],
           "dispatches": dispatches,
           "outputs": [{"buffer": "b%d" % k, "file": "b%d.bin" % k} for k in range(4)]}, sys.stdout)
PY
if WGPROF_LOG=debug "$wgprof" run --warmup 0 --iterations 1 --quiet --csv scale.csv --json scale.json.out \
  scale.json 2>scale.err; then
  ok
else
  bad "a spec of $n dispatches failed: $(tail -5 scale.err)"
fi
python3 - "$n" <<'PY' && ok || bad "$n dispatches: reports and read-back"
import csv, json, struct, sys
n = int(sys.argv[1])
rows = list(csv.DictReader(open("scale.csv")))
assert len(rows) == n, len(rows)
assert all(r["valid"] == "1" for r in rows), "an invalid dispatch"
assert sorted(int(r["dispatch_id"]) for r in rows) == list(range(1, n + 1))
report = json.load(open("scale.json.out"))
assert report["records"] == n and report["invalid"] == 0, (report["records"], report["invalid"])
# Each buffer's bound elements got +2 from every "add" dispatch and +1 from every "inc" one.
for k in range(4):
    mine = [i for i in range(k, n, 4)]
    want = float(sum(2 if i % 3 == 0 else 1 for i in mine))
    # 64 invocations: elements 0 to 63, or 64 to 127 through the binding 256 bytes in.
    values = struct.unpack("<128f", open("b%d.bin" % k, "rb").read())
    written, untouched = (values[:64], values[64:]) if k < 2 else (values[64:], values[:64])
    assert all(v == want for v in written), (k, want, written[:4])
    assert all(v == 0 for v in untouched), (k, untouched[:4])
PY
# The execute went out in several submits, not one of 60,000 passes.
grep -Eq "^wgprof: $n dispatches in ([2-9]|[1-9][0-9]+) submits" scale.err && ok ||
  bad "no debug line of a split execute: $(grep submits scale.err)"

# ---- a binding at an offset writes its range only ----
cat >range.json <<'EOF'
{"buffers": [{"name": "o", "type": "u32", "elements": 256}],
 "kernels": [{"name": "fill", "wgsl": "@group(1) @binding(0) var<storage, read_write> v: array<u32>;\n@compute @workgroup_size(16) fn main(@builtin(global_invocation_id) i: vec3u) { if (i.x < arrayLength(&v)) { v[i.x] = i.x + 1u; } }"}],
 "dispatches": [{"kernel": "fill", "workgroups": 8, "bindings": {"1/0": {"buffer": "o", "offset": 256, "size": 128}}}],
 "outputs": [{"buffer": "o", "file": "o.bin"}]}
EOF
if "$wgprof" run --warmup 0 --iterations 1 --quiet range.json 2>range.err; then
  python3 - <<'PY' && ok || bad "the offset binding wrote outside its range"
import struct
v = struct.unpack("<256I", open("o.bin", "rb").read())
# 128 bytes at byte 256: elements 64 to 95 hold 1 to 32, and nothing else was written.
assert list(v[64:96]) == list(range(1, 33)), v[60:100]
assert all(x == 0 for x in v[:64] + v[96:]), "written outside"
PY
else
  bad "the offset binding failed: $(cat range.err)"
fi

# ---- bad offsets and sizes: exit 2 and the JSON path ----
bad_binding() { # $1: the binding's JSON, $2: text the message must hold
  cat >bad.json <<EOF
{"buffers": [{"name": "o", "elements": 256}],
 "kernels": [{"name": "k", "wgsl": "@group(1) @binding(0) var<storage, read_write> v: array<f32>;\n@compute @workgroup_size(1) fn main() { v[0] = 1.0; }"}],
 "dispatches": [{"kernel": "k", "workgroups": 1, "bindings": {"1/0": "o"}},
                {"kernel": "k", "workgroups": 1, "bindings": {"1/0": $1}}]}
EOF
  "$wgprof" run --warmup 0 --iterations 1 --quiet bad.json >/dev/null 2>bad.err
  local rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$2" bad.err; then
    ok
  else
    bad "binding $1: exit $rc, wanted 2 and '$2': $(cat bad.err)"
  fi
}
at='$.dispatches[1].bindings["1/0"]'
bad_binding '{"buffer": "o", "offset": 100}' "$at.offset: 100 is not a multiple of 256"
bad_binding '{"buffer": "o", "offset": 1024}' "$at.offset: 1024 is past the end of buffer \"o\" (1024 bytes)"
bad_binding '{"buffer": "o", "offset": -256}' "$at.offset"
bad_binding '{"buffer": "o", "offset": 256.5}' "$at.offset: expected an integer"
bad_binding '{"buffer": "o", "size": 6}' "$at.size: 6 is not a multiple of 4"
bad_binding '{"buffer": "o", "size": 0}' "$at.size: 0 is out of range"
bad_binding '{"buffer": "o", "offset": 512, "size": 768}' "$at.size: 768 bytes from offset 512 run past the end"
bad_binding '{"buffer": "o", "size": "all"}' "$at.size: expected an integer"
bad_binding '{"buffer": "o", "ofset": 256}' "$at: unknown key \"ofset\""
bad_binding '{"offset": 256}' "$at: missing \"buffer\""
bad_binding '{"buffer": "p"}' "$at: unknown buffer \"p\""
bad_binding '[256]' "$at: expected a buffer name or {\"buffer\", \"offset\", \"size\"}"

finish
