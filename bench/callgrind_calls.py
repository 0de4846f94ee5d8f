#!/usr/bin/env python3
"""The calls one library's functions make to the C library's mutex and allocation functions, in a
callgrind output file (their instructions are counted in libc, not in the library's own, which
`callgrind_annotate --inclusive=no FILE | grep NAME` lists).

    python3 bench/callgrind_calls.py [--object NAME] FILE...

NAME is a part of the library's path (libwgprof_record by default). Prints one line a file, each
libc function's calls from the library. Two files of runs that differ only in their step count
give the calls a step (BENCHMARKS.md section 23)."""
import argparse
import collections
import gzip
import re
import sys

WATCHED = ("pthread_mutex_lock", "pthread_mutex_unlock", "malloc", "calloc", "realloc", "free")


def named(table, text):
    """callgrind's name compression: "(id) name" defines id, "(id)" refers to it."""
    m = re.match(r"\((\d+)\)(?: (.*))?$", text)
    if not m:
        return text
    if m.group(2):
        table[m.group(1)] = m.group(2)
    return table.get(m.group(1), "?")


def measure(path, wanted):
    opener = gzip.open if path.endswith(".gz") else open
    objects, functions = {}, {}
    in_object = False
    callee = None
    after_calls = False
    calls = collections.Counter()
    with opener(path, "rt") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("ob="):
                obj = named(objects, line[3:])
            elif line.startswith("fn="):
                named(functions, line[3:])
                in_object = wanted in obj
            elif line.startswith("cob="):
                named(objects, line[4:])
            elif line.startswith("cfn="):
                callee = named(functions, line[4:])
            elif line.startswith("calls="):
                count = int(line.split("=", 1)[1].split()[0])
                after_calls = True
            elif after_calls:
                # The cost line after calls= is the call's inclusive cost: not the caller's own.
                after_calls = False
                base = callee.split("'")[0].split("@@")[0] if callee else ""
                if in_object and base in WATCHED:
                    calls[base] += count
    return calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--object", default="libwgprof_record")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    for path in args.files:
        try:
            calls = measure(path, args.object)
        except (OSError, ValueError) as e:
            print(f"callgrind_calls.py: {path}: {e}", file=sys.stderr)
            return 2
        listed = " ".join(f"{name} {calls[name]}" for name in WATCHED)
        print(f"{path}: {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
