#!/usr/bin/env bash
# Runs wgprof's checks on a machine with a real GPU from an already-built tree, on each WebGPU
# implementation in $WEBGPU_IMPLS (default: "wgpu-native dawn"): `wgprof info`, every test
# program, the demo profiled and unprofiled, the examples, and the compute-bound loop kernel with
# each --shader-checks. The environment (Vulkan loader from .gl/, the NVIDIA ICD that works
# headless) is scripts/device-env.sh's. Writes everything it prints into the folder named by $1
# (default: out/), one subfolder per implementation.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:-$root/out}" && cd "${1:-$root/out}" && pwd)"
cd "$root"
. "$root/scripts/device-env.sh" "$out"
wgprof="$root/build/cli/wgprof"
impls="${WEBGPU_IMPLS:-wgpu-native dawn}"

section() { printf '\n## %s\n\n' "$*"; }
run_checks() { # run_checks IMPL: everything above on one implementation, files into $out/IMPL
  local impl="$1" o="$out/$1" failed=0 t start r example
  mkdir -p "$o"
  export WGPROF_WEBGPU="$impl" # the test programs' choice; the CLI's too, as --webgpu
  section "$impl: wgprof info"
  "$wgprof" info
  "$wgprof" info --json
  section "$impl: tests"
  for t in build/tests/test_* build/examples/example_*; do
    [ -x "$t" ] || continue
    start=$(date +%s%N)
    if "$t" >"$o/$(basename "$t").log" 2>&1; then r=pass; else r=FAIL; failed=$((failed + 1)); fi
    printf '%-28s %s  %6d ms  %s\n' "$(basename "$t")" "$r" "$((($(date +%s%N) - start) / 1000000))" \
      "$(tail -n 1 "$o/$(basename "$t").log")"
  done
  echo "$impl: test programs failed: $failed"
  section "$impl: demo, unprofiled"
  "$wgprof" demo
  for strategy in pass inside chain; do
    section "$impl: demo, profiled, strategy $strategy"
    WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=$strategy "$wgprof" demo --iterations 10 --json "$o/demo-$strategy.json"
  done
  section "$impl: demo, profiled (auto), with the HTML report and the trace"
  WEBGPU_TIMESTAMP_QUERY=1 "$wgprof" demo --iterations 5 --html "$o/demo.html" --trace "$o/demo.trace.json" \
    --json "$o/demo.json"
  for example in examples/*.json; do
    section "$impl: wgprof run $example"
    "$wgprof" run --summary --iterations 20 --json "$o/$(basename "$example" .json).json" "$example"
  done
  # The loop kernel without the implementation's runtime checks: wgpu-native only, Dawn exit 2.
  for checks in default no-loop-bounding none; do
    section "$impl: wgprof run --shader-checks $checks examples/fma_loop.json"
    "$wgprof" run --summary --iterations 20 --shader-checks "$checks" --json "$o/fma_loop-$checks.json" \
      examples/fma_loop.json
    echo "exit status $?"
    [ -f examples/fma_loop_result.bin ] && md5sum examples/fma_loop_result.bin && rm -f examples/fma_loop_result.bin
  done
}
{
  section "nvidia-smi"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 || true
  echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
  section "wgprof info without a working ICD (the hint)"
  VK_DRIVER_FILES=/nonexistent.json "$wgprof" info
  for impl in $impls; do
    run_checks "$impl"
  done
  rm -f examples/*.bin
} 2>&1 | tee "$out/summary.txt"
