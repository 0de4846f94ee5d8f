#!/usr/bin/env bash
# Makes a Python virtual environment under .deps/wonnx/ holding wonnx (PyPI's wonnx 0.5.1, an
# ONNX runtime written in Rust on the wgpu crate), onnx (the test program builds its model with
# it) and what they import, every file checked against a pinned sha256 (pip --require-hashes).
# wonnx's module has wgpu compiled in: no webgpu.h call is made, so only wgprof's Vulkan layer
# times it (tests/test_layer_wonnx.sh). Safe to run again: a stamp naming the pinned set says it
# is done.
# Usage: fetch-wonnx.sh [DEST]   (PYTHON picks the interpreter; default python3, 3.11 to 3.13)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/wonnx}"
python="${PYTHON:-python3}"

# wonnx's wheel is one for every CPython >= 3.7 (abi3) and declares nothing; onnx 1.23.2 needs
# protobuf, ml_dtypes, typing_extensions and numpy (the versions bench/ort_vs_profiler.sh pins),
# so the set is installed with --no-deps. onnx's wheels are abi3 from 3.12, ml_dtypes' and
# numpy's per CPython version: the hashes of 3.11, 3.12 and 3.13 are listed, and pip takes the
# one its interpreter matches.
requirements="wonnx==0.5.1 --hash=sha256:2dfe76738a679eee7d503dc905d5e2046b9896f019643b5422de87d1d0d1e754
onnx==1.23.2 \
 --hash=sha256:c03ecf6b835d136108eeaeeafbd0026fc7b3cf98661409fbc6b63d5a29361348 \
 --hash=sha256:7abf381d278f31ac62487fddedc9dd42da842dce94d5d43536836ee3efdf4a2b
protobuf==7.36.2 --hash=sha256:89f23aa53c24553a2416fd4fd1ec06f74fa42b14b546d8883128813f775bbfd2
ml_dtypes==0.7.0 \
 --hash=sha256:d214c910cabaf80aa1ee37b0f25131e20d7a6474182e5293a68985b0421299da \
 --hash=sha256:3c4e47f553a04d33886160a9600e2313e5bee8c1c3da997baa23c8fecbfab189 \
 --hash=sha256:5fb56999e1a03f47af5583af4089e00d04b68f87d4fadd659a5927ecd7687c3d
typing_extensions==4.16.0 --hash=sha256:481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8
numpy==2.4.6 \
 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93 \
 --hash=sha256:90f9849678c75fe7afa2d348ac842c168b0a4d3d61919687216dfc547976d853 \
 --hash=sha256:a7830bab239b79cda9c08c2da014761cafb48da6150e1da17ac06283f43b6089"
. "$root/scripts/pinned-venv.sh"
pinned_venv fetch-wonnx "$dest" "$python" "$requirements" \
  '(3, 11) <= sys.version_info[:2] <= (3, 13)' "wheels are pinned for Python 3.11 to 3.13" \
  'import numpy, onnx, wonnx' "wonnx was installed into $dest but does not import" \
  "wonnx 0.5.1, onnx 1.23.2 and numpy installed into $dest" --no-deps
