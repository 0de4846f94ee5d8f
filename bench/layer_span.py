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
Usage: bench/layer_span.py REPORT.json[.gz] FRAMES.txt [SCHEME (default none)]
"""
import bisect
import gzip
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


def counter_width(records, frames):
    """The width in bits the layer's ticks were unwrapped at (a queue family of the device counts
    fewer than 64 bits: the layer reads every family's readings at the narrowest width, so its
    ticks are 2^bits plus the reading's low bits, unwrapped from there), found as the one at which
    the frames' low bits hold records; 64 where they hold some as they are."""
    def holds(width):
        mask = (1 << width) - 1
        low = sorted(b & mask for b, _ in records)
        return any(bisect.bisect_left(low, b & mask) < bisect.bisect_right(low, e & mask)
                   for b, e in frames if (b & mask) <= (e & mask))
    for width in [64] + list(range(32, 64)):
        if holds(width):
            return width
    return 64


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    scheme = sys.argv[3] if len(sys.argv) == 4 else "none"
    opener = gzip.open if sys.argv[1].endswith(".gz") else open
    records = dispatches(json.load(opener(sys.argv[1], "rt")))
    by_layout = {}
    for line in open(sys.argv[2]):
        layout, s, _readback, b, e = line.split()
        if s == scheme:
            by_layout.setdefault(layout, []).append((int(b), int(e)))
    if not by_layout:
        sys.exit(f"{sys.argv[2]}: no frame of the {scheme} variants")
    width = counter_width(records, [f for frames in by_layout.values() for f in frames])
    if width < 64:
        mask = (1 << width) - 1
        records = sorted((b & mask, (b & mask) + (e - b)) for b, e in records)
        by_layout = {k: [(b & mask, (b & mask) + (e - b)) for b, e in v if (b & mask) <= (e & mask)]
                     for k, v in by_layout.items()}
        print(f"(the layer's ticks are unwrapped at {width} bits: compared by their low {width} bits)")
    begins = [r[0] for r in records]
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
            where = (f"records' begins {begins[0]} to {begins[-1]} ticks" if begins else "no valid record") + \
                f", frames {frames[0][0]} to {frames[-1][1]}"
            print(f"{scheme} {layout}: {len(frames)} frames, no dispatch record inside any ({where})")
            continue
        print(f"{scheme} {layout}: {len(frames)} frames, dispatches per frame {sorted(counts)}, "
              f"durations over span: median {statistics.median(ratios):.4f} "
              f"(min {min(ratios):.4f}, max {max(ratios):.4f}), total {total_sum / total_span:.4f}")


if __name__ == "__main__":
    main()
