#!/usr/bin/env python3
"""The quickest tenth against the median, per kernel, of saved one-run-a-side comparisons.

For reports saved by `scripts/device-lavapipe-diff.sh probe` (IMPL-aK.json the base, IMPL-bK.json
the 1.5x spec, IMPL-dK.json their diff), one line per comparison: the diff's support for its
guess of which kernel moved, and each kernel's 10% quantile (the quickest tenth the guess reads,
Hyndman and Fan's type 7 as diff_quantile computes it) base -> new with its change, beside the
change of its median.
Usage: bench/quickest_tenth.py FOLDER [IMPL ...]   (IMPL default: dawn wgpu-native)
"""
import json
import os
import sys


def quantile(values, p):
    v = sorted(values)
    h = (len(v) - 1) * p
    i = int(h)
    return v[i] if i + 1 >= len(v) else v[i] + (h - i) * (v[i + 1] - v[i])


def durations(report, kernel):
    return [x["duration_ns"] / 1000 for x in report["dispatches"] if x["kernel"] == kernel and x["valid"]]


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    folder, impls = argv[1], argv[2:] or ["dawn", "wgpu-native"]
    for impl in impls:
        k = 1
        while os.path.exists(os.path.join(folder, "%s-d%d.json" % (impl, k))):
            base, new, diff = (json.load(open(os.path.join(folder, "%s-%s%d.json" % (impl, side, k))))
                               for side in "abd")
            parts = []
            for row in diff["kernels"]:
                a, b = durations(base, row["name"]), durations(new, row["name"])
                qa, qb = quantile(a, 0.1), quantile(b, 0.1)
                parts.append("%s q10 %.0f -> %.0f us (%+.0f%%), median %+.0f%%" % (
                    row["name"], qa, qb, (qb / qa - 1) * 100, (quantile(b, 0.5) / quantile(a, 0.5) - 1) * 100))
            print("%s %d: support %s; %s" % (impl, k, diff["common_support"], "; ".join(parts)))
            k += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
