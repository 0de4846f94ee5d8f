# Sourced by the GPU-machine scripts that run the tree staged in .device/build/ (root: the
# tree's root; OUT: a folder for the results, made here): the machine's environment
# (device-env.sh) with the staged libwgprof.so.0 first on LD_LIBRARY_PATH. $1: the script's name.
: "${OUT:?$1: OUT names a folder for the results}"
mkdir -p "$OUT"
. scripts/device-env.sh "$OUT/env"
export LD_LIBRARY_PATH="$root/.device/build:$LD_LIBRARY_PATH"
