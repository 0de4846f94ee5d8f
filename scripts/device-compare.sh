#!/usr/bin/env bash
# The measurements behind BENCHMARKS.md's "wgpu-native against Dawn": on each implementation in
# $WEBGPU_IMPLS (default "wgpu-native dawn"), the strategies' floor (bench/floor.json) and every
# example under each strategy; on wgpu-native also every example and the demo with its runtime
# checks off (--shader-checks none), to tell the checks' cost from the rest. JSON reports go to
# $1/IMPL/ (default out/compare), named SPEC-STRATEGY[-none].json; compare them with
# bench/compare_impls.py. Environment as scripts/device-run.sh's (scripts/device-env.sh).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:-$root/out/compare}" && cd "${1:-$root/out/compare}" && pwd)"
cd "$root"
. "$root/scripts/device-env.sh" "$out"
wgprof="$root/build/tools/wgprof"
iterations="${ITERATIONS:-20}"
for impl in ${WEBGPU_IMPLS:-wgpu-native dawn}; do
  mkdir -p "$out/$impl"
  for spec in bench/floor.json examples/*.json; do
    name="$(basename "$spec" .json)"
    for strategy in pass inside chain; do
      "$wgprof" --webgpu "$impl" run --quiet --iterations "$iterations" --strategy "$strategy" \
        --json "$out/$impl/$name-$strategy.json" "$spec" || echo "$impl $name $strategy: exit $?"
      if [ "$impl" = wgpu-native ]; then
        "$wgprof" --webgpu "$impl" run --quiet --iterations "$iterations" --strategy "$strategy" --shader-checks none \
          --json "$out/$impl/$name-$strategy-none.json" "$spec" || echo "$impl $name $strategy none: exit $?"
      fi
    done
  done
  for strategy in pass inside chain; do
    for checks in default none; do
      [ "$impl" = dawn ] && [ "$checks" = none ] && continue
      WEBGPU_TIMESTAMP_QUERY=1 WGPROF_STRATEGY=$strategy "$wgprof" --webgpu "$impl" demo --quiet --iterations 10 \
        --shader-checks "$checks" --json "$out/$impl/demo-$strategy$([ "$checks" = none ] && echo -none).json" \
        >/dev/null || echo "$impl demo $strategy $checks: exit $?"
    done
  done
done
rm -f examples/*.bin
