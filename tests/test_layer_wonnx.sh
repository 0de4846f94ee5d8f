#!/usr/bin/env bash
# `wgprof record` on a Rust wgpu program from PyPI: wonnx 0.5.1 (.deps/wonnx,
# scripts/fetch-wonnx.sh), an ONNX runtime whose Python module has the wgpu crate compiled in, so
# no webgpu.h call can be reached and only wgprof's Vulkan layer can time it. The program
# (tests/layer/wonnx_app.py) runs a small Conv + MLP model made with `onnx` and compares every
# output with numpy's. Under the default way and under --via vulkan:
#   - the program's output is the same, byte for byte, as without wgprof (numpy's, exactly);
#   - the report is complete, not partial, and holds every run's dispatches, all valid, under
#     names that are neither "unknown" nor a bare hash (naga keeps the entry point: wgprof names
#     them `spirv-XXXXXXXX:main`), each as many times per run in a record of 3 runs as in one of
#     2, and the same on both ways;
#   - two sessions in one process (wonnx makes a device for each) make one report file of two
#     result sets (tests/record/check_sets.py), each complete, each with one session's kernels.
# $1 is the wgprof binary, $2 the layer's build folder, $3 tests/layer/.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
case "$2" in /*) layer_dir="$2" ;; *) layer_dir="$PWD/$2" ;; esac # it may not exist
src="$(cd "$3" && pwd)"
root="$(cd "$src/../.." && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

py="$root/.deps/wonnx/bin/python"
app="$src/wonnx_app.py"
if [ ! -x "$py" ]; then
  echo "skipped: no $root/.deps/wonnx (scripts/fetch-wonnx.sh fetches it)"
  exit 77
fi
need_layer "$layer_dir"
tail_of() { grep -v 'XDG_RUNTIME_DIR' "$1" | without_implementation_lines | tail -n 12; }

# ---- the program by itself ----
"$py" "$app" --runs 3 >plain3.out 2>plain.err
status=$?
if [ "$status" -eq 3 ]; then
  bad "wonnx computed wrong by itself: $(tail_of plain.err)"
  finish
  exit 1
fi
if [ "$status" -ne 0 ]; then
  # wgpu finds no Vulkan adapter, or wonnx panics on this driver: nothing to time here.
  echo "skipped: the wonnx program fails by itself (exit $status): $(tail_of plain.err | tail -n 3)"
  exit 77
fi
grep -q '^equal to numpy: yes$' plain3.out && ok || bad "the wonnx program by itself: $(cat plain3.out)"
"$py" "$app" --runs 2 >plain2.out 2>/dev/null
"$py" "$app" --runs 2 --sessions 2 >plain.s2.out 2>/dev/null

# The checks of one device's report (a file, or one of a file's result sets): complete, every
# dispatch valid, every compute kernel named by more than a bare hash and run as often in each run;
# prints each kernel with its dispatches per run (transfer rows, "(copy)" and the like, are the
# encoder's own work and left out: wonnx uploads its weights once, not per run).
cat >check.py <<'PY'
import collections, json, re, sys
path, runs, want_sets = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
try:
    report = json.load(open(path))
except (OSError, ValueError) as err:
    sys.exit(f"no report to read: {err}")
if want_sets == 1:
    reports = [report]
else:
    reports = [s["report"] for s in report.get("result_sets") or []]
    if len(reports) != want_sets:
        sys.exit(f"{len(reports)} result sets in {path}, want {want_sets}")
lists = []
for i, r in enumerate(reports):
    where = path if want_sets == 1 else f"{path}, set {i}"
    if r.get("partial") is not False:
        sys.exit(f"{where}: partial: {r.get('partial_reason')}")
    dispatches = r.get("dispatches") or []
    invalid = [d for d in dispatches if not d.get("valid")]
    if invalid:
        sys.exit(f"{where}: {len(invalid)} of {len(dispatches)} dispatches invalid, e.g. {invalid[0]}")
    counts = collections.Counter(d["kernel"] for d in dispatches if not d["kernel"].startswith("("))
    if sum(counts.values()) < runs:
        sys.exit(f"{where}: {sum(counts.values())} compute dispatches for {runs} runs, want at least one per run")
    unnamed = [n for n in counts if not n or n.split(":")[0].startswith("unknown")]
    if unnamed:
        sys.exit(f"{where}: dispatches with no name the layer could find: {unnamed}")
    bare = [n for n in counts if re.fullmatch(r"spirv-[0-9a-f]{8}", n)]
    if bare:
        sys.exit(f"{where}: kernels named by a bare hash: {bare}")
    uneven = {n: c for n, c in counts.items() if c % runs}
    if uneven:
        sys.exit(f"{where}: kernels not run the same number of times in each of {runs} runs: {uneven}")
    lists.append([f"{n} {counts[n] // runs}" for n in sorted(counts)])
if any(l != lists[0] for l in lists):
    sys.exit(f"{path}: the sets' kernels differ: {lists}")
print("\n".join(lists[0]))
PY

for way in default vulkan; do
  via=()
  [ "$way" = vulkan ] && via=(--via vulkan)
  # ---- twice (3 and 2 runs): output unchanged, every run's dispatches reported ----
  for runs in 3 2; do
    if ! "$wgprof" record "${via[@]}" --json "$way$runs.json" -- "$py" "$app" --runs "$runs" \
      >"$way$runs.out" 2>"$way$runs.err"; then
      bad "$way way: the wonnx program fails under record ($runs runs): $(tail_of "$way$runs.err")"
      continue
    fi
    cmp -s "plain$runs.out" "$way$runs.out" && ok \
      || bad "$way way, $runs runs: the program's output changed under record: $(diff "plain$runs.out" "$way$runs.out")"
    grep -q "^timed by wgprof's Vulkan layer" "$way$runs.err" && ok \
      || bad "$way way, $runs runs: the report does not say the Vulkan layer timed it: $(tail_of "$way$runs.err")"
    python3 check.py "$way$runs.json" "$runs" 1 >"$way.names$runs" 2>"$way.check$runs" && ok \
      || bad "$way way, $runs runs: $(cat "$way.check$runs")"
  done
  if [ -s "$way.names3" ] && [ -s "$way.names2" ]; then
    cmp -s "$way.names3" "$way.names2" && ok \
      || bad "$way way: kernel names or dispatches per run differ between records of the same program: $(diff "$way.names3" "$way.names2")"
  fi

  # ---- two sessions, two devices: one file of two result sets ----
  if ! "$wgprof" record "${via[@]}" --json "$way.s2.json" -- "$py" "$app" --runs 2 --sessions 2 \
    >"$way.s2.out" 2>"$way.s2.err"; then
    bad "$way way: the wonnx program fails under record (2 sessions): $(tail_of "$way.s2.err")"
    continue
  fi
  cmp -s plain.s2.out "$way.s2.out" && ok \
    || bad "$way way, 2 sessions: the program's output changed under record: $(diff plain.s2.out "$way.s2.out")"
  python3 "$root/tests/record/check_sets.py" 2 "$way.s2.json" 2>"$way.sets" && ok \
    || bad "$way way, 2 sessions: $(cat "$way.sets")"
  python3 check.py "$way.s2.json" 2 2 >"$way.names.s2" 2>"$way.check.s2" && ok \
    || bad "$way way, 2 sessions: $(cat "$way.check.s2")"
  if [ -s "$way.names2" ] && [ -s "$way.names.s2" ]; then
    cmp -s "$way.names2" "$way.names.s2" && ok \
      || bad "$way way: a session's kernels differ from a lone session's: $(diff "$way.names2" "$way.names.s2")"
  fi
done
if [ -s default.names3 ] && [ -s vulkan.names3 ]; then
  cmp -s default.names3 vulkan.names3 && ok \
    || bad "the default way and --via vulkan name the kernels differently: $(diff default.names3 vulkan.names3)"
fi

finish
