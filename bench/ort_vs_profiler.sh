#!/usr/bin/env bash
# ONNX Runtime's own GPU profiler against wgprof's Vulkan layer, in the same process, on
# lavapipe (BENCHMARKS.md section 15). For each model of bench/ort_models.py (an MLP, a small
# conv net), three records of bench/ort_profiled_run.py under `wgprof record --via vulkan`:
#   both     ONNX Runtime's profiling on (SessionOptions.enable_profiling): its Chrome trace and
#            wgprof's JSON report of the same dispatches, paired by bench/ort_vs_profiler.py;
#   alone    ONNX Runtime's profiling off: wgprof's medians without ONNX Runtime's timestamps in
#            the command stream;
#   verbose  2 runs with ONNX Runtime's verbose log (its `Starting program` line per dispatch),
#            matched to wgprof's dispatches: what wgprof's names are in ONNX Runtime's terms.
# The models are made with the `onnx` package in a venv of pinned wheels (ONNX_VENV, made here if
# missing; hashes below, for CPython 3.11 on x86-64 Linux), then run by ONNX Runtime's venv
# (scripts/fetch-onnxruntime.sh), on Mesa 25's lavapipe (scripts/fetch-mesa.sh).
#
# usage: bench/ort_vs_profiler.sh [OUT [RUNS [WARMUP]]]
#   defaults: bench/results/lavapipe/ort-profiler/run1 50 5
#   WGPROF (build/cli/wgprof), ORT_VENV (.deps/onnxruntime), ONNX_VENV (/tmp/wgprof-onnx-venv),
#   VK_DRIVER_FILES (.deps/mesa/lvp_icd.json)
# Writes OUT/MODEL.{both,alone,verbose}.{json,err,out}, OUT/MODEL.ort.json (ONNX Runtime's
# profile of the `both` record), OUT/MODEL.compare.json, OUT/compare.txt (the tables, also
# printed), OUT/env.txt (versions, commit, the machine's load before and after).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/bench/results/lavapipe/ort-profiler/run1}"
runs="${2:-50}" warmup="${3:-5}"
wgprof="${WGPROF:-$root/build/cli/wgprof}"
ort_py="${ORT_VENV:-$root/.deps/onnxruntime}/bin/python"
onnx_venv="${ONNX_VENV:-/tmp/wgprof-onnx-venv}"
export VK_DRIVER_FILES="${VK_DRIVER_FILES:-$root/.deps/mesa/lvp_icd.json}"

[ -x "$wgprof" ] || { echo "ort_vs_profiler: no $wgprof (make build)" >&2; exit 1; }
[ -x "$ort_py" ] || { echo "ort_vs_profiler: no $ort_py (scripts/fetch-onnxruntime.sh)" >&2; exit 1; }
[ -f "$VK_DRIVER_FILES" ] || { echo "ort_vs_profiler: no $VK_DRIVER_FILES (scripts/fetch-mesa.sh)" >&2; exit 1; }

# The model builder's wheels: onnx and what it imports, each file's sha256 checked.
requirements="onnx==1.23.2 \
 --hash=sha256:c03ecf6b835d136108eeaeeafbd0026fc7b3cf98661409fbc6b63d5a29361348
protobuf==7.36.2 \
 --hash=sha256:89f23aa53c24553a2416fd4fd1ec06f74fa42b14b546d8883128813f775bbfd2
ml_dtypes==0.7.0 \
 --hash=sha256:d214c910cabaf80aa1ee37b0f25131e20d7a6474182e5293a68985b0421299da
typing_extensions==4.16.0 \
 --hash=sha256:481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8
numpy==2.4.6 \
 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93"
. "$root/scripts/pinned-venv.sh"
pinned_venv ort_vs_profiler "$onnx_venv" "${PYTHON:-python3}" "$requirements" \
  'sys.version_info[:2] == (3, 11)' "the onnx venv's wheels are pinned for CPython 3.11" \
  'import onnx' "onnx does not import" "onnx 1.23.2 installed into $onnx_venv" --no-deps

mkdir -p "$out"
models="$(mktemp -d)"
trap 'rm -rf "$models"' EXIT
"$onnx_venv/bin/python" "$root/bench/ort_models.py" "$models" >/dev/null

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "wgprof: $("$wgprof" --version 2>&1 | head -n 1)"
  echo "onnxruntime: $("$ort_py" -c 'import onnxruntime; print(onnxruntime.__version__)')"
  echo "lavapipe: $VK_DRIVER_FILES ($(ls "$(dirname "$VK_DRIVER_FILES")"/.deb-* 2>/dev/null | sed 's/.*\.deb-//'))"
  echo "cpus: $(nproc)"
  echo "runs: $runs after $warmup warm-up runs"
  (cd "$models" && sha256sum ./*.onnx | sed 's/^/model: /')
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/env.txt"

# The report of a single-device program: under the name given, or NAME.PID.N.json.
report_of() {
  local found=""
  [ -f "$1" ] || found="$(ls "${1%.json}".[0-9]*.[0-9]*.json 2>/dev/null | head -n 1)"
  if [ -n "$found" ]; then mv "$found" "$1"; fi
  [ -f "$1" ] || { echo "ort_vs_profiler: no report $1" >&2; exit 1; }
}

record() { # MODEL MODE [ARGS...]
  local model="$1" mode="$2"
  shift 2
  rm -f "$out/$model.$mode".*json
  "$wgprof" record --via vulkan --json "$out/$model.$mode.json" -- \
    "$ort_py" "$root/bench/ort_profiled_run.py" "$models/$model.onnx" "$@" \
    >"$out/$model.$mode.out" 2>"$out/$model.$mode.err"
  report_of "$out/$model.$mode.json"
}

: >"$out/compare.txt"
for model in mlp convnet; do
  rm -f "$out/$model".ort*.json
  record "$model" both --warmup "$warmup" --runs "$runs" --ort-profile "$out/$model.ort"
  mv "$(ls "$out/$model".ort_*.json)" "$out/$model.ort.json"
  record "$model" alone --warmup "$warmup" --runs "$runs"
  record "$model" verbose --warmup 0 --runs 2 --verbose
  "$ort_py" "$root/bench/ort_vs_profiler.py" --name "$model" --runs "$runs" \
    --total-runs "$((runs + warmup))" --ort "$out/$model.ort.json" --wgprof "$out/$model.both.json" \
    --alone "$out/$model.alone.json" --verbose-log "$out/$model.verbose.err" \
    --verbose-wgprof "$out/$model.verbose.json" --json "$out/$model.compare.json" | tee -a "$out/compare.txt"
  echo | tee -a "$out/compare.txt"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/env.txt"
