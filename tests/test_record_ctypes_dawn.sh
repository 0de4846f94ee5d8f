#!/usr/bin/env bash
# `wgprof record --via webgpu` (the preload library alone) on Python programs that load a WebGPU
# library through ctypes by its path, as
# PyPI's dawn-python does:
#   1. dawn-python 0.3.0's own Dawn (a build of the callback-info transition, whose ABI is not
#      webgpu.h's): the program's output unchanged, its every dispatch timed under a name with
#      its entry point, what it asks of the device's features answered as without wgprof;
#   2. a library with Dawn's name and an ABI wgprof does not know: every call the library's
#      own, the program's output unchanged, one line naming the library, nothing timed.
# $1 is the wgprof binary, $2 the folder tests/record builds into, $3 tests/record/.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
built="$(cd "$2" && pwd)"
src="$(cd "$3" && pwd)"
root="$(cd "$src/../.." && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

pydawn="$root/.deps/dawn-python"
if ! command -v python3 >/dev/null 2>&1 || [ ! -f "$pydawn/pydawn/lib/libwebgpu_dawn_x86_64.so" ]; then
  echo "skipped: no python3 or no $pydawn (scripts/fetch-dawn-python.sh fetches it)"
  exit 77
fi
quiet() { without_implementation_lines | grep -v 'XDG_RUNTIME_DIR' || true; }

# ---- 1. dawn-python's Dawn ----
app="$src/dawn_python_app.py"
PYTHONPATH="$pydawn" python3 "$app" 4 >plain.out 2>plain.err
status=$?
if [ "$status" -ne 0 ]; then
  # Its Dawn needs Mesa >= 25 on lavapipe (VK_DRIVER_FILES, as Dawn's tests have it).
  echo "skipped: the dawn-python program fails by itself (exit $status): $(quiet <plain.err | tail -n 3)"
  exit 77
fi
PYTHONPATH="$pydawn" "$wgprof" record --via webgpu --json run.json -- python3 "$app" 4 >rec.out 2>rec.err
status=$?
[ "$status" -eq 0 ] && ok || bad "dawn-python program under record exited $status: $(quiet <rec.err | tail -n 8)"
cmp -s plain.out rec.out && ok || bad "dawn-python program: its output changed under record: $(diff plain.out rec.out)"
grep -q '^device has timestamps: False$' rec.out && ok ||
  bad "the program sees the timestamp feature wgprof added (or its own feature query failed): $(cat rec.out)"
python3 "$src/check_record.py" exact rec.out -- run.json --stderr rec.err >check.out 2>&1 && ok ||
  bad "dawn-python program: the report does not match what it submitted: $(cat check.out)"
if grep -q 'wgprof record: .*\(not a WebGPU ABI\|unprofiled\|undefined symbol\)' rec.err; then
  bad "record said it could not time the dawn-python program: $(grep 'wgprof record' rec.err)"
else
  ok
fi
# Both kernels under names of their own, each with its entry point.
python3 - run.json <<'PY' >names.out 2>&1 && ok || bad "kernel names: $(cat names.out)"
import json, sys
names = sorted(k["name"] for k in json.load(open(sys.argv[1]))["kernels"])
ends = sorted(n.rsplit(":", 1)[-1] for n in names)
if ends != ["fold", "scale"] or len(set(names)) != 2:
    sys.exit(f"want two kernels ending :fold and :scale, got {names}")
PY

# ---- 2. an ABI wgprof does not know ----
lib="$built/libwebgpu_dawn_unknown.so"
cat >unknown.py <<PY
import ctypes
lib = ctypes.CDLL("$lib")
lib.wgpuCreateInstance.restype = ctypes.c_void_p
lib.wgpuUnknownTwice.restype = ctypes.c_uint32
print("instance made:", bool(lib.wgpuCreateInstance(None)), lib.wgpuUnknownTwice(20))
PY
python3 unknown.py >unknown.plain 2>&1
"$wgprof" record --via webgpu -- python3 unknown.py >unknown.out 2>unknown.err
status=$?
[ "$status" -eq 0 ] && ok || bad "program on an unknown ABI under record exited $status: $(tail -n 5 unknown.err)"
cmp -s unknown.plain unknown.out && ok ||
  bad "program on an unknown ABI: its output changed under record: $(diff unknown.plain unknown.out)"
grep -q 'instance made: True 41' unknown.plain && ok ||
  bad "the unknown-ABI library did not answer by itself: $(cat unknown.plain)"
said="$(grep -c "wgprof record: $lib: not a WebGPU ABI wgprof knows" unknown.err)"
[ "$said" = 1 ] && ok || bad "want one line naming $lib as an ABI wgprof does not know, got: $(cat unknown.err)"

# ---- 3. nothing timed, and why: an implementation loaded under a name wgprof does not know ----
dawn="$root/.deps/dawn/lib/libwebgpu_dawn.so"
if [ -f "$dawn" ]; then
  cp "$dawn" "$tmp/libother_gpu.so"
  cat >other.py <<PY
import ctypes
lib = ctypes.CDLL("$tmp/libother_gpu.so")
lib.wgpuCreateInstance.restype = ctypes.c_void_p
instance = lib.wgpuCreateInstance(None)
lib.wgpuInstanceRelease(ctypes.c_void_p(instance))
print("instance made:", bool(instance))
PY
  "$wgprof" record --via webgpu -- python3 other.py >other.out 2>other.err
  status=$?
  [ "$status" -eq 0 ] && grep -q 'instance made: True' other.out && ok ||
    bad "program on a renamed Dawn under record: exit $status, $(cat other.out) $(quiet <other.err | tail -n 3)"
  grep -q "wgprof record: process [0-9]*: $tmp/libother_gpu.so exports WebGPU's functions, but none of the program's calls" other.err &&
    grep -q 'no results: .*(above)' other.err && ok ||
    bad "record did not say why nothing was timed, naming libother_gpu.so: $(quiet <other.err)"
else
  echo "note: case 3 skipped: no $dawn (scripts/fetch-dawn.sh)"
fi

finish
