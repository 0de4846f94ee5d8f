#!/usr/bin/env bash
# `wgprof diff`, one run a side, on lavapipe on the GPU machine's CPU (BENCHMARKS.md section 12):
# bench/diff_false_alarms.sh (the same spec run twice, 20 pairs, then against a 1.5x slower fma
# kernel) RUNS times on each implementation, with Mesa 25's lavapipe as the only Vulkan driver.
# There lavapipe has 16 cores and nothing else of ours running; here it shares 2 with the VM's
# other tenants.
#
# Run from the tree's root with OUT naming a folder for the results, the .deb files in .gl/
# (scripts/device-env.sh), the built wgprof and libwgprof in .device/build/ (cli/), the
# implementations' libraries as .device/deps/*.so.xz, and lavapipe staged by
# scripts/device-lavapipe-stage.sh: its LLVM archive unpacked into .device/lvp/ by an earlier
# call (`scripts/device-lavapipe-diff.sh unpack`, carrying .device/lvp-llvm.tar.xz alone), the
# rest (.device/lvp-rest.tar.xz) carried with this one.
#   scripts/device-lavapipe-diff.sh unpack        unpack what .device/lvp-*.tar.xz is here, exit
#   scripts/device-lavapipe-diff.sh [RUNS]        unpack the rest, then measure (RUNS default 5)
#   scripts/device-lavapipe-diff.sh probe [PAIRS] instead, PAIRS (default 6) comparisons of one
#       run of the spec against one of its 1.5x copy on each implementation, keeping the reports
#       in OUT, and printing each kernel's five quickest and median dispatch times (us) on each
#       side, whether the diff guessed which kernel moved, its support and every kernel's verdict
set -u
root="$PWD"
lvp="$root/.device/lvp"
mkdir -p "$lvp"
for part in llvm rest; do
  a="$root/.device/lvp-$part.tar.xz"
  if [ -f "$a" ]; then tar xJf "$a" -C "$lvp" || exit 1; fi
done
[ "${1:-}" = unpack ] && { ls -l "$lvp"; exit 0; }
mode=measure
if [ "${1:-}" = probe ]; then mode=probe; shift; fi
runs="${1:-5}"
[ "$mode" = probe ] && runs="${1:-6}"
[ -f "$lvp/libvulkan_lvp.so" ] || { echo "device-lavapipe-diff: no $lvp/libvulkan_lvp.so (carry .device/lvp-rest.tar.xz)" >&2; exit 1; }
ls "$lvp"/libLLVM* >/dev/null 2>&1 || { echo "device-lavapipe-diff: no LLVM in $lvp: unpack .device/lvp-llvm.tar.xz first, on the same machine" >&2; exit 1; }
: "${OUT:?device-lavapipe-diff: OUT names the results folder}"
mkdir -p "$OUT/env"
printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.4.305"}}\n' \
  "$lvp/libvulkan_lvp.so" >"$OUT/env/lvp_icd.json"
export VK_DRIVER_FILES="$OUT/env/lvp_icd.json"
. scripts/device-env.sh "$OUT/env"
mkdir -p .deps/wgpu-native/lib .deps/dawn/lib
xz -dc .device/deps/libwgpu_native.so.xz >.deps/wgpu-native/lib/libwgpu_native.so || exit 1
xz -dc .device/deps/libwebgpu_dawn.so.xz >.deps/dawn/lib/libwebgpu_dawn.so || exit 1
export LD_LIBRARY_PATH="$root/.device/build:$lvp:$LD_LIBRARY_PATH"
W="$root/.device/build/cli/wgprof"
probe() { # IMPL: $runs pairs, base against slow, one run a side, the reports kept in OUT
  python3 - bench/specs/fma_copy.json "$OUT/slow.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["kernels"][0]["constants"]["ITERS"] = 3000
json.dump(s, open(sys.argv[2], "w"))
PY
  for i in $(seq "$runs"); do
    "$W" --webgpu "$1" run --quiet --iterations 10 --json "$OUT/$1-a$i.json" bench/specs/fma_copy.json 2>/dev/null
    "$W" --webgpu "$1" run --quiet --iterations 10 --json "$OUT/$1-b$i.json" "$OUT/slow.json" 2>/dev/null
    "$W" diff --quiet --json "$OUT/$1-d$i.json" "$OUT/$1-a$i.json" "$OUT/$1-b$i.json"
    python3 - "$OUT/$1-a$i.json" "$OUT/$1-b$i.json" "$OUT/$1-d$i.json" <<'PY'
import json, sys
a, b, d = (json.load(open(f)) for f in sys.argv[1:])
def quickest(report):
    by = {}
    for x in report["dispatches"]:
        by.setdefault(x["kernel"], []).append(x["duration_ns"])
    return {k: [round(v / 1000, 1) for v in sorted(l)[:5]] + ["med", round(sorted(l)[len(l) // 2] / 1000, 1)]
            for k, l in by.items()}
print(sys.argv[1].split("/")[-1], "base", quickest(a))
print("   new", quickest(b))
print("   diff", d["common_guessed"], d["common_support"],
      [(k["name"], k["verdict"], k.get("in_common"), round(k["change_pct"], 1)) for k in d["kernels"]])
PY
  done
}
echo "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo); load average $(cut -d' ' -f1-3 /proc/loadavg); wgprof $(cat .device/build/STAGED_FROM 2>/dev/null)"
if [ "$mode" = probe ]; then
  for impl in dawn wgpu-native; do probe "$impl"; done
  exit 0
fi
for impl in wgpu-native dawn; do
  echo "## wgprof info, $impl"
  "$W" --webgpu "$impl" info 2>&1 | head -n 12
  for k in $(seq "$runs"); do
    f="$OUT/lavapipe-$impl-run$k.txt"
    echo "== WGPROF_WEBGPU=$impl bench/diff_false_alarms.sh wgprof 20 10 $(date -u +%FT%TZ) nproc $(nproc), $(cat .device/build/STAGED_FROM 2>/dev/null), lavapipe of .device/lvp" >"$f"
    WGPROF_WEBGPU=$impl bash bench/diff_false_alarms.sh "$W" 20 10 >>"$f" 2>&1
    echo "## $impl run $k: $(grep '"threshold_pct": 5,' "$f")"
  done
done
