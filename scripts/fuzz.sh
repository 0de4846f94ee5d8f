#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (AddressSanitizer and UBSan on) and runs each for
# $1 seconds (default 60), the spec reader seeded with examples/*.json and the readback decoder
# with a few synthetic readings. Crashes are kept in fuzz/crashes/ (commit them as regression
# inputs: fuzz/regressions/ is replayed by every run). Exit status non-zero on a finding.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
build="${FUZZ_BUILD:-$root/build-fuzz}"
CC=clang cmake -S "$root" -B "$build" -DWGPROF_FUZZ=ON -DWGPROF_SANITIZE=ON -DWGPROF_BUILD_TESTS=OFF \
  -DWGPROF_BUILD_TOOLS=OFF -DWGPROF_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
work="$build/corpus"
mkdir -p "$work/spec" "$work/readback" "$root/fuzz/crashes"
cp "$root"/examples/*.json "$work/spec/"
cp "$root"/fuzz/regressions/spec-* "$work/spec/" 2>/dev/null || true
cp "$root"/fuzz/regressions/readback-* "$work/readback/" 2>/dev/null || true
python3 - "$work/readback" <<'PY'
import os, struct, sys
d = sys.argv[1]
def rec(b, e, flags): return struct.pack("<QQB", b, e, flags)
seeds = {
    "ordered": b"".join(rec(1000 + 100 * i, 1050 + 100 * i, i % 3) for i in range(8)),
    "overlap": rec(100, 300, 0) + rec(200, 400, 1) + rec(250, 260, 2),
    "bad": rec(0, 0, 0) + rec(0, 5, 1) + rec(9, 3, 2) + rec(5, 9, 0x80),
}
for name, data in seeds.items():
    open(os.path.join(d, "seed-" + name), "wb").write(data)
PY
status=0
for target in spec readback; do
  echo "fuzz_$target: ${seconds} s"
  (cd "$root/fuzz/crashes" && "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=8192 \
    -print_final_stats=1 "$work/$target" 2>&1 | grep -E 'stat::|ERROR|SUMMARY|Done' ) || status=1
done
exit $status
