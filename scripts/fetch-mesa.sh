#!/usr/bin/env bash
# Fetches Mesa 25's Vulkan drivers (Debian bookworm-backports' mesa-vulkan-drivers) and unpacks
# them into .deps/mesa/, beside the system's Mesa, which stays as it is: Dawn needs Mesa >= 25
# on lavapipe (it requires shaderUniform*ArrayDynamicIndexing, which Mesa 22's lavapipe lacks),
# bookworm has 22.3.6. Runs select it with VK_DRIVER_FILES=.deps/mesa/lvp_icd.json, an ICD file
# written here with the library's absolute path. Pinned by checksum. The package's other
# dependencies are bookworm's own (LLVM 15 among them); every libdrm symbol it uses is in
# bookworm's libdrm.
set -euo pipefail

VERSION="25.0.7-2~bpo12+1"
DEB="mesa-vulkan-drivers_${VERSION}_amd64.deb"
SHA256=3899f1800424c60a05df5d6913076a526ca8fdbabec43672cd397563d1ca3263
URL="https://deb.debian.org/debian/pool/main/m/mesa/mesa-vulkan-drivers_${VERSION//\~/%7E}_amd64.deb"

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/mesa}"
stamp="$dest/.deb-$VERSION"
lib="$dest/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"

if [ -f "$stamp" ] && [ -f "$lib" ] && [ -f "$dest/lvp_icd.json" ]; then
  exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "fetch-mesa: the pinned package is for x86_64 (amd64)" >&2
  exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
curl -fsSL -o "$tmp/$DEB" "$URL" ||
  { echo "fetch-mesa: could not download $URL (bookworm-backports may have moved on from $VERSION)" >&2; exit 1; }
actual="$(sha256sum "$tmp/$DEB" | cut -d' ' -f1)"
if [ "$actual" != "$SHA256" ]; then
  echo "fetch-mesa: checksum mismatch for $DEB" >&2
  echo "  expected $SHA256" >&2
  echo "  got      $actual" >&2
  exit 1
fi

rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$tmp/$DEB" "$dest/root"
printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.4.305"}}\n' "$lib" \
  > "$dest/lvp_icd.json"
cp "$dest/root/usr/share/doc/mesa-vulkan-drivers/copyright" "$dest/LICENSE" 2>/dev/null || true
echo "$SHA256" > "$stamp"
echo "fetch-mesa: Mesa $VERSION's lavapipe unpacked into $dest (VK_DRIVER_FILES=$dest/lvp_icd.json)"
