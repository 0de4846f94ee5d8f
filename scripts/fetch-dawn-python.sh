#!/usr/bin/env bash
# Fetches PyPI's dawn-python 0.3.0 (the package `pydawn`: ctypes bindings generated from Dawn's
# header, and the Dawn library they load by path, a build of 2025 from the callback-info
# transition, with functions such as wgpuAdapterRequestDeviceF and
# wgpuDeviceCreateComputePipelineAsync2). `wgprof record` is tested on a program that uses it
# as it comes (tests/test_record_ctypes_dawn.sh). Pinned by checksum; unpacked with its license
# into .deps/dawn-python/ (the folder to put on PYTHONPATH). Pure Python: no pip install, no venv.
set -euo pipefail

WHEEL_VERSION=0.3.0
WHEEL_FILE="dawn_python-${WHEEL_VERSION}-py3-none-any.whl"
WHEEL_SHA256=27b2878d60dc7c461f86283ec86981e781efec9f464b688c33aebd842e0854cc

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/dawn-python}"
stamp="$dest/.wheel-$WHEEL_VERSION"

if [ -f "$stamp" ] && [ -f "$dest/pydawn/lib/libwebgpu_dawn_x86_64.so" ]; then
  exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "fetch-dawn-python: its test runs on x86_64 Linux only" >&2
  exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "dawn-python==$WHEEL_VERSION"
else
  url="$(curl -fsSL "https://pypi.org/pypi/dawn-python/$WHEEL_VERSION/json" |
         grep -o "https://files.pythonhosted.org/[^\"]*/$WHEEL_FILE" | head -1)"
  [ -n "$url" ] || { echo "fetch-dawn-python: $WHEEL_FILE not listed on PyPI" >&2; exit 1; }
  curl -fsSL -o "$tmp/$WHEEL_FILE" "$url"
fi
[ -f "$tmp/$WHEEL_FILE" ] || { echo "fetch-dawn-python: $WHEEL_FILE was not downloaded" >&2; exit 1; }

actual="$(sha256sum "$tmp/$WHEEL_FILE" | cut -d' ' -f1)"
if [ "$actual" != "$WHEEL_SHA256" ]; then
  echo "fetch-dawn-python: checksum mismatch for $WHEEL_FILE" >&2
  echo "  expected $WHEEL_SHA256" >&2
  echo "  got      $actual" >&2
  exit 1
fi

(cd "$tmp" && { python3 -m zipfile -e "$WHEEL_FILE" x >/dev/null 2>&1 || unzip -q "$WHEEL_FILE" -d x; })
rm -rf "$dest"
mkdir -p "$dest/pydawn/lib"
cp "$tmp/x/pydawn/__init__.py" "$tmp/x/pydawn/utils.py" "$tmp/x/pydawn/webgpu.py" "$dest/pydawn/"
cp "$tmp/x/pydawn/lib/libwebgpu_dawn_x86_64.so" "$dest/pydawn/lib/"
cp "$tmp/x/dawn_python-$WHEEL_VERSION.dist-info/licenses/LICENSE" "$dest/LICENSE"
echo "dawn-python $WHEEL_VERSION ($WHEEL_FILE, sha256 $WHEEL_SHA256)" > "$dest/VERSION"
echo "$WHEEL_SHA256" > "$stamp"
echo "fetch-dawn-python: dawn-python $WHEEL_VERSION unpacked into $dest"
