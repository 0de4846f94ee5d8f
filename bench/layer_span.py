#!/usr/bin/env python3
"""Do the layer's per-dispatch durations add up to the GPU span of the work they time?

bench_phases run under `wgprof record --via vulkan --json REPORT` with `--frames FRAMES` writes,
for each execute it brackets with two timestamps of its own, the two readings (ticks of the GPU's
clock, the clock of the layer's records too). Each frame of the `none` variants (no timestamps
of bench_phases' own inside) takes the layer's dispatch records whose begin lies inside it;
their durations added up, over the frame's span, say how much of the GPU's time the report
accounts for (1.0: all of it; the rest lies between the layer's timestamps: before the first
dispatch, between command buffers, after the last).

Prints, per layout of the `none` variant: frames, the dispatches found per frame (the step's
nodes, the same in every frame, or the script says otherwise), and the sum over the span: the
median of the frames and the total of all frames.
Usage: bench/layer_span.py REPORT.json FRAMES.txt [SCHEME (default none)]
"""
import bisect
import json
import statistics
import sys


def dispatches(report):
    """(begin, end) ticks of every valid record of a kernel (not transfer work), by begin."""
    sets = [s["report"] for s in report["result_sets"]] if "result_sets" in report else [report]
    out = []
    for s in sets:
        for d in s["dispatches"]:
            if d["valid"] and not d["kernel"].startswith("("):
                out.append((d["begin_ticks"], d["end_ticks"]))
    return sorted(out)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    scheme = sys.argv[3] if len(sys.argv) == 4 else "none"
    records = dispatches(json.load(open(sys.argv[1])))
    begins = [r[0] for r in records]
    by_layout = {}
    for line in open(sys.argv[2]):
        layout, s, _readback, b, e = line.split()
        if s == scheme:
            by_layout.setdefault(layout, []).append((int(b), int(e)))
    if not by_layout:
        sys.exit(f"{sys.argv[2]}: no frame of the {scheme} variants")
    for layout, frames in sorted(by_layout.items()):
        ratios, counts, total_sum, total_span = [], set(), 0, 0
        for b, e in frames:
            lo, hi = bisect.bisect_left(begins, b), bisect.bisect_right(begins, e)
            inside = records[lo:hi]
            busy = sum(end - begin for begin, end in inside)
            counts.add(len(inside))
            if e > b and inside:
                ratios.append(busy / (e - b))
                total_sum += busy
                total_span += e - b
        if not ratios:
            print(f"{scheme} {layout}: {len(frames)} frames, no dispatch record inside any")
            continue
        print(f"{scheme} {layout}: {len(frames)} frames, dispatches per frame {sorted(counts)}, "
              f"durations over span: median {statistics.median(ratios):.4f} "
              f"(min {min(ratios):.4f}, max {max(ratios):.4f}), total {total_sum / total_span:.4f}")


if __name__ == "__main__":
    main()
