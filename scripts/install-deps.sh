#!/usr/bin/env bash
# Installs what a make target needs and is missing, by group, then fetches wgpu-native (every
# group: nothing builds or runs without it) and, for the groups that run the tests, Dawn,
# Mesa 25's lavapipe (the GPU tests run on both implementations; Dawn needs Mesa >= 25 there,
# unpacked under .deps/mesa/ beside the system's Mesa, which stays as it is), wgpu-py in a venv
# (the tests of `wgprof record` profile a Python program with it), ONNX Runtime's WebGPU
# provider in another (the Vulkan layer's test of a program with Dawn compiled in), tinygrad in
# a third (a real program on dawn-python's Dawn), Playwright in a fourth (a web page's test
# suite, on Debian's Chromium) and the tools that build the wheel in a fifth. Safe to run again:
# it installs and fetches nothing present.
#   build  the compiler, CMake, pkg-config and jansson; the Vulkan loader and Mesa's lavapipe (a
#          real Vulkan driver on the CPU, with timestamp queries) that the built tool and demo run
#          on; the Vulkan headers and glslangValidator, for wgprof's Vulkan layer and the plain
#          Vulkan programs (SPIR-V compiled at build time); curl, CA certificates and unzip for
#          fetching wgpu-native                                               (make build, make demo)
#   test   build + python3, python3-venv, chromium and the Khronos validation layer: the tests read
#          reports with Python, load the HTML one in headless Chromium, profile a wgpu-py script
#          from a venv and run a Vulkan program under validation with and without wgprof's layer;
#          Dawn, Mesa 25, wgpu-py in .deps/wgpu-py, dawn-python, onnxruntime-webgpu in
#          .deps/onnxruntime, tinygrad in .deps/tinygrad and wonnx in .deps/wonnx
#          (x86_64 only)                                                               (make test)
#   lint   build + cppcheck and clang-tidy                                             (make lint)
#   fuzz   build + clang with its libFuzzer/sanitizer runtimes, and python3 (seeds) (make fuzz)
#   check  all of the above + valgrind                                                (make check)
# Usage: install-deps.sh [GROUP...]   (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

build_packages=(build-essential cmake pkg-config libjansson-dev libvulkan1 mesa-vulkan-drivers
                libvulkan-dev glslang-tools curl ca-certificates unzip)
test_packages=(python3 python3-venv chromium vulkan-validationlayers)
lint_packages=(cppcheck clang-tidy)
fuzz_packages=(clang libclang-rt-14-dev python3)
check_packages=(valgrind)

packages=("${build_packages[@]}")
[ $# -gt 0 ] || set -- build
tests=false
for group in "$@"; do
  case "$group" in
    build) ;;
    test) packages+=("${test_packages[@]}"); tests=true ;;
    lint) packages+=("${lint_packages[@]}") ;;
    fuzz) packages+=("${fuzz_packages[@]}") ;;
    check) packages+=("${test_packages[@]}" "${lint_packages[@]}" "${fuzz_packages[@]}" "${check_packages[@]}")
           tests=true ;;
    *) echo "install-deps: unknown group '$group' (build, test, lint, fuzz, check)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  case " ${missing[*]-} " in *" $p "*) continue ;; esac
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
if $tests; then
  if [ "$(uname -m)" = x86_64 ]; then
    "$root/scripts/fetch-dawn.sh"
    "$root/scripts/fetch-mesa.sh"
    "$root/scripts/fetch-wgpu-py.sh"
    "$root/scripts/fetch-onnxruntime.sh"
    "$root/scripts/fetch-dawn-python.sh"
    "$root/scripts/fetch-tinygrad.sh"
    "$root/scripts/fetch-wonnx.sh"
    "$root/scripts/fetch-playwright.sh"
    "$root/scripts/fetch-wheel-tools.sh"
  else
    echo "install-deps: no pinned Dawn, Mesa, wgpu-py, onnxruntime, dawn-python, tinygrad, wonnx, playwright or wheel tools for $(uname -m); the GPU tests run on wgpu-native only"
  fi
fi
