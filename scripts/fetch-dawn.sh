#!/usr/bin/env bash
# Fetches Dawn, Chromium's WebGPU implementation, as the shared library libwebgpu_dawn.so that
# the PyPI wheel rillfacet 0.1.3 ships (Dawn of about 2026-08; no header comes with it, none is
# needed: its core ABI is that of the webgpu.h fetched with wgpu-native, and wgprof declares the
# few Dawn extension values it uses itself, in src/webgpu_ext.c). Pinned by checksum; unpacked
# with Dawn's license into .deps/dawn/. No Python is needed at run time.
set -euo pipefail

WHEEL_VERSION=0.1.3
WHEEL_FILE="rillfacet-${WHEEL_VERSION}-cp312-abi3-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
WHEEL_SHA256=371c6c831aa43310d2112a7001ce94b36b8e5753af23ce44ef57c9ce97793b70

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/dawn}"
stamp="$dest/.wheel-$WHEEL_VERSION"

if [ -f "$stamp" ] && [ -f "$dest/lib/libwebgpu_dawn.so" ]; then
  exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "fetch-dawn: the pinned wheel is for x86_64 Linux; use --webgpu PATH with your own Dawn" >&2
  exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux_2_28_x86_64 --python-version 3.12 -d "$tmp" "rillfacet==$WHEEL_VERSION"
else
  # The wheel's address on PyPI's CDN comes from its JSON API (the path holds a hash).
  url="$(curl -fsSL "https://pypi.org/pypi/rillfacet/$WHEEL_VERSION/json" |
         grep -o "https://files.pythonhosted.org/[^\"]*/$WHEEL_FILE" | head -1)"
  [ -n "$url" ] || { echo "fetch-dawn: $WHEEL_FILE not listed on PyPI" >&2; exit 1; }
  curl -fsSL -o "$tmp/$WHEEL_FILE" "$url"
fi
[ -f "$tmp/$WHEEL_FILE" ] || { echo "fetch-dawn: $WHEEL_FILE was not downloaded" >&2; exit 1; }

actual="$(sha256sum "$tmp/$WHEEL_FILE" | cut -d' ' -f1)"
if [ "$actual" != "$WHEEL_SHA256" ]; then
  echo "fetch-dawn: checksum mismatch for $WHEEL_FILE" >&2
  echo "  expected $WHEEL_SHA256" >&2
  echo "  got      $actual" >&2
  exit 1
fi

(cd "$tmp" && { python3 -m zipfile -e "$WHEEL_FILE" x >/dev/null 2>&1 || unzip -q "$WHEEL_FILE" -d x; })
rm -rf "$dest"
mkdir -p "$dest/lib"
cp "$tmp/x/rillfacet/libwebgpu_dawn.so" "$dest/lib/"
# Dawn's and Tint's license, with those of the libraries linked into it, comes in this file.
cp "$tmp/x/rillfacet-$WHEEL_VERSION.dist-info/licenses/THIRD_PARTY_LICENSES.txt" "$dest/LICENSE"
echo "Dawn from the PyPI wheel rillfacet $WHEEL_VERSION ($WHEEL_FILE, sha256 $WHEEL_SHA256)" > "$dest/VERSION"
echo "$WHEEL_SHA256" > "$stamp"
echo "fetch-dawn: Dawn from rillfacet $WHEEL_VERSION unpacked into $dest"
