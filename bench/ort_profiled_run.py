#!/usr/bin/env python3
"""Runs one ONNX model on ONNX Runtime's WebGPU execution provider, with ONNX Runtime's own
profiler on or off, for bench/ort_vs_profiler.sh (which runs it under `wgprof record --via vulkan`).
It knows nothing of wgprof.

With --ort-profile PREFIX, SessionOptions.enable_profiling is on from the session's creation:
ONNX Runtime writes its Chrome-trace JSON (PREFIX_DATE.json) at the end, and its WebGPU provider
writes a timestamp query before and after each dispatch (inside the compute pass) and reports
each as an event `"cat": "Api"`, `name` node&op&program, `dur` in whole microseconds. With
--verbose, ONNX Runtime's log is at its most verbose (on stderr): one `Starting program "KEY"
(x, y, z)` line a dispatch, and each program's WGSL under its name. Every node must run on the
WebGPU provider (session.disable_cpu_ep_fallback).

The input is fixed (numpy seed 0); the model is run --warmup times, then --runs times. Prints
one JSON line: the model, the runs, the providers, ONNX Runtime's version, the profile's path,
the wall time of each measured run (ms).

usage: ort_profiled_run.py MODEL [--warmup N] [--runs N] [--ort-profile PREFIX] [--verbose]
"""
import argparse
import json
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--ort-profile", metavar="PREFIX")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    options = ort.SessionOptions()
    options.log_severity_level = 0 if args.verbose else 3
    if args.verbose:
        ort.set_default_logger_severity(0)
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    if args.ort_profile:
        options.enable_profiling = True
        options.profile_file_prefix = args.ort_profile
    session = ort.InferenceSession(args.model, options, providers=["WebGpuExecutionProvider"])
    providers = session.get_providers()
    if providers[0] != "WebGpuExecutionProvider":
        print(f"ort_profiled_run: the session selected {providers}", file=sys.stderr)
        return 3

    inp = session.get_inputs()[0]
    x = np.random.default_rng(0).standard_normal(inp.shape).astype(np.float32)
    feeds = {inp.name: x}
    for _ in range(args.warmup):
        session.run(None, feeds)
    wall_ms = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        session.run(None, feeds)
        wall_ms.append((time.perf_counter() - t0) * 1e3)
    profile = session.end_profiling() if args.ort_profile else None
    print(json.dumps({"model": args.model, "warmup": args.warmup, "runs": args.runs,
                      "providers": providers, "onnxruntime": ort.__version__,
                      "ort_profile": profile, "wall_ms": [round(w, 3) for w in wall_ms]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
