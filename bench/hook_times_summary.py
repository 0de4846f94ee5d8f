#!/usr/bin/env python3
"""Sums up scripts/device-hook-times.sh's folder: per implementation, each configuration's median
step (us) and, for each hook, driver call and section the measuring layer counted, the median over
the rounds of its microseconds a step (and its calls a step), the step count being the demo's
steps with its warm-up (1,550 by default). The program's process is the one whose hooks were
called most (a round may hold record's own files too).

    python3 bench/hook_times_summary.py OUT [--steps 1550]
"""
import argparse
import collections
import glob
import os
import statistics
import sys


def read_counts(path):
    rows = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            # "KIND NAME calls N ns T" (reader_busy has no NAME)
            if len(p) < 5 or p[-4] != "calls" or p[-2] != "ns":
                raise ValueError(f"{path}: unreadable line: {line.rstrip()}")
            rows[" ".join(p[:-4])] = (int(p[-3]), float(p[-1]))
    return rows


def program_counts(folder):
    best = None
    for path in glob.glob(os.path.join(folder, "hooks-*.txt")):
        rows = read_counts(path)
        calls = sum(c for k, (c, _) in rows.items() if k.startswith("hook "))
        if best is None or calls > best[0]:
            best = (calls, rows)
    return best[1] if best else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--steps", type=float, default=1550)
    args = ap.parse_args()
    steps = collections.defaultdict(list)
    with open(os.path.join(args.out, "times.txt")) as f:
        for line in f:
            p = line.split()
            if len(p) == 4:
                try:
                    steps[(p[0], p[1])].append(float(p[3]))
                except ValueError:
                    print(f"{line.rstrip()}: a failed run, left out", file=sys.stderr)
    impls = sorted(d for d in os.listdir(args.out) if os.path.isdir(os.path.join(args.out, d)) and d != "env")
    for impl in impls:
        configs = sorted(os.listdir(os.path.join(args.out, impl)))
        print(f"== {impl}: median step, us")
        for c in configs:
            s = steps.get((impl, c))
            print(f"   {c:10} {statistics.median(s):8.1f}  ({len(s)} rounds)" if s else f"   {c:10} no steps")
        us = collections.defaultdict(lambda: collections.defaultdict(list))
        calls = collections.defaultdict(lambda: collections.defaultdict(list))
        for c in configs:
            for rnd in sorted(os.listdir(os.path.join(args.out, impl, c))):
                rows = program_counts(os.path.join(args.out, impl, c, rnd))
                for k, (n, ns) in (rows or {}).items():
                    us[k][c].append(ns / args.steps / 1000.0)
                    calls[k][c].append(n / args.steps)
        measured = [c for c in configs if any(us[k][c] for k in us)]
        if not measured:
            continue
        print("   us a step (calls a step), median of the rounds:")
        print("   " + " " * 34 + "".join(f"{c:>22}" for c in measured))
        for k in sorted(us):
            cells = []
            for c in measured:
                if us[k][c]:
                    cells.append(f"{statistics.median(us[k][c]):11.2f} ({statistics.median(calls[k][c]):7.1f})")
                else:
                    cells.append(f"{'-':>21}")
            print(f"   {k:34}" + " ".join(cells))


if __name__ == "__main__":
    main()
