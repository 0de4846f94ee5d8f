#!/usr/bin/env python3
"""The counts of bench/diff_bursty.sh's folders, one Markdown row each (BENCHMARKS.md, section 12).

Usage: bench/diff_bursty_table.py FOLDER [FOLDER ...]

Per folder, from its summary.jsonl and each round's diff-slow.json, over its rounds: `work`
slower; `steady` quiet (no change); `other` quiet (where the specs have it); every row of the
rerun quiet; --fail-if-slower 10 exiting 1 against slow (where `work` slowed, every round) and
0 against the rerun, as the guess reads it and with --gate-both-ways (where the folder's rounds
hold both); the rounds in which which kernel moved was too close to call
(`common_unsure`); and `work` slower as measured (its interval as measured above 1 and its
change above 5%: the 0.2 method's verdict, before Holm).
"""
import json
import os
import sys


def row(folder):
    rounds = [json.loads(line) for line in open(os.path.join(folder, "summary.jsonl")) if line.strip()]
    n = len(rounds)
    count = {k: 0 for k in ("work", "steady", "other", "rerun", "gate_slow", "gate_rerun", "both_slow", "both_rerun",
                            "unsure", "measured")}
    has_other = False
    has_both = all("slow_gate_both_ways_exit" in r for r in rounds)
    for r in rounds:
        slow = r["slow"]
        count["work"] += slow["work"].startswith("slower")
        count["steady"] += slow["steady"].startswith("no_change")
        if "other" in slow:
            has_other = True
            count["other"] += slow["other"].startswith("no_change")
        count["rerun"] += all(v.startswith("no_change") for v in r["rerun"].values())
        count["gate_slow"] += r["slow_gate_exit"] == 1
        count["gate_rerun"] += r["rerun_gate_exit"] == 0
        if has_both:
            count["both_slow"] += r["slow_gate_both_ways_exit"] == 1
            count["both_rerun"] += r["rerun_gate_both_ways_exit"] == 0
        d = json.load(open(os.path.join(folder, "round-%d" % r["round"], "diff-slow.json")))
        count["unsure"] += bool(d.get("common_unsure"))
        work = next(k for k in d["kernels"] if k["name"] == "work")
        count["measured"] += work["interval"] is not None and work["interval"][0] > 1 and work["change_pct"] > 5
    cell = lambda k: "%d/%d" % (count[k], n)
    both = "%s; %s" % (cell("both_slow"), cell("both_rerun")) if has_both else ""
    return "| `%s/` | %s | %s | %s | %s | %s; %s | %s | %s | %s |" % (
        os.path.basename(os.path.normpath(folder)), cell("work"), cell("steady"), cell("other") if has_other else "",
        cell("rerun"), cell("gate_slow"), cell("gate_rerun"), both, cell("unsure"), cell("measured"))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2])
    print("| folder | `work` slower | `steady` quiet | `other` quiet | rerun: every row quiet | gate exits 1 against slow; 0 on the rerun | the same, `--gate-both-ways` | too close to call | `work` slower, as measured |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for folder in sys.argv[1:]:
        print(row(folder))


if __name__ == "__main__":
    main()
