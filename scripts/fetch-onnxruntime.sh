#!/usr/bin/env bash
# Makes a Python virtual environment under .deps/onnxruntime/ holding ONNX Runtime with its WebGPU
# execution provider (PyPI's onnxruntime-webgpu) and numpy, every file checked against a pinned
# sha256 (pip --require-hashes). The Vulkan layer's tests run a program on it: its library has
# Dawn compiled in and stripped, so no webgpu.h symbol can be reached and only the layer times it.
# Safe to run again: a stamp naming the pinned set says it is done.
# Usage: fetch-onnxruntime.sh [DEST]   (PYTHON picks the interpreter; default python3, >= 3.11)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/onnxruntime}"
python="${PYTHON:-python3}"

# The wheel declares flatbuffers, numpy, packaging and protobuf; an InferenceSession needs numpy
# alone (the others serve its converters and the onnx backend, which the tests do not use), so
# the set is installed with --no-deps. Both wheels are per CPython version: the hashes of 3.11,
# 3.12 and 3.13 (Debian 12, Ubuntu 24.04, Debian 13) are listed, and pip takes the one its
# interpreter matches. numpy is the version and wheels scripts/fetch-wgpu-py.sh pins.
requirements="onnxruntime-webgpu==1.27.0 \
 --hash=sha256:142eb8bdb803c58117bf64164d201f43180bc87229cac14b590aa4ea79e0f70b \
 --hash=sha256:fe5e49e00ad71bc667316d57670bfbf525438783d4a3468e0d337314ec985cbe \
 --hash=sha256:3eb30b487d2b428d2e5c1ac538177ab6336cce9b204197135dc5a16753b0258e
numpy==2.4.6 \
 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93 \
 --hash=sha256:90f9849678c75fe7afa2d348ac842c168b0a4d3d61919687216dfc547976d853 \
 --hash=sha256:a7830bab239b79cda9c08c2da014761cafb48da6150e1da17ac06283f43b6089"
. "$root/scripts/pinned-venv.sh"
pinned_venv fetch-onnxruntime "$dest" "$python" "$requirements" \
  '(3, 11) <= sys.version_info[:2] <= (3, 13)' "wheels are pinned for Python 3.11 to 3.13" \
  'import onnxruntime, sys; sys.exit("WebGpuExecutionProvider" not in onnxruntime.get_available_providers())' \
  "onnxruntime was installed into $dest but does not import with its WebGPU provider" \
  "onnxruntime-webgpu 1.27.0 and numpy installed into $dest" --no-deps
