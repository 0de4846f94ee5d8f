#!/usr/bin/env bash
# The names `wgprof record --via webgpu` (the preload library alone) gives kernels the program
# named nothing: the same in every run of
# the same code, whatever order the program creates its pipelines in, and different for
# different kernels. On the C program (both implementations) and on wgpu-py programs of the
# kinds of wgpu-py's own compute examples (wgpu-native, which wgpu-py ships).
# $1 is the wgprof binary, $2 the folder the record_app_* programs are built in, $3 tests/record/.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
apps="$(cd "$2" && pwd)"
src="$(cd "$3" && pwd)"
root="$(cd "$src/../.." && pwd)"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

impl="${WGPROF_WEBGPU:-wgpu-native}"
case "$impl" in
  wgpu-native | */libwgpu_native*) app="$apps/record_app_wgpu_native"; impl_kind=wgpu-native ;;
  dawn | */libwebgpu_dawn*) app="$apps/record_app_dawn"; impl_kind=dawn ;;
  *) echo "skipped: no program is built for WGPROF_WEBGPU=$impl"; exit 77 ;;
esac
record() { "$wgprof" --webgpu "$impl" record --via webgpu "$@"; }
tail_of() { without_implementation_lines < "$1" | grep -v 'XDG_RUNTIME_DIR' | tail -n 15; }
# The report of a single-device program: the file named (several devices or processes would make
# it a report of result sets, which the checks here refuse).
report_of() { echo "$1"; }
# Each kernel of a report and its count of dispatches, "NAME COUNT" a line, sorted; the work
# between dispatches ("(copy)", "(query resolve)") left out.
kernels() {
  python3 - "$(report_of "$1")" <<'PY'
import collections, json, sys
counts = collections.Counter(d["kernel"] for d in json.load(open(sys.argv[1]))["dispatches"])
for name, n in sorted(counts.items()):
    if not name.startswith("("):
        print(name, n)
PY
}

# ---- the C program: every kind of unlabelled pipeline, made in one order and the other ----
if [ ! -x "$app" ]; then
  bad "$impl_kind: the C program $app is missing"
else
  for run in names.1 names.2 names-reversed; do
    if ! record --json "$run.json" -- "$app" "${run%.[0-9]}" >"$run.out" 2>"$run.err"; then
      bad "$impl_kind $run: failed under record: $(tail_of "$run.err")"
    else
      # The names match what the program expects (record_app.c spells them out, a hash a `*`).
      python3 "$src/check_record.py" exact "$run.out" -- "$(report_of "$run.json")" --stderr "$run.err" \
        >"$run.check" 2>&1 && ok || bad "$impl_kind $run: $(cat "$run.check")"
      kernels "$run.json" >"$run.kernels" 2>&1
      # Each kernel says where its name came from: the module's label where it has one, else
      # the hash of its code; the table's header counts them.
      python3 - "$(report_of "$run.json")" "$run.err" <<'PY' >"$run.sources" 2>&1 && ok || bad "$impl_kind $run: $(cat "$run.sources")"
import json, sys
header = [l for l in open(sys.argv[2]) if l.startswith("kernel names from: ")]
for k in json.load(open(sys.argv[1]))["kernels"]:
    name = k["name"]
    want = ("transfer work between dispatches, by kind" if name.startswith("(")
            else "shader module label" if name.startswith("lab:") else "shader code hash")
    if k.get("name_source") != want:
        sys.exit(f"kernel {name}: name_source {k.get('name_source')!r}, want {want!r}")
if not header or "shader code hash (" not in header[0] or "shader module label (1: lab:" not in header[0]:
    sys.exit(f"the table's header does not say where the names came from: {header}")
PY
    fi
  done
  for run in names.2 names-reversed; do
    cmp -s names.1.kernels "$run.kernels" && ok \
      || bad "$impl_kind: the names of $run differ from the first run's: $(diff names.1.kernels "$run.kernels")"
  done
  # One hash for one module's two entry points, another for another module.
  python3 - names.1.kernels <<'PY' >names.hash 2>&1 && ok || bad "$impl_kind names: $(cat names.hash)"
import sys
names = [line.split()[0] for line in open(sys.argv[1])]
assert len(names) == 6, names
module = {n.split(":")[1]: n.split(":")[0] for n in names if n.startswith("wgsl-") and "(" not in n}
assert module["add_one"] == module["twice"], ("one module, one hash", names)
assert module["fill"] != module["add_one"], ("two modules, two hashes", names)
PY
fi

# ---- wgpu-py: five programs, nothing labelled, every entry point `main` ----
python="$root/.deps/wgpu-py/bin/python"
if [ "$impl_kind" != wgpu-native ]; then
  echo "note: the wgpu-py cases run on wgpu-native only: wgpu-py ships wgpu-native"
elif [ ! -x "$python" ]; then
  echo "note: the wgpu-py cases skipped: no $python (scripts/fetch-wgpu-py.sh makes it)"
else
  examples=(noop matmul workgroups timestamps int64)
  ran=()
  for ex in "${examples[@]}"; do
    for n in 1 2; do
      record --json "$ex.$n.json" -- "$python" "$src/examples.py" "$ex" >"$ex.$n.out" 2>"$ex.$n.err"
      status=$?
      if [ "$status" -eq 77 ]; then
        echo "note: $ex: $(cat "$ex.$n.out")"
        continue 2
      fi
      [ "$status" -eq 0 ] && grep -q '^result: ok' "$ex.$n.out" && ok \
        || { bad "wgpu-py $ex (run $n): exit $status under record: $(tail_of "$ex.$n.err")"; continue 2; }
      kernels "$ex.$n.json" >"$ex.$n.kernels" 2>&1
    done
    # One kernel, named by a hash of its code and its entry point, the same in both runs.
    grep -Eq '^wgsl-[0-9a-f]{8}:main 1$' "$ex.1.kernels" && [ "$(wc -l <"$ex.1.kernels")" -eq 1 ] && ok \
      || bad "wgpu-py $ex: its kernel is named: $(cat "$ex.1.kernels")"
    cmp -s "$ex.1.kernels" "$ex.2.kernels" && ok \
      || bad "wgpu-py $ex: two runs name it differently: $(cat "$ex.1.kernels") / $(cat "$ex.2.kernels")"
    ran+=("$ex")
  done
  if [ "${#ran[@]}" -gt 0 ]; then
    names="$(for ex in "${ran[@]}"; do cut -d' ' -f1 "$ex.1.kernels"; done)"
    [ "$(sort -u <<<"$names" | grep -c .)" -eq "${#ran[@]}" ] && ok \
      || bad "wgpu-py: different kernels share a name: $(tr '\n' ' ' <<<"$names")"
  fi
  # All five in one program, their pipelines made in one order and the reverse: the i-th kernel
  # dispatched i+1 times, so each name's count says which kernel it is.
  if [ "${#ran[@]}" -eq "${#examples[@]}" ]; then
    expected="$(i=1; for ex in "${examples[@]}"; do echo "$(cut -d' ' -f1 "$ex.1.kernels") $i"; i=$((i + 1)); done | sort)"
    for order in "" reversed; do
      # shellcheck disable=SC2086 # no word where forward
      if ! record --json "all$order.json" -- "$python" "$src/examples.py" all $order >"all$order.out" 2>"all$order.err"; then
        bad "wgpu-py all $order: failed under record: $(tail_of "all$order.err")"
        continue
      fi
      got="$(kernels "all$order.json" 2>&1)"
      [ "$got" = "$expected" ] && ok \
        || bad "wgpu-py all $order: names and counts [$(tr '\n' ' ' <<<"$got")], want [$(tr '\n' ' ' <<<"$expected")]"
    done
  else
    echo "note: the five together skipped: only ${ran[*]} ran here"
  fi
fi

finish
