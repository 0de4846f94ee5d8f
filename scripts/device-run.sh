#!/usr/bin/env bash
# Runs wgprof's checks on a machine with a real GPU from an already-built tree: `wgprof info`,
# every test program, and the demo profiled and unprofiled. Meant for a GPU machine that cannot
# install anything: the Vulkan loader (and jansson, for the unit tests) come as .deb files in
# .gl/, unpacked here. Writes everything it prints into the folder named by $1 (default: out/).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/out}"
mkdir -p "$out"
cd "$root"
if [ -d .gl ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
# The build tree's run paths are those of the machine that built it.
export LD_LIBRARY_PATH="$root/build:$root/.deps/wgpu-native/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
wgprof="$root/build/tools/wgprof"

section() { printf '\n## %s\n\n' "$*"; }
{
  section "nvidia-smi"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  section "wgprof info"
  "$wgprof" info
  "$wgprof" info --json
  section "tests"
  failed=0
  for t in build/tests/test_* build/examples/example_*; do
    [ -x "$t" ] || continue
    start=$(date +%s%N)
    if "$t" >"$out/$(basename "$t").log" 2>&1; then r=pass; else r=FAIL; failed=$((failed + 1)); fi
    printf '%-28s %s  %6d ms  %s\n' "$(basename "$t")" "$r" "$((($(date +%s%N) - start) / 1000000))" \
      "$(tail -n 1 "$out/$(basename "$t").log")"
  done
  echo "test programs failed: $failed"
  section "demo, unprofiled"
  "$wgprof" demo
  for strategy in pass inside chain; do
    section "demo, profiled, strategy $strategy"
    WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=$strategy "$wgprof" demo --json "$out/demo-$strategy.json"
  done
  section "demo, profiled (auto), with the HTML report and the trace"
  WEBGPU_TIMESTAMP_QUERY=1 "$wgprof" demo --iterations 5 --html "$out/demo.html" --trace "$out/demo.trace.json" \
    --json "$out/demo.json"
  for example in examples/*.json; do
    section "wgprof run $example"
    (cd "$out" && "$wgprof" run --summary "$root/$example")
  done
  rm -f "$out"/*.bin
} 2>&1 | tee "$out/summary.txt"
