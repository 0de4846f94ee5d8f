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
modes="basic names reuse secondary indirect work base counts pools mixed batch batch2 pipelined event sync"
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
# The report of a single-device program: the file named (several devices or processes would make
# it a report of result sets, which the checks here refuse).
report_of() { echo "$1"; }

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

if ! layer_built "$layer_dir"; then
  if [ "$failed" -ne 0 ]; then
    finish
    exit
  fi
  echo "skipped: wgprof's Vulkan layer is not built ($layer_dir/libwgprof_layer.so and VkLayer_wgprof_timing.json)"
  exit 77
fi
layer_dir="$(cd "$layer_dir" && pwd -P)"

# ---- the loader's environment: the layer implicit, its folder first; the user's settings kept ----
env -u XDG_CONFIG_DIRS VK_ADD_LAYER_PATH=/nowhere VK_INSTANCE_LAYERS=VK_LAYER_users_own VK_LOADER_LAYERS_DISABLE='~all~' \
  "$wgprof" record --via vulkan -- env >env.out 2>env.err
implicit_root="$layer_dir/wgprof-implicit-layer"
grep -qx "XDG_CONFIG_DIRS=$implicit_root:/etc/xdg" env.out && grep -qx "WGPROF_LAYER_ENABLE=1" env.out && ok \
  || bad "the layer is not enabled as an implicit layer searched first: $(grep 'XDG_CONFIG_DIRS\|WGPROF_LAYER_ENABLE' env.out)"
grep -qx "VK_ADD_LAYER_PATH=/nowhere" env.out && grep -qx "VK_INSTANCE_LAYERS=VK_LAYER_users_own" env.out && ok \
  || bad "the user's VK_ADD_LAYER_PATH or VK_INSTANCE_LAYERS changed: $(grep 'VK_ADD_LAYER_PATH\|VK_INSTANCE_LAYERS' env.out)"
grep -qx "VK_LOADER_LAYERS_ENABLE=$layer_name" env.out && ok \
  || bad "a loader filter is set but VK_LOADER_LAYERS_ENABLE does not name the layer: $(grep VK_LOADER env.out)"
XDG_CONFIG_DIRS=/their/xdg "$wgprof" record --via vulkan -- env >xdg-env.out 2>xdg-env.err
grep -qx "XDG_CONFIG_DIRS=$implicit_root:/their/xdg" xdg-env.out && ok \
  || bad "XDG_CONFIG_DIRS is not the layer's root then the user's: $(grep XDG_CONFIG_DIRS xdg-env.out)"
grep -q '^LD_PRELOAD=.*libwgprof_record' env.out && bad "--via vulkan preloads record's library: $(grep LD_PRELOAD env.out)" || ok
grep -q '^WGPROF_RECORD_DIR=/' env.out && ok || bad "--via vulkan: no WGPROF_RECORD_DIR for the layer"
grep -q '^WGPROF_RECORD_LAYER=' env.out && bad "--via vulkan tells a preload library of the layer: $(grep WGPROF_RECORD_LAYER env.out)" || ok
# The default: the layer enabled as above and record's library preloaded, told the layer's library.
"$wgprof" record -- env >auto-env.out 2>auto-env.err
grep -qx "WGPROF_LAYER_ENABLE=1" auto-env.out && grep -q '^LD_PRELOAD=.*libwgprof_record' auto-env.out && ok \
  || bad "the default does not enable both the layer and the preload library: $(grep 'WGPROF_LAYER_ENABLE\|LD_PRELOAD' auto-env.out)"
grep -qx "WGPROF_RECORD_LAYER=$layer_dir/libwgprof_layer.so" auto-env.out && ok \
  || bad "the default does not name the layer's library to the preload library: $(grep WGPROF_RECORD_LAYER auto-env.out)"
# --via webgpu: the preload library alone, as before.
"$wgprof" record --via webgpu -- env >webgpu-env.out 2>webgpu-env.err
grep -q "^WGPROF_LAYER_ENABLE=\|^VK_INSTANCE_LAYERS=.*$layer_name\|^WGPROF_RECORD_LAYER=" webgpu-env.out \
  && bad "--via webgpu enables the layer: $(grep 'WGPROF_LAYER_ENABLE\|VK_INSTANCE_LAYERS\|WGPROF_RECORD_LAYER' webgpu-env.out)" || ok

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
# event: each command buffer freed while its submit was unread, its end known through an event
# alone (no wait the layer sees): the layer's reader reads it then, off the program's thread, so
# a file of results appears while the program runs, not only at its end.
if [ -f event.err ]; then
  grep -qx "vk_compute: results written while running" event.err && ok \
    || bad "vk_compute event: command buffers freed unread were not read while the program ran: $(grep 'while running' event.err)"
fi
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
# Where each kernel's name came from, per kernel in the JSON and counted in the table's header:
# the program's debug-utils names, the SPIR-V's hash and entry point, the kinds of transfer work.
for mode in names basic work; do
  [ -f "$mode.json" ] || continue
  python3 - "$mode" "$(report_of "$mode.json")" "$mode.err" <<'PY' >"$mode.sources" 2>&1 && ok || bad "vk_compute $mode: $(cat "$mode.sources")"
import collections, json, sys
mode, report, err = sys.argv[1:]
want = {"names": "Vulkan pipeline name", "basic": "SPIR-V hash and entry point", "work": "SPIR-V hash and entry point"}[mode]
got = {k["name"]: k.get("name_source") for k in json.load(open(report))["kernels"]}
for name, source in got.items():
    expected = "transfer work between dispatches, by kind" if name.startswith("(") else want
    if source != expected:
        sys.exit(f"kernel {name}: name_source {source!r}, want {expected!r}")
counts = collections.Counter(got.values())
header = [line for line in open(err) if line.startswith("kernel names from: ")]
for source, n in counts.items():
    if not header or f"{source} ({n}" not in header[0]:
        sys.exit(f"the table's header does not count {n} kernels named from {source!r}: {header}")
PY
done

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

# ---- the user's loader settings kept, wgprof's layer added; what cannot be timed, said ----
# A VK_IMPLICIT_LAYER_PATH of the user's replaces the loader's search of implicit layers (XDG's
# folders too): the layer's folder goes after theirs, and the layer times the program. Where the
# user names the layer on VK_INSTANCE_LAYERS, it stays where they put it, found through its
# explicit manifest's folder, after theirs on a VK_LAYER_PATH of the user's.
VK_IMPLICIT_LAYER_PATH=/nowhere "$wgprof" record --via vulkan -- env >ilp-env.out 2>ilp-env.err
grep -qx "VK_IMPLICIT_LAYER_PATH=/nowhere:$implicit_root/vulkan/implicit_layer.d" ilp-env.out && ok \
  || bad "VK_IMPLICIT_LAYER_PATH is not the user's then the layer's folder: $(grep VK_IMPLICIT_LAYER_PATH ilp-env.out)"
VK_IMPLICIT_LAYER_PATH=/nowhere "$wgprof" record --via vulkan --json ilp.json -- "$app" basic "$steps" >ilp.out 2>ilp.err
check exact ilp.out -- "$(report_of ilp.json)" --stderr ilp.err >ilp.check 2>&1 && ok \
  || bad "vk_compute under a VK_IMPLICIT_LAYER_PATH of the user's: $(cat ilp.check)"
VK_LAYER_PATH=/nowhere VK_INSTANCE_LAYERS="VK_LAYER_users_own:$layer_name" "$wgprof" record --via vulkan -- env \
  >lp-env.out 2>lp-env.err
grep -qx "VK_LAYER_PATH=/nowhere:$layer_dir" lp-env.out && grep -qx "VK_INSTANCE_LAYERS=VK_LAYER_users_own:$layer_name" lp-env.out \
  && ! grep -q "^WGPROF_LAYER_ENABLE=" lp-env.out && ok \
  || bad "the layer named by the user: VK_LAYER_PATH not theirs then the layer's folder, or the list changed: $(grep 'VK_LAYER_PATH\|VK_INSTANCE_LAYERS\|WGPROF_LAYER_ENABLE' lp-env.out)"
VK_LAYER_PATH=/nowhere VK_INSTANCE_LAYERS="$layer_name" "$wgprof" record --via vulkan --json lp.json -- "$app" basic "$steps" \
  >lp.out 2>lp.err
check exact lp.out -- "$(report_of lp.json)" --stderr lp.err >lp.check 2>&1 && ok \
  || bad "vk_compute under a VK_LAYER_PATH of the user's, the layer named: $(cat lp.check)"
# A program's own debug messenger, chained to its instance's creation, hears no warning or error
# it does not hear without wgprof (VK_INSTANCE_LAYERS had the loader warn it twice an instance).
if [ -f names.plain.out ] && grep -q '^checksum ' names.plain.out; then
  warnings() { grep -h '^vk_compute: message (\(warning\|error\))' "$@" | sort -u; }
  "$app" names "$steps" --debug-utils >msg.plain.out 2>msg.plain.err
  for via in auto vulkan; do
    "$wgprof" record --via "$via" -- "$app" names "$steps" --debug-utils >"msg-$via.out" 2>"msg-$via.err"
    status=$?
    added="$(comm -13 <(warnings msg.plain.err) <(warnings "msg-$via.err"))"
    [ "$status" -eq 0 ] && [ -z "$added" ] && grep -q '^kernel names from: ' "msg-$via.err" && ok \
      || bad "--via $via: the program's messenger hears what it does not without wgprof (exit $status): $added"
  done
fi
# A set-user-ID program as another user runs in secure mode, where neither the preload library nor
# the layer is loaded: said before it runs (root only: the copy is given to another user).
if [ "$(id -u)" -eq 0 ]; then
  cp "$(type -P true)" suid-true && chown 65534 suid-true && chmod 4755 suid-true
  "$wgprof" record -- ./suid-true >suid.out 2>suid.err
  status=$?
  [ "$status" -eq 0 ] && grep -q "suid-true is set-user-ID: .*nothing of it can be timed" suid.err && ok \
    || bad "a set-user-ID program: exit $status, not named: $(cat suid.err)"
else
  echo "note: the set-user-ID case skipped: it needs root to give a copy to another user"
fi

# ---- submits that only append ----
# A program that submits 5,000 one-dispatch command buffers without waiting, then waits once,
# three times over (bench/vk_record_cost --submits: the same buffers submitted again each round):
# the layer reads them on its own thread (past 4,096 in flight, without a wait of the program's)
# and reads a buffer submitted again before it was read; every dispatch is in the report, valid.
# Both ways of reading (layer.h, WGPROF_LAYER_READBACK): from the layer's buffer, lavapipe's
# default (each command buffer copies its queries there, reset in the stream; a copy read is
# cleared, or the next round's reading would take the last one's), and from the query pools,
# a pool at a time, their blocks reset together from the host.
submits_app="$(cd "$2/../.." 2>/dev/null && pwd)/bench/vk_record_cost"
if [ -x "$submits_app" ]; then
  for readback in buffer query; do
    WGPROF_LAYER_READBACK=$readback "$wgprof" record --via vulkan --json "submits-$readback.json" -- "$submits_app" 2 \
      --dispatches 5000 --submits >"submits-$readback.out" 2>"submits-$readback.err"
    status=$?
    python3 - "submits-$readback.json" <<'PY' >submits.check 2>&1 && [ "$status" -eq 0 ] && ok \
      || bad "5,000 submits without waiting, three rounds, read from the $readback: exit $status: $(cat submits.check) $(tail -n 3 "submits-$readback.err")"
import json, sys
r = json.load(open(sys.argv[1]))
assert (r["records"], r["invalid"], r["partial"]) == (15000, 0, False), (r["records"], r["invalid"], r["partial"])
# Each command buffer's own timestamps: one queue runs them in the order submitted, so taken in
# that order their times only grow (a reading given to the wrong command buffer breaks that).
begins = [(b["cpu_submit_ns"], r["dispatches"][b["first_record"]]["begin_ticks"]) for b in r["batches"]]
begins.sort()
late = [(a, b) for a, b in zip(begins, begins[1:]) if a[0] < b[0] and b[1] < a[1]]
assert not late, f"{len(late)} command buffers ran before one submitted earlier: {late[:3]}"
PY
  done
else
  echo "note: the submits case skipped: no $submits_app (the benchmarks are not built)"
fi

# ---- every dispatch once, charged to itself ----
# mixed: a dispatch recorded just before vkCmdExecuteCommands ends there, and the secondary's own
# dispatch is timed inside it: no record's time holds another's (the dispatch before the execute
# once held the whole secondary, counted twice in the total).
if [ -f mixed.out ] && grep -q '^checksum ' mixed.out; then
  python3 - "$(report_of mixed.json)" <<'PY' >mixed.overlap 2>&1 && ok || bad "vk_compute mixed: $(cat mixed.overlap)"
import json, sys
rows = sorted((d["start_ns"], d["end_ns"], d["kernel"]) for d in json.load(open(sys.argv[1]))["dispatches"])
if len(rows) < 2:
    sys.exit(f"{len(rows)} records: nothing to compare")
for a, b in zip(rows, rows[1:]):
    if b[0] < a[1]:
        sys.exit(f"{a[2]} ({a[0]:.0f}-{a[1]:.0f} ns) holds {b[2]} ({b[0]:.0f}-{b[1]:.0f} ns)")
PY
fi
# long: 80 dispatches in one command buffer, more timestamps than one block of queries holds.
"$app" long 40 >long.plain.out 2>long.plain.err
if "$wgprof" record --via vulkan --json long.json -- "$app" long 40 >long.out 2>long.err; then
  cmp -s long.plain.out long.out && ok || bad "vk_compute long: its output changed: $(diff long.plain.out long.out)"
  check exact long.out -- "$(report_of long.json)" --stderr long.err >long.check 2>&1 && ok \
    || bad "vk_compute long: $(cat long.check)"
else
  bad "vk_compute long fails under record --via vulkan: $(tail_of long.err)"
fi

# render: a render pass after each step's fold, an empty secondary run inside it but in the last
# 4 steps: fold's row ends where the pass begins, so that no dispatch's row holds the drawing
# after it (an inline pass fell in fold's row before), and that gap's timestamp, which opens a
# fresh block of queries at step 42 (reset in the stream where the layer reads from its buffer,
# lavapipe's default), lies outside the pass, where Vulkan allows a reset (it was written inside,
# before the secondary; the validation section below runs this mode too).
"$app" render 48 >render.plain.out 2>render.plain.err
if "$wgprof" record --via vulkan --json render.json -- "$app" render 48 >render.out 2>render.err; then
  cmp -s render.plain.out render.out && ok || bad "vk_compute render: its output changed: $(diff render.plain.out render.out)"
  check exact render.out -- "$(report_of render.json)" --stderr render.err >render.check 2>&1 && ok \
    || bad "vk_compute render: $(cat render.check)"
  python3 - "$(report_of render.json)" <<'PY' >render.rows 2>&1 && ok || bad "vk_compute render: $(cat render.rows)"
import json, sys
rows = sorted((d["begin_ticks"], d["end_ticks"], d["kernel"]) for d in json.load(open(sys.argv[1]))["dispatches"])
folds = [(a, b) for a, b in zip(rows, rows[1:]) if a[2].endswith(":fold")]
assert len(folds) == 47, f"{len(folds)} folds followed by a row, want 47"
held = [(a, b) for a, b in folds if a[1] >= b[0]]
assert not held, f"{len(held)} of 47 folds' rows run into the next step's scale (the render pass between them in fold's): {held[:2]}"
PY
else
  bad "vk_compute render fails under record --via vulkan: $(tail_of render.err)"
fi

# inline: pipelines made from SPIR-V their stage carries (VK_KHR_maintenance5), no module; objects:
# compute shader objects bound instead of pipelines (VK_EXT_shader_object). Each dispatch named by
# its own code's hash and entry point, with its workgroup size read from that code (inline ones
# all read `spirv:ENTRY`, their sizes unknown; shader objects' were charged to the pipeline bound
# last, or to none).
for mode in inline objects; do
  "$app" "$mode" "$steps" >"$mode.plain.out" 2>"$mode.plain.err"
  status=$?
  if [ "$status" -eq 77 ]; then
    echo "note: $mode skipped: $(tail -n 1 "$mode.plain.err")"
  elif "$wgprof" record --via vulkan --json "$mode.json" -- "$app" "$mode" "$steps" >"$mode.out" 2>"$mode.err"; then
    check exact "$mode.out" -- "$mode.json" --stderr "$mode.err" >"$mode.check" 2>&1 && ok \
      || bad "vk_compute $mode: $(cat "$mode.check")"
    python3 - "$mode.json" <<'PY' >"$mode.names" 2>&1 && ok || bad "vk_compute $mode: $(cat "$mode.names")"
import json, re, sys
sizes = {"scale": [64, 1, 1], "fold": [32, 1, 1]}
for d in json.load(open(sys.argv[1]))["dispatches"]:
    m = re.fullmatch(r"spirv-[0-9a-f]{8}:(scale|fold)", d["kernel"])
    if not m or d["local_size"] != sizes[m.group(1)]:
        sys.exit(f"{d['kernel']} with workgroup size {d['local_size']}: want spirv-HASH:entry, the size of its code")
PY
  else
    bad "vk_compute $mode fails under record --via vulkan: $(tail_of "$mode.err")"
  fi
done

# A Vulkan program that ends before making a device, by the default way: nothing timed, and
# nothing said of wgprof's own layer (libwgprof in it holds WebGPU's names, which the preload
# library's look at the program's objects took for an implementation compiled in).
"$wgprof" record -- "$app" basic --no-device >nodev.out 2>nodev.err
status=$?
[ "$status" -eq 0 ] && grep -q "no results" nodev.err && ! grep -q "has a WebGPU implementation" nodev.err && ok \
  || bad "vk_compute --no-device under record: exit $status: $(grep 'wgprof record' nodev.err)"

# A program that makes its fences and timeline semaphores as it goes, on a driver that never gives
# a handle out twice (vk_compute sync: 16 semaphores a step): what the layer keeps of each goes
# with it. Kept for ever, they left about 28 KB a step on the heap; what is left now is the
# results and what the run makes once (about 3 KB a step over 500 steps, falling as runs grow).
if grep -q '^checksum ' sync.plain.out 2>/dev/null; then
  "$wgprof" record --via vulkan --json sync500.json -- "$app" sync 500 >sync500.out 2>sync500.err
  status=$?
  heap=$(sed -n 's/^vk_compute: heap \(-\{0,1\}[0-9]*\) bytes a step$/\1/p' sync500.err)
  [ "$status" -eq 0 ] && [ -n "$heap" ] && [ "$heap" -lt 10240 ] && ok \
    || bad "vk_compute sync 500 under record: exit $status, the heap grew ${heap:-?} bytes a step (want under 10240): $(tail_of sync500.err)"
fi

# Dispatches the layer does not time are counted (as recorded) and said, each with its reason: a
# command buffer recorded for simultaneous use (one query would be written twice), and
# --sample-every N by kernel (the default: each pipeline's 1st, N+1th... dispatch, every kernel
# in the report) and by encoder (one command buffer in N timed: of 5, the 1st, 3rd and 5th).
"$wgprof" record --via vulkan --json simul.json -- "$app" simultaneous "$steps" >simul.out 2>simul.err
status=$?
# (its one recording holds the 2 dispatches, submitted STEPS times)
[ "$status" -eq 0 ] && grep -q "^2 dispatches not timed: their Vulkan command buffer may run twice at once" simul.err \
  && python3 -c 'import json,sys; sys.exit(len(json.load(open(sys.argv[1]))["dispatches"]))' simul.json && ok \
  || bad "vk_compute simultaneous: exit $status, want none timed and the reason said: $(grep 'not timed' simul.err)"
"$app" basic 5 >kernel2.plain.out 2>/dev/null
"$wgprof" record --via vulkan --sample-every 2 --json kernel2.json -- "$app" basic 5 >kernel2.out 2>kernel2.err
status=$?
python3 - kernel2.json kernel2.out <<'PY' >kernel2.check 2>&1 && [ "$status" -eq 0 ] && cmp -s kernel2.plain.out kernel2.out \
  && grep -q '^4 dispatches not timed: --sample-every 2 left them out' kernel2.err && ok \
  || bad "vk_compute basic 5 --sample-every 2 by kernel: exit $status: $(cat kernel2.check) $(grep 'not timed' kernel2.err)"
import collections, json, sys
r = json.load(open(sys.argv[1]))
made = {l.split()[1]: int(l.split()[2]) for l in open(sys.argv[2]) if l.startswith("manifest ")}
timed = collections.Counter(d["kernel"] for d in r["dispatches"] if d["valid"])
# every kernel, each timed at its 1st, 3rd, 5th... dispatch; nothing invalid
want = {k: (n + 1) // 2 for k, n in made.items()}
assert len(made) >= 2 and len(timed) == len(made) and r["invalid"] == 0, (dict(timed), made, r["invalid"])
assert sorted(timed.values()) == sorted(want.values()), (dict(timed), want)
PY
"$wgprof" record --via vulkan --sample-every 2 --sample-by encoder --json every2.json -- "$app" basic 5 \
  >every2.out 2>every2.err
status=$?
[ "$status" -eq 0 ] && grep -q '^4 dispatches not timed: --sample-every 2 left them out' every2.err \
  && [ "$(python3 -c 'import json,sys; print(sorted({d["iteration"] for d in json.load(open(sys.argv[1]))["dispatches"] if d["valid"]}))' every2.json)" = "[0, 1, 2]" ] \
  && [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["dispatches"]))' every2.json)" = 6 ] && ok \
  || bad "vk_compute basic 5 --sample-every 2: exit $status, want 6 of 10 dispatches timed, 4 said: $(grep 'not timed' every2.err)"

# ---- the default way: every report, nothing lost, nothing falsely partial ----
# complete JSON FILE: the report is not marked partial.
complete() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit("partial: %s" % r.get("partial_reason") if r["partial"] else 0)' "$1"
}
# The README's first example, every format, on a program that ends as usual, one that returns
# from main without destroying its device, one whose child of fork() exits with a copy of its
# device, one that execs without destroying anything, and one whose thread calls _exit (as
# Chromium's GPU process ends when its browser closes the connection): each the one complete
# report asked for.
for how in usual keep fork exec exit-now; do
  end=""; [ "$how" = usual ] || end="--end $how"
  # shellcheck disable=SC2086
  "$app" basic "$steps" $end >"end-$how.plain.out" 2>"end-$how.plain.err"
  # shellcheck disable=SC2086
  "$wgprof" record --json "end-$how.json" --html "end-$how.html" --trace "end-$how.trace.json" --csv "end-$how.csv" \
    -- "$app" basic "$steps" $end >"end-$how.out" 2>"end-$how.err"
  status=$?
  [ "$status" -eq 0 ] && cmp -s "end-$how.plain.out" "end-$how.out" && ok \
    || bad "vk_compute --end $how under record: exit $status, output $(diff "end-$how.plain.out" "end-$how.out"): $(tail_of "end-$how.err")"
  check exact "end-$how.out" -- "end-$how.json" --stderr "end-$how.err" >"end-$how.check" 2>&1 && ok \
    || bad "vk_compute --end $how: $(cat "end-$how.check")"
  complete "end-$how.json" >"end-$how.complete" 2>&1 && ok || bad "vk_compute --end $how: $(cat "end-$how.complete")"
  for f in "end-$how.html" "end-$how.trace.json" "end-$how.csv"; do
    [ -s "$f" ] && ok || bad "vk_compute --end $how: $f not written: $(grep 'not written' "end-$how.err")"
  done
  numbered="$(ls end-"$how".[0-9]*.[0-9]*.json 2>/dev/null)"
  [ -z "$numbered" ] && ok || bad "vk_compute --end $how: more than one result set: $numbered"
  grep -q 'not written\|ended before' "end-$how.err" && bad "vk_compute --end $how: $(grep 'not written\|ended before' "end-$how.err")" || ok
done
# A process the program started that outlives it, its device still open (as a browser's GPU
# process, which the browser ends as it exits, without waiting for it): the program (a shell)
# ends once the helper's first results are in the folder; the helper ends 200 ms after it.
# record waits for the helper's final results: the report whole, not the first snapshot.
"$wgprof" record --json outlive.json -- sh -c '"$1" basic "$2" --end after-parent >outlive.out 2>outlive.helper.err &
  for i in $(seq 1 1000); do ls "$WGPROF_RECORD_DIR"/*.json >/dev/null 2>&1 && exit 0; sleep 0.01; done
  echo "no results in the folder after 10 s" >&2; exit 1' outlive "$app" "$steps" 2>outlive.err
status=$?
[ "$status" -eq 0 ] && check exact outlive.out -- outlive.json --stderr outlive.err >outlive.check 2>&1 \
  && complete outlive.json >>outlive.check 2>&1 && ! grep -q 'ended before' outlive.err && ok \
  || bad "a helper process that outlives the program: exit $status: $(cat outlive.check) $(tail_of outlive.err)"
# Ctrl-C while record waits for such a helper (here one that ends 3 s after the program): the
# wait ends, the results so far are reported as partial, and record exits with the program's
# status. The helper is then waited for here, so that nothing of it outlives the test.
"$wgprof" record --json stop.json -- sh -c 'sh -c "\"\$0\" basic 4 --end after-parent >stop.helper.out & sleep 3" "$0" &
  until ls "$WGPROF_RECORD_DIR"/*.json >/dev/null 2>&1; do sleep 0.01; done' "$app" >stop.out 2>stop.err &
recorder=$!
for i in $(seq 1 500); do grep -q 'waiting for 1 process' stop.err && break; sleep 0.02; done
kill -INT "$recorder"
wait "$recorder"
status=$?
[ "$status" -eq 0 ] && grep -q 'waiting for 1 process' stop.err && grep -q 'ended before wgprof could finish' stop.err \
  && python3 -c 'import json,sys; sys.exit(0 if json.load(open("stop.json"))["partial"] else 1)' && ok \
  || bad "Ctrl-C during record's wait for a helper: exit $status: $(grep 'wgprof record' stop.err)"
for i in $(seq 1 1000); do grep -q '^checksum' stop.helper.out 2>/dev/null && break; sleep 0.01; done
# A process whose set's PID means another process to record: the program in a PID namespace of
# its own (its PID there 1, here init's), ended by abort() before its results are final. record
# tells the process that wrote the set by its start, so it does not wait for this namespace's
# PID 1 (else 10 s, said after half a second).
if unshare --pid --fork --mount-proc true 2>/dev/null; then
  "$wgprof" record --json ns.json -- unshare --pid --fork --mount-proc "$app" basic "$steps" --end abort \
    >ns.out 2>ns.err
  [ -f ns.json ] && grep -q 'ended before wgprof could finish' ns.err && ! grep -q 'waiting for' ns.err && ok \
    || bad "a program in a PID namespace of its own, aborted: $(grep 'wgprof record' ns.err)"
else
  echo "note: no PID namespace can be made here (unshare --pid): that check skipped"
fi
# The page's rows are the JSON report's: one row a dispatch in the CSV (its header apart).
rows="$(($(wc -l <end-usual.csv) - 1))"
[ "$rows" -eq $((2 * steps)) ] && ok || bad "end-usual.csv: $rows rows, want $((2 * steps))"
# A program that aborts once its work is read: what was read is there, marked partial, from the
# first results on (no second's wait), and said so.
"$wgprof" record --json abort.json -- "$app" basic "$steps" --end abort >abort.out 2>abort.err
status=$?
[ "$status" -eq 134 ] && ok || bad "vk_compute --end abort: exit $status, want 134: $(tail_of abort.err)"
check partial abort.out -- abort.json >abort.check 2>&1 && ok || bad "vk_compute --end abort: $(cat abort.check)"
complete abort.json >/dev/null 2>&1 && bad "vk_compute --end abort: the report is not marked partial" || ok
grep -q 'created no' abort.err && bad "vk_compute --end abort: $(grep 'created no' abort.err)" || ok

# A program ended by SIGTERM (as a browser ends its GPU process): its report whole, written by
# the layer's thread before the signal's default action ends it (exit 143, as without wgprof); a
# child of fork() holding a copy of the device is ended by SIGTERM at once (the parent checks).
"$app" basic "$steps" --end term >term.plain.out 2>/dev/null
"$wgprof" record --json term.json -- "$app" basic "$steps" --end term >term.out 2>term.err
status=$?
[ "$status" -eq 143 ] && cmp -s term.plain.out term.out && ok \
  || bad "vk_compute --end term: exit $status (want 143), output $(diff term.plain.out term.out | head -n 3): $(tail_of term.err)"
check exact term.out -- term.json --stderr term.err >term.check 2>&1 && ok || bad "vk_compute --end term: $(cat term.check)"
complete term.json >term.complete 2>&1 && ok || bad "vk_compute --end term: $(cat term.complete)"
"$wgprof" record --json fork-term.json -- "$app" basic "$steps" --end fork-term >fork-term.out 2>fork-term.err
status=$?
[ "$status" -eq 0 ] && complete fork-term.json >fork-term.complete 2>&1 && ok \
  || bad "vk_compute --end fork-term: exit $status, $(cat fork-term.complete 2>/dev/null) $(tail_of fork-term.err)"

# A program that closes every descriptor it did not open and opens a folder of its own in their
# place: nothing of wgprof's is written into its folder, and its report is whole.
mkdir -p own
"$wgprof" record --json own.json -- "$app" basic "$steps" --close-fds own >own.out 2>own.err
status=$?
[ "$status" -eq 0 ] && [ -z "$(ls -A own)" ] && ok \
  || bad "vk_compute --close-fds: exit $status, its folder holds: $(ls -A own | head -n 5)"
check exact own.out -- own.json --stderr own.err >own.check 2>&1 && ok || bad "vk_compute --close-fds: $(cat own.check)"

# A full filesystem for the results: said, with the system's reason, and record exits non-zero
# (in a mount namespace of its own, a small tmpfs filled up; skipped where mounting is not allowed).
full_fs "$wgprof" record --json full.json -- "$app" basic 2 >full.out 2>full.err
status=$?
if [ "$status" -eq 77 ] || grep -q 'unshare: .*Operation not permitted' full.err; then
  echo "note: a full filesystem skipped: no mount namespace or tmpfs here"
else
  [ "$status" -ne 0 ] && grep -q 'No space left on device' full.err && grep -q 'could not be written' full.err && ok \
    || bad "a full results filesystem: exit $status: $(grep wgprof full.err)"
  grep -q 'created no' full.err && bad "a full results filesystem: $(grep 'created no' full.err)" || ok
fi

# ---- the chain across a batch's command buffers, one dispatch each (vk_compute batch, batch2) ----
# The test layer below wgprof's counts the timestamps submitted. Per command buffer
# (WGPROF_LAYER_CHAIN=command-buffer) each of the 2 a step holds 2: 4 a step. Across the batch
# (the default), once a batch of two timed command buffers was seen: one before each dispatch
# and one in the tail after the batch, 3 a step (the first step's 4, recorded before any batch);
# batch2's command buffer of a barrier alone between the two does not break the chain: each later
# batch is "1 0 1 1" (the test layer's timestamps per command buffer, the tail last).
# Both reports hold the same records, every one valid; across the batch, each later step's
# scale ends where its fold begins (the same tick).
test_layer_dir="$(cd "$2" && pwd)"
chain_steps=6
for mode in batch batch2; do
  [ -f "$mode.plain.out" ] && grep -q '^checksum ' "$mode.plain.out" || continue
  "$app" "$mode" "$chain_steps" >"$mode-chain.plain.out" 2>/dev/null
  # "submit": the default, WGPROF_LAYER_CHAIN unset.
  for chain in submit command-buffer; do
    setting=(WGPROF_LAYER_CHAIN="$chain")
    [ "$chain" = submit ] && setting=(-u WGPROF_LAYER_CHAIN)
    env "${setting[@]}" VK_ADD_LAYER_PATH="$test_layer_dir" VK_INSTANCE_LAYERS="$layer_name:VK_LAYER_WGPROF_test_period" \
      WGPROF_TEST_COUNT_TIMESTAMPS=1 WGPROF_TEST_LOG_BATCHES=1 "$wgprof" record --via vulkan \
      --json "$mode-$chain.json" -- "$app" "$mode" "$chain_steps" >"$mode-$chain.out" 2>"$mode-$chain.err"
    status=$?
    [ "$status" -eq 0 ] && cmp -s "$mode-chain.plain.out" "$mode-$chain.out" && ok \
      || bad "vk_compute $mode, chain $chain: exit $status, output $(diff "$mode-chain.plain.out" "$mode-$chain.out" | head -n 3) $(tail_of "$mode-$chain.err")"
    check exact "$mode-$chain.out" -- "$(report_of "$mode-$chain.json")" --stderr "$mode-$chain.err" \
      >"$mode-$chain.check" 2>&1 && ok || bad "vk_compute $mode, chain $chain: $(cat "$mode-$chain.check")"
  done
  want_submit=$((4 + 3 * (chain_steps - 1))) want_cb=$((4 * chain_steps))
  grep -qx "test layer: $want_submit timestamps submitted" "$mode-submit.err" && ok \
    || bad "vk_compute $mode, chained across the batch (the default): want $want_submit timestamps submitted: $(grep 'timestamps submitted' "$mode-submit.err")"
  if [ "$mode" = batch2 ]; then
    [ "$(grep '^test layer: batch' "$mode-submit.err" | tail -n +2 | sort | uniq -c | sed 's/^ *//')" = \
      "$((chain_steps - 1)) test layer: batch 1 0 1 1" ] && ok \
      || bad "vk_compute batch2, chained across the batch: want each later batch '1 0 1 1': $(grep '^test layer: batch' "$mode-submit.err" | head -n 3)"
  fi
  grep -qx "test layer: $want_cb timestamps submitted" "$mode-command-buffer.err" && ok \
    || bad "vk_compute $mode, a chain per command buffer: want $want_cb timestamps submitted: $(grep 'timestamps submitted' "$mode-command-buffer.err")"
  python3 - "$mode-submit.json" "$mode-command-buffer.json" "$chain_steps" <<'PY' >"$mode-chain.check" 2>&1 && ok \
    || bad "vk_compute $mode: $(cat "$mode-chain.check")"
import json, sys
# In the order they ran (a report lists them as they were read).
across, alone = (sorted(json.load(open(f))["dispatches"], key=lambda d: d["begin_ticks"]) for f in sys.argv[1:3])
steps = int(sys.argv[3])
key = lambda d: (d["kernel"], tuple(d["workgroups"]))
if [key(d) for d in across] != [key(d) for d in alone] or len(across) != 2 * steps:
    sys.exit(f"the records differ: {[key(d) for d in across]} against {[key(d) for d in alone]}")
for name, records in (("across the batch", across), ("per command buffer", alone)):
    bad = [d for d in records if not d["valid"] or not d["duration_ns"] >= 0]
    if bad:
        sys.exit(f"{name}: records without a valid time: {bad[:2]}")
joined = sum(across[i]["end_ticks"] == across[i + 1]["begin_ticks"] for i in range(2, 2 * steps, 2))
if joined != steps - 1:
    sys.exit(f"across the batch: {joined} of the {steps - 1} later steps' scale end at their fold's first tick")
PY
done
# A command buffer that holds a dispatch left untimed (--sample-every 2 by kernel: batch2's
# middle one dispatches scale again, every other scale timed) ends the chain before it: in the
# even steps, scale's chain ends at a tail right after it ("1 1 0 0": scale, the tail, the middle,
# fold untimed), never after the untimed work; the odd steps' batches are closed chains ("2 0 2",
# the batch before held one timed command buffer). Every record valid, the output as plain.
if [ -f batch2.plain.out ] && grep -q '^checksum ' batch2.plain.out; then
  "$app" batch2 "$chain_steps" --middle-dispatch >middle.plain.out 2>/dev/null
  WGPROF_LAYER_CHAIN=submit VK_ADD_LAYER_PATH="$test_layer_dir" VK_INSTANCE_LAYERS="$layer_name:VK_LAYER_WGPROF_test_period" \
    WGPROF_TEST_COUNT_TIMESTAMPS=1 WGPROF_TEST_LOG_BATCHES=1 "$wgprof" record --via vulkan --sample-every 2 \
    --json middle.json -- "$app" batch2 "$chain_steps" --middle-dispatch >middle.out 2>middle.err
  status=$?
  batches="$(grep '^test layer: batch' middle.err | sed 's/^test layer: batch //' | tr '\n' '/')"
  valid="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["dispatches"]; print(len(d), all(x["valid"] for x in d))' middle.json 2>&1)"
  [ "$status" -eq 0 ] && cmp -s middle.plain.out middle.out && [ "$batches" = "2 0 2/1 1 0 0/2 0 2/1 1 0 0/2 0 2/1 1 0 0/" ] \
    && [ "$valid" = "9 True" ] && ok \
    || bad "vk_compute batch2 --middle-dispatch, --sample-every 2 across the batch: exit $status, batches [$batches] want [2 0 2/1 1 0 0/...], records: $valid (want 9 True)"
fi
# Timestamps only: one before each row the layer would time (each dispatch, each run of the
# program's own transfer work: the rows its manifest counts), nothing else, no file.
for mode in batch work; do
  [ -f "$mode.plain.out" ] && grep -q '^checksum ' "$mode.plain.out" || continue
  rows="$(awk '$1 == "manifest" { n += $NF } END { print n }' "$mode.plain.out")"
  rm -rf only && mkdir only
  (cd only && VK_ADD_LAYER_PATH="$layer_dir:$test_layer_dir" VK_INSTANCE_LAYERS="$layer_name:VK_LAYER_WGPROF_test_period" \
    WGPROF_TEST_COUNT_TIMESTAMPS=1 WGPROF_LAYER_TIMESTAMPS_ONLY=1 WGPROF_RECORD_DIR="$PWD" \
    WGPROF_RECORD_DIR_ID="$(stat -c %d:%i .)" "$app" "$mode" "$steps" >../"$mode-only.out" 2>../"$mode-only.err")
  status=$?
  [ "$status" -eq 0 ] && cmp -s "$mode.plain.out" "$mode-only.out" \
    && grep -qx "test layer: $rows timestamps submitted" "$mode-only.err" && [ -z "$(ls only)" ] && ok \
    || bad "vk_compute $mode, timestamps only: exit $status, want $rows timestamps and no file: $(grep 'test layer' "$mode-only.err") $(ls only) $(tail_of "$mode-only.err")"
done

# ---- a setting the layer does not take (layer.h) ----
# `wgprof record` refuses it before the program runs (exit 2, the setting and its values named);
# the layer enabled by hand says it once and keeps the default: it times as usual, not
# timestamps only, and writes its results.
if [ -f batch.plain.out ]; then
  WGPROF_LAYER_READBACK=querry "$wgprof" record -- "$app" batch "$steps" >refused.out 2>refused.err
  status=$?
  [ "$status" -eq 2 ] && [ ! -s refused.out ] \
    && grep -q "WGPROF_LAYER_READBACK=querry: not a value wgprof's Vulkan layer takes (query|buffer)" refused.err && ok \
    || bad "WGPROF_LAYER_READBACK=querry: exit $status (want 2, the program not run): $(tail_of refused.err)"
  # A value too long to show whole (100,000 characters) is shown in part, the reason still said.
  long="$(head -c 100000 /dev/zero | tr '\0' x)"
  WGPROF_LAYER_CHAIN="$long" "$wgprof" record -- "$app" batch "$steps" >refused-long.out 2>refused-long.err
  status=$?
  [ "$status" -eq 2 ] && [ ! -s refused-long.out ] \
    && grep -q "WGPROF_LAYER_CHAIN=x\{64\}\.\.\.: not a value wgprof's Vulkan layer takes" refused-long.err && ok \
    || bad "WGPROF_LAYER_CHAIN of 100,000 characters: exit $status (want 2, the reason said): $(tail -c 300 refused-long.err)"
  WGPROF_LAYER_CHAIN="$long" VK_ADD_LAYER_PATH="$layer_dir" VK_INSTANCE_LAYERS="$layer_name" \
    "$app" batch "$steps" >long-by-hand.out 2>long-by-hand.err
  status=$?
  [ "$status" -eq 0 ] && cmp -s batch.plain.out long-by-hand.out \
    && [ "$(grep -c "WGPROF_LAYER_CHAIN=x\{64\}\.\.\.: not a value it takes" long-by-hand.err)" = 1 ] && ok \
    || bad "WGPROF_LAYER_CHAIN of 100,000 characters by hand: exit $status, want the reason said once: $(tail -c 300 long-by-hand.err)"
  rm -rf typo && mkdir -m 700 typo
  (cd typo && VK_ADD_LAYER_PATH="$layer_dir" VK_INSTANCE_LAYERS="$layer_name" WGPROF_LAYER_TIMESTAMPS_ONLY=yes \
    WGPROF_RECORD_DIR="$PWD" WGPROF_RECORD_DIR_ID="$(stat -c %d:%i .)" "$app" batch "$steps" >../typo.out 2>../typo.err)
  status=$?
  said="$(grep -c "WGPROF_LAYER_TIMESTAMPS_ONLY=yes: not a value it takes (0|1); its default is used" typo.err)"
  [ "$status" -eq 0 ] && cmp -s batch.plain.out typo.out && [ "$said" = 1 ] && ls typo/*.done >/dev/null 2>&1 && ok \
    || bad "WGPROF_LAYER_TIMESTAMPS_ONLY=yes by hand: exit $status, said $said times (want 1), results: $(ls typo) $(tail_of typo.err)"
fi

# ---- only what the program's waits retired is read (vk_compute pipelined: two steps in flight) ----
# Each step's work is long done when the program waits for the step before it: the layer must not
# read (and reset from the host) the later step's queries before the program waits for it, as
# the Khronos validation layers hold (the test layer counts such resets). Read from the query
# pools (WGPROF_LAYER_READBACK=query), and from the layer's buffer (lavapipe's default), where
# the readings come without a single vkGetQueryPoolResults and no reset from the host.
if [ -f pipelined.plain.out ] && grep -q '^checksum ' pipelined.plain.out; then
  for readback in query buffer; do
    VK_ADD_LAYER_PATH="$test_layer_dir" VK_INSTANCE_LAYERS="$layer_name:VK_LAYER_WGPROF_test_period" \
      WGPROF_TEST_COUNT_TIMESTAMPS=1 WGPROF_LAYER_READBACK=$readback "$wgprof" record --via vulkan \
      --json "retire-$readback.json" -- "$app" pipelined "$steps" >"retire-$readback.out" 2>"retire-$readback.err"
    status=$?
    reads="$(sed -n 's/^test layer: \([0-9]*\) query pool reads$/\1/p' "retire-$readback.err")"
    [ "$status" -eq 0 ] && cmp -s pipelined.plain.out "retire-$readback.out" \
      && grep -qx "test layer: 0 queries reset before the program waited for their submit" "retire-$readback.err" \
      && { { [ "$readback" = query ] && [ "${reads:-0}" -gt 0 ]; } || { [ "$readback" = buffer ] && [ "$reads" = 0 ]; }; } \
      && ok \
      || bad "vk_compute pipelined, read from the $readback: exit $status, queries reset early or read from the pools: $(grep 'test layer' "retire-$readback.err") $(tail_of "retire-$readback.err")"
    check exact "retire-$readback.out" -- "$(report_of "retire-$readback.json")" --stderr "retire-$readback.err" \
      >retire.check 2>&1 && ok || bad "vk_compute pipelined, read from the $readback, counting layer below: $(cat retire.check)"
  done
fi

# A driver whose timestampPeriod is no positive finite number (a layer of the test's own below
# wgprof's reports it): the device's dispatches are counted, none timed, each said; the JSON
# report strict JSON.
for period in nan inf 0 -1; do
  VK_ADD_LAYER_PATH="$test_layer_dir" VK_INSTANCE_LAYERS="$layer_name:VK_LAYER_WGPROF_test_period" \
    WGPROF_TEST_TIMESTAMP_PERIOD="$period" "$wgprof" record --via vulkan --json "period$period.json" -- \
    "$app" basic 2 >"period$period.out" 2>"period$period.err"
  status=$?
  [ "$status" -eq 0 ] && grep -q "timestampPeriod is $period, not a positive finite number" "period$period.err" \
    && grep -q '^4 dispatches not timed: their device or queue has no usable timestamps' "period$period.err" && ok \
    || bad "a timestampPeriod of $period: exit $status: $(grep -i 'wgprof\|not timed' "period$period.err")"
  python3 - "period$period.json" <<'PY' >"period$period.check" 2>&1 && ok || bad "a timestampPeriod of $period: $(cat "period$period.check")"
import json, sys
def refuse(name):
    raise ValueError(f"{name} in the JSON report")
r = json.load(open(sys.argv[1]), parse_constant=refuse)
if r["dispatches"] or r["partial"]:
    sys.exit(f"{len(r['dispatches'])} records, partial {r['partial']}: want none, complete")
PY
done

# A device that also lists a copy engine's family counting 32 timestamp bits, as an H100 does (the
# test layer adds one): the layer reads its compute family's 64-bit ticks as they are, not
# unwrapped at the narrowest family's 32 bits (then every tick would lie below 2^33; lavapipe's
# count nanoseconds since boot). Every record there and valid, the output as plain.
VK_ADD_LAYER_PATH="$test_layer_dir" VK_INSTANCE_LAYERS="$layer_name:VK_LAYER_WGPROF_test_period" \
  WGPROF_TEST_EXTRA_FAMILY_BITS=32 "$wgprof" record --via vulkan --json family32.json -- \
  "$app" basic "$steps" >family32.out 2>family32.err
status=$?
check exact family32.out -- family32.json --stderr family32.err >family32.check 2>&1 \
  && python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["dispatches"]; low=min(x["begin_ticks"] for x in d); sys.exit(0 if low >= 1 << 33 else "ticks from %d: unwrapped at 32 bits" % low)' \
    family32.json >>family32.check 2>&1 && [ "$status" -eq 0 ] && ok \
  || bad "a device with a 32-bit copy engine family: exit $status: $(cat family32.check)"

# ---- validation: nothing more with wgprof's layer than without it ----
# The user names wgprof's layer before the validation layer, which the CLI keeps: wgprof's layer
# then sits above validation, which sees the commands wgprof adds (its timestamps, its query
# pools) as well as the program's.
messages() { # messages FILE -> the messages' IDs (or, without one, their text, handles blanked), sorted
  sed -n 's/^vk_compute: message ([a-z]*) \([^:]*\): \(.*\)$/\1 \2/p' "$1" |
    sed -E '/^\(no id\) /!s/ .*//; s/0x[0-9a-fA-F]+/0x/g' | sort -u
}
VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$app" basic 1 --debug-utils >probe.out 2>probe.err
if ! grep -q 'Inserted device layer "VK_LAYER_KHRONOS_validation"' probe.err; then
  echo "note: validation skipped: no VK_LAYER_KHRONOS_validation here (Debian: vulkan-validationlayers)"
else
  for mode in $modes render; do
    [ -f "$mode.plain.out" ] && grep -q '^checksum ' "$mode.plain.out" || continue
    n=$steps
    [ "$mode" = render ] && n=48
    VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$app" "$mode" "$n" --debug-utils >"v-$mode.plain.out" 2>"v-$mode.plain.err"
    # The user's list alone (wgprof's layer implicit, above the list's), or, in basic, wgprof's
    # layer named by the user above validation (its explicit manifest).
    layers=VK_LAYER_KHRONOS_validation
    [ "$mode" = basic ] && layers="$layer_name:VK_LAYER_KHRONOS_validation"
    VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS="$layers" \
      "$wgprof" record --via vulkan --json "v-$mode.json" -- "$app" "$mode" "$n" --debug-utils >"v-$mode.out" 2>"v-$mode.err"
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
$(grep '^vk_compute: message' "v-$mode.err" | grep -F -- "$added" | head -n 5)"
    cmp -s "v-$mode.plain.out" "v-$mode.out" && ok \
      || bad "vk_compute $mode under validation: its output changed under record: $(diff "v-$mode.plain.out" "v-$mode.out")"
  done
fi

finish
