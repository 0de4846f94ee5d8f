"""Checks the reports of a `wgprof record` run that made several result sets (devices or
processes): each file asked for holds every set, as docs/reports.md says.

usage: check_sets.py SETS REPORT.json [--trace T.json] [--csv C.csv] [--html H.html]
  SETS     how many result sets the run made
  JSON     {"result_sets": [{"process", "device", "report"}]}, SETS of them, by process then device
  trace    each set's processes (2i + 1, 2i + 2) named after the set, with one complete event on
           its GPU's dispatch track per valid dispatch of its report
  CSV      a first column `set` ("PID.N"), each set's rows its report's dispatches
  HTML     a page with one frame per set, each the set's own page
Exits 0 where all holds, 1 with the differences on stderr.
"""
import collections
import csv
import json
import re
import sys


def main(argv):
    if len(argv) < 3 or len(argv) % 2 == 0:
        print(__doc__, file=sys.stderr)
        return 2
    want, path = int(argv[1]), argv[2]
    files = dict(zip(argv[3::2], argv[4::2]))
    problems = []
    report = json.load(open(path))
    sets = report.get("result_sets")
    if not isinstance(sets, list) or len(sets) != want:
        print(f"{path}: want {want} result sets, got {None if sets is None else len(sets)}", file=sys.stderr)
        return 1
    ids = [f"{s['process']}.{s['device']}" for s in sets]
    if [(s["process"], s["device"]) for s in sets] != sorted((s["process"], s["device"]) for s in sets):
        problems.append(f"{path}: sets not by process then device: {ids}")
    valid = [sum(1 for d in s["report"]["dispatches"] if d["valid"]) for s in sets]
    rows = [len(s["report"]["dispatches"]) for s in sets]
    if "--trace" in files:
        trace = json.load(open(files["--trace"]))
        names = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "process_name"}
        events = collections.Counter(e["pid"] for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("tid") == 1)
        for i, set_id in enumerate(ids):
            gpu = 2 * i + 2
            if not names.get(gpu, "").startswith(f"{set_id}: GPU"):
                problems.append(f"trace: process {gpu} is {names.get(gpu)!r}, want set {set_id}'s GPU")
            if events[gpu] != valid[i]:
                problems.append(f"trace: set {set_id}: {events[gpu]} dispatch events, its report {valid[i]} valid")
        if len(trace["otherData"].get("result_sets", [])) != want:
            problems.append(f"trace: otherData has not {want} result sets")
    if "--csv" in files:
        with open(files["--csv"], newline="") as f:
            table = list(csv.reader(f))
        if not table or table[0][:2] != ["set", "iteration"]:
            problems.append(f"csv: header {table[0][:3] if table else None}, want set, iteration, ...")
        per = collections.Counter(r[0] for r in table[1:])
        if per != collections.Counter(dict(zip(ids, rows))):
            problems.append(f"csv: rows per set {dict(per)}, the reports' dispatches {dict(zip(ids, rows))}")
    if "--html" in files:
        page = open(files["--html"]).read()
        frames = re.findall(r'<iframe title="set ([0-9.]+)" srcdoc="', page)
        if frames != ids:
            problems.append(f"html: frames of sets {frames}, want {ids}")
    for p in problems:
        print(f"check_sets: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
