#!/usr/bin/env bash
# Stages Mesa 25's lavapipe (.deps/mesa, scripts/fetch-mesa.sh) for the GPU machine, which has no
# Mesa, so that scripts/device-lavapipe-diff.sh can run lavapipe on that machine's CPU: 16 cores,
# where this one is a shared VM of 2. The driver and every library it needs
# that is not the C or C++ runtime (LLVM 15, z3, ICU, the X client libraries; this machine's
# copies, as `ldd` finds them) go into two xz archives in .device/, LLVM's alone in the first:
# each call to the GPU machine carries at most 64 MiB with the tree, so the first archive travels
# in a call of its own (unpacked there into .device/lvp/, which later calls keep while the machine
# stays warm) and the second with the run.
#   scripts/device-lavapipe-stage.sh   -> .device/lvp-llvm.tar.xz, .device/lvp-rest.tar.xz
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
driver="$root/.deps/mesa/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"
[ -f "$driver" ] || { echo "device-lavapipe-stage: no $driver (run scripts/fetch-mesa.sh)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/llvm" "$tmp/rest"
cp "$driver" "$tmp/rest/"
ldd "$driver" | awk '/=> \//{print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libstdc++.so.*|libgcc_s.so.*) continue ;;
    libLLVM*) cp -L "$lib" "$tmp/llvm/" ;;
    *) cp -L "$lib" "$tmp/rest/" ;;
  esac
done
[ -n "$(ls "$tmp/llvm")" ] || { echo "device-lavapipe-stage: the driver needs no libLLVM?" >&2; exit 1; }
mkdir -p "$root/.device"
for part in llvm rest; do
  XZ_OPT='-9e -T2' tar cJf "$tmp/lvp-$part.tar.xz" -C "$tmp/$part" .
  mv "$tmp/lvp-$part.tar.xz" "$root/.device/lvp-$part.tar.xz"
done
ls -l "$root/.device/lvp-llvm.tar.xz" "$root/.device/lvp-rest.tar.xz"
