#!/usr/bin/env bash
# `wgprof record --via vulkan` on an ONNX Runtime program (tests/layer/ort_app.py) that runs a
# small model on ORT's WebGPU execution provider. That provider has Dawn compiled into its own
# library and stripped, so no webgpu.h call can be reached and only wgprof's Vulkan layer can
# time it. The program's output must not change; the WebGPU provider's outputs must equal the CPU
# provider's (so the run timed is one that computed right); every run's dispatches must be in
# the report, valid, under names that are not "unknown" nor a bare hash and that are the same in
# every run; and
# the Khronos validation layer, below wgprof's, must find nothing more with wgprof's layer.
# $1 is the wgprof binary, $2 the layer's build folder, $3 tests/layer/.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
case "$2" in /*) layer_dir="$2" ;; *) layer_dir="$PWD/$2" ;; esac # it may not exist
src="$(cd "$3" && pwd)"
root="$(cd "$src/../.." && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

venv="$root/.deps/onnxruntime"
py="$venv/bin/python"
app="$src/ort_app.py"
layer_name=VK_LAYER_WGPROF_timing
if [ ! -x "$py" ]; then
  echo "skipped: no $venv (scripts/fetch-onnxruntime.sh fetches it)"
  exit 77
fi
need_layer "$layer_dir"
tail_of() { grep -v 'XDG_RUNTIME_DIR' "$1" | without_implementation_lines | tail -n 12; }
# The report of a single-device program: the file named (several devices or processes would make
# it a report of result sets, which the checks here refuse).
report_of() { echo "$1"; }

# ---- the program by itself, on the WebGPU provider and on the CPU ----
"$py" "$app" --runs 3 >plain.out 2>plain.err
status=$?
if [ "$status" -ne 0 ]; then
  # Its Dawn finds no adapter on a Mesa older than 25 (VK_DRIVER_FILES, as Dawn's tests have it).
  echo "skipped: the ONNX Runtime program fails by itself on WebGPU (exit $status): $(tail_of plain.err | tail -n 3)"
  exit 77
fi
grep -q '^providers: WebGpuExecutionProvider' plain.out && ok \
  || bad "the session did not select the WebGPU provider: $(cat plain.out)"
"$py" "$app" --provider cpu --runs 1 >cpu.out 2>cpu.err
status=$?
[ "$status" -eq 0 ] && grep -q '^providers: CPUExecutionProvider' cpu.out && ok \
  || bad "the ONNX Runtime program on the CPU provider: exit $status: $(tail_of cpu.err)"
want="$(grep '^checksum: ' cpu.out)"
got="$(grep '^checksum: ' plain.out)"
[ -n "$want" ] && [ "$got" = "$want" ] && ok \
  || bad "the WebGPU provider's outputs differ from the CPU's: '$got', want '$want'"

# ---- under record, twice (3 and 2 runs): output unchanged, every run's dispatches reported ----
for runs in 3 2; do
  "$py" "$app" --runs "$runs" >"plain$runs.out" 2>/dev/null
  if ! "$wgprof" record --via vulkan --json "r$runs.json" -- "$py" "$app" --runs "$runs" >"rec$runs.out" 2>"rec$runs.err"; then
    bad "the ONNX Runtime program fails under record --via vulkan ($runs runs): $(tail_of "rec$runs.err")"
    continue
  fi
  cmp -s "plain$runs.out" "rec$runs.out" && ok \
    || bad "$runs runs: the program's output changed under record: $(diff "plain$runs.out" "rec$runs.out")"
  # Each kernel as many times per run as any other run: lost or doubled dispatches show.
  "$py" - "$(report_of "r$runs.json")" "$runs" >"names$runs" 2>"check$runs" <<'PY' && ok || bad "$runs runs: $(cat "check$runs")"
import collections, json, re, sys
path, runs = sys.argv[1], int(sys.argv[2])
try:
    report = json.load(open(path))
except (OSError, ValueError) as err:
    sys.exit(f"no report to read: {err}")
dispatches = report.get("dispatches") or []
if len(dispatches) < runs:
    sys.exit(f"{len(dispatches)} dispatches in {path} for {runs} runs, want at least one per run")
invalid = [d for d in dispatches if not d.get("valid")]
if invalid:
    sys.exit(f"{len(invalid)} of {len(dispatches)} dispatches invalid, e.g. {invalid[0]}")
counts = collections.Counter(d["kernel"] for d in dispatches)
unnamed = [n for n in counts if not n or n.split(":")[0].startswith("unknown")]
if unnamed:
    sys.exit(f"dispatches with no name the layer could find: {unnamed}")
# ONNX Runtime's Dawn renames every entry point and passes no label: its kernels are named by
# their code's hash and workgroup size, never by a bare hash.
bare = [n for n in counts if re.fullmatch(r"spirv-[0-9a-f]{8}", n)]
if bare:
    sys.exit(f"kernels named by a bare hash: {bare}")
uneven = {n: c for n, c in counts.items() if c % runs}
if uneven:
    sys.exit(f"kernels not run the same number of times in each of {runs} runs: {uneven}")
for name in sorted(counts):
    print(name, counts[name] // runs)
PY
done
if [ -s names3 ] && [ -s names2 ]; then
  cmp -s names3 names2 && ok \
    || bad "kernel names or dispatches per run differ between records of the same program: $(diff names3 names2)"
fi

# ---- validation: nothing more with wgprof's layer than without it ----
# wgprof's layer named before validation's sits above it, so validation sees the commands that
# wgprof adds (its timestamps, its query pools) as well as the program's. Dawn prints the
# messages on stderr, each with the MessageID that names it.
ids() { grep -o 'MessageID = 0x[0-9a-fA-F]*' "$1" | sort -u; }
VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$py" "$app" --runs 1 >v.plain.out 2>v.plain.err
if ! grep -q 'Inserted device layer "VK_LAYER_KHRONOS_validation"' v.plain.err; then
  echo "note: validation skipped: no VK_LAYER_KHRONOS_validation here (Debian: vulkan-validationlayers)"
else
  VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS="$layer_name:VK_LAYER_KHRONOS_validation" \
    "$wgprof" record --via vulkan --json v.json -- "$py" "$app" --runs 1 >v.out 2>v.err
  status=$?
  [ "$status" -eq 0 ] && ok || bad "under validation and record: exit $status: $(grep -v '^\(INFO\|LAYER\|DEBUG\|WARNING\)' v.err | tail -n 10)"
  order="$(grep -o 'Inserted device layer "[A-Za-z_]*"' v.err | grep -o 'VK_LAYER_WGPROF_timing\|VK_LAYER_KHRONOS_validation' |
    tr '\n' ' ')"
  # The loader inserts from the driver up: validation's first puts wgprof's above it.
  [ "$order" = "VK_LAYER_KHRONOS_validation VK_LAYER_WGPROF_timing " ] && ok \
    || bad "the device's layers were inserted as '$order', want validation's below wgprof's"
  added="$(comm -13 <(ids v.plain.err) <(ids v.err))"
  [ -z "$added" ] && ok || bad "validation messages only with wgprof's layer: $added
$(grep -F "$(echo "$added" | head -n 1)" v.err | head -n 3)"
  cmp -s v.plain.out v.out && ok || bad "under validation: the output changed under record: $(diff v.plain.out v.out)"
fi

finish
