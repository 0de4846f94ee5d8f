#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (coverage, AddressSanitizer and UBSan on, in the library
# the fuzzers call too: fuzz/CMakeLists.txt) and runs every fuzz_* executable the build holds,
# one after the other, for $1 seconds each (default 60). Further arguments name the targets to run
# instead of all of them (`writers` or `fuzz_writers`). A target added to the build is run without
# editing this script.
# Seeds: fuzz/seeds/NAME/* for target fuzz_NAME where that folder exists; besides, the spec reader
# gets examples/*.json, the readback decoder a few synthetic readings and the report writers a few
# name lists (below). Crashes are kept in fuzz/crashes/ (commit them as regression inputs:
# fuzz/regressions/NAME-* is replayed as seeds of fuzz_NAME by every run). Exit status non-zero
# on a finding.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
build="${FUZZ_BUILD:-$root/build-fuzz}"
CC=clang cmake -S "$root" -B "$build" -DWGPROF_FUZZ=ON -DWGPROF_SANITIZE=ON -DWGPROF_BUILD_TESTS=OFF \
  -DWGPROF_BUILD_TOOLS=OFF -DWGPROF_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null

# Every fuzz target the build made, wherever its CMakeLists put it.
mapfile -t targets < <(find "$build" -maxdepth 3 -name CMakeFiles -prune -o -type f -name 'fuzz_*' -perm -u=x \
  -print | sort)
if [ "$#" -gt 0 ]; then
  chosen=()
  for name in "$@"; do
    found=""
    for exe in "${targets[@]}"; do
      [ "$(basename "$exe")" = "fuzz_${name#fuzz_}" ] && found="$exe"
    done
    [ -n "$found" ] || { echo "fuzz.sh: no target fuzz_${name#fuzz_} in $build" >&2; exit 2; }
    chosen+=("$found")
  done
  targets=("${chosen[@]}")
fi
if [ "${#targets[@]}" -eq 0 ]; then
  echo "fuzz.sh: no fuzz_* target in $build" >&2
  exit 2
fi

work="$build/corpus"
mkdir -p "$root/fuzz/crashes"
for exe in "${targets[@]}"; do
  name="$(basename "$exe")"
  name="${name#fuzz_}"
  mkdir -p "$work/$name"
  cp "$root"/fuzz/seeds/"$name"/* "$work/$name/" 2>/dev/null || true
  cp "$root"/fuzz/regressions/"$name"-* "$work/$name/" 2>/dev/null || true
done
if [ -d "$work/spec" ]; then cp "$root"/examples/*.json "$work/spec/"; fi
python3 - "$work" <<'PY'
import os, struct, sys
work = sys.argv[1]
def write(target, seeds):
    d = os.path.join(work, target)
    if os.path.isdir(d):  # only for targets being run
        for name, data in seeds.items():
            open(os.path.join(d, "seed-" + name), "wb").write(data)
# fuzz_readback: 17 bytes a record: begin and end ticks, then a flags byte.
def rec(b, e, flags): return struct.pack("<QQB", b, e, flags)
write("readback", {
    "ordered": b"".join(rec(1000 + 100 * i, 1050 + 100 * i, i % 3) for i in range(8)),
    "overlap": rec(100, 300, 0) + rec(200, 400, 1) + rec(250, 260, 2),
    "bad": rec(0, 0, 0) + rec(0, 5, 1) + rec(9, 3, 2) + rec(5, 9, 0x80),
})
# fuzz_writers: tokens split by NUL, each a kind byte ('s' scope, 'e' end, 'b' batch, 'x' invalid
# dispatch, else a dispatch) and a name.
def prog(*tokens): return b"\0".join(tokens)
write("writers", {
    "plain": prog(b"kmatmul", b"ksoftmax", b"kmatmul", b"xsoftmax"),
    "scopes": prog(b"slayer0", b"kattn", b"xattn", b"e", b"slayer1", b"kmlp", b"sinner", b"kgelu", b"e", b"e", b"kout"),
    "batches": prog(b"ka", b"b", b"ka", b"kb", b"b", b"xa", b"e"),
    "markup": prog(b"k</script><b>x", b"s<img src=x onerror=alert(1)>", b'k"quoted",comma', b"k'apos' & <", b"e"),
    "formula": prog(b"k=SUM(A1:A9)", b"k+1", b"k-2", b"k@cmd", b"s=scope", b"k\ttab", b"e"),
    "utf8": prog("kcafé".encode(), "s日本語".encode(), "k😀".encode(), b"e"),
    "controls": prog(b"k\x01\x02\x1b[31m", b"k\r\nline", b"s\x7f", b"kx", b"e"),
    "invalid-utf8": prog(b"k\xff\xfe", b"s\xc0\x80", b"k\xe2\x82", b"k\xed\xa0\x80", b"e"),
    "long": prog(b"s" + "é".encode() * 300, b"k" + b"w" * 500, b"e"),
})
PY

status=0
for exe in "${targets[@]}"; do
  name="$(basename "$exe")"
  echo "$name: ${seconds} s"
  (cd "$root/fuzz/crashes" && "$exe" -max_total_time="$seconds" -max_len=8192 -print_final_stats=1 \
    "$work/${name#fuzz_}" 2>&1 | grep -E 'stat::|DONE|Done|ERROR|SUMMARY|Test unit|check failed|does not parse') ||
    { status=1; echo "$name: FINDING (input kept in fuzz/crashes/)"; }
done
exit $status
