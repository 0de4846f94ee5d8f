#!/usr/bin/env python3
"""The layer's report in a results folder holds every dispatch a benchmark made, all valid.

usage: bench/layer_report_check.py FOLDER DISPATCHES
FOLDER is the private results folder a benchmark gave the layer (WGPROF_RECORD_DIR); its first
PID.N.json is read. Prints one line saying so; exits 1 (with what it found) where there is no
report, it is partial, or it holds another count or an invalid dispatch."""
import glob
import json
import sys


def main():
    folder, want = sys.argv[1], int(sys.argv[2])
    reports = sorted(glob.glob(f"{folder}/*.json"))
    if not reports:
        sys.exit(f"layer_report_check: the layer wrote no report in {folder}")
    r = json.load(open(reports[0]))
    found = (r["records"], r["invalid"], r["partial"])
    if found != (want, 0, False):
        sys.exit(f"layer_report_check: {found[0]} dispatches, {found[1]} invalid, partial {found[2]}; want {want}, all valid")
    print("--- the layer's report:", r["records"], "dispatches, all valid")


if __name__ == "__main__":
    main()
