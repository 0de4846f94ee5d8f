#!/usr/bin/env python3
"""Per-kernel medians of the same workloads on wgpu-native and Dawn, side by side.

Reads the JSON reports scripts/device-compare.sh writes (OUT/wgpu-native/SPEC-STRATEGY[-VARIANT].json,
OUT/dawn/...) and prints one Markdown table per strategy: for every kernel of the floor, the
examples and the demo, the median on wgpu-native (default checks, without loop bounding, with no
checks) and on Dawn (default, robustness off), and the ratios the text of BENCHMARKS.md uses.
usage: compare_impls.py OUT
"""
import json
import os
import sys

SPECS = ["floor", "copy", "fma_loop", "matmul", "particles", "reduction", "rms_norm", "softmax", "demo"]
COLUMNS = [("wgpu-native", ""), ("wgpu-native", "-no-loop-bounding"), ("wgpu-native", "-none"),
           ("dawn", ""), ("dawn", "-disable_robustness")]


def medians(path):
    if not os.path.exists(path):
        return {}
    return {k["name"]: k["median_ns"] / 1e3 for k in json.load(open(path)).get("kernels", [])}


def main():
    out = sys.argv[1]
    for strategy in ("pass", "inside", "chain"):
        print(f"\n### strategy {strategy}: medians in us\n")
        print("| spec | kernel | wgpu-native | no loop bounding | no checks | Dawn | Dawn, robustness off "
              "| wgpu-native / Dawn | no checks / Dawn robustness off |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for spec in SPECS:
            cols = [medians(os.path.join(out, impl, f"{spec}-{strategy}{variant}.json")) for impl, variant in COLUMNS]
            for kernel, first in cols[0].items():
                v = [c.get(kernel, float("nan")) for c in cols]
                print(f"| {spec} | {kernel} | " + " | ".join(f"{x:.2f}" for x in v) +
                      f" | {v[0] / v[3]:.3f} | {v[2] / v[4]:.3f} |")


if __name__ == "__main__":
    main()
