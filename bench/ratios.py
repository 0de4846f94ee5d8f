#!/usr/bin/env python3
"""Ratios of medians from bench_overhead's JSON.

bench_overhead prints, beside each mode's median, min and max over the rounds, a
"ratio_to_plain" (and for the continuous runs a "throughput_ratio") that is the median of the
per-round ratios; the rounds themselves are not in its output, so that figure cannot be checked
from the file. This prints what the file does support: each mode's median with its spread, the
ratio of its median to the plain executor's and to wgprof-off's, and the difference of the
medians in us (bench_overhead's own "overhead_us"); for the continuous runs, the ratio of the
median rates. BENCHMARKS.md quotes these. Usage:
    bench/ratios.py bench_overhead.json [...]
"""
import json
import sys


def main(paths):
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        print("== %s (%s)" % (path, d.get("adapter", "?")))
        for name, w in d.get("workloads", {}).items():
            modes = w["modes"]
            plain = modes["plain"]["ms_per_execute"]["median_ms"]
            off = modes.get("off", {}).get("ms_per_execute", {}).get("median_ms")
            print("%s: %s dispatches, %s rounds; ms per execute, median (min to max); ratios of medians"
                  % (name, w.get("dispatches"), w.get("rounds")))
            for mode, v in modes.items():
                m = v["ms_per_execute"]
                print("  %-15s %10.4f (%.4f to %.4f)  /plain %.4f  /off %s  median - plain's %+.1f us"
                      % (mode, m["median_ms"], m["min_ms"], m["max_ms"], m["median_ms"] / plain,
                         "%.4f" % (m["median_ms"] / off) if off else "-", (m["median_ms"] - plain) * 1e3))
        c = d.get("continuous")
        if c:
            print("continuous: %s executes, %s rounds, %s in flight; executes per s, median (min to max);"
                  " ratio of median rates" % (c.get("executes"), c.get("rounds"), c.get("in_flight")))
            for mode, v in c["modes"].items():
                base = "blocking_plain" if mode.startswith("blocking") else "plain"
                r = v["executes_per_s"]
                b = c["modes"][base]["executes_per_s"]["median_rate"]
                extra = ""
                if "collected" in v:
                    extra = "  collected %s, dropped %s" % (v["collected"], v.get("dropped"))
                print("  %-15s %9.1f (%.1f to %.1f)  /%s %.4f%s"
                      % (mode, r["median_rate"], r["min_rate"], r["max_rate"], base,
                         r["median_rate"] / b, extra))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
