#!/usr/bin/env python3
"""The figures of BENCHMARKS.md section 14 ("On the H200") from scripts/device-layer.sh's folder.

Prints, from the raw files alone:
  1. timestamp_cost.json: the raw Vulkan program's GPU cost per timestamp (bracketed, chain,
     back to back), medians of its rounds;
  2. phases-IMPL-{plain,layer,batch,compare}.json: the growth of bench_phases' `none` variants' GPU
     span under the layer (and under COMPARE's), per layer timestamp inside the span
     (TIMESTAMPS_IN_SPAN below), against the raw program's chain figure: the layer's GPU cost
     per timestamp and its ratio, and the host times (encode, submit, wait, wall) beside;
     2b. span.txt (where the run wrote it): how much of the `none` variants' GPU span the
     layer's per-dispatch durations account for, per chain (bench/layer_span.py);
  3. times.txt: the demo's step time per configuration, the median of its runs, and the
     throughput: the median over the rounds of plain's step time over the configuration's in
     the same round; for the layer's configurations also that throughput over the minimal
     variant's (layer-minimal: WGPROF_LAYER_TIMESTAMPS_ONLY) in the same rounds;
  4. host_cost.txt: vk_record_cost's host ns per dispatch, plain and under the layer, the median
     of the pairs' differences;
  5. layer-IMPL.json and graph-inside-IMPL.json (in results.tgz): per-kernel medians, the
     layer's against the graph profiler's `inside`, for the kernels whose pipeline serves one
     node (their names match once the entry point is cut), and each report's mean step: the sum
     of its durations over the steps.
Usage: bench/layer_summary.py FOLDER
"""
import gzip
import json
import os
import statistics
import sys

# The layer's timestamps between bench_phases' two bracketing timestamps, in its `none` variants
# (33 dispatches): Dawn records a WebGPU command buffer as one Vulkan command buffer, each
# dispatch gets one timestamp before it (the one after the last comes after the bracket's end);
# wgpu-native records each pass in a Vulkan command buffer of its own, with one of barriers alone
# before it, whose end the layer also marks with a chain per command buffer (`layer`, the
# default, and `compare`): two a dispatch. Chained across the batch (`batch`:
# WGPROF_LAYER_CHAIN=submit), one a dispatch, the tail after the batch. Seen in the layer's own
# report of bench_phases on lavapipe (rows per command buffer: 33 on Dawn; 1, in 33 buffers an
# execute, on wgpu-native) and in the batches the tests' layer below it logs.
PER_CB_TIMESTAMPS_IN_SPAN = {"dawn": {"pass_per_dispatch": 33, "single_pass": 33},
                             "wgpu-native": {"pass_per_dispatch": 66, "single_pass": 33}}
BATCH_TIMESTAMPS_IN_SPAN = {"dawn": {"pass_per_dispatch": 33, "single_pass": 33},
                            "wgpu-native": {"pass_per_dispatch": 33, "single_pass": 33}}
# Folders written before the chain across a batch passed through a command buffer without rows
# (no span.txt in them; section 17's): there wgpu-native's command buffers of barriers ended the
# chain at every pass, so each pass's command buffer got a tail after it, 32 of them inside the
# span, and the last pass's chain ran on into the readback's command buffer. In a folder with
# phases-*-percb.json, `layer` is the chain across a batch (then or now the default) and `percb`
# per command buffer; in one with phases-*-batch.json (section 18's first, written while a chain
# per command buffer was the default), `layer` is per command buffer and `batch` across.
LEGACY_BATCH_TIMESTAMPS_IN_SPAN = {"dawn": {"pass_per_dispatch": 33, "single_pass": 33},
                                   "wgpu-native": {"pass_per_dispatch": 65, "single_pass": 33}}


def load(folder, name):
    """The file's path in the folder, or its gzipped copy's (NAME.gz); None where neither is."""
    path = os.path.join(folder, name)
    return path if os.path.exists(path) else path + ".gz" if os.path.exists(path + ".gz") else None


def read_json(path):
    return json.load(gzip.open(path, "rt") if path.endswith(".gz") else open(path))


def timestamp_cost(folder):
    path = load(folder, "timestamp_cost.json")
    if not path:
        return None
    d = json.load(open(path))
    print("1. raw Vulkan, us of GPU time per timestamp (%s, %d rounds):" % (d["device"], d["rounds"]))
    for name, v in d["variants"].items():
        if "us_per_timestamp" in v:
            print("   %-13s %.4f  (step %.3f us against none's %.3f)" % (name, v["us_per_timestamp"],
                                                                     v["median_us_per_step"],
                                                                     d["variants"]["none"]["median_us_per_step"]))
    return d["variants"]["chain"]["us_per_timestamp"]


def phases(folder, raw_chain):
    print("2. the layer's GPU cost per timestamp (bench_phases' `none` span, layer - plain):")
    for impl in ("wgpu-native", "dawn"):
        spans = {}
        legacy = any(load(folder, "phases-%s-percb.json" % i) for i in ("wgpu-native", "dawn"))
        kinds = ("layer", "percb", "compare", "minimal") if legacy else ("layer", "batch", "compare")
        for which in ("plain",) + kinds:
            path = load(folder, "phases-%s-%s.json" % (impl, which))
            for v in json.load(open(path))["variants"] if path else []:
                if v["scheme"] == "none" and "gpu_span_us" in v:
                    spans.setdefault(v["layout"], {})[which] = (v["gpu_span_us"], v["median_us"])
        for layout, s in spans.items():
            print("   %-11s %-17s host, median us: plain %s" % (impl, layout, s["plain"][1]))
            for which in kinds:
                if which not in s:
                    continue
                grow = s[which][0] - s["plain"][0]
                # The minimal variant: one timestamp a dispatch, as the chain across a batch.
                chained = which in ("batch", "minimal") or (legacy and which == "layer")
                table = BATCH_TIMESTAMPS_IN_SPAN if load(folder, "span.txt") else LEGACY_BATCH_TIMESTAMPS_IN_SPAN
                n = (table if chained else PER_CB_TIMESTAMPS_IN_SPAN)[impl][layout]
                each = grow / n
                ratio = " (%.2fx the raw chain's)" % (each / raw_chain) if raw_chain else ""
                print("   %-11s %-17s %-7s span %.2f -> %.2f us: +%.2f us for %d timestamps: %.3f us each%s"
                      % ("", "", which, s["plain"][0], s[which][0], grow, n, each, ratio))
                print("   %-11s %-17s %-7s host, median us: %s" % ("", "", which, s[which][1]))


def times(folder):
    path = load(folder, "times.txt")
    if not path:
        return
    runs = {}  # (impl, config) -> {round: us a step}
    for line in open(path):
        f = line.split()
        # IMPL CONFIG ROUND STEP_US WALL_MS; a run that printed no step time (an older script
        # left STEP_US empty, today's writes FAILED(status)) is left out.
        if len(f) >= 5 and f[3] not in ("", "0"):
            try:
                runs.setdefault((f[0], f[1]), {})[f[2]] = float(f[3])
            except ValueError:
                pass

    def paired(impl, over, config):
        """Median over the rounds that ran both of over's step time / config's."""
        a, b = runs.get((impl, over), {}), runs.get((impl, config), {})
        ratios = [a[r] / b[r] for r in a if r in b]
        return (statistics.median(ratios), len(ratios)) if ratios else (None, 0)

    print("3. the demo's decode step, us a step (median of the runs; throughput: median over the rounds "
          "of plain / configuration in the same round; against the minimal variant: that over layer-minimal's):")
    for impl in ("wgpu-native", "dawn"):
        if (impl, "plain") not in runs:
            continue
        for (i, config), by_round in sorted(runs.items()):
            if i != impl:
                continue
            v = list(by_round.values())
            throughput, rounds = paired(impl, "plain", config)
            line = "   %-11s %-15s %8.1f  (%d runs, %.1f to %.1f)  throughput %.3f (%d rounds)" % (
                impl, config, statistics.median(v), len(v), min(v), max(v), throughput, rounds)
            minimal, _ = paired(impl, "plain", "layer-minimal")
            if minimal and config.startswith("layer") and config != "layer-minimal":
                line += "  %.3f of the minimal variant's" % (throughput / minimal)
            print(line)


def host(folder):
    path = load(folder, "host_cost.txt")
    if not path:
        return
    by = {}
    for line in open(path):
        f = line.split()
        if len(f) == 3:
            by.setdefault(f[1], {})[f[0]] = float(f[2])
    pairs = [p["layer"] - p["plain"] for p in by.values() if "layer" in p and "plain" in p]
    if pairs:
        print("4. host ns per dispatch (vk_record_cost): plain %s, layer %s; the layer's cost, median of %d pairs: %.1f"
              % ([p.get("plain") for p in by.values()], [p.get("layer") for p in by.values()], len(pairs),
                 statistics.median(pairs)))


def report_medians(path):
    """Per kernel: (median us, count); and the mean step: every duration's sum over the steps
    (one `embedding` a step; the layer's iterations are command buffers, not steps)."""
    d = read_json(path)
    times = {}
    for x in d["dispatches"]:
        if x.get("valid") and x.get("duration_ns") is not None:
            times.setdefault(x["kernel"], []).append(x["duration_ns"] / 1e3)
    steps = sum(len(v) for k, v in times.items() if k.split(":")[0] == "embedding")
    total = sum(sum(v) for v in times.values())
    return {k: (statistics.median(v), len(v)) for k, v in times.items()}, total / steps if steps else float("nan")


def medians(folder):
    print("5. per-kernel medians, us: the layer against the graph profiler's `inside` (same program,"
          " the reports of step 3; the kernels whose pipeline serves one node of the demo):")
    for impl in ("wgpu-native", "dawn"):
        graph_path, layer_path = load(folder, "graph-inside-%s.json" % impl), load(folder, "layer-%s.json" % impl)
        if not graph_path or not layer_path:
            continue
        (graph, graph_step), (layer, layer_step) = report_medians(graph_path), report_medians(layer_path)
        for name, (m, n) in sorted(layer.items()):
            node = name.split(":")[0]
            if node in graph:
                g = graph[node][0]
                print("   %-11s %-20s layer %8.3f (%d)  inside %8.3f  %+7.3f us  %+6.1f%%"
                      % (impl, node, m, n, g, m - g, 100 * (m / g - 1)))
        print("   %-11s %-20s layer %8.1f  inside %8.1f  (every duration over the steps; the layer's"
              " holds its copies and clears)" % (impl, "a step, mean", layer_step, graph_step))


def span(folder):
    path = load(folder, "span.txt")
    if path:
        print("2b. the layer's durations over the GPU span they time (bench/layer_span.py, span.txt):")
        for line in open(path):
            print("   " + line.rstrip())


def main(folder):
    raw_chain = timestamp_cost(folder)
    phases(folder, raw_chain)
    span(folder)
    times(folder)
    host(folder)
    medians(folder)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
