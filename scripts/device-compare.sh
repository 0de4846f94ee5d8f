#!/usr/bin/env bash
# The measurements behind BENCHMARKS.md's "wgpu-native against Dawn": on each implementation in
# $WEBGPU_IMPLS (default "wgpu-native dawn"), the strategies' floor (bench/floor.json), every
# example and the demo under each strategy; again without the runtime checks, to tell their cost
# from the rest: on wgpu-native with --shader-checks none and no-loop-bounding, on Dawn with its
# robustness off (WGPROF_DAWN_TOGGLES=disable_robustness). JSON reports go to $1/IMPL/ (default
# out/compare), named SPEC-STRATEGY[-VARIANT].json; bench/compare_impls.py tabulates them. Environment as scripts/device-run.sh's (scripts/device-env.sh).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:-$root/out/compare}" && cd "${1:-$root/out/compare}" && pwd)"
cd "$root"
. "$root/scripts/device-env.sh" "$out"
wgprof="$root/build/cli/wgprof"
iterations="${ITERATIONS:-20}"
# run_variant IMPL SUFFIX [ENV=VALUE ...] -- [wgprof run/demo options]: every spec and the demo under each
# strategy, reports named SPEC-STRATEGY[SUFFIX].json.
run_variant() {
  local impl="$1" suffix="$2" spec name strategy
  shift 2
  local env=() opts=()
  while [ "$#" -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  opts=("$@")
  for strategy in pass inside chain; do
    for spec in bench/floor.json examples/*.json; do
      name="$(basename "$spec" .json)"
      env "${env[@]}" "$wgprof" --webgpu "$impl" run --quiet --iterations "$iterations" --strategy "$strategy" \
        "${opts[@]}" --json "$out/$impl/$name-$strategy$suffix.json" "$spec" || echo "$impl $name $strategy$suffix: exit $?"
    done
    env "${env[@]}" WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=$strategy "$wgprof" --webgpu "$impl" demo --quiet \
      --iterations 10 "${opts[@]}" --json "$out/$impl/demo-$strategy$suffix.json" >/dev/null ||
      echo "$impl demo $strategy$suffix: exit $?"
  done
}
for impl in ${WEBGPU_IMPLS:-wgpu-native dawn}; do
  mkdir -p "$out/$impl"
  run_variant "$impl" "" --
  if [ "$impl" = wgpu-native ]; then
    run_variant "$impl" -none -- --shader-checks none
    run_variant "$impl" -no-loop-bounding -- --shader-checks no-loop-bounding
  elif [ "$impl" = dawn ]; then
    # Dawn's checks are per device: its robustness off through a device toggle.
    run_variant "$impl" -disable_robustness WGPROF_DAWN_TOGGLES=disable_robustness --
  fi
done
rm -f examples/*.bin
