#!/usr/bin/env bash
# `wgprof record`'s default way (the Vulkan layer beside the webgpu.h library) on a GPU machine's
# driver: the checks test_layer and test_layer_webgpu make on lavapipe, made on real hardware.
# Each program's output must be as without wgprof and its report hold every dispatch it
# submitted (tests/record/check_record.py), complete:
#   - tests/layer's vk_compute in each of its modes (a dispatch before vkCmdExecuteCommands, 80
#     dispatches in one command buffer, vkCmdDispatchBase, inline SPIR-V, shader objects), and
#     ending without destroying its device, by fork and by exec, every report format asked for;
#   - tests/record's C program on wgpu-native and on Dawn (basic, its own timestamps, two
#     devices: one file of each format holding both, tests/record/check_sets.py).
# One line per check in $OUT/summary.txt ("ok ..." or "FAIL ..."), the programs' files beside.
#
# Run from the tree's root with the built wgprof, libwgprof, the layer and its manifest, the
# preload library, vk_compute and the record_app programs copied into .device/build/ (cli/,
# layer/, record/, tests/layer/, tests/record/), the .deb files in .gl/ (scripts/device-env.sh),
# and OUT naming a folder for the results.
set -u
root="$PWD"
. scripts/device-env.sh "$OUT/env"
export LD_LIBRARY_PATH="$root/.device/build:$LD_LIBRARY_PATH"
W="$root/.device/build/cli/wgprof"
app="$root/.device/build/tests/layer/vk_compute"
check="$root/tests/record/check_record.py"
cd "$OUT" || exit 1
nvidia-smi -L
say() { echo "$@" | tee -a summary.txt; }
complete() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit("partial: %s" % r.get("partial_reason") if r["partial"] else 0)' "$1"
}

for mode in basic mixed long base inline objects; do
  steps=4
  [ "$mode" = long ] && steps=40
  "$app" "$mode" "$steps" >"$mode.plain.out" 2>"$mode.plain.err"
  status=$?
  if [ "$status" -ne 0 ]; then
    say "skip vk_compute $mode: exit $status by itself: $(tail -n 1 "$mode.plain.err")"
    continue
  fi
  "$W" record --via vulkan --json "$mode.json" -- "$app" "$mode" "$steps" >"$mode.out" 2>"$mode.err"
  if cmp -s "$mode.plain.out" "$mode.out" && python3 "$check" exact "$mode.out" -- "$mode.json" >"$mode.check" 2>&1; then
    say "ok vk_compute $mode: $(cat "$mode.check")"
  else
    say "FAIL vk_compute $mode: $(cat "$mode.check") $(tail -n 3 "$mode.err")"
  fi
done

for how in usual keep fork exec; do
  end=""
  [ "$how" = usual ] || end="--end $how"
  # shellcheck disable=SC2086
  "$W" record --json "end-$how.json" --html "end-$how.html" --trace "end-$how.trace.json" --csv "end-$how.csv" \
    -- "$app" basic 4 $end >"end-$how.out" 2>"end-$how.err"
  status=$?
  if [ "$status" -eq 0 ] && python3 "$check" exact "end-$how.out" -- "end-$how.json" >"end-$how.check" 2>&1 &&
    complete "end-$how.json" && [ -s "end-$how.html" ] && [ -s "end-$how.trace.json" ] && [ -s "end-$how.csv" ]; then
    say "ok vk_compute --end $how: complete, every format: $(cat "end-$how.check")"
  else
    say "FAIL vk_compute --end $how: exit $status: $(cat "end-$how.check") $(tail -n 3 "end-$how.err")"
  fi
done

for impl in wgpu-native dawn; do
  prog="$root/.device/build/tests/record/record_app_${impl/-/_}"
  # Each implementation's library is carried in .deps/ where the call's size allows.
  if ! ls "$root/.deps/${impl%-native}"*/lib/*.so >/dev/null 2>&1; then
    say "skip $impl: its library was not carried (.deps/)"
    continue
  fi
  for mode in basic own-timestamps; do
    "$prog" "$mode" >"$impl-$mode.plain.out" 2>"$impl-$mode.plain.err"
    "$W" --webgpu "$impl" record --json "$impl-$mode.json" -- "$prog" "$mode" >"$impl-$mode.out" 2>"$impl-$mode.err"
    status=$?
    same=no
    diff <(grep -v '^own timestamps:' "$impl-$mode.plain.out") <(grep -v '^own timestamps:' "$impl-$mode.out") >/dev/null &&
      same=yes
    if [ "$status" -eq 0 ] && [ "$same" = yes ] && complete "$impl-$mode.json"; then
      say "ok $impl $mode: output unchanged, complete; kernels: $(python3 -c 'import json,sys; print(sorted(k["name"] for k in json.load(open(sys.argv[1]))["kernels"]))' "$impl-$mode.json")"
    else
      say "FAIL $impl $mode: exit $status, output unchanged: $same: $(tail -n 3 "$impl-$mode.err")"
    fi
  done
  "$W" --webgpu "$impl" record --json "$impl-two.json" --trace "$impl-two.trace.json" --csv "$impl-two.csv" \
    --html "$impl-two.html" -- "$prog" two-devices >"$impl-two.out" 2>"$impl-two.err"
  if python3 "$root/tests/record/check_sets.py" 2 "$impl-two.json" --trace "$impl-two.trace.json" --csv "$impl-two.csv" \
    --html "$impl-two.html" >"$impl-two.check" 2>&1; then
    say "ok $impl two-devices: one file of each format holds both result sets"
  else
    say "FAIL $impl two-devices: $(cat "$impl-two.check")"
  fi
done
tar czf results.tgz ./*.json ./*.err ./*.out ./*.check 2>/dev/null
grep -c '^ok' summary.txt | sed 's/^/checks passed: /'
grep -c '^FAIL' summary.txt | sed 's/^/checks failed: /'
