#!/usr/bin/env bash
# `wgprof record` on a real program: tinygrad (PyPI's tinygrad 0.14.0 in .deps/tinygrad,
# scripts/fetch-tinygrad.sh) on its WEBGPU device, which calls Dawn's webgpu.h through ctypes
# (the Dawn of dawn-python 0.3.0, .deps/dawn-python, given by WEBGPU_PATH) and makes every
# compute pipeline with wgpuDeviceCreateComputePipelineAsync2, which Dawn makes on a worker
# thread of its own. The program (tests/record/tinygrad_app.py) runs a matmul, an elementwise op
# and two reductions, compares them with numpy's and prints, from tinygrad's own program
# objects, each kernel it launched, how often and with which workgroup counts. Under the
# default way (wgprof's Vulkan layer times, the preload library names) and under --via webgpu:
#   - the program's output is the same, byte for byte, as without wgprof;
#   - every compute kernel of the report is one of tinygrad's, named `...:NAME` after the entry
#     point tinygrad gives it (no bare `spirv-...` hash, no Dawn `dawn_entry_point`), with as many
#     dispatches as tinygrad launched, each with its workgroup counts, all valid; nothing else
#     but the encoder's own transfer work;
#   - the same names on both ways;
#   - the line above the table says who timed it, and under the default way that the names
#     come from webgpu.h;
#   - the report is complete, not partial, though tinygrad exits without destroying its device.
# $1 is the wgprof binary, $2 tests/record/, $3 the layer's build folder.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
src="$(cd "$2" && pwd)"
case "$3" in /*) layer_dir="$3" ;; *) layer_dir="$PWD/$3" ;; esac # it may not exist
root="$(cd "$src/../.." && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

py="$root/.deps/tinygrad/bin/python"
dawn="$root/.deps/dawn-python/pydawn/lib/libwebgpu_dawn_x86_64.so"
app="$src/tinygrad_app.py"
if [ ! -x "$py" ]; then
  echo "skipped: no $root/.deps/tinygrad (scripts/fetch-tinygrad.sh fetches it)"
  exit 77
fi
if [ ! -f "$dawn" ]; then
  echo "skipped: no $dawn, the Dawn tinygrad's WebGPU device runs on (scripts/fetch-dawn-python.sh fetches it)"
  exit 77
fi
# tinygrad's device and library by its own variables; its disk cache of compiled kernels off
# (and, whatever it writes, in the scratch folder): each run compiles as the first.
export DEV=WEBGPU WEBGPU_PATH="$dawn" CACHELEVEL=0 XDG_CACHE_HOME="$tmp/cache"
quiet() { grep -v 'XDG_RUNTIME_DIR' "$1" | without_implementation_lines | tail -n 8; }

"$py" "$app" >plain.out 2>plain.err
status=$?
if [ "$status" -ne 0 ]; then
  # Its Dawn needs Mesa >= 25 on lavapipe (VK_DRIVER_FILES, as Dawn's tests have it).
  echo "skipped: the tinygrad program fails by itself (exit $status): $(quiet plain.err)"
  exit 77
fi
grep -q '^launches [1-9]' plain.out && ! grep -q WRONG plain.out && ok ||
  bad "the tinygrad program launched no kernel or computed wrong by itself: $(cat plain.out)"

ways="webgpu"
if layer_built "$layer_dir"; then
  ways="default webgpu"
else
  echo "note: the default way is not tested: wgprof's Vulkan layer is not built ($layer_dir)"
fi
for way in $ways; do
  via=()
  [ "$way" = webgpu ] && via=(--via webgpu)
  "$wgprof" record "${via[@]}" --json "$way.json" -- "$py" "$app" >"$way.out" 2>"$way.err"
  status=$?
  [ "$status" -eq 0 ] && ok || bad "$way way: the tinygrad program under record exited $status: $(quiet "$way.err")"
  cmp -s plain.out "$way.out" && ok || bad "$way way: the program's output changed under record: $(diff plain.out "$way.out")"
  if grep -q 'wgprof record: .*\(not a WebGPU ABI\|unprofiled\|undefined symbol\|no results\)' "$way.err"; then
    bad "$way way: record said it could not time the tinygrad program: $(grep 'wgprof record' "$way.err")"
  else
    ok
  fi
  python3 - "$way" plain.out "$way.json" "$way.err" "$way.names" <<'PY' >"$way.check" 2>&1 && ok ||
import collections, json, re, sys

way, app_out, report, stderr, names_out = sys.argv[1:]
problems = []
launches, groups = collections.Counter(), collections.Counter()
for line in open(app_out):
    f = line.split()
    if f[0] == "kernel":
        launches[f[1]] += int(f[2])
    elif f[0] == "workgroups":
        groups[(f[1], tuple(int(x) for x in f[2:5]))] += int(f[5])
d = json.load(open(report))
err = open(stderr).read()
if "result_sets" in d:
    sys.exit(f"{len(d['result_sets'])} result sets for one process of one device")
if d.get("partial") is not False:
    problems.append(f"the report is partial: {d.get('partial_reason')}")
if way == "default":
    want_impl = "Vulkan layer (VK_LAYER_WGPROF_timing), names from webgpu.h labels"
    want_line = "timed by wgprof's Vulkan layer; kernels named after the labels given through webgpu.h"
else:
    want_impl, want_line = None, "timed through webgpu.h, with the timestamp queries of Dawn"
impl = d["adapter"].get("implementation")
if want_impl and impl != want_impl:
    problems.append(f"implementation {impl!r}, want {want_impl!r}")
if want_line not in err:
    problems.append(f"no line '{want_line}' above the table")

# The encoder's own work between its passes is a row of its own, named by what it held, "(copy)",
# "(copy, clear)" (record_chain.c's and the layer's words); every other row is a compute kernel,
# and must be one of tinygrad's.
work = "copy|clear|render pass|query resolve|timestamp"
transfer = re.compile(rf"^\(({work})(, ({work}))*\)$")
names = {}
for k in d["kernels"]:
    name = k["name"]
    if transfer.match(name):
        continue
    prefix, _, entry = name.rpartition(":")
    if not prefix or entry not in launches:
        problems.append(f"kernel {name!r} is none of tinygrad's {sorted(launches)} by its entry point")
        continue
    if entry in names:
        problems.append(f"tinygrad's kernel {entry} under two names, {names[entry]!r} and {name!r}")
        continue
    names[entry] = name
    if k["count"] != launches[entry] or k["invalid"] != 0:
        problems.append(f"{name}: {k['count']} dispatches ({k['invalid']} invalid), tinygrad launched {launches[entry]}")
    if name not in err:
        problems.append(f"{name} is not in the table on stderr")
for entry in launches:
    if entry not in names:
        problems.append(f"tinygrad's kernel {entry}, launched {launches[entry]} times, is not in the report")
# Each dispatch charged to its own kernel, with its own workgroup counts, valid.
seen = collections.Counter()
kernel_of = {v: k for k, v in names.items()}
for r in d["dispatches"]:
    if r["kernel"] in kernel_of:
        if not r["valid"]:
            problems.append(f"an invalid dispatch of {r['kernel']}: {r['invalid_reason']}")
        seen[(kernel_of[r["kernel"]], tuple(r["workgroups"] or ()))] += 1
if seen != groups:
    problems.append(f"dispatches by kernel and workgroup counts {dict(seen)}, tinygrad launched {dict(groups)}")
with open(names_out, "w") as f:
    for entry in sorted(names):
        print(names[entry], file=f)
if problems:
    sys.exit(f"{way} way:\n  " + "\n  ".join(problems) + "\n  kernels: " + ", ".join(f"{k['name']} x{k['count']}" for k in d["kernels"]))
PY
    bad "$(cat "$way.check")"
done
if [ "$ways" = "default webgpu" ]; then
  cmp -s default.names webgpu.names && ok ||
    bad "the two ways name tinygrad's kernels differently: $(diff default.names webgpu.names)"
fi

finish
