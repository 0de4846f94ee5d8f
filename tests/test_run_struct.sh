#!/usr/bin/env bash
# wgprof run's struct inits and boolean overrides, on the device. A kernel copies every field of
# a mixed uniform struct into a storage buffer, and the struct's own bytes are read back too:
# both are checked exactly against the WGSL layout (offsets, vec3 alignment, f16 rounding to
# nearest even, as Python's struct module packs it). Bad fields give exit 2 and their JSON path.
# The rms_norm and particles examples run and their outputs are checked against Python.
# $1 is the wgprof binary, $2 the examples folder.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
. "$(dirname "$0")/harness.sh"
cp -R "$2" "$tmp/examples" || exit 1
examples="$tmp/examples"
cd "$tmp" || exit 1
run() { "$wgprof" run --quiet --warmup 0 --iterations 1 "$@"; }

# ---- a mixed struct, read by a kernel and read back raw ----
# WGSL as the spec's fields lie: the f16 values are read through u32 with unpack2x16float, so
# that the device needs no shader-f16.
cat >mixed.wgsl <<'EOF'
struct Mixed {
    a: u32,               // 0
    b: i32,               // 4
    c: f32,               // 8
    halves: u32,          // 12: two f16
    v3: vec3f,            // 16: a vec3 aligns as a vec4
    t: u32,               // 28: in the vec3's last slot
    v2: vec2i,            // 32
    @size(24) hv: vec2u,  // 40: a vec3h and an f16, then zeros up to the explicit offset
    v4: vec4u,            // 64
}
@group(0) @binding(0) var<uniform> p: Mixed;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let h = unpack2x16float(p.halves);
    let h01 = unpack2x16float(p.hv.x);
    let h23 = unpack2x16float(p.hv.y);
    let words = array<u32, 19>(p.a, bitcast<u32>(p.b), bitcast<u32>(p.c), bitcast<u32>(h.x), bitcast<u32>(h.y),
        bitcast<u32>(p.v3.x), bitcast<u32>(p.v3.y), bitcast<u32>(p.v3.z), p.t, bitcast<u32>(p.v2.x),
        bitcast<u32>(p.v2.y), bitcast<u32>(h01.x), bitcast<u32>(h01.y), bitcast<u32>(h23.x), bitcast<u32>(h23.y),
        p.v4.x, p.v4.y, p.v4.z, p.v4.w);
    for (var i = 0u; i < 19u; i++) {
        out[i] = words[i];
    }
}
EOF
cat >mixed.json <<'EOF'
{
  "buffers": [
    {"name": "params", "init": {"struct": [
      {"name": "a", "type": "u32", "value": 4000000000},
      {"name": "b", "type": "i32", "value": -123456},
      {"name": "c", "type": "f32", "value": 1e-5},
      {"name": "h0", "type": "f16", "value": 0.5},
      {"name": "h1", "type": "f16", "value": -65504},
      {"name": "v3", "type": "vec3f", "value": [1.5, -2, 3.25]},
      {"name": "t", "type": "u32", "value": 7},
      {"name": "v2", "type": "vec2<i32>", "value": [-2147483648, 2147483647]},
      {"name": "hv", "type": "vec3h", "value": [0.1, 2049, 6e-8]},
      {"type": "f16", "value": -0.333333},
      {"name": "v4", "type": "vec4u", "value": [1, 2, 3, 4294967295], "offset": 64}
    ]}},
    {"name": "out", "type": "u32", "elements": 19},
    {"name": "wide", "bytes": 256, "init": {"struct": [{"type": "u32", "value": 3}, {"type": "vec2h", "value": [65504, -1e-9]}]}},
    {"name": "half", "init": {"struct": [{"type": "f16", "value": 1}]}}
  ],
  "kernels": [{"name": "copy_fields", "wgsl_file": "mixed.wgsl"}],
  "dispatches": [{"kernel": "copy_fields", "workgroups": 1, "bindings": {"0": "params", "1": "out"}}],
  "outputs": [
    {"buffer": "params", "file": "params.bin"}, {"buffer": "out", "file": "fields.bin"},
    {"buffer": "wide", "file": "wide.bin"}, {"buffer": "half", "file": "half.bin"}
  ]
}
EOF
if run mixed.json 2>mixed.err; then
  python3 - <<'PY' && ok || bad "mixed struct: the bytes or the fields the kernel read"
import struct
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
f16 = lambda x: struct.unpack("<e", struct.pack("<e", x))[0]  # nearest, ties to even
# The struct's bytes: every field at its WGSL offset, zeros between, 80 bytes (5 rows of 16).
want = bytearray(80)
struct.pack_into("<Iif", want, 0, 4000000000, -123456, 1e-5)
struct.pack_into("<2e", want, 12, 0.5, -65504)
struct.pack_into("<3fI", want, 16, 1.5, -2, 3.25, 7)
struct.pack_into("<2i", want, 32, -2147483648, 2147483647)
struct.pack_into("<4e", want, 40, 0.1, 2049, 6e-8, -0.333333)
struct.pack_into("<4I", want, 64, 1, 2, 3, 4294967295)
got = open("params.bin", "rb").read()
assert got == bytes(want), (got.hex(), bytes(want).hex())
assert struct.unpack_from("<e", got, 42)[0] == 2048  # 2049 lies between 2048 and 2050: to even
# The same values, as the shader read them.
words = struct.unpack("<19I", open("fields.bin", "rb").read())
as_f = lambda w: struct.unpack("<f", struct.pack("<I", w))[0]
as_i = lambda w: struct.unpack("<i", struct.pack("<I", w))[0]
assert words[0] == 4000000000 and as_i(words[1]) == -123456 and as_f(words[2]) == f32(1e-5)
assert [as_f(w) for w in words[3:8]] == [0.5, -65504, 1.5, -2, 3.25], words[3:8]
assert words[8] == 7 and (as_i(words[9]), as_i(words[10])) == (-2147483648, 2147483647)
assert [as_f(w) for w in words[11:15]] == [f16(0.1), 2048, f16(6e-8), f16(-0.333333)], words[11:15]
assert list(words[15:19]) == [1, 2, 3, 4294967295]
# A given size larger than the struct: the rest is zeros. -1e-9 rounds to f16's -0.
wide = open("wide.bin", "rb").read()
assert len(wide) == 256 and wide == struct.pack("<I2e", 3, 65504, -0.0) + bytes(248), wide[:8].hex()
# Without a size, the struct's rounded up to 16 bytes.
assert open("half.bin", "rb").read() == struct.pack("<e", 1) + bytes(14)
PY
else
  bad "mixed struct spec failed: $(cat mixed.err)"
fi

# ---- boolean overrides: true is 1, false is 0 ----
flag_wgsl='override FLAG: bool = false;\noverride OTHER: bool = true;\noverride SCALE: f32 = 1.0;\n@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n@compute @workgroup_size(1) fn main() { v[0] = select(1.0, 2.0, FLAG) * SCALE; v[1] = select(0.0, 1.0, OTHER); }'
for flag in true false; do
  printf '{"buffers": [{"name": "v", "elements": 2}], "kernels": [{"name": "k", "wgsl": "%s", "constants": {"FLAG": %s, "OTHER": %s, "SCALE": 3}}], "dispatches": [{"kernel": "k", "workgroups": 1, "bindings": {"0": "v"}}], "outputs": [{"buffer": "v", "file": "flag_%s.bin"}]}\n' \
    "$flag_wgsl" "$flag" "$([ "$flag" = true ] && echo false || echo true)" "$flag" >"flag_$flag.json"
  if run "flag_$flag.json" 2>"flag_$flag.err"; then
    python3 -c 'import struct,sys; v=struct.unpack("2f", open(f"flag_{sys.argv[1]}.bin","rb").read()); sys.exit(v != ((6.0, 0.0) if sys.argv[1] == "true" else (3.0, 1.0)))' "$flag" &&
      ok || bad "boolean override $flag: wrong values in flag_$flag.bin"
  else
    bad "boolean override $flag: $(cat "flag_$flag.err")"
  fi
done

# ---- the examples ----
if run "$examples/rms_norm.json" 2>rms.err; then
  python3 - "$examples" <<'PY' && ok || bad "rms_norm: dst is not the RMS norm of src times weight"
import math, struct, sys
def floats(name):
    data = open(f"{sys.argv[1]}/{name}", "rb").read()
    return struct.unpack(f"<{len(data) // 4}f", data)
src, weight, dst = floats("rms_norm_src.bin"), floats("rms_norm_weight.bin"), floats("rms_norm_dst.bin")
ne00, nrows, stride, offset, eps = 1024, 256, 1056, 64, 1e-5  # the spec's Params
assert len(dst) == ne00 * nrows and len(weight) == ne00 and len(src) == offset + nrows * stride
worst = 0.0
for r in range(nrows):
    x = src[offset + r * stride: offset + r * stride + ne00]
    scale = 1 / math.sqrt(sum(v * v for v in x) / ne00 + eps)
    for i in range(ne00):
        want = x[i] * scale * weight[i]
        worst = max(worst, abs(dst[r * ne00 + i] - want) / max(1.0, abs(want)))
assert worst < 1e-5 and max(abs(v) for v in dst) > 0.5, worst
PY
else
  bad "rms_norm example failed: $(cat rms.err)"
fi
# Two ping-pong steps per iteration, whatever the count: a must be one step of b.
if run "$examples/particles.json" 2>particles.err; then
  python3 - "$examples" <<'PY' && ok || bad "particles: a is not one step of b"
import math, struct, sys
def particles(name):
    v = struct.unpack("<4096f", open(f"{sys.argv[1]}/{name}", "rb").read())
    return [v[i:i + 4] for i in range(0, 4096, 4)]
a, b = particles("particles_a.bin"), particles("particles_b.bin")
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
dt, dc, ds, da, sc, ss, sa, vmax = map(f32, (0.04, 0.1, 0.025, 0.025, 0.02, 0.05, 0.005, 0.1))  # SimParams
count = 1000
assert all(p == (0.0,) * 4 for p in b[count:]), "b was written past count"
near = lambda x, edge: abs(x - edge) < 1e-5
ambiguous = worst = 0
for i in range(count):
    px, py, vx, vy = b[i]
    cx = cy = ax = ay = hx = hy = 0.0
    nc = nh = 0
    unsure = False
    for j in range(count):
        if j == i:
            continue
        qx, qy, qvx, qvy = b[j]
        d = math.hypot(qx - px, qy - py)
        unsure = unsure or near(d, dc) or near(d, ds)
        if d < dc:
            cx += qx; cy += qy; nc += 1
        if d < ds:
            ax += px - qx; ay += py - qy
        if d < da:
            hx += qvx; hy += qvy; nh += 1
    if nc:
        vx += (cx / nc - px) * sc; vy += (cy / nc - py) * sc
    vx += ax * ss; vy += ay * ss
    if nh:
        vx += hx / nh * sa; vy += hy / nh * sa
    speed = math.hypot(vx, vy)
    if speed > vmax:
        vx *= vmax / speed; vy *= vmax / speed
    mx, my = px + vx * dt, py + vy * dt
    mx = mx - 2 * math.copysign(1, mx) if abs(mx) > 1 else mx
    my = my - 2 * math.copysign(1, my) if abs(my) > 1 else my
    if unsure:  # a neighbour at a distance threshold, where f32 and double may decide apart
        ambiguous += 1
        continue
    gap = [abs(g - w) for g, w in zip(a[i], (mx, my, vx, vy))]
    gap[0], gap[1] = min(gap[0], 2 - gap[0]), min(gap[1], 2 - gap[1])  # positions wrap
    worst = max(worst, max(gap))
assert worst < 1e-5 and ambiguous < count // 20, (worst, ambiguous)
assert a[:count] != b[:count]
PY
else
  bad "particles example failed: $(cat particles.err)"
fi

# ---- bad fields: exit 2 and the JSON path ----
expect() { # expect FILE PATTERN: wgprof run FILE exits 2 and prints PATTERN
  local out status
  out="$(run "$1" 2>&1)"
  status=$?
  if [ "$status" -eq 2 ] && printf '%s' "$out" | grep -Fq -- "$2"; then ok; else
    bad "$1: exit $status (want 2), want '$2' in: $out"
  fi
}
kernel='{"name": "k", "wgsl": "@group(0) @binding(0) var<uniform> p: vec4u;\n@compute @workgroup_size(1) fn main() { _ = p; }"}'
with_buffer() { # with_buffer NAME BUFFER PATTERN
  printf '{"buffers": [{"name": "x", "elements": 4}, %s], "kernels": [%s], "dispatches": [{"kernel": "k", "workgroups": 1, "bindings": {"0": "p"}}]}\n' \
    "$2" "$kernel" >"$1.json"
  expect "$1.json" "$3"
}
fields() { with_buffer "$1" "{\"name\": \"p\", \"init\": {\"struct\": [$2]}}" "$3"; }
fields u32neg '{"name": "n", "type": "u32", "value": -1}' '$.buffers[1].init.struct[0].value (field "n"): -1 is not a u32'
fields u32big '{"type": "u32", "value": 1}, {"type": "u32", "value": 4294967296}' '$.buffers[1].init.struct[1].value: 4.29497e+09 is not a u32'
fields i32frac '{"type": "i32", "value": 0.5}' '$.buffers[1].init.struct[0].value: 0.5 is not an i32'
fields f16big '{"type": "f16", "value": -65505}' '$.buffers[1].init.struct[0].value: -65505 is outside the range of f16'
fields f32big '{"type": "vec2f", "value": [1, 1e39]}' '$.buffers[1].init.struct[0].value[1]: 1e+39 is outside the range of f32'
fields unknowntype '{"name": "x", "type": "f64", "value": 1}' '$.buffers[1].init.struct[0].type (field "x"): "f64" is not a field type'
fields vec5 '{"type": "vec5f", "value": [1, 2, 3, 4, 5]}' '$.buffers[1].init.struct[0].type: "vec5f" is not a field type'
fields misaligned '{"type": "u32", "value": 1}, {"type": "vec4f", "value": [1, 2, 3, 4], "offset": 8}' \
  '$.buffers[1].init.struct[1].offset: 8 is not a multiple of 16, the alignment of vec4<f32>'
fields vec3align '{"type": "vec3h", "value": [1, 2, 3], "offset": 4}' '$.buffers[1].init.struct[0].offset: 4 is not a multiple of 8, the alignment of vec3<f16>'
fields overlap '{"type": "vec2u", "value": [1, 2]}, {"type": "u32", "value": 1, "offset": 4}' \
  '$.buffers[1].init.struct[1].offset: 4 overlaps the previous field, which ends at byte 8'
fields far '{"type": "u32", "value": 1, "offset": 65536}' '$.buffers[1].init.struct[0]: the field would end at byte 65540'
fields boolvalue '{"type": "u32", "value": true}' '$.buffers[1].init.struct[0].value: expected a number (u32), not a boolean'
fields boolitem '{"type": "vec2u", "value": [1, false]}' '$.buffers[1].init.struct[0].value[1]: expected a number, not a boolean'
fields shortvec '{"type": "vec3f", "value": [1, 2]}' '$.buffers[1].init.struct[0].value: expected 3 numbers (vec3<f32>), not 2'
fields scalarvec '{"type": "vec2i", "value": 1}' '$.buffers[1].init.struct[0].value: expected an array of 2 numbers (vec2<i32>), not an integer'
fields novalue '{"name": "eps", "type": "f32"}' '$.buffers[1].init.struct[0] (field "eps"): missing "value"'
fields typo '{"type": "f32", "value": 1, "ofset": 4}' '$.buffers[1].init.struct[0]: unknown key "ofset"'
fields dupname '{"name": "a", "type": "f32", "value": 1}, {"name": "a", "type": "f32", "value": 2}' \
  '$.buffers[1].init.struct[1]: field name "a" is used twice'
fields notobject '7' '$.buffers[1].init.struct[0]: expected an object with "type" and "value", not an integer'
with_buffer empty '{"name": "p", "init": {"struct": []}}' '$.buffers[1].init.struct: expected a non-empty array of fields'
with_buffer typed '{"name": "p", "type": "u32", "init": {"struct": [{"type": "u32", "value": 1}]}}' \
  '$.buffers[1]: "type" has no meaning with a struct init'
with_buffer small '{"name": "p", "bytes": 8, "init": {"struct": [{"type": "vec3u", "value": [1, 2, 3]}]}}' \
  '$.buffers[1].bytes: 8 bytes, fewer than the struct'"'"'s 16'
with_buffer twoinits '{"name": "p", "init": {"constant": 1, "struct": [{"type": "u32", "value": 1}]}}' \
  '$.buffers[1].init: give exactly one of constant, random, file or struct'
with_buffer boolinit '{"name": "p", "elements": 4, "init": {"constant": true}}' \
  '$.buffers[1].init: "constant" must be a number, not a boolean'
constant() { # constant NAME VALUE PATTERN
  printf '{"kernels": [{"name": "k", "wgsl": "override F: bool = false;\\n@compute @workgroup_size(1) fn main() { }", "constants": {"F": %s}}], "dispatches": [{"kernel": "k", "workgroups": 1}]}\n' \
    "$2" >"$1.json"
  expect "$1.json" "$3"
}
constant conststring '"yes"' '$.kernels[0].constants["F"]: expected a number or a boolean, not a string'
constant constnull 'null' '$.kernels[0].constants["F"]: expected a number or a boolean, not null'
constant constarray '[true]' '$.kernels[0].constants["F"]: expected a number or a boolean, not an array'

finish
