#!/usr/bin/env bash
# Makes a Python virtual environment under .deps/wgpu-py/ holding wgpu-py (the `wgpu` wheel that
# wgpu-native is taken from, same version and checksum as scripts/fetch-wgpu-native.sh pins) and
# its dependencies, every file checked against a pinned sha256 (pip --require-hashes). The tests
# of `wgprof record` run an unmodified wgpu-py script with it. Safe to run again: a stamp naming
# the pinned set says it is done.
# Usage: fetch-wgpu-py.sh [DEST]   (PYTHON picks the interpreter; default python3, >= 3.11)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/wgpu-py}"
python="${PYTHON:-python3}"

# The wgpu wheel: its pin lives in one place, the wgpu-native fetch script.
pin_of() { sed -n "s/^$1=\\([^ ]*\\).*/\\1/p" "$root/scripts/fetch-wgpu-native.sh"; }
wgpu_version="$(pin_of WHEEL_VERSION)"
wgpu_sha256="$(pin_of WHEEL_SHA256)"
if [ -z "$wgpu_version" ] || [ -z "$wgpu_sha256" ]; then
  echo "fetch-wgpu-py: no WHEEL_VERSION/WHEEL_SHA256 pin found in scripts/fetch-wgpu-native.sh" >&2
  exit 1
fi

# wgpu's dependencies on Linux (cffi, pycparser, rendercanvas, and numpy through rendercanvas).
# cffi and numpy ship one wheel per CPython version: the hashes of 3.11, 3.12 and 3.13 (Debian
# 12, Ubuntu 24.04, Debian 13) are listed, and pip takes the one its interpreter matches.
requirements="wgpu==$wgpu_version --hash=sha256:$wgpu_sha256
cffi==2.1.1 \
 --hash=sha256:34e261f78cb6ceaaa36f42f2613f4380d94d9c759a9c73c769ee6e0247364632 \
 --hash=sha256:c1453022f490d2459a11819d83ad1d586e9ff65a12ac3e705ffebd46d3685dcf \
 --hash=sha256:a931079504ecc49efed7744c476a5c343a92fabf66dec2db95edb1b2fdc770e2
pycparser==3.12 --hash=sha256:a076f3f489b39b43ed13563a1dafe42447445bec2e294154ec5c57fcdda4c85e
rendercanvas==2.7.2 --hash=sha256:0d98ca3f59fdf90c2601b6162f239d3beeced64d27d44bacb15c4253b21c4784
numpy==2.4.6 \
 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93 \
 --hash=sha256:90f9849678c75fe7afa2d348ac842c168b0a4d3d61919687216dfc547976d853 \
 --hash=sha256:a7830bab239b79cda9c08c2da014761cafb48da6150e1da17ac06283f43b6089"
. "$root/scripts/pinned-venv.sh"
pinned_venv fetch-wgpu-py "$dest" "$python" "$requirements" \
  'sys.version_info >= (3, 11)' "wgpu $wgpu_version needs Python >= 3.11" \
  'import wgpu' "wgpu was installed into $dest but does not import" \
  "wgpu $wgpu_version and its dependencies installed into $dest"
