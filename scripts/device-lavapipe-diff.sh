#!/usr/bin/env bash
# `wgprof diff`, one run a side, on lavapipe on the GPU machine's CPU (BENCHMARKS.md section 12):
# bench/diff_false_alarms.sh (the same spec run twice, 20 pairs, then against a 1.5x slower fma
# kernel) RUNS times on each implementation, with Mesa 25's lavapipe as the only Vulkan driver.
# There lavapipe has 16 cores of a machine that nothing else uses during the call; here it shares
# 2 with the VM's other tenants.
#
# Run from the tree's root with OUT naming a folder for the results, the .deb files in .gl/
# (scripts/device-env.sh), the built wgprof and libwgprof in .device/build/ (cli/), the
# implementations' libraries as .device/deps/*.so.xz, and lavapipe staged by
# scripts/device-lavapipe-stage.sh: its LLVM archive unpacked into .device/lvp/ by an earlier
# call (`scripts/device-lavapipe-diff.sh unpack`, carrying .device/lvp-llvm.tar.xz alone), the
# rest (.device/lvp-rest.tar.xz) carried with this one.
#   scripts/device-lavapipe-diff.sh unpack        unpack what .device/lvp-*.tar.xz is here, exit
#   scripts/device-lavapipe-diff.sh [RUNS]        unpack the rest, then measure (RUNS default 5)
set -u
root="$PWD"
lvp="$root/.device/lvp"
mkdir -p "$lvp"
for part in llvm rest; do
  a="$root/.device/lvp-$part.tar.xz"
  if [ -f "$a" ]; then tar xJf "$a" -C "$lvp" || exit 1; fi
done
[ "${1:-}" = unpack ] && { ls -l "$lvp"; exit 0; }
runs="${1:-5}"
[ -f "$lvp/libvulkan_lvp.so" ] || { echo "device-lavapipe-diff: no $lvp/libvulkan_lvp.so (carry .device/lvp-rest.tar.xz)" >&2; exit 1; }
ls "$lvp"/libLLVM* >/dev/null 2>&1 || { echo "device-lavapipe-diff: no LLVM in $lvp: unpack .device/lvp-llvm.tar.xz first, on the same machine" >&2; exit 1; }
: "${OUT:?device-lavapipe-diff: OUT names the results folder}"
mkdir -p "$OUT/env"
printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.4.305"}}\n' \
  "$lvp/libvulkan_lvp.so" >"$OUT/env/lvp_icd.json"
export VK_DRIVER_FILES="$OUT/env/lvp_icd.json"
. scripts/device-env.sh "$OUT/env"
mkdir -p .deps/wgpu-native/lib .deps/dawn/lib
xz -dc .device/deps/libwgpu_native.so.xz >.deps/wgpu-native/lib/libwgpu_native.so || exit 1
xz -dc .device/deps/libwebgpu_dawn.so.xz >.deps/dawn/lib/libwebgpu_dawn.so || exit 1
export LD_LIBRARY_PATH="$root/.device/build:$lvp:$LD_LIBRARY_PATH"
W="$root/.device/build/cli/wgprof"
echo "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo); load average $(cut -d' ' -f1-3 /proc/loadavg); wgprof $(cat .device/build/STAGED_FROM 2>/dev/null)"
for impl in wgpu-native dawn; do
  echo "## wgprof info, $impl"
  "$W" --webgpu "$impl" info 2>&1 | head -n 12
  for k in $(seq "$runs"); do
    f="$OUT/lavapipe-$impl-run$k.txt"
    echo "== WGPROF_WEBGPU=$impl bench/diff_false_alarms.sh wgprof 20 10 $(date -u +%FT%TZ) nproc $(nproc), $(cat .device/build/STAGED_FROM 2>/dev/null), lavapipe of .device/lvp" >"$f"
    WGPROF_WEBGPU=$impl bash bench/diff_false_alarms.sh "$W" 20 10 >>"$f" 2>&1
    echo "## $impl run $k: $(grep '"threshold_pct": 5,' "$f")"
  done
done
