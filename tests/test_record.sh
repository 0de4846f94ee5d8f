#!/usr/bin/env bash
# `wgprof record --via webgpu` (the preload library alone; test_layer_webgpu.sh has it beside the
# Vulkan layer) on programs that know nothing of it (tests/record/): each prints what it
# submitted per kernel, and the reports must say the same; the programs' own results and exit
# status must not change. Run once per implementation (WGPROF_WEBGPU): the C program built for
# that implementation, and (on wgpu-native, which wgpu-py ships) a wgpu-py script.
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
  *) app=""; impl_kind=other ;;
esac
record() { "$wgprof" --webgpu "$impl" record --via webgpu "$@"; }
check() { python3 "$src/check_record.py" "$@"; }
# sets_of FILE -> "PID DEVICE" for each result set of a report of several (nothing for one).
sets_of() {
  python3 -c 'import json,sys; [print(s["process"], s["device"]) for s in json.load(open(sys.argv[1])).get("result_sets", [])]' "$1"
}
# Shows a failed command's stderr, less the lines the implementation prints whatever happens.
tail_of() { without_implementation_lines < "$1" | grep -v 'XDG_RUNTIME_DIR' | tail -n 15; }

# Without a record command, nothing below can say anything: one clear failure, not thirty.
record -- true >probe.out 2>probe.err
status=$?
if [ "$status" -ne 0 ]; then
  bad "'wgprof record -- true' exited $status: this wgprof has no working record command:" \
      "$(without_implementation_lines <probe.err | head -n 3)"
  finish
  exit
fi
ok

# The report of a single-device program: the file named (several devices or processes would make
# it a report of result sets, which the checks here refuse).
report_of() { echo "$1"; }

# ---- 1. a wgpu-py script: results unchanged, every dispatch timed ----
python="$root/.deps/wgpu-py/bin/python"
if [ "$impl_kind" != wgpu-native ] && [ -x "$python" ]; then
  # wgpu-py needs wgpu-native's extensions: on another implementation it is stopped before its
  # first WebGPU call (nothing printed: compute.py prints at the end), with the reason, exit 2.
  record --json py.json -- "$python" "$src/compute.py" >py.out 2>py.err
  status=$?
  [ "$status" -eq 2 ] && [ ! -s py.out ] && grep -q 'wgpu-py' py.err && grep -q -- '--webgpu wgpu-native' py.err \
    && ! grep -q 'no results' py.err && [ ! -e py.json ] && ok \
    || bad "$impl_kind: a wgpu-py script: exit $status (want 2, stopped at once, saying to use --webgpu wgpu-native): $(tail_of py.err)"
  # The same for a program that loads wgpu-native's library by name and would be handed this one.
  load_named='import ctypes; ctypes.CDLL("libwgpu_native.so"); print("loaded")'
  if "$python" -c "$load_named" >/dev/null 2>&1; then
    echo "note: libwgpu_native.so is found by its name here: a program that loads it gets it"
  else
    record -- "$python" -c "$load_named" >named.out 2>named.err
    status=$?
    [ "$status" -eq 2 ] && [ ! -s named.out ] && grep -q -- '--webgpu wgpu-native' named.err && ok \
      || bad "$impl_kind: dlopen of libwgpu_native.so: exit $status (want 2, stopped): $(tail_of named.err)"
  fi
elif [ ! -x "$python" ]; then
  echo "note: case 1 (wgpu-py) skipped: no $python (scripts/fetch-wgpu-py.sh makes it)"
else
  if ! "$python" "$src/compute.py" >py.plain.out 2>py.plain.err; then
    bad "wgpu-py script fails by itself: $(tail_of py.plain.err)"
  elif ! record --json py.json -- "$python" "$src/compute.py" >py.out 2>py.err; then
    bad "wgpu-py script under record failed: $(tail_of py.err)"
  else
    cmp -s py.plain.out py.out && ok || bad "wgpu-py script: its output changed under record: $(diff py.plain.out py.out)"
    check exact py.out -- "$(report_of py.json)" --stderr py.err >py.check 2>&1 && ok || bad "wgpu-py script: $(cat py.check)"
  fi
fi

# The C program is built for wgpu-native and Dawn (tests/record/CMakeLists.txt): missing there, it is
# a broken build, not a reason to pass. For another implementation there is none to run: a skip.
if [ -z "$app" ]; then
  echo "skipped: no C program is built for WGPROF_WEBGPU=$impl; cases 2-7 need one"
  exit 77
fi
if [ ! -x "$app" ]; then
  bad "$impl_kind: the C program $app is missing: cases 2-7 cannot run"
  finish
  exit
fi

# ---- 2. (7 on Dawn) the C program: results unchanged, every dispatch timed, every report ----
if ! "$app" basic >basic.plain.out 2>basic.plain.err; then
  bad "$impl_kind: the C program fails by itself: $(tail_of basic.plain.err)"
elif ! record --json basic.json --html basic.html --trace basic.trace.json --csv basic.csv -- \
     "$app" basic >basic.out 2>basic.err; then
  bad "$impl_kind basic: failed under record: $(tail_of basic.err)"
else
  cmp -s basic.plain.out basic.out && ok || bad "$impl_kind basic: output changed: $(diff basic.plain.out basic.out)"
  check exact basic.out -- "$(report_of basic.json)" --stderr basic.err >basic.check 2>&1 && ok \
    || bad "$impl_kind basic: $(cat basic.check)"
  # The other reports hold the same dispatches (the JSON one was checked against the program).
  python3 - "$(report_of basic.json)" "$(report_of basic.trace.json)" "$(report_of basic.csv)" \
    "$(report_of basic.html)" <<'PY' >other.check 2>&1 && ok || bad "$impl_kind basic: trace/CSV/HTML: $(cat other.check)"
import csv, json, sys
report, trace, table, page = sys.argv[1:]
n = len(json.load(open(report))["dispatches"])
events = json.load(open(trace))["traceEvents"]
dispatches = [e for e in events if e.get("ph") == "X" and e.get("cat") == "dispatch"]
assert len(dispatches) == n, ("trace", len(dispatches), n)
rows = list(csv.DictReader(open(table)))
assert len(rows) == n and all(r["valid"] == "1" for r in rows), ("csv", len(rows), n)
html = open(page).read()
assert "<html" in html.lower() and "adder:add_one" in html, "html"
PY
fi

# ---- the strategies, named; sampling times some dispatches, never one that did not happen ----
for strategy in chain inside; do
  if ! record --strategy "$strategy" --json "s-$strategy.json" -- "$app" basic >"s-$strategy.out" 2>"s-$strategy.err"; then
    bad "$impl_kind --strategy $strategy: failed under record: $(tail_of "s-$strategy.err")"
  else
    check exact "s-$strategy.out" -- "$(report_of "s-$strategy.json")" >"s-$strategy.check" 2>&1 && ok \
      || bad "$impl_kind --strategy $strategy: $(cat "s-$strategy.check")"
  fi
done
if ! record --sample-every 3 --json sampled.json -- "$app" basic >sampled.out 2>sampled.err; then
  bad "$impl_kind --sample-every 3: failed under record: $(tail_of sampled.err)"
else
  check partial sampled.out -- "$(report_of sampled.json)" >sampled.check 2>&1 && ok \
    || bad "$impl_kind --sample-every 3: $(cat sampled.check)"
fi

# ---- 3. its own timestamp queries keep working ----
record --json own.json -- "$app" own-timestamps >own.out 2>own.err
status=$?
if [ "$status" -eq 77 ]; then
  echo "note: case 3 skipped: the adapter has no timestamp queries"
elif [ "$status" -ne 0 ]; then
  bad "$impl_kind own-timestamps: the program's own check failed under record ($status): $(tail_of own.err)"
else
  check exact own.out -- "$(report_of own.json)" --stderr own.err >own.check 2>&1 && ok \
    || bad "$impl_kind own-timestamps: $(cat own.check)"
fi

# ---- 4. encoders never submitted, a pipeline made asynchronously ----
if ! record --json unsub.json -- "$app" unsubmitted >unsub.out 2>unsub.err; then
  bad "$impl_kind unsubmitted: failed under record: $(tail_of unsub.err)"
else
  check exact unsub.out -- "$(report_of unsub.json)" --stderr unsub.err >unsub.check 2>&1 && ok \
    || bad "$impl_kind unsubmitted: $(cat unsub.check)"
fi

# ---- copies and a clear between two passes of one encoder: timed apart, in no dispatch ----
if ! record --json copies.json -- "$app" copies >copies.out 2>copies.err; then
  bad "$impl_kind copies: failed under record: $(tail_of copies.err)"
else
  check exact copies.out -- "$(report_of copies.json)" --stderr copies.err >copies.check 2>&1 && ok \
    || bad "$impl_kind copies: $(cat copies.check)"
  # The copies have a record of their own, between the two one-workgroup dispatches' in the
  # chain, and longer than either (were the copies counted in one, that one would hold their time
  # and their own record next to nothing). Within this run only: the time of the copies alone
  # (copy-us), from another submit, moves with other work on the machine and is not compared.
  python3 - "$(report_of copies.json)" >copies.times 2>&1 <<'PY' && ok \
    || bad "$impl_kind copies: $(cat copies.times)"
import json, sys
report = json.load(open(sys.argv[1]))
work = [d for d in report["dispatches"] if d["kernel"] == "(copy, clear)"]
assert len(work) == 1, f"the copies' own record: {work}"
w = work[0]
around = [d for d in report["dispatches"] if d["iteration"] == w["iteration"] and d is not w]
before = [d for d in around if d["index"] < w["index"]]
after = [d for d in around if d["index"] > w["index"]]
assert before and after, f"the copies' record is not between two dispatches: {around}"
assert before[-1]["end_ns"] <= w["start_ns"] and w["end_ns"] <= after[0]["start_ns"], (before[-1], w, after[0])
assert all(d["duration_ns"] < w["duration_ns"] for d in (before[-1], after[0])), \
    f"a dispatch took as long as the copies' {w['duration_ns']} ns or more: {before[-1]}, {after[0]}"
PY
fi

# ---- indirect dispatches: timed, named apart ----
if ! record --json ind.json -- "$app" indirect >ind.out 2>ind.err; then
  bad "$impl_kind indirect: failed under record: $(tail_of ind.err)"
else
  check exact ind.out -- "$(report_of ind.json)" --stderr ind.err >ind.check 2>&1 && ok \
    || bad "$impl_kind indirect: $(cat ind.check)"
fi

# ---- more passes in one encoder than a query set times: the chain runs on into the next sets ----
if ! record --json long.json -- "$app" long-chain >long.out 2>long.err; then
  bad "$impl_kind long-chain: failed under record: $(tail_of long.err)"
else
  check exact long.out -- "$(report_of long.json)" --stderr long.err >long.check 2>&1 && ok \
    || bad "$impl_kind long-chain: $(cat long.check)"
fi

# ---- 5. exit() with everything alive: results still written ----
if ! record --json norel.json -- "$app" no-release >norel.out 2>norel.err; then
  bad "$impl_kind no-release: failed under record: $(tail_of norel.err)"
else
  check exact norel.out -- "$(report_of norel.json)" --stderr norel.err >norel.check 2>&1 && ok \
    || bad "$impl_kind no-release: $(cat norel.check)"
fi

# ---- 6. a crash: the signal's status, a message naming it, what was collected written ----
record --json crash.json -- "$app" crash >crash.out 2>crash.err
status=$?
[ "$status" -eq 139 ] && ok || bad "$impl_kind crash: exit status $status, want 139 (128 + SIGSEGV)"
grep -Eqi 'SIGSEGV|signal 11|segmentation' crash.err && ok \
  || bad "$impl_kind crash: no message naming the signal: $(tail_of crash.err)"
crash_report="$(report_of crash.json)"
if [ ! -f "$crash_report" ]; then
  bad "$impl_kind crash: no report written (crash.json or crash.PID.N.json): $(echo crash.*)"
else
  check partial crash.out -- "$crash_report" >crash.check 2>&1 && ok || bad "$impl_kind crash: $(cat crash.check)"
fi

# ---- every way a process ends without its exit handlers: the report says it is partial, in
# the JSON and in the table on stderr, and `wgprof diff` refuses it against a whole run (exit 2)
# unless --allow-partial, which flags it in every output. A whole run's report says "partial": false. ----
full_report="$(report_of basic.json)"
[ -f "$full_report" ] && python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["partial"] is False and "partial_reason" not in r' "$full_report" &&
  ok || bad "$impl_kind basic: the whole run's report is not marked \"partial\": false"
for ending in crash:139 crash-kill:137 crash-term:143 crash-abort:134 crash-exit0:0; do
  mode="${ending%%:*}" want="${ending##*:}"
  record --json "p-$mode.json" -- "$app" "$mode" >"p-$mode.out" 2>"p-$mode.err"
  status=$?
  [ "$status" -eq "$want" ] && ok || bad "$impl_kind $mode: exit status $status, want $want"
  part="$(report_of "p-$mode.json")"
  if [ ! -f "$part" ]; then
    bad "$impl_kind $mode: no report written: $(tail_of "p-$mode.err")"
    continue
  fi
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["partial"] is True and "ended before" in r["partial_reason"], r.get("partial")' "$part" 2>"p-$mode.check" &&
    ok || bad "$impl_kind $mode: the JSON report is not marked partial: $(cat "p-$mode.check")"
  grep -q '^PARTIAL RESULTS: the program ended before' "p-$mode.err" && ok \
    || bad "$impl_kind $mode: no PARTIAL RESULTS line in the table: $(tail_of "p-$mode.err")"
  [ -f "$full_report" ] || continue
  "$wgprof" diff "$full_report" "$part" >"p-$mode.diff" 2>"p-$mode.differr"
  status=$?
  [ "$status" -eq 2 ] && grep -q 'the new side is partial' "p-$mode.differr" && [ ! -s "p-$mode.diff" ] && ok \
    || bad "$impl_kind $mode: diff of a whole run and a partial one: exit $status, want 2: $(cat "p-$mode.differr")"
done
if [ -f "$full_report" ] && [ -f "$(report_of p-crash-kill.json)" ]; then
  part="$(report_of p-crash-kill.json)"
  "$wgprof" diff --allow-partial --json pd.json --markdown pd.md --html pd.html "$part" "$full_report" >pd.out 2>pd.err
  status=$?
  [ "$status" -eq 0 ] && ok || bad "$impl_kind diff --allow-partial: exit $status: $(cat pd.err)"
  grep -q '^PARTIAL RESULTS on the base side: ' pd.out && ok || bad "$impl_kind diff --allow-partial: no flag in the table: $(head -3 pd.out)"
  grep -q '^> \*\*PARTIAL RESULTS on the base side\*\*' pd.md && head -1 pd.md | grep -q 'PARTIAL RESULTS' && ok \
    || bad "$impl_kind diff --allow-partial: no flag in the Markdown: $(head -3 pd.md)"
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["partial"] is True and d["base"]["partial"] is True and "ended before" in d["base"]["partial_reason"] and d["new"]["partial"] is False' pd.json 2>pd.check &&
    ok || bad "$impl_kind diff --allow-partial: the JSON: $(cat pd.check)"
  grep -q '<title>PARTIAL wgprof diff</title>' pd.html && grep -q '"partial": true' pd.html && grep -q "note partial" pd.html && ok \
    || bad "$impl_kind diff --allow-partial: no flag in the HTML page"
fi

# ---- a program that lets go of things early or out of order: no crash, every promised dispatch ----
# early-release: adapter and instance released before any encoder; device-first: the device
# released with an encoder and buffers still held, used after; callback-release: a mapping
# callback releases the device inside a later call (under a time limit: it must not hang).
for mode in early-release device-first callback-release; do
  timeout -k 5 120 "$wgprof" --webgpu "$impl" record --via webgpu --json "$mode.json" -- "$app" "$mode" >"$mode.out" 2>"$mode.err"
  status=$?
  if [ "$status" -ne 0 ]; then
    bad "$impl_kind $mode: exit status $status under record (124: it hung): $(tail_of "$mode.err")"
    continue
  fi
  # The table on stderr, and each dispatch submitted while the program held its device timed.
  check exact "$mode.out" -- "$(report_of "$mode.json")" --stderr "$mode.err" >"$mode.check" 2>&1 && ok \
    || bad "$impl_kind $mode: $(cat "$mode.check")"
done
# On wgpu-native the callback runs inside wgpuQueueSubmit, which is what this case is for.
if [ "$impl_kind" = wgpu-native ] && [ -f callback-release.out ]; then
  grep -q 'map callback ran in wgpuQueueSubmit' callback-release.out && ok \
    || bad "wgpu-native callback-release: the callback did not run inside wgpuQueueSubmit: $(grep 'map callback' callback-release.out)"
fi
# The program's callbacks run where they run without record (Dawn: only in the program's own
# wgpuInstanceProcessEvents), not from inside another of its calls.
if [ -f callback-release.out ] && "$app" callback-release >cbplain.out 2>cbplain.err; then
  under="$(grep 'map callback' callback-release.out)"
  without="$(grep 'map callback' cbplain.out)"
  [ "$under" = "$without" ] && ok || bad "$impl_kind callback-release: '$under' under record, '$without' without"
fi

# ---- threads: 8 threads encode and submit on one device at once; every dispatch timed ----
if ! timeout -k 5 120 "$wgprof" --webgpu "$impl" record --via webgpu --json threads.json -- "$app" threads8 >threads.out 2>threads.err; then
  bad "$impl_kind threads8: failed under record (124: it hung): $(tail_of threads.err)"
else
  grep -q '^result: ok' threads.out && ok || bad "$impl_kind threads8: its results are wrong: $(tail_of threads.err)"
  check exact threads.out -- "$(report_of threads.json)" --stderr threads.err >threads.check 2>&1 && ok \
    || bad "$impl_kind threads8: $(cat threads.check)"
fi
# A callback of the program's, run inside one of its calls, waits (at most 10 s) for another
# thread to encode and submit a timed dispatch: no lock of wgprof's may be held across the
# call. On wgpu-native the callback runs inside wgpuQueueSubmit (where wgprof does its own
# work around the call); on Dawn inside wgpuInstanceProcessEvents.
if ! timeout -k 5 120 "$wgprof" --webgpu "$impl" record --via webgpu --json handoff.json -- "$app" callback-thread \
     >handoff.out 2>handoff.err; then
  bad "$impl_kind callback-thread: failed under record (124: it hung): $(tail_of handoff.err)"
else
  check exact handoff.out -- "$(report_of handoff.json)" --stderr handoff.err >handoff.check 2>&1 && ok \
    || bad "$impl_kind callback-thread: $(cat handoff.check)"
  if [ "$impl_kind" = wgpu-native ]; then
    grep -q 'callback ran in wgpuQueueSubmit' handoff.out && ok \
      || bad "wgpu-native callback-thread: the callback did not run inside wgpuQueueSubmit: $(grep 'callback ran' handoff.out)"
  fi
fi

# ---- an encoder released unfinished inside a debug group: its scope ends with it ----
if ! record --json orphan.json -- "$app" orphan-scope >orphan.out 2>orphan.err; then
  bad "$impl_kind orphan-scope: failed under record: $(tail_of orphan.err)"
else
  # Counts: the abandoned encoder's dispatch (doubler) is in no manifest line, so not reported.
  check exact orphan.out -- "$(report_of orphan.json)" --stderr orphan.err >orphan.check 2>&1 && ok \
    || bad "$impl_kind orphan-scope: $(cat orphan.check)"
  python3 - "$(report_of orphan.json)" <<'PY' >orphan.scopes 2>&1 && ok || bad "$impl_kind orphan-scope: scopes: $(cat orphan.scopes)"
import json, sys
report = json.load(open(sys.argv[1]))
scopes = report["scopes"]
def ancestors(node):
    names = []
    while node >= 0:
        names.append(scopes[node]["name"])
        node = scopes[node]["parent"]
    return names
later = [i for i in report["scope_instances"] if i["name"] == "later"]
assert len(later) == 3 and all(i["valid"] for i in later), ("three valid 'later' instances", later)
for i in later:
    assert "abandoned" not in ancestors(i["node"]), ("'later' under 'abandoned'", i, ancestors(i["node"]))
    assert i["parent_node"] == -1 or "abandoned" not in ancestors(i["parent_node"]), ("parent", i)
for d in report["dispatches"]:  # its scope: an index into scope_instances
    if d["scope"] >= 0:
        node = report["scope_instances"][d["scope"]]["node"]
        assert "abandoned" not in ancestors(node), ("a dispatch under 'abandoned'", d, ancestors(node))
PY
fi

# ---- two instances, a device on each: a result set per device, each complete ----
mkdir two && cd two || exit 1
if ! record --json t.json --trace t.trace.json --csv t.csv --html t.html -- "$app" two-devices >two.out 2>two.err; then
  bad "$impl_kind two-devices: failed under record: $(tail_of two.err)"
else
  # One report, t.json, its result sets the devices of one process in the order it made them.
  [ "$(sets_of t.json)" = "$(sets_of t.json | head -n 1 | cut -d' ' -f1) 0
$(sets_of t.json | head -n 1 | cut -d' ' -f1) 1" ] && [ -z "$(ls t.*.*.json 2>/dev/null)" ] && ok \
    || bad "$impl_kind two-devices: result sets [$(sets_of t.json | tr '\n' ';')] in $(echo t*.json) (want t.json, one process, devices 0 and 1)"
  # Every format holds both sets.
  python3 "$src/check_sets.py" 2 t.json --trace t.trace.json --csv t.csv --html t.html >sets.check 2>&1 && ok \
    || bad "$impl_kind two-devices: $(cat sets.check)"
  # wgprof diff compares such a report one set at a time, and says so where none is chosen.
  "$wgprof" diff t.json t.json >sets-diff.out 2>sets-diff.err
  status=$?
  [ "$status" -eq 2 ] && grep -q 'holds 2 result sets .*wgprof diff --set K' sets-diff.err && ok \
    || bad "$impl_kind two-devices: diff of two reports of sets without --set: exit $status: $(cat sets-diff.err)"
  "$wgprof" diff --set 0 t.json t.json >sets-diff0.out 2>sets-diff0.err
  status=$?
  [ "$status" -eq 2 ] && grep -q -- '--set 0: expected a whole number from 1' sets-diff0.err && [ ! -s sets-diff0.out ] && ok \
    || bad "$impl_kind two-devices: diff --set 0: exit $status: $(cat sets-diff0.err)"
  "$wgprof" diff --set 2 t.json t.json >sets-diff2.out 2>sets-diff2.err
  status=$?
  [ "$status" -eq 0 ] && grep -q '^base: t.json (result set 2) ' sets-diff2.out && ok \
    || bad "$impl_kind two-devices: diff --set 2: exit $status: $(head -n 2 sets-diff2.out) $(cat sets-diff2.err)"
  for n in 0 1; do
    sed -n "s/^device $n: //p" two.out >"two.$n.out"
    check exact "two.$n.out" -- "t.json#$((n + 1))" --stderr two.err >"two.$n.check" 2>&1 && ok \
      || bad "$impl_kind two-devices, device $n: $(cat "two.$n.check")"
  done
fi
cd "$tmp" || exit 1

# ---- a fork: the child exits without WebGPU calls; one result set, the parent's ----
mkdir fork && cd fork || exit 1
"$app" fork >plain.out 2>plain.err
if ! record --json f.json -- "$app" fork >f.out 2>f.err; then
  bad "$impl_kind fork: failed under record: $(tail_of f.err)"
else
  shopt -s nullglob
  numbered=(f.*.*.json)
  shopt -u nullglob
  [ -f f.json ] && [ "${#numbered[@]}" -eq 0 ] && ok \
    || bad "$impl_kind fork: want one result set (f.json), got: $(echo f*.json)"
  check exact f.out -- f.json --stderr f.err >f.check 2>&1 && ok || bad "$impl_kind fork: $(cat f.check)"
  # The child ends as it does without record (Mesa 22's lavapipe kills it: its own exit handler).
  under="$(grep 'child ended' f.out)"
  without="$(grep 'child ended' plain.out)"
  [ -n "$under" ] && [ "$under" = "$without" ] && ok \
    || bad "$impl_kind fork: '$under' under record, '$without' without"
fi
cd "$tmp" || exit 1

# ---- exec: the process replaces its image; each image's results kept, the first one's complete ----
mkdir exec && cd exec || exit 1
if ! record --json x.json -- "$app" exec >x.out 2>x.err; then
  bad "$impl_kind exec: failed under record: $(tail_of x.err)"
else
  # One process (one PID), two images: two result sets in x.json, devices 0 and 1.
  [ "$(sets_of x.json | cut -d' ' -f1 | sort -u | grep -c .)" -eq 1 ] && [ "$(sets_of x.json | cut -d' ' -f2 | tr '\n' ' ')" = "0 1 " ] && ok \
    || bad "$impl_kind exec: result sets [$(sets_of x.json | tr '\n' ';')] (want one PID, devices 0 and 1)"
  # Both images' dispatches (12 + 20), the first image's written in full before its exec.
  check exact x.out -- x.json >x.check 2>&1 && ok || bad "$impl_kind exec: $(cat x.check)"
  ! grep -q 'ended before' x.err && ok || bad "$impl_kind exec: a result set called unfinished: $(tail_of x.err)"
fi
cd "$tmp" || exit 1

# ---- processes that never call WebGPU: nothing of the implementation loaded for their execs ----
# A shell whose environment lost the implementation's setting runs commands (dash starts each in
# a child of vfork, which shares its memory): each exec finds the settings alone. Looking for the
# implementation there found none and ended the vfork child inside the one-time load, which the
# shell's next exec then waited on for good.
timeout 60 "$wgprof" --webgpu "$impl" record --via webgpu -- \
  sh -c 'WGPROF_RECORD_LIBRARY= sh -c "/bin/echo a; /bin/echo b; exec /bin/echo c"' >vfork.out 2>vfork.err
status=$?
[ "$status" -eq 0 ] && [ "$(tr '\n' ' ' <vfork.out)" = "a b c " ] && ! grep -q 'calls WebGPU' vfork.err && ok \
  || bad "$impl_kind: a shell without the implementation's setting: exit $status (want 0, a b c): $(tail_of vfork.err)"
# A program that loads a library of its own by its bare name, found in its run path: dlopen
# looks there for its caller, which the preload's dlopen leaves the program. (A sanitized
# build's program fails by itself: the runtime's dlopen, linked into it, is then the caller.)
if [ -n "${WGPROF_TEST_SANITIZED:-}" ]; then
  echo "note: the run path check skipped: a sanitized build's dlopen_runpath carries the runtime's dlopen"
elif ! "$apps/dlopen_runpath" >runpath.plain.out 2>&1; then
  bad "dlopen_runpath fails by itself: $(cat runpath.plain.out)"
else
  record -- "$apps/dlopen_runpath" >runpath.out 2>runpath.err
  status=$?
  [ "$status" -eq 0 ] && cmp -s runpath.plain.out runpath.out && ok \
    || bad "$impl_kind: a dlopen by a bare name in the program's run path: exit $status: $(tail_of runpath.err)"
fi

# ---- a full filesystem for the results: said with the system's reason, record exits 1 ----
full_fs "$wgprof" --webgpu "$impl" record --via webgpu --json "$tmp/full.json" -- "$app" basic >full.out 2>full.err
status=$?
if [ "$status" -eq 77 ] || grep -q 'unshare: .*Operation not permitted' full.err; then
  echo "note: a full filesystem skipped: no mount namespace or tmpfs here"
else
  [ "$status" -eq 1 ] && grep -q 'No space left on device' full.err && grep -q 'could not be written' full.err && ok \
    || bad "$impl_kind: a full results filesystem: exit $status: $(grep wgprof full.err)"
  grep -q 'created no' full.err && bad "$impl_kind: a full results filesystem: $(grep 'created no' full.err)" || ok
fi

# ---- exit status: the program's own ----
record --json three.json -- "$app" basic 3 >three.out 2>three.err
status=$?
[ "$status" -eq 3 ] && ok || bad "$impl_kind: program exiting 3 under record gave $status: $(tail_of three.err)"
check exact three.out -- "$(report_of three.json)" >three.check 2>&1 && ok \
  || bad "$impl_kind: reports of a program exiting 3: $(cat three.check)"
record -- sh -c 'exit 5' >/dev/null 2>&1
status=$?
[ "$status" -eq 5 ] && ok || bad "sh exiting 5 under record gave $status"
record -- sh -c 'kill -TERM $$' >/dev/null 2>term.err
status=$?
[ "$status" -eq 143 ] && ok || bad "sh killed by SIGTERM under record gave $status, want 143"

# ---- several processes: one report each ----
mkdir multi && cd multi || exit 1
if ! record --json m.json -- sh -c '"$1" basic >a.out && "$1" indirect >b.out' - "$app" >multi.out 2>multi.err; then
  bad "$impl_kind: two processes under record failed: $(tail_of multi.err)"
else
  [ "$(sets_of m.json | cut -d' ' -f1 | sort -u | grep -c .)" -eq 2 ] && ok \
    || bad "$impl_kind: two processes: result sets [$(sets_of m.json | tr '\n' ';')] in m.json (want two PIDs)"
  check exact a.out b.out -- m.json >multi.check 2>&1 && ok || bad "$impl_kind: two processes: $(cat multi.check)"
fi
cd "$tmp" || exit 1

# ---- the results folder swapped for a link while the program runs (a hostile TMPDIR) ----
# The program renames the results folder away and puts a link to another folder full of files
# in its place, then makes its dispatches: nothing in that folder is written or removed, and
# wgprof says what happened.
mkdir hostile swap_victims
for i in 1 2 3 4 5; do echo "keep $i" >"swap_victims/f$i"; done
then_run=(true)
[ -n "$app" ] && [ -x "$app" ] && then_run=("$app" basic)
TMPDIR="$tmp/hostile" record --json swap.json -- sh -c \
  'mv "$WGPROF_RECORD_DIR" "$WGPROF_RECORD_DIR.away" && ln -s "$1" "$WGPROF_RECORD_DIR" && shift && "$@" >/dev/null' \
  - "$tmp/swap_victims" "${then_run[@]}" >swap.out 2>swap.err
status=$?
kept=0
for i in 1 2 3 4 5; do [ "$(cat "swap_victims/f$i" 2>/dev/null)" = "keep $i" ] && kept=$((kept + 1)); done
[ "$kept" -eq 5 ] && [ "$(ls -A swap_victims | wc -l)" -eq 5 ] && ok \
  || bad "the results folder swapped for a link: the other folder holds [$(ls -A swap_victims | tr '\n' ' ')], want f1..f5 kept"
[ "$status" -eq 0 ] && grep -q 'moved or replaced while the program ran' swap.err && ok \
  || bad "the results folder swapped for a link: exit $status, not said: $(tail_of swap.err)"
[ ! -e swap.json ] && ok || bad "the results folder swapped for a link: a report was written from the other folder"

# ---- signals: the program starts with the dispositions and mask wgprof was started with ----
# (wgprof ignores SIGPIPE for itself; a program that inherited that would never end `yes | head`.)
# The parent: SIGPIPE at its default, SIGUSR1 ignored, SIGUSR2 blocked; then it execs its arguments.
parent_py='
import os, signal, sys
for s in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):  # Python changes these for itself
    signal.signal(s, signal.SIG_DFL)
signal.signal(signal.SIGUSR1, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])
os.execvp(sys.argv[1], sys.argv[1:])'
sigs="grep -E ^Sig(Ign|Blk) /proc/self/status"
# shellcheck disable=SC2086 # the words are the command
python3 -c "$parent_py" $sigs >sig.plain 2>&1
# shellcheck disable=SC2086
python3 -c "$parent_py" "$wgprof" --webgpu "$impl" record --via webgpu -- $sigs >sig.rec 2>sig.err
status=$?
if ! grep -q '^SigBlk:.*[1-9a-f]' sig.plain; then
  bad "signals: the parent's own state was not set up: $(cat sig.plain)"
elif [ "$status" -ne 0 ]; then
  bad "signals: grep under record exited $status: $(tail_of sig.err)"
else
  cmp -s sig.plain sig.rec && ok || bad "signals: plainly [$(tr '\n' ' ' <sig.plain)] under record [$(tr '\n' ' ' <sig.rec)]"
fi
# A writer that ends by SIGPIPE alone (GNU yes also stops at EPIPE; the shell's echo goes on).
writer='while :; do echo y; done | head -n 1'
# (stderr dropped: where the bug is back, the loop prints an error per write until the timeout)
timeout -k 5 20 python3 -c "$parent_py" "$wgprof" --webgpu "$impl" record --via webgpu -- sh -c "$writer" >yes.out 2>/dev/null
status=$?
[ "$status" -eq 0 ] && [ "$(cat yes.out)" = y ] && ok \
  || bad "'$writer' under record: exit $status (124: it ran on, SIGPIPE ignored), output '$(head -c 80 yes.out)'"

# ---- a report never replaces the program, a file its arguments name, or another report ----
mkdir clobber && cd clobber || exit 1
printf 'print("script ran")\n' >script.py
cp script.py script.orig
record --json script.py -- python3 script.py >out 2>err
status=$?
[ "$status" -eq 2 ] && cmp -s script.py script.orig && ! grep -q 'script ran' out && grep -q 'script.py' err && ok \
  || bad "--json script.py -- python3 script.py: exit $status (want 2, the script untouched and not run): $(cat err)"
ln -s script.py link.json
record --html link.json -- python3 ./script.py >out 2>err
status=$?
[ "$status" -eq 2 ] && cmp -s script.py script.orig && ok \
  || bad "--html link.json (a link to the script): exit $status (want 2, the script untouched): $(cat err)"
mkdir bin && cp "$app" bin/app && cp "$app" app.orig
PATH="$PWD/bin:$PATH" record --csv bin/app -- app basic >out 2>err
status=$?
[ "$status" -eq 2 ] && cmp -s bin/app app.orig && grep -q 'bin/app' err && ok \
  || bad "--csv bin/app -- app (found in PATH): exit $status (want 2, the program untouched): $(cat err)"
record --trace ./app.orig -- ./app.orig basic >out 2>err
status=$?
[ "$status" -eq 2 ] && cmp -s app.orig "$app" && ok \
  || bad "--trace ./app.orig -- ./app.orig: exit $status (want 2, the program untouched): $(cat err)"
record --json same.json --csv ./same.json -- true >out 2>err
status=$?
[ "$status" -eq 2 ] && [ ! -e same.json ] && grep -q 'same.json' err && ok \
  || bad "--json same.json --csv ./same.json: exit $status (want 2, nothing written): $(cat err)"
printf 'x\n' >data.txt
record --json data.json -- python3 script.py data.txt /dev/null >out 2>err
status=$?
[ "$status" -eq 0 ] && grep -q 'script ran' out && ok \
  || bad "a report beside the program's other files: exit $status (want 0): $(cat err)"
cd "$tmp" || exit 1

# ---- usage ----
record -- ./no-such-program >/dev/null 2>missing.err
status=$?
[ "$status" -eq 127 ] && grep -q 'no-such-program' missing.err && ok \
  || bad "missing program: exit $status (want 127), message: $(cat missing.err)"
printf 'not a program\n' >plain.txt
record -- ./plain.txt >/dev/null 2>noexec.err
status=$?
[ "$status" -eq 126 ] && grep -q 'plain.txt' noexec.err && ok \
  || bad "program that cannot be executed: exit $status (want 126, as a shell), message: $(cat noexec.err)"
for args in "" "--" "--json x.json" "$app basic"; do
  # shellcheck disable=SC2086 # the words are the arguments
  record $args >/dev/null 2>usage.err
  status=$?
  # The message shows where the program goes: the synopsis, or a word about `--`.
  [ "$status" -eq 2 ] && grep -q -- '--' usage.err && ok \
    || bad "record $args: exit $status (want 2, saying the program comes after --): $(cat usage.err)"
done
record --strategy bogus -- "$app" basic >/dev/null 2>badopt.err
status=$?
[ "$status" -eq 2 ] && grep -q 'bogus' badopt.err && ok \
  || bad "record --strategy bogus: exit $status (want 2, naming it): $(cat badopt.err)"
record --sample-every many -- "$app" basic >/dev/null 2>badopt.err
status=$?
[ "$status" -eq 2 ] && grep -q 'many' badopt.err && ok \
  || bad "record --sample-every many: exit $status (want 2, naming it): $(cat badopt.err)"
record --sample-by sideways -- "$app" basic >sampleby.out 2>sampleby.err
status=$?
[ "$status" -eq 2 ] && grep -q -- "--sample-by sideways: kernel or encoder" sampleby.err && [ ! -s sampleby.out ] && ok \
  || bad "record --sample-by sideways: exit $status (want 2, naming it, nothing run): $(cat sampleby.err)"
record --sample-by >sampleby.out 2>sampleby.err
status=$?
[ "$status" -eq 2 ] && grep -q -- "--sample-by needs a value: kernel or encoder" sampleby.err && ok \
  || bad "record --sample-by with no value: exit $status (want 2, saying so): $(cat sampleby.err)"
record --json "$tmp/no/such/folder/r.json" -- "$app" basic >/dev/null 2>unwritable.err
status=$?
{ [ "$status" -eq 1 ] || [ "$status" -eq 2 ]; } && grep -q 'no/such/folder/r.json' unwritable.err && ok \
  || bad "unwritable report: exit $status (want 1 or 2, naming the path): $(tail_of unwritable.err)"

finish
