#!/usr/bin/env bash
# The layer built for measurement only, with the time of each hook, of each call into the driver
# and of sections of the hottest hooks counted (bench/layer_hook_times.patch, applied to a copy of
# the commit checked out; each process writes its counts at exit to
# $WGPROF_HOOK_TIMES_DIR/hooks-PID.txt where that is set). BUILD is a built tree (its cli/ and
# record/ are copied beside the new layer/, so that `OUT/cli/wgprof record` enables this layer);
# scripts/device-hook-times.sh runs it on a GPU machine, bench/hook_times_summary.py sums it up.
#   bench/layer_hook_times.sh BUILD OUT
set -euo pipefail
build=$(realpath "${1:?usage: bench/layer_hook_times.sh BUILD OUT}")
out=$(realpath -m "${2:?usage: bench/layer_hook_times.sh BUILD OUT}")
root=$(git rev-parse --show-toplevel)
[ -x "$build/cli/wgprof" ] && [ -f "$build/record/libwgprof_record.so" ] || {
  echo "layer_hook_times.sh: $build holds no built wgprof (cli/wgprof, record/libwgprof_record.so)" >&2
  exit 2
}
tmp=$(mktemp -d)
cleanup() { git -C "$root" worktree remove --force "$tmp/tree" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
git -C "$root" worktree add --detach "$tmp/tree" HEAD >/dev/null 2>&1 ||
  { echo "layer_hook_times.sh: no copy of $root's HEAD could be checked out" >&2; exit 1; }
git -C "$tmp/tree" apply "$root/bench/layer_hook_times.patch" ||
  { echo "layer_hook_times.sh: bench/layer_hook_times.patch does not apply to HEAD: remake it for this layer" >&2; exit 1; }
webgpu_dir=$(sed -n 's/^WGPROF_WEBGPU_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
cmake -S "$tmp/tree" -B "$tmp/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWGPROF_WERROR=OFF \
  -DWGPROF_BUILD_TESTS=OFF -DWGPROF_BUILD_BENCH=OFF ${webgpu_dir:+-DWGPROF_WEBGPU_DIR="$webgpu_dir"} >"$tmp/cmake.log" ||
  { cat "$tmp/cmake.log" >&2; exit 1; }
cmake --build "$tmp/build" --target wgprof_layer -j"$(nproc)" >"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log" >&2; exit 1; }
mkdir -p "$out/cli" "$out/record" "$out/layer"
cp "$build/cli/wgprof" "$out/cli/"
cp "$build/record/libwgprof_record.so" "$out/record/"
cp -r "$tmp/build/layer/libwgprof_layer.so" "$tmp/build/layer/VkLayer_wgprof_timing.json" \
  "$tmp/build/layer/wgprof-implicit-layer" "$out/layer/"
echo "layer_hook_times.sh: $out (the layer of $(git -C "$root" rev-parse --short HEAD) with bench/layer_hook_times.patch)"
