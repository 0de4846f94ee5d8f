#!/usr/bin/env bash
# wgprof diff on a GPU machine (BENCHMARKS.md section 12): the demo's decode step profiled with
# the pass and the chain strategies on each implementation, compared between the strategies and
# between wgpu-native and Dawn (Markdown tables); then bench/diff_false_alarms.sh (the same spec
# run twice, 20 pairs, and against a 1.5x slower kernel) on each implementation.
#
# Run from the tree's root with the built wgprof and libwgprof copied into .device/build/
# (cli/, record/), the .deb files in .gl/ (scripts/device-env.sh), and OUT naming a folder for the
# results.
set -u
root="$PWD"
. scripts/device-env.sh "$OUT/env"
export LD_LIBRARY_PATH="$root/.device/build:$LD_LIBRARY_PATH"
W="$root/.device/build/cli/wgprof"
cd "$OUT"
demo() { # demo IMPL STRATEGY: the profiled demo's JSON report
  WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY="$2" "$W" --webgpu "$1" demo --warmup 20 --iterations 200 --quiet \
    --json "demo-$1-$2.json" >/dev/null 2>>err.log
}
for impl in wgpu-native dawn; do
  for strategy in pass chain; do
    demo $impl $strategy
  done
  echo "## $impl: pass (base) against chain (new)"
  "$W" diff --markdown - "demo-$impl-pass.json" "demo-$impl-chain.json" 2>>err.log
done
echo "## chain: wgpu-native (base) against Dawn (new)"
"$W" diff --markdown - demo-wgpu-native-chain.json demo-dawn-chain.json 2>>err.log
echo "## pass: wgpu-native (base) against Dawn (new)"
"$W" diff --markdown - demo-wgpu-native-pass.json demo-dawn-pass.json 2>>err.log
for impl in wgpu-native dawn; do
  echo "## false alarms and a 1.5x kernel, $impl"
  WGPROF_WEBGPU=$impl bash "$root/bench/diff_false_alarms.sh" "$W" 20 10 2>>err.log | tee "false-alarms-$impl.txt" | tail -n 6
done
tail -5 err.log
