#!/usr/bin/env python3
"""ONNX Runtime's own GPU times against wgprof's Vulkan layer's, for the same dispatches of the
same run (bench/ort_vs_profiler.sh makes the files).

ONNX Runtime's WebGPU provider, with profiling on, reports each dispatch as a Chrome-trace event
`"cat": "Api"` named node&op&program, whose `ts` and `dur` (whole microseconds) come from two
timestamp queries it writes inside the compute pass: one before it sets the pipeline and bind
group, one after the dispatch. wgprof's layer (`record --via vulkan`) times each vkCmdDispatch
from its own timestamp just before it to the next one in the command buffer. Both see the
dispatches in the same order, so the k-th kernel event of ONNX Runtime is the k-th dispatch row
of wgprof's report, counted from the end: wgprof's rows of transfer work ("(copy)", ...) are
left out, and the dispatches before the first run that ONNX Runtime does not profile (its
weight transposes at the session's creation) are counted and named, not paired. The last RUNS
runs are paired, after checking that each position of a run holds the same kernel in every run
on both sides. Per position: each side's median, their ratio, the medians of the per-run ratios
and differences (paired: a run slowed by the machine's other work is slowed on both sides), and
ONNX Runtime's gap after the kernel (its next event's start less this one's end: the time
between two of its timestamps that it charges to no kernel). With --alone, the medians of a
second record of the same program with ONNX Runtime's profiling off (same positions; another
process, so not paired). With --verbose-log, the `Starting program "KEY" (x, y, z)` lines of
ONNX Runtime's verbose log of a third record are matched in order to that record's dispatches
by workgroup counts: what each of wgprof's names is in ONNX Runtime's programs.

usage: ort_vs_profiler.py --name NAME --ort ORT.json --wgprof R.json --runs N [--alone R.json]
                          [--verbose-log LOG --verbose-wgprof R.json] [--json OUT.json]
Prints a table; --json writes every figure.
"""
import argparse
import collections
import json
import re
import statistics
import sys


def ort_kernels(path):
    """ONNX Runtime's GPU kernel events, in order: (name, ts_us, dur_us)."""
    with open(path) as f:
        events = json.load(f)
    api = [e for e in events if e.get("cat") == "Api" and e.get("ph") == "X"]
    api.sort(key=lambda e: e["ts"])  # written per submit, in order; sorted to be sure
    return [(e["name"], e["ts"], e["dur"]) for e in api]


def wgprof_dispatches(path):
    """wgprof's dispatch rows, in order, transfer-work rows ("(copy)", ...) left out."""
    with open(path) as f:
        report = json.load(f)
    if report.get("partial"):
        sys.exit(f"{path}: a partial report ({report.get('partial_reason')})")
    rows = sorted(report["dispatches"], key=lambda d: d["index"])
    kernels = [d for d in rows if not d["kernel"].startswith("(")]
    return report, kernels


def periodic(names, period, what):
    """The names of one run, checked to repeat in every run."""
    first = names[:period]
    for r in range(len(names) // period):
        got = names[r * period:(r + 1) * period]
        if got != first:
            sys.exit(f"{what}: run {r} holds {got}, the first run {first}")
    return first


def median(xs):
    return statistics.median(xs) if xs else None


def compare(args):
    ort = ort_kernels(args.ort)
    report, disp = wgprof_dispatches(args.wgprof)
    if len(ort) % args.total_runs:
        sys.exit(f"{len(ort)} kernels is not a whole number of runs ({args.total_runs})")
    per_run = len(ort) // args.total_runs
    before = len(disp) - len(ort)
    if before < 0:
        sys.exit(f"{len(ort)} kernel events in {args.ort}, only {len(disp)} dispatches in {args.wgprof}")
    unprofiled = collections.Counter(d["kernel"] for d in disp[:before])
    all_dispatches = len(disp)
    ort = ort[-args.runs * per_run:]
    disp = disp[-args.runs * per_run:]
    ort_seq = periodic([o[0] for o in ort], per_run, args.ort)
    wg_seq = periodic([d["kernel"] for d in disp], per_run, args.wgprof)
    invalid = [d for d in disp if not d["valid"]]
    if invalid:
        sys.exit(f"{len(invalid)} invalid dispatches among those paired, e.g. {invalid[0]}")

    alone = None
    if args.alone:
        _, adisp = wgprof_dispatches(args.alone)
        if len(adisp) != all_dispatches:
            sys.exit(f"{args.alone}: {len(adisp)} dispatches, {all_dispatches} with ONNX Runtime's profiling")
        adisp = adisp[-args.runs * per_run:]
        if periodic([d["kernel"] for d in adisp], per_run, args.alone) != wg_seq:
            sys.exit(f"{args.alone}: not the same kernels in the same order")
        alone = adisp

    rows = []
    for j in range(per_run):
        o_dur = [ort[r * per_run + j][2] for r in range(args.runs)]
        w_dur = [disp[r * per_run + j]["duration_ns"] / 1e3 for r in range(args.runs)]
        diff = [w - o for w, o in zip(w_dur, o_dur)]
        ratio = [o / w for w, o in zip(w_dur, o_dur)]
        gaps = []
        if j + 1 < per_run:
            for r in range(args.runs):
                cur, nxt = ort[r * per_run + j], ort[r * per_run + j + 1]
                gaps.append(nxt[1] - (cur[1] + cur[2]))
        row = {"position": j, "ort_name": ort_seq[j], "wgprof_name": wg_seq[j],
               "workgroups": disp[j]["workgroups"], "local_size": disp[j]["local_size"],
               "ort_median_us": median(o_dur), "wgprof_median_us": median(w_dur),
               "ratio_ort_over_wgprof": median(o_dur) / median(w_dur),
               "median_run_ratio_ort_over_wgprof": median(ratio),
               "median_wgprof_minus_ort_us": median(diff),
               "ort_gap_after_median_us": median(gaps),
               "ort_us": o_dur, "wgprof_us": [round(w, 3) for w in w_dur]}
        if alone:
            a_dur = [alone[r * per_run + j]["duration_ns"] / 1e3 for r in range(args.runs)]
            row["wgprof_alone_median_us"] = median(a_dur)
            row["wgprof_alone_us"] = [round(a, 3) for a in a_dur]
        rows.append(row)

    # A run's totals: ONNX Runtime's kernels, its gaps between them, wgprof's kernel rows.
    totals = {"ort_kernels_us": [], "ort_gaps_us": [], "wgprof_kernels_us": []}
    for r in range(args.runs):
        o = ort[r * per_run:(r + 1) * per_run]
        totals["ort_kernels_us"].append(sum(x[2] for x in o))
        totals["ort_gaps_us"].append(sum(o[k + 1][1] - (o[k][1] + o[k][2]) for k in range(per_run - 1)))
        totals["wgprof_kernels_us"].append(
            round(sum(d["duration_ns"] for d in disp[r * per_run:(r + 1) * per_run]) / 1e3, 3))
    summary = {k: median(v) for k, v in totals.items()}

    result = {"name": args.name, "runs": args.runs, "total_runs": args.total_runs,
              "kernels_per_run": per_run, "ort_profile": args.ort, "wgprof_report": args.wgprof,
              "wgprof_alone_report": args.alone, "adapter": report["adapter"]["name"],
              "unprofiled_dispatches_before_the_runs": dict(unprofiled),
              "kernels": rows, "run_totals_median_us": summary, "run_totals_us": totals}
    if args.verbose_log:
        result["names_from_verbose_log"] = match_verbose(args.verbose_log, args.verbose_wgprof)
    return result


START = re.compile(r'Starting program "([^"]*)" \((\d+), (\d+), (\d+)\)')


def program_of(key):
    """The program's name in ONNX Runtime's cache key: what comes before its first '[' or ':'."""
    return re.split(r"[\[:]", key, maxsplit=1)[0]


def match_verbose(log_path, report_path):
    """ONNX Runtime's per-dispatch log lines against the layer's dispatches of the same record."""
    starts = []
    with open(log_path, errors="replace") as f:
        for line in f:
            m = START.search(line)
            if m:
                starts.append((m.group(1), [int(m.group(2)), int(m.group(3)), int(m.group(4))]))
    _, disp = wgprof_dispatches(report_path)
    matched = sum(1 for (_, wg), d in zip(starts, disp) if d["workgroups"] == wg)
    names = collections.defaultdict(collections.Counter)
    for (key, _), d in zip(starts, disp):
        names[d["kernel"]][program_of(key)] += 1
    return {"log": log_path, "report": report_path, "log_dispatches": len(starts),
            "wgprof_dispatches": len(disp), "matched_by_workgroups_in_order": matched,
            "wgprof_name_to_ort_programs": {k: dict(v) for k, v in names.items()}}


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def print_table(res):
    print(f"{res['name']}: {res['runs']} runs paired ({res['total_runs']} in all), "
          f"{res['kernels_per_run']} kernels a run, {res['adapter']}")
    if res["unprofiled_dispatches_before_the_runs"]:
        print("not in ONNX Runtime's profile, before the first run: " + ", ".join(
            f"{k} x{c}" for k, c in sorted(res["unprofiled_dispatches_before_the_runs"].items())))
    alone = "wgprof_alone_median_us" in res["kernels"][0]
    head = (f"{'#':>2} {'ONNX Runtime event':40} {'wgprof kernel':16} {'ORT med':>9} {'wgprof med':>10} "
            f"{'ORT/wgprof':>10} {'med(o/w)':>9} {'med(w-o)':>9} {'ORT gap':>8}")
    print(head + (f" {'alone med':>10}" if alone else ""))
    for k in res["kernels"]:
        line = (f"{k['position']:>2} {k['ort_name'][:40]:40} {k['wgprof_name'][:16]:16} "
                f"{fmt(k['ort_median_us']):>9} {fmt(k['wgprof_median_us']):>10} "
                f"{fmt(k['ratio_ort_over_wgprof'], 3):>10} {fmt(k['median_run_ratio_ort_over_wgprof'], 3):>9} "
                f"{fmt(k['median_wgprof_minus_ort_us']):>9} "
                f"{fmt(k['ort_gap_after_median_us']):>8}")
        print(line + (f" {fmt(k['wgprof_alone_median_us']):>10}" if alone else ""))
    t = res["run_totals_median_us"]
    print(f"a run's medians (us): ORT kernels {fmt(t['ort_kernels_us'])}, ORT gaps between them "
          f"{fmt(t['ort_gaps_us'])}, wgprof kernel rows {fmt(t['wgprof_kernels_us'])}")
    v = res.get("names_from_verbose_log")
    if v:
        print(f"verbose log: {v['log_dispatches']} 'Starting program' lines, {v['wgprof_dispatches']} "
              f"dispatches, {v['matched_by_workgroups_in_order']} matched by workgroup counts in order")
        for name, progs in sorted(v["wgprof_name_to_ort_programs"].items()):
            print(f"  {name}: {', '.join(f'{p} x{c}' for p, c in sorted(progs.items()))}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--name", required=True)
    p.add_argument("--ort", required=True)
    p.add_argument("--wgprof", required=True)
    p.add_argument("--runs", type=int, required=True, help="the measured runs, the last of the process")
    p.add_argument("--total-runs", type=int, required=True, help="warm-up and measured runs")
    p.add_argument("--alone")
    p.add_argument("--verbose-log")
    p.add_argument("--verbose-wgprof")
    p.add_argument("--json")
    args = p.parse_args()
    if bool(args.verbose_log) != bool(args.verbose_wgprof):
        p.error("--verbose-log and --verbose-wgprof go together")
    res = compare(args)
    print_table(res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
