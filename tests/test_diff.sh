#!/usr/bin/env bash
# wgprof diff as a user meets it. One real run of a spec of two kernels (an fma chain and a copy)
# gives a report; its timings are then replaced by synthetic ones whose truth is known (two real
# runs' timings differ by chance on a busy machine, by a quarter and more under load): runs drawn
# alike compare as no change; runs with the fma chain 1.5x as long compare as slower for that
# kernel and fail --fail-if-slower 10 (exit 1), one run a side and three; five runs a side where
# one new run went faster than any base run: which kernel moved too close to call, said so, and
# with --gate-both-ways the gate failing read the other way. Timings read through a timer of
# 65,536 ns that reads the base's dispatches as 0: no ratio (null), the change in us against what
# the base can have been, slower and failing the gate at 1 ms, no change at the base's own time
# or one tick, beside other kernels too; no output holds NaN or infinity. Against the common
# change, the fma made slower reads above 1 and +%, made quicker below 1 and -%, in the JSON, the
# table and the Markdown alike. A real run of a spec
# with a kernel added and one removed lists them so. The table, JSON, Markdown and HTML come out
# whole and agree; the same seed gives the same figures. Reports it cannot read exit 2 with a
# message naming the file and the place. --baseline on run, demo and record prints the same
# comparison.
# $1 is the wgprof binary, $2 the folder the record_app_* programs are built in.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
apps="${2:-}"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

# spec ITERS [VARIANT]: the fma chain runs ITERS steps a thread; VARIANT "swap" drops the copy
# and adds a scale kernel.
spec() {
  python3 - "$@" <<'PY'
import json, sys
fma = ("override ITERS: u32 = 1u;\n@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n"
       "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3u) {\n"
       "    var x = f32(id.x & 1023u) * 0.0009765625;\n"
       "    for (var k = 0u; k < ITERS; k++) {\n        x = fma(x, 0.9999, 0.0001);\n    }\n    out[id.x] = x;\n}\n")
copy = ("@group(0) @binding(0) var<storage, read> src: array<f32>;\n"
        "@group(0) @binding(1) var<storage, read_write> dst: array<f32>;\n"
        "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3u) {\n"
        "    dst[id.x] = src[id.x];\n}\n")
scale = copy.replace("dst[id.x] = src[id.x];", "dst[id.x] = 2.0 * src[id.x];")
swap = len(sys.argv) > 2 and sys.argv[2] == "swap"
second = {"name": "scale", "wgsl": scale} if swap else {"name": "copy", "wgsl": copy}
json.dump({
    "buffers": [{"name": "out", "elements": 4096}, {"name": "src", "elements": 65536, "init": {"constant": 1.5}},
                {"name": "dst", "elements": 65536}],
    "kernels": [{"name": "fma", "constants": {"ITERS": int(sys.argv[1])}, "wgsl": fma}, second],
    "dispatches": [{"kernel": "fma", "workgroups": 64, "bindings": {"0": "out"}, "repeat": 4},
                   {"kernel": second["name"], "workgroups": 1024, "bindings": {"0": "src", "1": "dst"}, "repeat": 4}],
}, sys.stdout, indent=1)
PY
}
spec 2000 >base.json
spec 3000 >slow.json
spec 2000 swap >swap.json
run() { # SPEC REPORT [more options]
  local s="$1" r="$2"
  shift 2
  "$wgprof" run --quiet --iterations 10 --json "$r" "$@" "$s" 2>"$r.err" || {
    bad "wgprof run $s failed: $(tail -5 "$r.err")"
    return 1
  }
}
# --reference: wgprof's reference kernel in every iteration, a row of its own, marked so in the
# diff (which kernels share the common change depends on the timings: not checked here, but in
# test_diff_common) and left out of the total.
if run base.json ref1.json --reference && run base.json ref2.json --reference; then
  "$wgprof" diff --quiet --json ref-diff.json ref1.json ref2.json 2>ref-diff.err
  python3 - ref1.json ref-diff.json <<'PY' >ref.check 2>&1 && ok || bad "--reference: $(cat ref.check)"
import json, statistics, sys
report, diff = (json.load(open(p)) for p in sys.argv[1:])
counts = {k["name"]: k["count"] for k in report["kernels"]}
if counts != {"fma": 40, "copy": 40, "(reference)": 10}:
    sys.exit(f"kernels and counts {counts}: want the spec's and one (reference) an iteration")
rows = {r["name"]: r for r in diff["kernels"]}
ref = rows["(reference)"]
if not ref["reference"] or rows["fma"]["reference"] or "common_not_machine" not in diff:
    sys.exit(f"the reference row: reference {ref['reference']}, the fma row's {rows['fma']['reference']}")
sums = {}
for d in report["dispatches"]:
    if d["kernel"] != "(reference)":
        sums[d["iteration"]] = sums.get(d["iteration"], 0) + d["duration_ns"]
want = statistics.median(sums.values())
got = diff["total"]["base"]["median_ns"]
if abs(got - want) > 1e-6 * want:
    sys.exit(f"the total's base median {got}, want the spec's own dispatches' {want}")
PY
fi
# verdicts DIFF_JSON: "name=verdict" for each kernel, the total and each scope, one a line.
verdicts() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for r in d["kernels"] + [d["total"]] + d["scopes"]:
    print("%s=%s" % (r["name"], r["verdict"]))' "$1"
}

# synth REAL OUT SEED FMA_NS COPY_NS [SPEED]: REAL's report with each dispatch's duration drawn
# anew (seeded): a kernel's median given, each iteration moved as a whole by about 2% and each
# dispatch by 3% on top, as a machine's load moves them, and the whole run by SPEED (default 1:
# a run the machine made SPEED times as long). The format is a real run's; the timings are known.
synth() {
  python3 - "$@" <<'PY'
import json, math, random, sys
real, out, seed, fma_ns, copy_ns = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
speed = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
fma_ns, copy_ns = fma_ns * speed, copy_ns * speed
rng = random.Random(seed)
d = json.load(open(real))
center = {"fma": fma_ns, "copy": copy_ns}
drift = {}
for x in d["dispatches"]:
    it = x["iteration"]
    drift.setdefault(it, math.exp(0.02 * rng.gauss(0, 1)))
    x["duration_ns"] = x["exclusive_ns"] = round(center[x["kernel"]] * drift[it] * math.exp(0.03 * rng.gauss(0, 1)))
    x["end_ns"] = x["start_ns"] + x["duration_ns"]
    assert x["valid"] is True, x
json.dump(d, open(out, "w"), indent=1)
PY
}
run base.json real.json || { finish; exit; }
# Three runs alike, three with the fma chain 1.5x as long.
for i in 1 2 3; do
  synth real.json "a$i.json" "$i" 3000000 1000000 && synth real.json "s$i.json" "$((i + 10))" 4500000 1000000 ||
    bad "synthetic reports from real.json"
done

# ---- the same report against itself: a ratio of exactly 1, no change, and the gate passes at 0%
# (the interval is not [1, 1]: each side is resampled on its own) ----
if "$wgprof" diff --fail-if-slower 0 --json self.json a1.json a1.json >self.out 2>self.err; then
  python3 - self.json <<'PY' && ok || bad "a report against itself: $(cat self.err)"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["kernels"] + [d["total"]]
assert [r["name"] for r in d["kernels"]] == ["fma", "copy"], d["kernels"]
for r in rows:
    lo, hi = r["interval"]
    assert r["verdict"] == "no change" and r["ratio"] == 1 and lo <= 1 <= hi and r["change_pct"] == 0, r
    assert r["base"]["count"] == r["new"]["count"] == (10 if r is d["total"] else 40), r
assert d["failed"] is False and d["differences"] == []
PY
else
  bad "a report against itself: exit $?: $(cat self.err)"
fi

# ---- two runs drawn alike: no change for every kernel and the total, exit 0 ----
"$wgprof" diff --json same.json a1.json a2.json >same.out 2>same.err
rc=$?
[ "$rc" -eq 0 ] && ! verdicts same.json | grep -Eqv '=no change$' && ok ||
  bad "two runs drawn alike: exit $rc, $(verdicts same.json | tr '\n' ' '): $(cat same.out same.err)"

# ---- the fma kernel 1.5x slower: slower, and --fail-if-slower 10 exits 1 ----
"$wgprof" diff --fail-if-slower 10 --json slow-diff.json a1.json s1.json >slow.out 2>slow.err
rc=$?
[ "$rc" -eq 1 ] && verdicts slow-diff.json | grep -qx 'fma=slower' && verdicts slow-diff.json | grep -qx 'copy=no change' &&
  grep -q "kernel fma is slower by more than 10%" slow.err && ok ||
  bad "fma 1.5x slower: exit $rc, $(verdicts slow-diff.json | tr '\n' ' '): $(cat slow.out slow.err)"
grep -Eq '^fma +40 +40 .* slower \(fails\)$' slow.out && ok || bad "the table's fma row: $(grep '^fma' slow.out)"
grep -q '^runs: one report a side: the interval covers how the iterations of each run vary, not how far a whole run moves' \
  slow.out && ok || bad "one report a side, the line that says what its interval covers: $(grep '^runs' slow.out)"
# two kernels, one changed: which of them did is a guess, said under the common line with how it is read
grep -q "^as many kernels moved the other way against these: which of the two groups changed is read from each kernel's quickest tenth" \
  slow.out && grep -Eq "; the quickest times chose these in (only )?[0-9]+% of the bootstrap's resamples" slow.out && ok ||
  bad "two kernels, one changed: the guess not said: $(cat slow.out)"
python3 - slow-diff.json <<'PY' && ok || bad "the slower comparison's JSON"
import json, sys
d = json.load(open(sys.argv[1]))
fma = d["kernels"][0]
lo, hi = fma["interval"]
assert fma["name"] == "fma" and lo <= fma["ratio"] <= hi and lo > 1.1 and fma["fails"] is True, fma
assert 1.4 < fma["ratio"] < 1.6 and hi < 1.7, fma  # drawn 1.5x as long
assert abs(fma["change_pct"] - (fma["ratio"] - 1) * 100) < 1e-6
assert fma["new"]["median_ns"] / fma["base"]["median_ns"] == fma["ratio"]
assert d["failed"] is True and d["fail_if_slower_pct"] == 10 and d["threshold_pct"] == 5
PY

# ---- a base median of 0 ns: a timer too coarse for the base's dispatches ----
# coarse REAL OUT SEED FMA_NS COPY_NS [three]: as synth, then read through a timer that rounds
# every timestamp down to a multiple of 65,536 ns (as Dawn's quantization does): each dispatch
# begins at a random point of a tick, so that one of d ns reads a tick with the chance d / 65,536
# and 0 otherwise, and the report says that it is quantized. With "three", the last two copies of
# each iteration are a kernel of their own, copy2.
coarse() {
  python3 - "$@" <<'PY'
import json, math, random, sys
real, out, seed, fma_ns, copy_ns = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
three = len(sys.argv) > 6 and sys.argv[6] == "three"
tick = 65536
rng = random.Random(seed)
d = json.load(open(real))
center = {"fma": fma_ns, "copy": copy_ns, "copy2": copy_ns}
drift, copies = {}, {}
for x in d["dispatches"]:
    it = x["iteration"]
    drift.setdefault(it, math.exp(0.02 * rng.gauss(0, 1)))
    if three and x["kernel"] == "copy":
        copies[it] = copies.get(it, 0) + 1
        x["kernel"] = "copy2" if copies[it] > 2 else "copy"
        x["kernel_id"] = 2 if copies[it] > 2 else x["kernel_id"]
    ns = center[x["kernel"]] * drift[it] * math.exp(0.03 * rng.gauss(0, 1))
    x["duration_ns"] = x["exclusive_ns"] = float(math.floor((rng.uniform(0, tick) + ns) / tick) * tick)
    x["start_ns"] = float(math.floor(x["start_ns"] / tick) * tick)
    x["end_ns"] = x["start_ns"] + x["duration_ns"]
    assert x["valid"] is True, x
d["timestamp_quantum_ns"], d["timestamp_quantized"] = tick, True
json.dump(d, open(out, "w"), indent=1)
PY
}
# The base's dispatches 2 us each (they read 0: the medians of both kernels and of the total
# are 0); new: the fma 1 ms (slower, by far more than any gate: it fails), the same as the
# base (no change), or one tick, 65,536 ns (a dispatch crossing one tick: no change can be told).
coarse real.json z1.json 41 2000 2000 && coarse real.json z2.json 42 1000000 2000 &&
  coarse real.json z3.json 43 2000 2000 && coarse real.json z4.json 44 65536 2000 ||
  bad "coarse reports from real.json"
"$wgprof" diff --fail-if-slower 10 --json zero.json --markdown zero.md --html zero.html z1.json z2.json \
  >zero.out 2>zero.err
rc=$?
python3 - zero.json <<'PY' && ok || bad "a base median of 0, the fma 1 ms: exit $rc: $(cat zero.out zero.err)"
import json, sys
def strict(c):
    raise ValueError("not JSON: " + c)
d = json.load(open(sys.argv[1]), parse_constant=strict)
rows = {r["name"]: r for r in d["kernels"]}
fma, copy, total, tick = rows["fma"], rows["copy"], d["total"], 65536
assert d["base_tick_ns"] == tick, d["base_tick_ns"]
for r, below in ((fma, tick), (copy, tick), (total, 8 * tick)):  # the total: 8 dispatches an iteration
    assert r["zero_base"] is True and r["base"]["median_ns"] == 0 and r["base_below_ns"] == below, r
    assert r["ratio"] is None and r["change_pct"] is None and r["interval"] is None, r
    assert r["against_common"] is None and r["change_ns"] == r["new"]["median_ns"], r
for r in (fma, total):
    lo, hi = r["change_ns_interval"]
    assert lo <= r["change_ns"] <= hi and lo > 1.1 * r["base_below_ns"], r
    assert r["verdict"] == "slower" and r["fails"] is True and r["p_holm"] < 0.05, r
assert 0.9e6 < fma["change_ns"] < 1.1e6, fma  # drawn 1 ms against 2 us
assert copy["verdict"] == "no change" and not copy["fails"] and copy["change_ns"] == 0 and copy["p"] == 1, copy
assert d["failed"] is True and d["geomean_ratio"] is None and d["kernels_compared"] == 0, d
PY
[ "$rc" -eq 1 ] && grep -q '^wgprof diff: kernel fma is slower by more than 10%: from a base median of 0 ns' zero.err &&
  grep -q '^wgprof diff: the total is slower by more than 10%: from a base median of 0 ns' zero.err && ok ||
  bad "a base median of 0, the gate: exit $rc: $(cat zero.err)"
us='\+[0-9.]+us' # a change in microseconds, not a ratio
grep -Eq "^fma +40 +40 +0\.000 +[0-9.]+ +[0-9.]+ +[0-9.]+ +$us +\[$us, $us\] +[<0-9.]+ +slower \(fails\)\$" zero.out &&
  grep -q "^base median 0 ns: no ratio can be told for fma, copy, total (per iteration): " zero.out && ok ||
  bad "a base median of 0, the table: $(cat zero.out)"
! grep -Eiqw 'nan|inf|infinity' zero.out zero.md zero.err && ok ||
  bad "a base median of 0: a figure that is not a number: $(grep -Eiw 'nan|inf|infinity' zero.out zero.md zero.err)"
python3 - zero.md zero.html zero.json <<'PY' && ok || bad "a base median of 0, the Markdown and HTML: $(cat zero.md)"
import json, re, sys
md, page = (open(f, encoding="utf-8").read() for f in sys.argv[1:3])
d = json.load(open(sys.argv[3]))
lines = md.splitlines()
header = [l for l in lines if l.startswith("| kernel |")][0]
columns = [c.strip() for c in header.strip("|").split("|")]
fma = [l for l in lines if l.startswith("| fma |")][0]
cells = [c.strip() for c in fma.strip("|").split("|")]
assert len(cells) == len(columns), (cells, columns)
assert re.fullmatch(r"\+[0-9.]+ us", cells[columns.index("change")]), cells
assert re.fullmatch(r"\+[0-9.]+ to \+[0-9.]+ us", cells[columns.index("interval")]), cells
assert any(l.startswith("- base median 0 ns: no ratio can be told") for l in lines), md
m = re.search(r'<script type="application/json" id="wgprof-diff-data">\n(.*?)</script>', page, re.S)
assert m and json.loads(m.group(1)) == d
PY
# Beside two kernels of 1 ms: those two set the machine's speed and the common change; the fma
# keeps its change as measured, in us, slower, and none against the common one.
coarse real.json z5.json 45 2000 1000000 three && coarse real.json z6.json 46 1000000 1000000 three ||
  bad "coarse reports of three kernels from real.json"
"$wgprof" diff --json zero3.json --markdown zero3.md z5.json z6.json >zero3.out 2>zero3.err
rc=$?
python3 - zero3.json zero3.md <<'PY' && ok || bad "base 0 beside two kernels: exit $rc: $(cat zero3.out zero3.err)"
import json, re, sys
def strict(c):
    raise ValueError("not JSON: " + c)
d = json.load(open(sys.argv[1]), parse_constant=strict)
rows = {r["name"]: r for r in d["kernels"]}
assert list(rows) == ["fma", "copy", "copy2"] and d["separated"] is True and d["kernels_compared"] == 2, d
fma = rows["fma"]
assert fma["zero_base"] and fma["verdict"] == "slower" and fma["against_common"] is None and fma["ratio"] is None, fma
assert not fma["in_common"] and 0.9e6 < fma["change_ns"] < 1.1e6 and fma["change_ns_interval"][0] > 65536, fma
for r in (rows["copy"], rows["copy2"]):
    assert not r["zero_base"] and r["verdict"] == "no change" and r["in_common"], r
    assert r["against_common"]["ratio"] > 0 and r["change_ns_interval"] is None and r["base_below_ns"] is None, r
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
header = [l for l in lines if l.startswith("| kernel |")][0]
columns = [c.strip() for c in header.strip("|").split("|")]
cells = [c.strip() for c in [l for l in lines if l.startswith("| fma |")][0].strip("|").split("|")]
assert len(cells) == len(columns) and "vs common" in columns, (cells, columns)
assert cells[columns.index("measured")] == cells[columns.index("vs common")], cells
assert re.fullmatch(r"\+[0-9.]+ us", cells[columns.index("vs common")]), cells
PY
grep -Eq "^fma +40 +40 +0\.000 +[0-9.]+ +[0-9.]+ +[0-9.]+ +($us) +\1 +\[$us, $us\] +[<0-9.]+ +slower\$" zero3.out &&
  ! grep -Eiqw 'nan|inf|infinity' zero3.out zero3.md && ok ||
  bad "a base median of 0 beside two kernels, the table: $(cat zero3.out)"
# Drawn alike, and one tick up: no change (from under one tick to about one, a dispatch that now
# crosses a tick: no change a timer of that tick can tell), and the gate passes.
for new in z3 z4; do
  "$wgprof" diff --fail-if-slower 10 --json "zero-$new.json" z1.json "$new.json" >"zero-$new.out" 2>&1
  rc=$?
  python3 - "zero-$new.json" "$new" <<'PY' && [ "$rc" -eq 0 ] && ok || bad "base 0 against $new: exit $rc: $(cat "zero-$new.out")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["kernels"] + [d["total"]]
assert all(r["zero_base"] and r["verdict"] == "no change" and not r["fails"] for r in rows), rows
assert d["failed"] is False
if sys.argv[2] == "z4":
    assert rows[0]["change_ns"] == 65536 and rows[0]["change_ns_interval"][0] <= 65536, rows[0]
PY
done

# ---- a kernel added, one removed ----
run swap.json w1.json &&
  "$wgprof" diff --json swap-diff.json a1.json w1.json >swap.out 2>swap.err &&
  python3 - swap-diff.json <<'PY' && ok || bad "added and removed kernels: $(cat swap.out swap.err)"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in d["kernels"]}
assert [r["name"] for r in d["kernels"]] == ["fma", "copy", "scale"], list(rows)
assert rows["copy"]["verdict"] == "removed" and rows["copy"]["new"] is None and rows["copy"]["interval"] is None
assert rows["scale"]["verdict"] == "added" and rows["scale"]["base"] is None and rows["scale"]["new"]["count"] == 40
assert rows["fma"]["verdict"] in ("no change", "slower", "faster")
PY
grep -Eq '^copy .* removed$' swap.out && grep -Eq '^scale .* added$' swap.out && ok ||
  bad "the table's added and removed rows: $(cat swap.out)"

# ---- every output, and the same seed the same figures ----
if "$wgprof" diff --seed 7 --json out.json --markdown out.md --html out.html a1.json s1.json >out.txt 2>out.err ||
  [ $? -eq 0 ]; then
  :
fi
"$wgprof" diff --quiet --seed 7 --json - a1.json s1.json >again.json 2>/dev/null
cmp -s out.json again.json && ok || bad "the same seed gave different JSON"
"$wgprof" diff --quiet --seed 8 --json - a1.json s1.json >other.json 2>/dev/null
python3 - out.json other.json <<'PY' && ok || bad "another seed: the ratios should stay, the intervals move"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
ra = [r["ratio"] for r in a["kernels"] + [a["total"]]]
rb = [r["ratio"] for r in b["kernels"] + [b["total"]]]
assert ra == rb and a["seed"] == 7 and b["seed"] == 8
assert [r["interval"] for r in a["kernels"]] != [r["interval"] for r in b["kernels"]]
PY
[ -s out.txt ] && grep -q '^base: a1.json' out.txt && grep -q '^new:  s1.json' out.txt && grep -q '^fma ' out.txt &&
  grep -q '^copy ' out.txt && grep -q '^total (per iteration) ' out.txt && ok || bad "the table: $(cat out.txt)"
python3 - out.md out.json <<'PY' && ok || bad "the Markdown table: $(cat out.md)"
import json, sys
md, d = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
lines = md.splitlines()
assert lines[0].startswith("### wgprof diff: ")
header = [l for l in lines if l.startswith("| kernel |")]
assert len(header) == 1 and "| --- |" in lines[lines.index(header[0]) + 1]
rows = [l for l in lines if l.startswith("| ") and not l.startswith("| kernel") and not l.startswith("| ---")]
assert len(rows) == len(d["kernels"]) + 1, rows
columns = [c.strip() for c in header[0].strip("|").split("|")]
assert columns[-1] == "verdict" and "p (Holm)" in columns, columns
for r, k in zip(rows, d["kernels"]):
    cells = [c.strip() for c in r.strip("|").split("|")]
    assert len(cells) == len(columns) and cells[0] == k["name"] and k["verdict"] in cells[-1], (cells, k)
    assert cells[1] == "%.3f" % (k["base"]["median_ns"] / 1e3), (cells, k)
PY
python3 - out.html out.json <<'PY' && ok || bad "the HTML page's data"
import json, re, sys
page, d = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
m = re.search(r'<script type="application/json" id="wgprof-diff-data">\n(.*?)</script>', page, re.S)
assert m and json.loads(m.group(1)) == d
assert "http://" not in page and "https://" not in page and "<link" not in page
PY

# ---- against_common's direction: a row's change over the common change (docs/reports.md), so
# a kernel slower than the common one reads above 1 and +%, one faster below 1 and -%; the
# table's vs_common and the Markdown's "vs common" say the same. a1 to s1: the fma 1.5x as long;
# s1 to a1: the fma 1.5x as quick; the copy, unchanged, is the common change both ways. ----
"$wgprof" diff --seed 7 --json fast.json --markdown fast.md s1.json a1.json >fast.txt 2>fast.err
python3 - out.json out.txt out.md fast.json fast.txt fast.md <<'PY' && ok || bad "against_common's sign: $(cat out.txt fast.txt fast.err)"
import json, sys
for slower, (j, txt, md) in zip((True, False), (sys.argv[1:4], sys.argv[4:7])):
    d = json.load(open(j))
    rows = {r["name"]: r for r in d["kernels"]}
    fma, copy = rows["fma"], rows["copy"]
    assert d["separated"] and copy["in_common"] and not fma["in_common"], (j, fma, copy)
    a = fma["against_common"]
    lo, hi = a["interval"]
    assert lo <= a["ratio"] <= hi and abs(a["change_pct"] - (a["ratio"] - 1) * 100) < 1e-9, (j, a)
    if slower:
        assert 1.3 < a["ratio"] < 1.7 and lo > 1.1 and a["change_pct"] > 30 and fma["verdict"] == "slower", (j, a)
    else:
        assert 1 / 1.7 < a["ratio"] < 1 / 1.3 and hi < 1 / 1.1 and a["change_pct"] < -20, (j, a)
        assert fma["verdict"] == "faster", (j, fma)
    assert abs(copy["against_common"]["ratio"] - 1) < 0.05, (j, copy)  # the common kernel against itself
    shown = "%+.1f%%" % a["change_pct"]
    cells = [l.split() for l in open(txt) if l.startswith("fma ")][0]
    assert cells[8] == shown, (txt, cells, shown)  # name, 2 counts, 4 figures, measured, vs_common
    lines = open(md, encoding="utf-8").read().splitlines()
    columns = [c.strip() for c in [l for l in lines if l.startswith("| kernel |")][0].strip("|").split("|")]
    cells = [c.strip() for c in [l for l in lines if l.startswith("| fma |")][0].strip("|").split("|")]
    assert cells[columns.index("vs common")] == shown, (md, cells, shown)
PY

# ---- a setting longer than the comparison keeps, cut inside a character: the JSON and the HTML
# page are still written (a cut mid-character is invalid UTF-8, which the JSON writer refuses) ----
python3 - a1.json long.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["adapter"]["name"] = "a" * 158 + "\u00e9" * 4
json.dump(d, open(sys.argv[2], "w"))
PY
if "$wgprof" diff --quiet --json long-diff.json --html long-diff.html long.json a1.json 2>long.err; then
  python3 - long-diff.json long.json <<'PY' && [ -s long-diff.html ] && ok || bad "a long adapter name: $(cat long.err)"
import json, sys
d, base = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
shown = [x for x in d["differences"] if x["what"] == "adapter"][0]["base"]
assert base["adapter"]["name"].startswith(shown) and len(shown) < len(base["adapter"]["name"]), shown
PY
else
  bad "a long adapter name: exit $?: $(cat long.err)"
fi

# ---- reports it cannot read: exit 2, the file and the place named ----
head -c 700 a1.json >truncated.json
echo 'not json' >text.json
python3 -c 'import json; d = json.load(open("a1.json")); d["format_version"] = 99; json.dump(d, open("v99.json", "w"))'
python3 -c 'import json; d = json.load(open("a1.json")); del d["format_version"]; json.dump(d, open("v0.json", "w"))'
python3 -c 'import json; d = json.load(open("a1.json")); d["dispatches"][3]["duration_ns"] = -1.5; json.dump(d, open("neg.json", "w"))'
python3 -c 'import json; d = json.load(open("a1.json")); d["dispatches"][2]["kernel"] = ["x"]; json.dump(d, open("type.json", "w"))'
python3 -c 'print("{\"format_version\": 1, \"dispatches\": " + "[" * 5000 + "]" * 5000 + "}")' >deep.json
printf '{"format_version": 1, "dispatches": [{"kernel": "k", "iteration": 0, "duration_ns": 1e999}]}' >huge.json
mkdir folder.json
refused() { # FILE PATTERN: diff a1.json FILE exits 2, its message matching PATTERN
  "$wgprof" diff a1.json "$1" >refused.out 2>refused.err
  local rc=$?
  if [ "$rc" -eq 2 ] && grep -Eq "$2" refused.err && [ ! -s refused.out ]; then
    ok
  else
    bad "diff a1.json $1: exit $rc, expected 2 and /$2/: $(cat refused.err)"
  fi
}
refused truncated.json '^wgprof diff: truncated\.json:[0-9]+:[0-9]+: not JSON: '
refused text.json '^wgprof diff: text\.json:1:[0-9]+: not JSON: '
refused v99.json '^wgprof diff: v99\.json: \$\.format_version: 99: this wgprof reads format_version 1 only'
refused v0.json '^wgprof diff: v0\.json: \$\.format_version: missing: not a wgprof JSON report'
refused neg.json '^wgprof diff: neg\.json: \$\.dispatches\[3\]\.duration_ns: -1\.5: a duration is from 0'
refused type.json '^wgprof diff: type\.json: \$\.dispatches\[2\]\.kernel: expected a string, not an array'
refused deep.json '^wgprof diff: deep\.json:1:[0-9]+: not JSON: maximum parsing depth'
refused huge.json '^wgprof diff: huge\.json:1:[0-9]+: not JSON: real number overflow'
refused folder.json '^wgprof diff: folder\.json: cannot read the report: not a regular file but a folder'
refused missing.json '^wgprof diff: missing\.json: cannot read the report: No such file or directory'
# the base's side too, and a report from stdin
"$wgprof" diff truncated.json a1.json >/dev/null 2>base.err; rc=$?
[ "$rc" -eq 2 ] && grep -q '^wgprof diff: truncated\.json:' base.err && ok || bad "a bad base: exit $rc: $(cat base.err)"
"$wgprof" diff --quiet --json stdin.json - a1.json <a1.json 2>stdin.err &&
  python3 -c 'import json; d = json.load(open("stdin.json")); assert d["base"]["file"] == "standard input"' &&
  ok || bad "a report from stdin: $(cat stdin.err)"
"$wgprof" diff - a1.json <truncated.json >/dev/null 2>stdin-bad.err; rc=$?
[ "$rc" -eq 2 ] && grep -q '^wgprof diff: standard input:[0-9]*:[0-9]*: not JSON' stdin-bad.err && ok ||
  bad "a bad report from stdin: exit $rc: $(cat stdin-bad.err)"

# ---- out of memory reading a report: said as such, naming the file and its size, exit 1 (the
# machine's limit, not bad input); a report of about 40 MB under a limit of 150 MB of address
# space, which reading it whole fits in and its parse does not. ASan reserves terabytes of
# address space: no limit can work there. ----
if ldd "$wgprof" 2>/dev/null | grep -q 'libasan'; then
  echo "note: out of memory not checked: ulimit -v cannot work under ASan"
else
  python3 - a1.json big.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
one = d["dispatches"]
copies = 40_000_000 // len(json.dumps(one, indent=1)) + 1
d["dispatches"] = [dict(x, iteration=x["iteration"] + c * d["iterations"]) for c in range(copies) for x in one]
d["iterations"] *= copies
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
  size="$(stat -c %s big.json)"
  (ulimit -v 150000 && exec "$wgprof" diff a1.json big.json) >oom.out 2>oom.err
  rc=$?
  [ "$rc" -eq 1 ] && grep -Eq "^wgprof diff: big\.json: .*out of memory.*$size bytes" oom.err && ! grep -q 'not JSON' oom.err &&
    ok || bad "a $size-byte report under ulimit -v 150000: exit $rc, want 1 and 'out of memory' with the size: $(head -c 400 oom.err)"
  rm -f big.json
fi

# ---- usage: exit 2, and nothing written over an input ----
cp a1.json keep.json
usage() { # PATTERN ARGS...: diff ARGS exits 2 with a message matching PATTERN
  local pattern="$1"
  shift
  "$wgprof" diff "$@" >usage.out 2>usage.err
  local rc=$?
  [ "$rc" -eq 2 ] && grep -Eq -- "$pattern" usage.err && ok || bad "diff $*: exit $rc: $(cat usage.err)"
}
usage 'two reports to compare' a1.json
usage "^wgprof diff: 3 reports: two to compare, or several runs a side with 'vs' between" a1.json a2.json s1.json
usage "'vs' given twice" a1.json vs a2.json vs s1.json
usage "no report after 'vs'" a1.json a2.json vs
usage "no report before 'vs'" vs a1.json
usage "more than 64 reports before 'vs'" $(for i in $(seq 65); do echo a1.json; done) vs a2.json
usage "unknown option '--frobnicate'" --frobnicate a1.json a2.json
usage '--threshold -1: expected a percentage' --threshold -1 a1.json a2.json
usage '--seed x: expected a whole number' --seed x a1.json a2.json
usage '--resamples 5: expected a whole number from 100' --resamples 5 a1.json a2.json
usage 'one report at most can come from stdin' - -
usage '^wgprof diff: --json a1\.json: .*a1\.json' --json a1.json a1.json a2.json
cmp -s a1.json keep.json && ok || bad "an output named as an input was written over"
"$wgprof" diff --help | grep -q '^usage: wgprof diff' && ok || bad "diff --help"
"$wgprof" help | grep -q '^  diff ' && ok || bad "wgprof help does not list diff"

# ---- several runs a side, 'vs' between the sides: pooled, every output naming the runs ----
if true; then
  "$wgprof" diff --json runs.json --markdown runs.md --html runs.html a1.json a2.json a3.json vs s1.json s2.json \
    s3.json >runs.out 2>runs.err
  rc=$?
  python3 - runs.json <<'PY' && ok || bad "three runs a side: exit $rc: $(cat runs.out runs.err)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["base"]["runs"] == 3 and d["base"]["files"] == ["a1.json", "a2.json", "a3.json"], d["base"]
assert d["new"]["runs"] == 3 and d["new"]["files"] == ["s1.json", "s2.json", "s3.json"], d["new"]
assert d["base"]["file"] == "a1.json" and d["base"]["iterations"] == 30 and d["base"]["dispatches"] == 240
fma = d["kernels"][0]
assert fma["name"] == "fma" and fma["base"]["count"] == 120 and fma["new"]["count"] == 120, fma
assert d["total"]["base"]["count"] == 30 and d["total"]["new"]["count"] == 30, d["total"]
assert 1.4 < fma["ratio"] < 1.6 and 1.1 < fma["interval"][0] <= fma["ratio"] <= fma["interval"][1], fma
assert fma["verdict"] == "slower" and d["kernels"][1]["verdict"] == "no change", d["kernels"]
PY
  [ "$rc" -eq 0 ] && grep -q '^base: a1.json, a2.json, a3.json (3 runs) | ' runs.out &&
    grep -q '^new:  s1.json, s2.json, s3.json (3 runs) | ' runs.out && grep -q '^runs: a side of several' runs.out &&
    grep -q '^runs: with 3 runs on a side, the interval is narrower than 95%' runs.out &&
    ! grep -q '^runs: one report a side' runs.out &&
    grep -q '^- base: a1.json, a2.json, a3.json (3 runs) · ' runs.md && grep -Eq '"runs": ?3' runs.html &&
    ok || bad "three runs a side: the table, Markdown or HTML: $(cat runs.out runs.md)"
  # One run against several: allowed; the single side's line as ever.
  "$wgprof" diff --quiet --json one-vs-three.json a1.json vs s1.json s2.json s3.json 2>runs1.err &&
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["base"]["runs"] == 1 and d["base"]["files"] == ["a1.json"] and d["new"]["runs"] == 3' one-vs-three.json &&
    ok || bad "one run against three: $(cat runs1.err)"
  # A report named vs is given as ./vs.
  cp a1.json vs && "$wgprof" diff --quiet --json named-vs.json ./vs a2.json 2>vs.err &&
    python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["base"]["file"] == "./vs"' named-vs.json &&
    ok || bad "a report named vs, as ./vs: $(cat vs.err)"
  # The same report twice on one side (also through a link) would count one run as two.
  ln -sf a1.json link.json
  usage '^wgprof diff: a1\.json: the same report as a1\.json, on the same side' a1.json a1.json vs s1.json
  usage '^wgprof diff: link\.json: the same report as a1\.json, on the same side' a1.json link.json vs s1.json
  # ... also from standard input; and a run on both sides.
  "$wgprof" diff a1.json - vs s1.json <a1.json >usage.out 2>usage.err
  rc=$?
  [ "$rc" -eq 2 ] && grep -q '^wgprof diff: -: the same report as a1\.json, on the same side' usage.err && ok ||
    bad "the same report as a1.json through stdin: exit $rc: $(cat usage.err)"
  usage '^wgprof diff: a2\.json: on both sides \(as a2\.json\): a run belongs to one side' a1.json a2.json vs a2.json a3.json
  # Runs of other code on one side (a kernel missing): refused, the run that lacks it named.
  usage "^wgprof diff: w1\.json: no kernel 'copy', which a1\.json has: the reports on one side" a1.json w1.json vs s1.json
  # Runs of different settings on one side: refused, the file and the setting named.
  python3 -c 'import json; d = json.load(open("a2.json")); d["strategy"] = "pass"; json.dump(d, open("pass.json", "w"))'
  usage "^wgprof diff: pass\.json: its strategy is pass where a1\.json's is chain: the reports on one side" \
    a1.json pass.json vs s1.json
  # One unreadable run: the whole comparison refused, that run named.
  usage '^wgprof diff: truncated\.json:[0-9]+:[0-9]+: not JSON' a1.json a2.json vs s1.json truncated.json
fi

# ---- which of two kernels moved, too close to call: --gate-both-ways reads it both ways ----
# Five runs a side, the fma 1.5x as long on the new side, where the new side's third run went
# at 0.55 times the time of every other (a machine that ran no base run so unloaded): the fma's
# quickest times moved least, so it is taken for the common group, but only while that run is
# drawn. Said so in every output; --fail-if-slower 10 passes as the guess reads it, and with
# --gate-both-ways fails read the other way.
for i in 1 2 3 4 5; do
  speed=1
  [ "$i" -eq 3 ] && speed=0.55
  synth real.json "u$i.json" "$((20 + i))" 3000000 1000000 && synth real.json "v$i.json" "$((30 + i))" 4500000 1000000 "$speed" ||
    bad "synthetic reports from real.json"
done
"$wgprof" diff --fail-if-slower 10 --gate-both-ways --json unsure.json --markdown unsure.md u1.json u2.json u3.json \
  u4.json u5.json vs v1.json v2.json v3.json v4.json v5.json >unsure.out 2>unsure.err
rc=$?
python3 - unsure.json <<'PY' && ok || bad "too close to call: exit $rc: $(cat unsure.out unsure.err)"
import json, sys
d = json.load(open(sys.argv[1]))
fma, copy = d["kernels"]
assert d["common_guessed"] is True and d["common_unsure"] is True and 0.5 < d["common_support"] < 0.95, d
assert fma["in_common"] and not copy["in_common"] and copy["verdict"] == "faster", d["kernels"]
assert copy["fails_reversed"] is True and copy["fails"] is False and fma["fails_reversed"] is False, copy
assert copy["in_rival"] is True and fma["in_rival"] is False and d["gate_both_ways"] is True, d["kernels"]
assert d["failed"] is True
PY
support="$(python3 -c 'import json, sys; print("%.0f" % (json.load(open(sys.argv[1]))["common_support"] * 100))' unsure.json)"
[ "$rc" -eq 1 ] &&
  grep -q "^wgprof diff: read the other way, the common group (fma) is slower than kernel copy by more than 10%: +[0-9.]*% (95% confidence: at least +[0-9.]*%); which of the two groups changed is too close to call (the quickest times chose that group as unchanged in $support% of the resamples)$" unsure.err &&
  grep -Eq '^copy .* faster \(fails read the other way\)$' unsure.out &&
  grep -q "; the quickest times chose these in only $support% of the bootstrap's resamples: too close to call, so --fail-if-slower reads it both ways$" unsure.out &&
  grep -q '^fail-if-slower 10%: read the other way (which of the two groups changed is too close to call): fma slower against copy by more than that with 95% confidence$' unsure.out &&
  grep -q '^| copy | .* | \*\*faster\*\* (fails the gate read the other way) |$' unsure.md &&
  grep -q '^- Gate (fail-if-slower 10%): \*\*failed\*\*' unsure.md && ok ||
  bad "too close to call, the outputs: exit $rc: $(cat unsure.out unsure.err unsure.md)"
# The gate as the guess reads it (the default): said, exit 0, --gate-both-ways named.
"$wgprof" diff --fail-if-slower 10 u1.json u2.json u3.json u4.json u5.json vs v1.json v2.json v3.json v4.json \
  v5.json >unsure-one.out 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "of the bootstrap's resamples: too close to call (--gate-both-ways gates either reading)$" unsure-one.out &&
  grep -Eq '^copy .* faster$' unsure-one.out && ok || bad "too close to call, the gate one way: exit $rc: $(cat unsure-one.out)"
# Without the gate: said, exit 0.
"$wgprof" diff u1.json u2.json u3.json u4.json u5.json vs v1.json v2.json v3.json v4.json v5.json >unsure-nogate.out 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "of the bootstrap's resamples: too close to call$" unsure-nogate.out &&
  grep -Eq '^copy .* faster$' unsure-nogate.out && ok || bad "too close to call, no gate: exit $rc: $(cat unsure-nogate.out)"

# ---- --baseline on run ----
if "$wgprof" run --iterations 10 --summary --baseline a1.json slow.json >baseline.out 2>baseline.err; then
  grep -q '^compared with the baseline (wgprof diff):' baseline.out && grep -q '^base: a1.json' baseline.out &&
    grep -q '^new:  this run' baseline.out && grep -Eq '^fma +40 +40 ' baseline.out && ok ||
    bad "run --baseline: no comparison: $(cat baseline.out)"
else
  bad "run --baseline failed: $(cat baseline.err)"
fi
"$wgprof" run --quiet --json not-written.json --baseline truncated.json base.json >/dev/null 2>baseline-bad.err
rc=$?
[ "$rc" -eq 2 ] && grep -q '^wgprof run: truncated\.json:[0-9]*:[0-9]*: not JSON' baseline-bad.err &&
  [ ! -e not-written.json ] && ok || bad "run --baseline with a bad report: exit $rc: $(cat baseline-bad.err)"
"$wgprof" run --quiet --json a1.json --baseline a1.json base.json >/dev/null 2>baseline-self.err
rc=$?
[ "$rc" -eq 2 ] && grep -q "the baseline 'a1.json'" baseline-self.err && cmp -s a1.json keep.json && ok ||
  bad "run --json over its own baseline: exit $rc: $(cat baseline-self.err)"

# ---- the demo's scopes, and demo --baseline ----
demo=(--layers 1 --dim 64 --heads 2 --ffn 128 --vocab 256 --max-seq 16 --pos 4 --warmup 1 --iterations 6)
if WEBGPU_TIMESTAMP_QUERY=1 "$wgprof" demo "${demo[@]}" --quiet --json d1.json >d1.out 2>d1.err &&
  "$wgprof" demo "${demo[@]}" --quiet --baseline d1.json >d2.out 2>d2.err; then
  grep -q '^compared with the baseline (wgprof diff):' d2.out && grep -Eq '^matmul_q +6 +6 ' d2.out &&
    grep -Eq '^layer 0/attention +6 +6 ' d2.out && grep -Eq '^total \(per iteration\) +6 +6 ' d2.out && ok ||
    bad "demo --baseline: $(cat d2.out)"
  "$wgprof" diff --quiet --json demo-diff.json d1.json d1.json &&
    python3 - demo-diff.json <<'PY' && ok || bad "the demo's scopes in the JSON"
import json, sys
d = json.load(open(sys.argv[1]))
paths = [s["name"] for s in d["scopes"]]
assert "layer 0" in paths and "layer 0/attention" in paths and "layer 0/mlp" in paths, paths
assert all(s["verdict"] == "no change" and s["base"]["count"] == 6 for s in d["scopes"]), d["scopes"]
PY
else
  bad "demo: $(cat d1.err d2.err)"
fi

# ---- record --baseline ----
impl="${WGPROF_WEBGPU:-wgpu-native}"
case "$impl" in
  wgpu-native | */libwgpu_native*) app="$apps/record_app_wgpu_native" ;;
  dawn | */libwebgpu_dawn*) app="$apps/record_app_dawn" ;;
  *) app="" ;;
esac
if [ -n "$app" ] && [ -x "$app" ]; then
  if "$wgprof" --webgpu "$impl" record --json r1.json -- "$app" basic >/dev/null 2>r1.err &&
    "$wgprof" --webgpu "$impl" record --baseline r1.json -- "$app" basic >/dev/null 2>r2.err; then
    grep -q '^compared with the baseline (wgprof diff):' r2.err && grep -q '^new:  this run' r2.err &&
      grep -Eq '^doubler:twice +[0-9]+ +[0-9]+ ' r2.err && ok || bad "record --baseline: $(tail -20 r2.err)"
  else
    bad "record: $(tail -n 5 r1.err r2.err 2>/dev/null)"
  fi
  "$wgprof" --webgpu "$impl" record --baseline v99.json -- "$app" basic >record-bad.out 2>record-bad.err
  rc=$?
  [ "$rc" -eq 2 ] && grep -q '^wgprof record: v99\.json: \$\.format_version: 99' record-bad.err &&
    [ ! -s record-bad.out ] && ok || bad "record --baseline with a bad report: exit $rc: $(cat record-bad.err)"
  # A report asked for over the baseline: refused before the program runs, the baseline kept
  # (checked when the first record above wrote one; its failure is reported there).
  if [ -f r1.json ]; then
    cp r1.json r1.keep
    "$wgprof" --webgpu "$impl" record --baseline r1.json --json r1.json -- "$app" basic >record-over.out 2>record-over.err
    rc=$?
    [ "$rc" -eq 2 ] && grep -q 'r1\.json.*would be overwritten' record-over.err && [ ! -s record-over.out ] &&
      cmp -s r1.json r1.keep && ok || bad "record --baseline F --json F: exit $rc: $(cat record-over.err)"
  fi
else
  echo "note: record --baseline not checked: no program built for WGPROF_WEBGPU=$impl"
fi

finish
