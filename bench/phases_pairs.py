#!/usr/bin/env python3
"""Summarises scripts/device-phases.sh's rounds: for each implementation, layout and
configuration, bench_phases' host medians of its `none` variant (the program's own step, no
profiler of wgprof's graph) a step, median over the rounds; then each configuration against
plain and against the minimal variant, the difference taken within each round and its median.

usage: bench/phases_pairs.py DIR   (DIR holds phases-IMPL-CONFIG.ROUND.json)
"""
import collections
import glob
import json
import os
import re
import statistics
import sys

PHASES = ("encode", "submit", "wait", "wall")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = collections.defaultdict(dict)  # (impl, config, layout) -> {round: medians}
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "phases-*.json"))):
        m = re.match(r"phases-(.+)-([a-z]+)\.(\d+)\.json$", os.path.basename(path))
        if not m:
            continue
        impl, config, rnd = m.group(1), m.group(2), int(m.group(3))
        try:
            data = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"{path}: not read ({e})")
            continue
        for v in data.get("variants", []):
            if v.get("scheme") == "none":
                runs[(impl, config, v["layout"])][rnd] = v["median_us"]
    keys = sorted({(i, l) for i, _, l in runs})
    for impl, layout in keys:
        configs = [c for (i, c, l) in runs if i == impl and l == layout]
        print(f"{impl} {layout}: host us a step, median over the rounds")
        for c in sorted(configs):
            r = runs[(impl, c, layout)]
            med = {p: statistics.median(x[p] for x in r.values()) for p in PHASES}
            print(f"  {c:<8} ({len(r)} rounds) " + "  ".join(f"{p} {med[p]:8.2f}" for p in PHASES))
        for base in ("plain", "minimal"):
            if (impl, base, layout) not in runs:
                continue
            b = runs[(impl, base, layout)]
            for c in sorted(configs):
                if c == base:
                    continue
                r = runs[(impl, c, layout)]
                common = sorted(set(r) & set(b))
                if not common:
                    continue
                diff = {p: statistics.median(r[k][p] - b[k][p] for k in common) for p in PHASES}
                print(f"  {c:<8} - {base:<8} (paired, {len(common)} rounds) "
                      + "  ".join(f"{p} {diff[p]:+8.2f}" for p in PHASES))


if __name__ == "__main__":
    main()
