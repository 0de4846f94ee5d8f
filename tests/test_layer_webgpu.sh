#!/usr/bin/env bash
# wgprof's Vulkan layer on a WebGPU program that knows nothing of wgprof (tests/record's C
# program, linked to the implementation WGPROF_WEBGPU names), under the implementation's own
# Vulkan back end. Its output must not change under any of the three paths, and:
#  - `--via vulkan`: the layer alone, with no webgpu.h hook at all (as a program with its
#    implementation compiled in is reached): the report holds every dispatch it submitted, per
#    entry point where the implementation keeps the WGSL names in its SPIR-V (wgpu-native), per
#    kernel count where it renames them (Dawn), each kernel under a name of its SPIR-V's that is
#    the same in two runs; and the implementation's copies and clears (the program's readback
#    copies, its own zeroing of new buffers) as rows of their own named by what each run of them
#    held, in record's words ("(copy)", "(copy, clear)"), valid.
#  - the default (`--via auto`): the layer times, the preload library only has the
#    implementation pass the program's labels down: one report, said to be the layer's with names
#    from webgpu.h, every dispatch in it once, named label:entry as the program's manifest has
#    them (on Dawn, pipelines that differ only in their labels are one to Dawn, and to the layer:
#    named after the first one made, their counts together).
#  - the default from a wgprof without the layer beside it (a copy of the binary with the
#    preload library alone): the preload library times every dispatch itself.
#  - the preload library told of the layer where the loader did not load it: it times itself.
#  - `--via webgpu`: the preload library alone, as before.
# $1 is the wgprof binary, $2 the folder the record_app_* programs are built in.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
apps="$(cd "$2" && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

impl="${WGPROF_WEBGPU:-wgpu-native}"
case "$impl" in
  wgpu-native) app="$apps/record_app_wgpu_native" ;;
  dawn) app="$apps/record_app_dawn" ;;
  *) echo "skipped: no test program for $impl"; exit 77 ;;
esac
[ -x "$app" ] || { echo "skipped: $app not built"; exit 77; }
"$wgprof" record --via vulkan -- true >probe.out 2>probe.err
if grep -q "Vulkan layer is not beside wgprof" probe.err; then
  echo "skipped: the Vulkan layer is not built (libvulkan-dev)"
  exit 77
fi

"$app" basic >plain.out 2>plain.err || { bad "the program fails by itself: $(tail -n 5 plain.err)"; finish; exit; }
for run in 1 2; do
  "$wgprof" record --via vulkan --json "run$run.json" -- "$app" basic >"rec$run.out" 2>"rec$run.err"
  status=$?
  [ "$status" -eq 0 ] && ok || bad "run $run under record --via vulkan exited $status: $(tail -n 8 "rec$run.err")"
  cmp -s plain.out "rec$run.out" && ok || bad "run $run: the output changed under the layer: $(diff plain.out "rec$run.out")"
done
python3 - "$impl" plain.out run1.json run2.json <<'PY' >check.out 2>&1 && ok || bad "$(cat check.out)"
import collections, glob, json, sys
impl, manifest, first, second = sys.argv[1:]
def report(path):
    found = [path] if glob.os.path.exists(path) else glob.glob(path[:-5] + ".[0-9]*.[0-9]*.json")
    if len(found) != 1:
        sys.exit(f"want one report for {path}, found {found}")
    return json.load(open(found[0]))
want = collections.Counter()
for line in open(manifest):
    if line.startswith("manifest "):
        name, count = line[len("manifest "):].rsplit(" ", 1)
        want[name.rsplit(":", 1)[-1]] += int(count)
a, b = report(first), report(second)
WORDS = ["copy", "clear", "query resolve"]  # record's, in its order
for r in (a, b):
    if r["invalid"]:
        sys.exit(f"{r['invalid']} invalid records: {r['invalid_by_reason']}")
    rows = [k for k in r["kernels"] if k["name"].startswith("(")]
    r["kernels"] = [k for k in r["kernels"] if not k["name"].startswith("(")]
    if r["records"] - sum(k["count"] for k in rows) != sum(want.values()):
        sys.exit(f"{r['records']} records, {[(k['name'], k['count']) for k in rows]} of the implementation's own "
                 f"work among them; the program submitted {sum(want.values())} dispatches")
    if not all(k["name"].startswith("spirv-") for k in r["kernels"]):
        sys.exit(f"names not of the SPIR-V: {[k['name'] for k in r['kernels']]}")
    for k in rows:
        words = k["name"][1:-1].split(", ")
        if not k["name"].endswith(")") or not all(w in WORDS for w in words) or \
                words != sorted(set(words), key=WORDS.index):
            sys.exit(f"a row of the implementation's own work named {k['name']!r}, not in record's words")
    if not any("copy" in k["name"] for k in rows):
        sys.exit(f"no row of copies (the program reads its results back through one): {[k['name'] for k in rows]}")
    r["rows"] = rows
names = lambda r: sorted((k["name"], k["count"]) for k in r["kernels"] + r["rows"])
if names(a) != names(b):
    sys.exit(f"names differ between two runs: {names(a)} against {names(b)}")
got = collections.Counter()
for k in a["kernels"]:
    got[k["name"].rsplit(":", 1)[-1]] += k["count"]
if impl == "wgpu-native" and got != want:
    sys.exit(f"per entry point: want {dict(want)}, got {dict(got)}")
if sorted(k["count"] for k in a["kernels"]) != sorted(want.values()):
    sys.exit(f"per kernel: want counts {sorted(want.values())}, got {names(a)}")
PY

# The implementation the layer names beside the preload library, as record.h spells it.
with_labels="$(sed -n 's/^#define RECORD_LAYER_WITH_LABELS "\(.*\)"$/\1/p' "$(dirname "$0")/../record/record.h")"
[ -n "$with_labels" ] || { bad "RECORD_LAYER_WITH_LABELS not found in record/record.h"; finish; exit; }
mkdir -p alone/cli alone/record
cp "$wgprof" alone/cli/wgprof
ln -s "$(dirname "$(dirname "$wgprof")")/record/libwgprof_record.so" alone/record/libwgprof_record.so
for via in auto alone webgpu; do
  case "$via" in
    auto) run=("$wgprof" record) ;;
    alone) run=("$tmp/alone/cli/wgprof" record) ;;
    webgpu) run=("$wgprof" record --via webgpu) ;;
  esac
  "${run[@]}" --json "$via.json" -- "$app" basic >"$via.out" 2>"$via.err"
  status=$?
  [ "$status" -eq 0 ] && ok || bad "$via: record exited $status: $(tail -n 8 "$via.err")"
  cmp -s plain.out "$via.out" && ok || bad "$via: the output changed: $(diff plain.out "$via.out")"
  python3 - "$impl" "$via" "$with_labels" plain.out "$via.json" "$via.err" <<'PY' >"$via.check" 2>&1 && ok || bad "$via: $(cat "$via.check")"
import collections, fnmatch, glob, json, os, sys
impl, via, with_labels, manifest, path, err = sys.argv[1:]
found = [path] if os.path.exists(path) else sorted(glob.glob(path[:-5] + ".[0-9]*.[0-9]*.json"))
if len(found) != 1:
    sys.exit(f"want one report (one device, each dispatch timed once), found {found}")
r = json.load(open(found[0]))
want = collections.Counter()
for line in open(manifest):
    if line.startswith("manifest "):
        name, count = line[len("manifest "):].rsplit(" ", 1)
        want[name] += int(count)
implementation = r["adapter"]["implementation"]
stderr = open(err).read()
if via == "auto":
    if implementation != with_labels:
        sys.exit(f"implementation {implementation!r}, want {with_labels!r}")
    if "timed by wgprof's Vulkan layer; kernels named after the labels given through webgpu.h" not in stderr:
        sys.exit("the table is not headed by how its times were taken (the layer, names from webgpu.h)")
    if "a dispatch's time runs from the layer's timestamp before it to the next one in its command buffer or the next of its batch" not in stderr:
        sys.exit("the table does not say what a layer row's time holds")
else:
    if implementation.startswith("Vulkan layer"):
        sys.exit(f"timed by the layer ({implementation!r}): want the preload library")
    if "timed through webgpu.h" not in stderr:
        sys.exit("the table is not headed by how its times were taken (through webgpu.h)")
if r["invalid"]:
    sys.exit(f"{r['invalid']} invalid records: {r['invalid_by_reason']}")
# rows of copies and clears ("(copy)", "(clear)", ...) are work of their own, not dispatches
got = {k["name"]: k["count"] for k in r["kernels"] if not k["name"].startswith("(")}
if sum(got.values()) != sum(want.values()):
    sys.exit(f"{sum(got.values())} dispatches in the report, the program submitted {sum(want.values())}: {got}")
def wanted(name):
    return [w for w in want if fnmatch.fnmatchcase(name, w)]
strays = [n for n in got if len(wanted(n)) != 1]
if strays:
    sys.exit(f"names not label:entry as the program's manifest has them: {strays} (want {sorted(want)})")
if via == "auto" and impl == "dawn":
    # Pipelines Dawn makes one count under one name: each name's count at least its own.
    short = [n for n in got if got[n] < want[wanted(n)[0]]]
    if short:
        sys.exit(f"fewer dispatches than submitted for {short}: got {got}, want {dict(want)}")
else:
    per = collections.Counter({wanted(n)[0]: c for n, c in got.items()})
    if per != want:
        sys.exit(f"per kernel: want {dict(want)}, got {got}")
PY
done
# The default way on a program that resolves timestamp queries of its own: its kernels named as the
# webgpu.h way names them (told to the layer by the preload library as each pipeline is made, the
# implementation asked for nothing), every one of them in the manifest; a pipeline the
# implementation makes for its own work (Dawn's conversion of the program's timestamps) is the
# implementation's row, "(implementation) ...", not a kernel of the program's.
"$app" own-timestamps >own.plain.out 2>own.plain.err
"$wgprof" record --json own.json -- "$app" own-timestamps >own.out 2>own.err
status=$?
# (its own timestamps, which it prints, differ from run to run)
[ "$status" -eq 0 ] && diff <(grep -v '^own timestamps:' own.plain.out) <(grep -v '^own timestamps:' own.out) >own.diff && ok \
  || bad "own-timestamps under the default: exit $status, output $(cat own.diff): $(tail -n 5 own.err)"
python3 - "$impl" own.plain.out own.json <<'PY' >own.check 2>&1 && ok || bad "own-timestamps under the default: $(cat own.check)"
import fnmatch, glob, json, os, sys
impl, manifest, path = sys.argv[1:]
found = [path] if os.path.exists(path) else sorted(glob.glob(path[:-5] + ".[0-9]*.[0-9]*.json"))
if len(found) != 1:
    sys.exit(f"want one report, found {found}")
r = json.load(open(found[0]))
want = [l[len("manifest "):].rsplit(" ", 1)[0] for l in open(manifest) if l.startswith("manifest ")]
kernels = [k["name"] for k in r["kernels"] if not k["name"].startswith("(")]
strays = [n for n in kernels if not any(fnmatch.fnmatchcase(n, w) for w in want)]
if strays:
    sys.exit(f"kernels the program did not make: {strays} (its manifest: {want})")
own = [k["name"] for k in r["kernels"] if k["name"].startswith("(implementation) ")]
if impl == "dawn" and not own:
    sys.exit(f"no row of Dawn's own dispatch (its timestamp conversion): {[k['name'] for k in r['kernels']]}")
# Each says where its name came from: the implementation's own, the kinds of transfer work, or
# the program's labels and code as the webgpu.h way names them.
for k in r["kernels"]:
    name = k["name"]
    want = ({"the implementation's own pipeline"} if name.startswith("(implementation) ")
            else {"transfer work between dispatches, by kind"} if name.startswith("(")
            else {"shader code hash"} if name.startswith("wgsl-")
            else {"shader module label"} if name.startswith("arith:")
            else {"pipeline label"})
    if k.get("name_source") not in want:
        sys.exit(f"kernel {name}: name_source {k.get('name_source')!r}, want one of {want}")
PY
# The user's own validation layer under the default way finds nothing it does not find without
# wgprof: the debug information wgpu-native's debug flag (set for the labels) has naga add to the
# SPIR-V is taken out by wgprof's layer, which sits above the user's layers.
if VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$app" basic >val.plain.out 2>val.plain.err \
  && grep -q 'Inserted device layer "VK_LAYER_KHRONOS_validation"' val.plain.err; then
  VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$app" basic >val.plain.out 2>val.plain.err
  VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$wgprof" record --json val.json -- "$app" basic >val.out 2>val.err
  status=$?
  # Each error by its ID and text, the objects it names left out (Dawn names them after a toggle).
  errors() { grep -h 'Validation Error: \[' "$@" | sed -E 's/.*\[ ([^ ]+) \].*\| ([^|]*)$/\1 \2/; s/0x[0-9a-fA-F]+/0x/g' | sort -u; }
  added="$(comm -13 <(errors val.plain.out val.plain.err) <(errors val.out val.err))"
  [ "$status" -eq 0 ] && [ -z "$added" ] && ok \
    || bad "validation under the default way: exit $status, errors only with wgprof: $added"
  # A wgpu-py script (wgpu-py ships wgpu-native): its WGSL modules are where naga adds the
  # debug information the user's validation layer rejects ("Invalid source language operand").
  python="$(cd "$(dirname "$0")/.." && pwd)/.deps/wgpu-py/bin/python"
  if [ "$impl" = wgpu-native ] && [ -x "$python" ]; then
    script="$(cd "$(dirname "$0")" && pwd)/record/compute.py"
    VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$python" "$script" >pyval.plain.out 2>pyval.plain.err
    # The README's first example: every format under the default way.
    VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$wgprof" record --json pyval.json --html pyval.html \
      --trace pyval.trace.json --csv pyval.csv -- "$python" "$script" >pyval.out 2>pyval.err
    status=$?
    added="$(comm -13 <(errors pyval.plain.out pyval.plain.err) <(errors pyval.out pyval.err))"
    [ "$status" -eq 0 ] && [ -z "$added" ] && cmp -s pyval.plain.out pyval.out && ok \
      || bad "a wgpu-py script under validation and the default way: exit $status, errors only with wgprof: $added"
    # Nor does the script print anything it does not print without wgprof (a log line of the
    # loader's, passed on by an instance debug flag): its stderr up to wgprof's own lines.
    own() { sed -n '/^timed by \|^wgprof\|^$/q;p' "$1" | sort -u; }
    extra="$(comm -13 <(sort -u pyval.plain.err) <(own pyval.err))"
    [ -z "$extra" ] && ok || bad "a wgpu-py script under the default way prints what it does not without wgprof: $extra"
    [ -s pyval.html ] && [ -s pyval.trace.json ] && [ -s pyval.csv ] && ! grep -q 'not written' pyval.err && ok \
      || bad "a wgpu-py script under the default way: reports not written: $(grep 'not written' pyval.err)"
  fi
else
  echo "note: validation skipped: no VK_LAYER_KHRONOS_validation here (Debian: vulkan-validationlayers)"
fi
# The default way's scopes are the webgpu.h way's: the program's pass labels and debug groups,
# told to the layer by the preload library as the implementation records (wgpu-native at the
# encoder's finish, Dawn at the submit), with nothing asked of the implementation. Compared per
# scope path (Dawn makes one pipeline of two that differ only in their labels).
# Mode interleaved: two passes open at once on one thread, each dispatch in its own pass's scope;
# threads8: eight threads encoding at once, each its own passes (on wgpu-native: Dawn's library
# ends that program with a segmentation fault by itself, without wgprof).
modes="basic:3 interleaved:2"
[ "$impl" = wgpu-native ] && modes="$modes threads8:8"
for mode in $modes; do
  least=${mode#*:}
  mode=${mode%:*}
  "$wgprof" record --json sc-auto.json -- "$app" $mode >sc-auto.out 2>sc-auto.err
  "$wgprof" record --via webgpu --json sc-web.json -- "$app" $mode >sc-web.out 2>sc-web.err
  python3 - sc-auto.json sc-web.json "$least" <<'PY' >sc.check 2>&1 && ok || bad "scopes under the default way, $mode: $(cat sc.check)"
import collections, json, sys
def paths(path):
    r = json.load(open(path))
    instances = r["scope_instances"]
    return collections.Counter(instances[d["scope"]]["path"] if d["scope"] >= 0 else ""
                               for d in r["dispatches"] if not d["kernel"].startswith("("))
auto, web = paths(sys.argv[1]), paths(sys.argv[2])
if auto != web or len(web) < int(sys.argv[3]):
    sys.exit(f"dispatches per scope path: default way {dict(auto)}, webgpu.h way {dict(web)}")
PY
done
# Two devices under the default way: one file of each format, holding both result sets.
"$wgprof" record --json two.json --trace two.trace.json --csv two.csv --html two.html -- "$app" two-devices \
  >two.out 2>two.err
status=$?
[ "$status" -eq 0 ] && ok || bad "two-devices under the default: exit $status: $(tail -n 5 two.err)"
python3 "$(dirname "$0")/record/check_sets.py" 2 two.json --trace two.trace.json --csv two.csv --html two.html \
  >two.check 2>&1 && ok || bad "two-devices under the default: $(cat two.check)"
# The preload library told of the layer (record.h) in a program the loader did not load it into
# (set by hand, as the CLI would, less the layer's enabling): it times every dispatch itself.
layer_lib="$(dirname "$(dirname "$wgprof")")/layer/libwgprof_layer.so"
mkdir -m 700 unloaded
WGPROF_RECORD_DIR="$tmp/unloaded" WGPROF_RECORD_DIR_ID="$(stat -c %d:%i unloaded)" WGPROF_RECORD_LAYER="$layer_lib" \
  LD_PRELOAD="$(dirname "$(dirname "$wgprof")")/record/libwgprof_record.so" "$app" basic >unloaded.out 2>unloaded.err
python3 - plain.out unloaded <<'PY' >unloaded.check 2>&1 && ok || bad "the layer not loaded: $(cat unloaded.check)"
import glob, json, sys
found = glob.glob(sys.argv[2] + "/*.json")
if len(found) != 1:
    sys.exit(f"want one report, by the preload library, found {found}")
r = json.load(open(found[0]))
want = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1]) if l.startswith("manifest "))
if r["adapter"]["implementation"].startswith("Vulkan layer") or r["records"] != want:
    sys.exit(f"{r['adapter']['implementation']}: {r['records']} records, want the preload library's {want}")
PY
# wgprof itself as the program, its implementation chosen by --webgpu at run time (wgprof's
# loader, as `wgprof run` and `wgprof demo` do): the preload library's wgpu* forwarders are not
# an implementation linked in, and the choice stands, by default and with each path.
for via in auto webgpu vulkan; do
  "$wgprof" record --via "$via" --json "self-$via.json" -- "$wgprof" --webgpu "$impl" demo --warmup 0 --iterations 2 \
    >"self-$via.out" 2>"self-$via.err"
  status=$?
  [ "$status" -eq 0 ] && ok || bad "wgprof --webgpu $impl demo under record --via $via exited $status: $(tail -n 4 "self-$via.err")"
  python3 - "self-$via.json" <<'PY' >"self-$via.check" 2>&1 && ok || bad "wgprof --webgpu $impl demo under record --via $via: $(cat "self-$via.check")"
import glob, json, os, sys
path = sys.argv[1]
found = [path] if os.path.exists(path) else sorted(glob.glob(path[:-5] + ".[0-9]*.[0-9]*.json"))
if len(found) != 1:
    sys.exit(f"want one report, found {found}")
r = json.load(open(found[0]))
if r["records"] < 2 * 33:
    sys.exit(f"{r['records']} records, want the demo's 33 dispatches a step, 2 steps")
PY
done
# --via vulkan names its implementation as the layer alone.
python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["adapter"]["implementation"]; sys.exit(0 if i=="Vulkan layer (VK_LAYER_WGPROF_timing)" else "run1: implementation "+i)' \
  "$(ls run1.json run1.[0-9]*.[0-9]*.json 2>/dev/null | head -n 1)" >via.check 2>&1 && ok || bad "$(cat via.check)"
finish
