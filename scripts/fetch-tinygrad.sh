#!/usr/bin/env bash
# Makes a Python virtual environment under .deps/tinygrad/ holding tinygrad (PyPI's `tinygrad`, a
# pure-Python wheel) and numpy, every file checked against a pinned sha256 (pip
# --require-hashes). tinygrad's WEBGPU device calls Dawn's webgpu.h through ctypes, with the
# functions of Dawn's callback-info transition (wgpuDeviceCreateComputePipelineAsync2,
# wgpuBufferMapAsync2, ...): the Dawn it runs on is dawn-python's (scripts/fetch-dawn-python.sh),
# which it is given by WEBGPU_PATH. `wgprof record` is tested on a tinygrad program as it comes
# (tests/test_record_tinygrad.sh). Safe to run again: a stamp naming the pinned set says it is done.
# Usage: fetch-tinygrad.sh [DEST]   (PYTHON picks the interpreter; default python3, 3.11 to 3.13)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/tinygrad}"
python="${PYTHON:-python3}"

# tinygrad 0.14.0 needs nothing at run time; numpy is the test program's reference (the version
# and wheels scripts/fetch-wgpu-py.sh pins, per CPython version: 3.11, 3.12 and 3.13).
requirements="tinygrad==0.14.0 --hash=sha256:d2a5bea33c637fdf105963632329876b3d3253d38295ac1ffd2ff81646d93be3
numpy==2.4.6 \
 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93 \
 --hash=sha256:90f9849678c75fe7afa2d348ac842c168b0a4d3d61919687216dfc547976d853 \
 --hash=sha256:a7830bab239b79cda9c08c2da014761cafb48da6150e1da17ac06283f43b6089"
. "$root/scripts/pinned-venv.sh"
pinned_venv fetch-tinygrad "$dest" "$python" "$requirements" \
  '(3, 11) <= sys.version_info[:2] <= (3, 13)' "wheels are pinned for Python 3.11 to 3.13" \
  'import numpy, tinygrad' "tinygrad was installed into $dest but does not import" \
  "tinygrad 0.14.0 and numpy installed into $dest" --no-deps
