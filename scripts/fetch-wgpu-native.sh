#!/usr/bin/env bash
# Fetches wgpu-native from the `wgpu` wheel on PyPI at a pinned version and unpacks the release
# library together with the webgpu.h and wgpu.h shipped beside it. Header and library must come
# from the same release: struct layouts change between releases and a mismatch corrupts memory.
set -euo pipefail

WHEEL_VERSION=0.32.0            # ships wgpu-native 29
WHEEL_FILE="wgpu-${WHEEL_VERSION}-py3-none-manylinux_2_28_x86_64.whl"
WHEEL_SHA256=6499a31b5a29a10b4f1089fea4a0806411f42605fa86b6c0b543a07ca0de8568

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/wgpu-native}"
stamp="$dest/.wheel-$WHEEL_VERSION"

if [ -f "$stamp" ] && [ -f "$dest/lib/libwgpu_native.so" ] && [ -f "$dest/include/webgpu/webgpu.h" ]; then
  exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "fetch-wgpu-native: the pinned wheel is for x86_64 Linux; build against your own" \
       "wgpu-native with -DWGPROF_WEBGPU_DIR=..." >&2
  exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
url="https://files.pythonhosted.org/packages/py3/w/wgpu/$WHEEL_FILE"
if command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux_2_28_x86_64 --python-version 3.12 --implementation py \
    -d "$tmp" "wgpu==$WHEEL_VERSION"
else
  curl -fsSL -o "$tmp/$WHEEL_FILE" "$url"
fi
[ -f "$tmp/$WHEEL_FILE" ] || { echo "fetch-wgpu-native: $WHEEL_FILE was not downloaded" >&2; exit 1; }

actual="$(sha256sum "$tmp/$WHEEL_FILE" | cut -d' ' -f1)"
if [ "$actual" != "$WHEEL_SHA256" ]; then
  echo "fetch-wgpu-native: checksum mismatch for $WHEEL_FILE" >&2
  echo "  expected $WHEEL_SHA256" >&2
  echo "  got      $actual" >&2
  exit 1
fi

rm -rf "$dest"
mkdir -p "$dest/lib" "$dest/include/webgpu"
(cd "$tmp" && python3 -m zipfile -e "$WHEEL_FILE" x >/dev/null 2>&1 || unzip -q "$WHEEL_FILE" -d x)
res="$tmp/x/wgpu/resources"
cp "$res/libwgpu_native-release.so" "$dest/lib/libwgpu_native.so"
cp "$res/webgpu.h" "$res/wgpu.h" "$dest/include/webgpu/"
cp "$tmp/x/wgpu-$WHEEL_VERSION.dist-info/licenses/LICENSE" "$dest/LICENSE" 2>/dev/null || true
echo "$WHEEL_SHA256" > "$stamp"
echo "fetch-wgpu-native: wgpu-native from wgpu $WHEEL_VERSION unpacked into $dest"
