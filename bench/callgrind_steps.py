#!/usr/bin/env python3
"""A library's own instructions a step, from two `callgrind_annotate --inclusive=no FILE` listings
of runs that differ only in their step count (BENCHMARKS.md sections 23 and 24).

    python3 bench/callgrind_steps.py [--object NAME] [--leave-out REGEX] [--top N] SHORT LONG STEPS

SHORT and LONG are the listings (`callgrind_annotate --inclusive=no OUT | grep NAME` keeps only
the library's lines), STEPS how many more steps LONG ran. Prints each function's instructions a
step, most first (the top N), and their sum without the functions REGEX matches (the program's
polling, whose count follows how long each wait takes under valgrind, and work done once)."""
import argparse
import re
import sys


def own(path, wanted):
    counts = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*([\d,]+)\s.*?:(\S+) \[(.*)\]$", line)
            if m and wanted in m.group(3):
                counts[m.group(2)] = counts.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--object", default="libwgprof_record")
    p.add_argument("--leave-out", default="")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("short")
    p.add_argument("long")
    p.add_argument("steps", type=int)
    a = p.parse_args()
    if a.steps <= 0:
        sys.exit("callgrind_steps: STEPS must be a positive number")
    short, long_ = own(a.short, a.object), own(a.long, a.object)
    rows = sorted(((long_.get(k, 0) - short.get(k, 0)) / a.steps, k) for k in set(short) | set(long_))
    rows.reverse()
    for v, k in rows[: a.top]:
        print(f"{v:10.0f} {k}")
    drop = re.compile(a.leave_out) if a.leave_out else None
    total = sum(v for v, k in rows if not (drop and drop.search(k)))
    print(f"{total:10.0f} in all" + (f", leaving out /{a.leave_out}/" if drop else ""))


if __name__ == "__main__":
    main()
