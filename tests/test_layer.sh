#!/usr/bin/env bash
# `wgprof record --via vulkan` on a plain Vulkan compute program (tests/layer/vk_compute.c), timed
# by wgprof's Vulkan layer: in each of its modes (command buffers allocated per step, named
# pipelines, one buffer submitted many times, secondary buffers, indirect dispatches, the
# program's own copies, fills and updates between dispatches with debug labels around some) its
# output must not change and the report must hold every dispatch it submitted, under its name,
# with its workgroup counts, each run of its own transfer work as a valid row named by what it
# held ("(copy)", "(clear)"), and nothing else; the records inside its debug labels, and only
# those, in the scopes the labels name; and the Khronos validation layer, below wgprof's, must
# find nothing with wgprof's layer that it does not find without it.
# $1 is the wgprof binary, $2 the folder vk_compute is built in, $3 the layer's build folder, $4
# tests/record/ (check_record.py).
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
app="$(cd "$2" 2>/dev/null && pwd)/vk_compute"
case "$3" in /*) layer_dir="$3" ;; *) layer_dir="$PWD/$3" ;; esac # it may not exist
src="$(cd "$4" && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

layer_name=VK_LAYER_WGPROF_timing
modes="basic names reuse secondary indirect work"
steps=4
check() { python3 "$src/check_record.py" "$@"; }
# scopes STDOUT REPORT: the records in scopes are those the program's `scope KERNEL PATH COUNT`
# lines name (KERNEL may hold the `*` of its manifest), each in the scope instance at PATH; every
# other record is in none.
scopes() {
  python3 - "$@" <<'PY'
import collections, fnmatch, json, sys
want = collections.Counter()
for line in open(sys.argv[1]):
    if line.startswith("scope "):
        kernel, path, count = line[len("scope "):].rsplit(" ", 2)
        want[(kernel, path)] += int(count)
report = json.load(open(sys.argv[2]))
instances = report["scope_instances"]
got = collections.Counter()
for d in report["dispatches"]:
    if d["scope"] < 0:
        continue
    path = instances[d["scope"]]["path"]
    names = [k for k, p in want if p == path and fnmatch.fnmatchcase(d["kernel"], k)]
    got[(names[0] if names else d["kernel"], path)] += 1
if got != want:
    sys.exit(f"records in scopes: {dict(got)}, the program labelled {dict(want)}")
PY
}
tail_of() { grep -v 'XDG_RUNTIME_DIR' "$1" | tail -n 15; }
# The one report a single-device program makes: under the name given, or NAME.PID.N.EXT.
report_of() {
  local found=""
  [ -f "$1" ] || found="$(ls "${1%.*}".[0-9]*.[0-9]*."${1##*.}" 2>/dev/null)"
  echo "${found:-$1}"
}

# ---- the command line, with or without the program and the layer ----
"$wgprof" record --via sideways -- true >via.out 2>via.err
status=$?
[ "$status" -eq 2 ] && grep -q -- '--via sideways: auto, webgpu or vulkan' via.err && [ ! -s via.out ] && ok \
  || bad "--via sideways: exit $status (want 2 and a message, nothing run): $(cat via.err)"
# A wgprof with no layer beside it says so and runs nothing (a copy of it in a folder of its own).
mkdir -p alone/bin && cp "$wgprof" alone/bin/wgprof
alone/bin/wgprof record --via vulkan -- echo ran >alone.out 2>alone.err
status=$?
[ "$status" -eq 2 ] && grep -q "Vulkan layer is not beside wgprof" alone.err && [ ! -s alone.out ] && ok \
  || bad "--via vulkan without the layer: exit $status (want 2, saying the layer is missing, nothing run): $(cat alone.err)"
# --webgpu after `record` as before it; given in both places, refused.
"$wgprof" record --webgpu wgpu-native -- echo ran >webgpu.out 2>webgpu.err
status=$?
[ "$status" -eq 0 ] && grep -qx ran webgpu.out && ok || bad "record --webgpu wgpu-native: exit $status: $(cat webgpu.err)"
"$wgprof" --webgpu wgpu-native record --webgpu dawn -- echo ran >webgpu2.out 2>webgpu2.err
status=$?
[ "$status" -eq 2 ] && grep -q -- '--webgpu given twice' webgpu2.err && [ ! -s webgpu2.out ] && ok \
  || bad "--webgpu before and after record: exit $status (want 2, nothing run): $(cat webgpu2.err)"

if [ ! -x "$app" ]; then
  echo "skipped: $app is not built (no Vulkan headers or glslangValidator at configure time)"
  [ "$failed" -eq 0 ] || { finish; exit; }
  exit 77
fi

# ---- the program by itself: every mode runs, and says what it submitted ----
for mode in $modes; do
  "$app" "$mode" "$steps" >"$mode.plain.out" 2>"$mode.plain.err"
  status=$?
  if [ "$status" -eq 77 ]; then
    echo "note: $mode skipped: $(tail -n 1 "$mode.plain.err")"
    continue
  fi
  [ "$status" -eq 0 ] && grep -q '^checksum ' "$mode.plain.out" && grep -q '^manifest ' "$mode.plain.out" && ok \
    || bad "vk_compute $mode fails by itself (exit $status): $(tail_of "$mode.plain.err")"
done

if [ ! -f "$layer_dir/libwgprof_layer.so" ] || [ ! -f "$layer_dir/VkLayer_wgprof_timing.json" ]; then
  if [ "$failed" -ne 0 ]; then
    finish
    exit
  fi
  echo "skipped: wgprof's Vulkan layer is not built ($layer_dir/libwgprof_layer.so and VkLayer_wgprof_timing.json)"
  exit 77
fi
layer_dir="$(cd "$layer_dir" && pwd -P)"

# ---- the loader's environment: the layer's folder first, its name after the user's layers ----
VK_ADD_LAYER_PATH=/nowhere VK_INSTANCE_LAYERS=VK_LAYER_users_own VK_LOADER_LAYERS_DISABLE='~all~' \
  "$wgprof" record --via vulkan -- env >env.out 2>env.err
grep -qx "VK_ADD_LAYER_PATH=$layer_dir:/nowhere" env.out && ok \
  || bad "VK_ADD_LAYER_PATH is not the layer's folder then the user's: $(grep VK_ADD_LAYER_PATH env.out)"
grep -qx "VK_INSTANCE_LAYERS=VK_LAYER_users_own:$layer_name" env.out && ok \
  || bad "VK_INSTANCE_LAYERS is not the user's layers then wgprof's: $(grep VK_INSTANCE_LAYERS env.out)"
grep -qx "VK_LOADER_LAYERS_ENABLE=$layer_name" env.out && ok \
  || bad "a loader filter is set but VK_LOADER_LAYERS_ENABLE does not name the layer: $(grep VK_LOADER env.out)"
grep -q '^LD_PRELOAD=.*libwgprof_record' env.out && bad "--via vulkan preloads record's library: $(grep LD_PRELOAD env.out)" || ok
grep -q '^WGPROF_RECORD_DIR=/' env.out && ok || bad "--via vulkan: no WGPROF_RECORD_DIR for the layer"
grep -q '^WGPROF_RECORD_LAYER=' env.out && bad "--via vulkan tells a preload library of the layer: $(grep WGPROF_RECORD_LAYER env.out)" || ok
# The default: the layer enabled as above and record's library preloaded, told the layer's library.
"$wgprof" record -- env >auto-env.out 2>auto-env.err
grep -q "^VK_INSTANCE_LAYERS=.*$layer_name" auto-env.out && grep -q '^LD_PRELOAD=.*libwgprof_record' auto-env.out && ok \
  || bad "the default does not enable both the layer and the preload library: $(grep 'VK_INSTANCE_LAYERS\|LD_PRELOAD' auto-env.out)"
grep -qx "WGPROF_RECORD_LAYER=$layer_dir/libwgprof_layer.so" auto-env.out && ok \
  || bad "the default does not name the layer's library to the preload library: $(grep WGPROF_RECORD_LAYER auto-env.out)"
# --via webgpu: the preload library alone, as before.
"$wgprof" record --via webgpu -- env >webgpu-env.out 2>webgpu-env.err
grep -q "^VK_INSTANCE_LAYERS=.*$layer_name\|^WGPROF_RECORD_LAYER=" webgpu-env.out \
  && bad "--via webgpu enables the layer: $(grep 'VK_INSTANCE_LAYERS\|WGPROF_RECORD_LAYER' webgpu-env.out)" || ok

# ---- each mode under record: output unchanged, every dispatch reported, nothing else ----
for mode in $modes; do
  [ -f "$mode.plain.out" ] && grep -q '^checksum ' "$mode.plain.out" || continue
  if ! "$wgprof" record --via vulkan --json "$mode.json" -- "$app" "$mode" "$steps" >"$mode.out" 2>"$mode.err"; then
    bad "vk_compute $mode fails under record --via vulkan: $(tail_of "$mode.err")"
    continue
  fi
  cmp -s "$mode.plain.out" "$mode.out" && ok || bad "vk_compute $mode: its output changed: $(diff "$mode.plain.out" "$mode.out")"
  check exact "$mode.out" -- "$(report_of "$mode.json")" --stderr "$mode.err" >"$mode.check" 2>&1 && ok \
    || bad "vk_compute $mode: $(cat "$mode.check")"
  scopes "$mode.out" "$(report_of "$mode.json")" >"$mode.scopes" 2>&1 && ok || bad "vk_compute $mode: $(cat "$mode.scopes")"
done
# A debug label ended in the buffer after the one that began it: the layer leaves that end out
# (and the rows before it outside the label) and keeps the rest of its scopes as they were.
if [ -f work.out ] && grep -q '^checksum ' work.out; then
  if ! "$app" work "$steps" --split-labels >split.plain.out 2>split.plain.err; then
    echo "note: labels across buffers skipped: this driver fails on them by itself: $(tail -n 1 split.plain.err)"
  elif "$wgprof" record --via vulkan --json split.json -- "$app" work "$steps" --split-labels >split.out 2>split.err; then
    check exact split.out -- "$(report_of split.json)" --stderr split.err >split.check 2>&1 && ok \
      || bad "vk_compute work --split-labels: $(cat split.check)"
    scopes split.out "$(report_of split.json)" >split.scopes 2>&1 && ok \
      || bad "vk_compute work --split-labels: $(cat split.scopes)"
  else
    bad "vk_compute work --split-labels fails under record --via vulkan: $(tail_of split.err)"
  fi
fi
# The rows of the program's own work are there, each valid (check_record holds them to their
# counts; here, that they are not missing from the program's manifest).
if [ -f work.out ] && grep -q '^checksum ' work.out; then
  python3 - "$(report_of work.json)" <<'PY' >work.rows 2>&1 && ok || bad "vk_compute work: $(cat work.rows)"
import collections, json, sys
rows = [d for d in json.load(open(sys.argv[1]))["dispatches"] if d["kernel"].startswith("(")]
got = collections.Counter(d["kernel"] for d in rows)
if set(got) != {"(copy)", "(clear)"}:
    sys.exit(f"rows of the program's own work: {dict(got)}, want (copy) and (clear)")
bad = [d for d in rows if not d["valid"] or not d["duration_ns"] >= 0]
if bad:
    sys.exit(f"rows of the program's own work without a valid time: {bad[:3]}")
PY
fi

# The default on a program of Vulkan alone: the layer times it, and the report says its names are
# the program's own debug-utils names, not labels the preload library had passed down.
if [ -f names.plain.out ] && grep -q '^checksum ' names.plain.out; then
  if "$wgprof" record --json auto.json -- "$app" names "$steps" >auto.out 2>auto.err; then
    check exact auto.out -- "$(report_of auto.json)" --stderr auto.err >auto.check 2>&1 && ok \
      || bad "vk_compute names under the default: $(cat auto.check)"
    python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["adapter"]["implementation"]; sys.exit(0 if i=="Vulkan layer (VK_LAYER_WGPROF_timing)" else "implementation "+i)' \
      "$(report_of auto.json)" >auto.impl 2>&1 && grep -q "named after Vulkan debug-utils names" auto.err && ok \
      || bad "vk_compute under the default: not said to be the layer's with the program's own names: $(cat auto.impl) $(grep timed auto.err)"
  else
    bad "vk_compute names fails under the default record: $(tail_of auto.err)"
  fi
fi

# ---- validation: nothing more with wgprof's layer than without it ----
# The user names wgprof's layer before the validation layer, which the CLI keeps: wgprof's layer
# then sits above validation, which sees the commands wgprof adds (its timestamps, its query
# pools) as well as the program's.
messages() { # messages FILE -> the messages' IDs (or, without one, their text, handles blanked), sorted
  sed -n 's/^vk_compute: message \([^:]*\): \(.*\)$/\1 \2/p' "$1" |
    sed -E '/^\(no id\) /!s/ .*//; s/0x[0-9a-fA-F]+/0x/g' | sort -u
}
VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$app" basic 1 --debug-utils >probe.out 2>probe.err
if ! grep -q 'Inserted device layer "VK_LAYER_KHRONOS_validation"' probe.err; then
  echo "note: validation skipped: no VK_LAYER_KHRONOS_validation here (Debian: vulkan-validationlayers)"
else
  for mode in $modes; do
    [ -f "$mode.plain.out" ] && grep -q '^checksum ' "$mode.plain.out" || continue
    VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$app" "$mode" "$steps" --debug-utils >"v-$mode.plain.out" 2>"v-$mode.plain.err"
    VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS="$layer_name:VK_LAYER_KHRONOS_validation" \
      "$wgprof" record --via vulkan --json "v-$mode.json" -- "$app" "$mode" "$steps" --debug-utils >"v-$mode.out" 2>"v-$mode.err"
    status=$?
    [ "$status" -eq 0 ] && ok || bad "vk_compute $mode under validation and record: exit $status: $(grep -v '^\(INFO\|LAYER\|DEBUG\)' "v-$mode.err" | tail -n 10)"
    # wgprof's layer above validation's in the device's chain, or this compares nothing of wgprof's.
    order="$(sed -n '/vkCreateDevice layer callstack/,/<Device>\|<Driver>\|Physical Device/p' "v-$mode.err" |
      grep -o 'VK_LAYER_WGPROF_timing\|VK_LAYER_KHRONOS_validation' | uniq | tr '\n' ' ')"
    [ "$order" = "VK_LAYER_WGPROF_timing VK_LAYER_KHRONOS_validation " ] && ok \
      || bad "vk_compute $mode: the device's layers are '$order', want wgprof's above validation's"
    messages "v-$mode.plain.err" >"v-$mode.plain.ids"
    messages "v-$mode.err" >"v-$mode.ids"
    added="$(comm -13 "v-$mode.plain.ids" "v-$mode.ids")"
    [ -z "$added" ] && ok || bad "vk_compute $mode: validation messages only with wgprof's layer: $added
$(grep '^vk_compute: message' "v-$mode.err" | head -n 5)"
    cmp -s "v-$mode.plain.out" "v-$mode.out" && ok \
      || bad "vk_compute $mode under validation: its output changed under record: $(diff "v-$mode.plain.out" "v-$mode.out")"
  done
fi

finish
