#!/usr/bin/env bash
# Installs what building and testing wgprof needs and is missing: the compiler and CMake, the
# Vulkan loader, Mesa's lavapipe (a real Vulkan driver on the CPU, with timestamp queries) and
# jansson; then fetches wgpu-native. Safe to run again: it installs nothing that is present.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

packages=(build-essential cmake pkg-config libvulkan1 mesa-vulkan-drivers libjansson-dev unzip
          python3 chromium  # the tests read reports with Python and load the HTML one in Chromium
          clang libclang-rt-14-dev valgrind)  # the last three for make check
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing ${missing[*]} and no apt-get here; install them by hand" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

"$root/scripts/fetch-wgpu-native.sh"
