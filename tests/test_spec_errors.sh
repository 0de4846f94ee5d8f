#!/usr/bin/env bash
# wgprof run's messages for WGSL the device refuses and bindings that do not fit the shader, from
# real runs: a compile error is located in the WGSL file as the user would open it (or in the
# spec's inline string, by JSON path), once, with no blank line after it; a binding mismatch names
# the dispatch, the kernel, the group and the binding, with the shader's declaration; what the
# shader scan cannot tell is left to the device's words, with the kernel and group named. Each
# exits 2. $1 is the wgprof binary.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

# fails SPEC: runs it, wants exit 2; the message is left in $out (stderr, stdout empty).
fails() {
  local status
  out="$("$wgprof" run --quiet --warmup 0 --iterations 1 "$1" 2>"$tmp/stderr.all")"
  status=$?
  without_implementation_lines <"$tmp/stderr.all" >"$tmp/stderr"
  if [ "$status" -ne 2 ] || [ -n "$out" ]; then
    bad "$1: exit $status (want 2), stdout '$out'"
  fi
  out="$(cat "$tmp/stderr")"
  # Nothing after the message: its last line is not blank.
  if [ "$(tail -c 2 "$tmp/stderr" | od -An -c | tr -d ' ')" = '\n\n' ] || [ -z "$(tail -n 1 "$tmp/stderr")" ]; then
    bad "$1: the message ends with a blank line"
  fi
}
has() { # has TEXT: $out holds TEXT (fixed), else a failure naming $1's case
  if printf '%s' "$out" | grep -Fq -- "$1"; then ok; else bad "want '$1' in: $out"; fi
}
once() { # once TEXT: $out holds TEXT exactly once
  local n
  n="$(printf '%s' "$out" | grep -Fo -- "$1" | wc -l)"
  if [ "$n" -eq 1 ]; then ok; else bad "want '$1' once, found $n times in: $out"; fi
}
first_line() { # first_line TEXT: the message's first line is exactly TEXT
  if [ "$(printf '%s\n' "$out" | head -n 1)" = "$1" ]; then ok; else
    bad "want first line '$1', got: $(printf '%s\n' "$out" | head -n 1)"
  fi
}

# ---- WGSL compile errors ----
# The words are the implementation's (naga's through wgpu-native, Tint's through Dawn); the place,
# the source line and the caret are wgprof's, and the same for both.
case "$("$wgprof" info 2>/dev/null | sed -n 's/^WebGPU implementation: *//p')" in
  Dawn*) tint=1 ;;
  *) tint=0 ;;
esac
words() { if [ "$tint" = 1 ]; then printf '%s' "$2"; else printf '%s' "$1"; fi; } # words NAGA TINT

mkdir -p specs/kernels
cat >specs/kernels/bad.wgsl <<'EOF'
@group(0) @binding(0) var<storage, read_write> v: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
    v[id.x] = v[id.x] + undefined_thing;
}
EOF
cat >specs/file.json <<'EOF'
{"buffers": [{"name": "v", "elements": 64}],
 "kernels": [{"name": "doubleMe", "wgsl_file": "kernels/bad.wgsl"}],
 "dispatches": [{"kernel": "doubleMe", "workgroups": 1, "bindings": {"0": "v"}}]}
EOF
# From elsewhere, the path leads from the current folder to the file; naga's "wgsl:" and the
# kernel's label are gone, and the source line is shown with a caret under the place.
unknown="$(words 'no definition in scope for identifier: `undefined_thing`' "unresolved value 'undefined_thing'")"
fails specs/file.json
first_line "wgprof run: specs/kernels/bad.wgsl:5:25: error: $unknown"
has '    5 |     v[id.x] = v[id.x] + undefined_thing;'
has '      |                         ^~~~~~~~~~~~~~~'
once "$(words 'undefined_thing`' "undefined_thing'")"
if printf '%s' "$out" | grep -Eq '┌─| wgsl:|doubleMe:|Caused by|Validation Error|While calling'; then
  bad "the implementation's framing left in: $out"
else ok; fi
# From the spec's folder, the path as the spec wrote it.
(cd specs && "$wgprof" run --quiet --warmup 0 --iterations 1 file.json 2>&1 >/dev/null) | without_implementation_lines | head -n 1 |
  grep -Fxq "wgprof run: kernels/bad.wgsl:5:25: error: $unknown" &&
  ok || bad "from the spec's folder: not located as kernels/bad.wgsl:5:25"

# naga finds this in validation, names the place after the label and repeats its notes: located
# in the file, each note once.
cat >specs/kernels/abstract.wgsl <<'EOF'
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
    v[id.x] = 1.0;
    return 5;
}
EOF
sed 's/bad.wgsl/abstract.wgsl/' specs/file.json >specs/abstract.json
fails specs/abstract.json
if [ "$tint" = 1 ]; then
  first_line "wgprof run: specs/kernels/abstract.wgsl:5:5: error: return statement type must match its function return type, returned 'abstract-int', expected 'void'"
  lines=3
else
  first_line 'wgprof run: specs/kernels/abstract.wgsl:5:12: error: Entry point main at Compute is invalid'
  once 'Abstract types may only appear in constant expressions'
  once 'note: Expression ['
  lines=5
fi
if printf '%s' "$out" | grep -q 'naga::'; then bad "naga's IR names left in: $out"; else ok; fi
[ "$(printf '%s\n' "$out" | wc -l)" -eq "$lines" ] && ok || bad "abstract.json: want $lines lines: $out"

# Inline WGSL: the spec, the string's JSON path, and the line and column inside the string.
ok_kernel='{"name": "fine", "wgsl": "@compute @workgroup_size(1) fn main() {}"}'
printf '{"buffers": [{"name": "v", "elements": 64}], "kernels": [%s, %s, {"name": "k", "wgsl": "%s"}],
 "dispatches": [{"kernel": "k", "workgroups": 1, "bindings": {"0": "v"}}]}\n' "$ok_kernel" "$ok_kernel" \
  '@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n@compute @workgroup_size(64)\nfn main() {\n  v[0] = nope;\n}\n' |
  sed 's/"fine"/"fine2"/2' >inline.json
fails inline.json
first_line "wgprof run: inline.json: \$.kernels[2].wgsl:4:10: error: $(words 'no definition in scope for identifier: `nope`' "unresolved value 'nope'")"
has '    4 |   v[0] = nope;'
has '      |          ^~~~'
once "$(words 'nope`' "nope'")"
printf '{"buffers": [], "kernels": [{"name": "k", "wgsl": "fn main( {"}], "dispatches": [{"kernel": "k", "workgroups": 1}]}' >syntax.json
fails syntax.json
first_line "wgprof run: syntax.json: \$.kernels[0].wgsl:1:10: error: $(words 'expected identifier, found "{"' "expected ')' for function declaration")"

# A pipeline the device refuses, with no place in the WGSL: the kernel and entry point named.
printf '{"buffers": [], "kernels": [{"name": "k", "entry": "other", "wgsl": "@compute @workgroup_size(1) fn main() {}"}], "dispatches": [{"kernel": "k", "workgroups": 1}]}' >entry.json
fails entry.json
first_line 'wgprof run: entry.json: $.kernels[0] "k": no pipeline for entry point "other":'
once "$(words "Unable to find entry point 'other'" "doesn't exist in the shader module")"

# ---- bindings that do not fit the shader ----
# bindspec NAME WGSL GOOD BINDINGS: a spec with buffers a and b, kernel "rms_norm" from NAME.wgsl
# and two dispatches: the first binding GOOD (which fits), the second BINDINGS.
bindspec() {
  printf '%s' "$2" >"$1.wgsl"
  printf '{"buffers": [{"name": "a", "elements": 64}, {"name": "b", "elements": 64}],
 "kernels": [{"name": "rms_norm", "wgsl_file": "%s.wgsl"}],
 "dispatches": [{"kernel": "rms_norm", "workgroups": 1, "bindings": %s},
                {"kernel": "rms_norm", "workgroups": 1, "bindings": %s}]}\n' "$1" "$3" "$4" >"$1.json"
}
three='struct Params { n: u32, eps: f32 }
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
fn scale(i: u32) -> f32 { return w[i] * params.eps; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] = scale(id.x); }
'
all3='{"0": "a", "1": "b", "2": "b"}'
# The spec lacks a binding the shader uses (through a function the entry point calls).
bindspec lacks "$three" "$all3" '{"0": "a", "1": "b"}'
fails lacks.json
first_line 'wgprof run: lacks.json: $.dispatches[1].bindings: kernel "rms_norm" uses group 0 binding 2 (var<uniform> params: Params), which the spec does not bind'
# Two lacking: one line each.
bindspec lacks2 "$three" "$all3" '{"0": "a"}'
fails lacks2.json
has 'kernel "rms_norm" uses group 0 binding 1 (var<storage, read> w: array<f32>), which the spec does not bind'
has 'kernel "rms_norm" uses group 0 binding 2 (var<uniform> params: Params), which the spec does not bind'
# The spec binds one the shader does not declare.
bindspec extra "$three" "$all3" '{"0": "a", "1": "b", "2": "b", "5": "a"}'
fails extra.json
first_line 'wgprof run: extra.json: $.dispatches[1].bindings: binds group 0 binding 5, which kernel "rms_norm" does not declare'
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && ok || bad "extra.json: want one line: $out"
# Both at once, with the same count: one line each.
bindspec swapped "$three" "$all3" '{"0": "a", "1": "b", "7": "b"}'
fails swapped.json
has '$.dispatches[1].bindings: kernel "rms_norm" uses group 0 binding 2 (var<uniform> params: Params)'
has '$.dispatches[1].bindings: binds group 0 binding 7, which kernel "rms_norm" does not declare'

# A declared binding the entry point never uses is not in WebGPU's layout: leaving it unbound
# runs, binding it is refused, and the message says why.
unused='@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
fn never_called() -> f32 { return w[0]; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] = 1.0; }
'
bindspec unused_ok "$unused" '{"0": "a"}' '{"0": "b"}'
"$wgprof" run --quiet --warmup 0 --iterations 1 unused_ok.json >/dev/null 2>&1 && ok ||
  bad "an unused declared binding left unbound was refused"
bindspec unused_bound "$unused" '{"0": "a"}' '{"0": "a", "1": "b"}'
fails unused_bound.json
first_line 'wgprof run: unused_bound.json: $.dispatches[1].bindings: binds group 0 binding 1, which kernel "rms_norm" declares (var<storage, read> w: array<f32>) but its entry point "main" does not use: WebGPU leaves it out of the pipeline'"'"'s layout'

# A group the shader uses and the spec does not bind at all.
groups='@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(1) @binding(0) var<storage, read> w: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] = w[id.x]; }
'
bindspec nogroup "$groups" '{"0": "a", "1/0": "b"}' '{"0": "a"}'
fails nogroup.json
first_line 'wgprof run: nogroup.json: $.dispatches[1].bindings: kernel "rms_norm" uses group 1 (binding 0: var<storage, read> w: array<f32>), which the spec does not bind'
bindspec nothing "$groups" '{"0": "a", "1/0": "b"}' '{}'
fails nothing.json
first_line 'wgprof run: nothing.json: $.dispatches[1].bindings: kernel "rms_norm" uses group 0 (binding 0: var<storage, read_write> v: array<f32>), which the spec does not bind'

# What the scan cannot tell (a local name hides the global it shares, so the scan believes the
# global used): no claim, the device's words, the kernel and the group named with what the
# shader declares.
shadow='@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> u: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) { let w = 2.0; v[id.x] = u[id.x] * w; }
'
bindspec shadow "$shadow" '{"0": "a", "2": "b"}' '{"0": "a"}'
fails shadow.json
first_line 'wgprof run: shadow.json: $.dispatches[1].bindings: group 0 does not match kernel "rms_norm":'
has 'kernel "rms_norm" declares in group 0: 0 (var<storage, read_write> v: array<f32>), 1 (var<storage, read> w: array<f32>), 2 (var<storage, read> u: array<f32>)'
if printf '%s' "$out" | grep -q 'which the spec does not bind'; then bad "shadow.json: a binding claimed: $out"; else ok; fi

# ---- figures that do not fit ----
# "bytes": 1e308 on a dispatch repeated twice summed to infinity, which the JSON report then
# wrote as `inf` (not JSON): a figure no dispatch comes near is refused at the spec, by path.
for key in bytes flops; do
  cat >"big_$key.json" <<EOF
{"buffers": [{"name": "v", "elements": 64}],
 "kernels": [{"name": "k", "wgsl": "@group(0) @binding(0) var<storage, read_write> v: array<f32>; @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) i: vec3u) { v[i.x] = 1.0; }"}],
 "dispatches": [{"kernel": "k", "workgroups": 1, "bindings": {"0": "v"}, "repeat": 2, "$key": 1e308}]}
EOF
  fails "big_$key.json"
  has "\$.dispatches[0]: \"$key\" is 1e+308, more than the 1e+18 one dispatch may claim"
done

finish
