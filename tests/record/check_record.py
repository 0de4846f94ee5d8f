"""Compares what a program says it submitted (its `manifest` and `workgroups` lines on stdout,
tests/record/record_app.c) with what `wgprof record` reported for it (the JSON report, and the
per-kernel table on stderr).

usage: check_record.py exact|partial STDOUT... -- REPORT.json... [--stderr FILE]
  exact    every submitted dispatch is in the reports, valid, under its name, with its
           workgroup counts, and nothing else is; the table on stderr lists each kernel
  partial  (a program that died) at least one valid record, and none that the program did not
           submit: per kernel no more records than it submitted
A program prints `maybe KERNEL COUNT` for dispatches it submitted after doing something that
lets a profiler off timing them (releasing its device first): in exact mode such a kernel needs
at least its `manifest` count of valid records and at most manifest + maybe records, valid or
not, and its workgroup counts are not compared.
The encoder's own GPU work between its compute passes is in the manifest by the name the
profiler gives it, "(copy, clear)" and the like, with no workgroups.
A manifest name may hold `*` for the part the profiler chooses (the hash of the code of a
pipeline with neither label nor module label); each such name must match one name in the reports.
A REPORT that holds several result sets (`result_sets`: a run of several devices or processes)
stands for each of its sets' reports; REPORT#N for its Nth set alone (from 1).
Exits 0 where all holds, 1 with the differences on stderr.
"""
import collections
import fnmatch
import json
import re
import sys

MAX_PLAUSIBLE_NS = 600e9  # a dispatch of these small programs lasting ten minutes is garbage


def read_manifest(paths):
    counts = collections.Counter()
    maybe = collections.Counter()
    shapes = collections.Counter()
    for path in paths:
        for line in open(path):
            line = line.rstrip("\n")
            if line.startswith("manifest "):
                name, count = line[len("manifest "):].rsplit(" ", 1)
                counts[name] += int(count)
            elif line.startswith("maybe "):
                name, count = line[len("maybe "):].rsplit(" ", 1)
                maybe[name] += int(count)
            elif line.startswith("workgroups "):
                name, x, y, z, count = line[len("workgroups "):].rsplit(" ", 4)
                shapes[(name, (int(x), int(y), int(z)))] += int(count)
    return counts, maybe, shapes


def resolve_names(manifest, reported):
    """Maps each reported name to a manifest name; returns the map and the problems."""
    problems = []
    mapping = {}
    for name in reported:
        if name in manifest:
            mapping[name] = name
            continue
        matches = [m for m in manifest if "*" in m and fnmatch.fnmatchcase(name, m)]
        if len(matches) == 1:
            mapping[name] = matches[0]
        else:
            problems.append(f"kernel {name!r} is in the report but the program ran no such kernel"
                            f" (it ran {sorted(manifest)})")
    for pattern in (m for m in manifest if "*" in m):
        matched = sorted(n for n, m in mapping.items() if m == pattern)
        if len(matched) > 1:
            problems.append(f"one pipeline reported under several names: {matched} (for {pattern!r})")
    return mapping, problems


def load_reports(paths, problems):
    """(name, report) for each report the paths stand for: a file's sets each, or FILE#N's one."""
    for spec in paths:
        path, _, index = spec.partition("#")
        try:
            report = json.load(open(path))
        except (OSError, ValueError) as e:
            problems.append(f"cannot read the report {path}: {e}")
            continue
        sets = report.get("result_sets") if isinstance(report, dict) else None
        if sets is None:
            if index:
                problems.append(f"{path} holds one report, not result sets: {spec}")
            else:
                yield path, report
            continue
        chosen = range(len(sets)) if not index else [int(index) - 1]
        for i in chosen:
            if not 0 <= i < len(sets):
                problems.append(f"{path} holds {len(sets)} result sets: no set {i + 1}")
                continue
            yield f"{path}#{i + 1}", sets[i]["report"]


def main(argv):
    if len(argv) < 4 or argv[1] not in ("exact", "partial") or "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    mode = argv[1]
    sep = argv.index("--")
    outputs, rest = argv[2:sep], argv[sep + 1:]
    stderr_path = None
    if "--stderr" in rest:
        i = rest.index("--stderr")
        stderr_path = rest[i + 1]
        rest = rest[:i] + rest[i + 2:]
    manifest, maybe, shapes = read_manifest(outputs)
    problems = []
    if not manifest:
        problems.append(f"the program printed no manifest line ({outputs})")

    records = []
    mapping = {}
    for path, report in load_reports(rest, problems):
        if not isinstance(report.get("dispatches"), list) or not isinstance(report.get("kernels"), list):
            problems.append(f"{path}: no 'dispatches' or 'kernels' list")
            continue
        records += report["dispatches"]
        by_kernel = collections.Counter(d["kernel"] for d in report["dispatches"])
        table = {k["name"]: k["count"] + k.get("invalid", 0) for k in report["kernels"]}
        if table != dict(by_kernel):
            problems.append(f"{path}: the kernels table {table} disagrees with its dispatches {dict(by_kernel)}")
        # Per report: an index the profiler gives is its own per process.
        names, name_problems = resolve_names(manifest + maybe, by_kernel)
        mapping.update(names)
        problems += [f"{path}: {p}" for p in name_problems]

    valid = [d for d in records if d.get("valid") is True]
    invalid = [d for d in records if d.get("valid") is not True]
    reported = collections.Counter(d["kernel"] for d in records)
    as_manifest = collections.Counter()
    for name, n in reported.items():
        as_manifest[mapping.get(name, name)] += n

    for d in valid:
        start, end, dur = d.get("start_ns"), d.get("end_ns"), d.get("duration_ns")
        if not all(isinstance(v, (int, float)) for v in (start, end, dur)) or dur < 0 or end < start \
                or dur > MAX_PLAUSIBLE_NS:
            problems.append(f"implausible times in a valid record: {d}")
            break

    if mode == "exact":
        promised = [d for d in invalid if mapping.get(d["kernel"], d["kernel"]) not in maybe]
        if promised:
            reasons = collections.Counter(str(d.get("invalid_reason")) for d in promised)
            problems.append(f"{len(promised)} of {len(records)} records invalid: {dict(reasons)}")
        strict = {k: n for k, n in as_manifest.items() if k not in maybe}
        wanted = {k: n for k, n in manifest.items() if k not in maybe}
        if strict != wanted:
            problems.append(f"dispatches per kernel: reported {strict}, submitted {wanted}")
            if stderr_path:  # what the profiler said about the difference, if anything
                said = [l.strip() for l in open(stderr_path, errors="replace") if "not timed" in l or "untimed" in l]
                problems += [f"wgprof said: {l}" for l in said]
        if valid and sum(d["duration_ns"] for d in valid) <= 0:
            problems.append("every valid record lasts 0 ns")
        valid_as_manifest = collections.Counter(mapping.get(d["kernel"], d["kernel"]) for d in valid)
        for name in maybe:
            if valid_as_manifest[name] < manifest[name] or as_manifest[name] > manifest[name] + maybe[name]:
                problems.append(f"{name!r}: {valid_as_manifest[name]} valid of {as_manifest[name]} records, want at"
                                f" least {manifest[name]} valid and at most {manifest[name] + maybe[name]} in all")
        got_shapes = collections.Counter()
        for d in records:
            name = mapping.get(d["kernel"], d["kernel"])
            # Indirect sizes are on the GPU, not in the call; the encoder's own work ("(copy)") has none.
            if not name.endswith(" (indirect)") and not name.startswith("(") and name not in maybe:
                got_shapes[(name, tuple(d.get("workgroups") or ()))] += 1
        shapes = collections.Counter({s: n for s, n in shapes.items() if s[0] not in maybe})
        if got_shapes != shapes:
            problems.append(f"workgroups: reported {dict(got_shapes)}, submitted {dict(shapes)}")
        if stderr_path:
            text = open(stderr_path, errors="replace").read()
            for name, n in reported.items():
                if not re.search(re.escape(name) + r"\s+" + str(n) + r"\b", text):
                    problems.append(f"the table on stderr has no row '{name}  {n}'")
    else:
        if not valid:
            problems.append(f"no valid record ({len(records)} records in all)")
        for name, n in as_manifest.items():
            submitted = manifest.get(name, 0) + maybe.get(name, 0)
            if n > submitted:
                problems.append(f"{n} records of {name!r}, but the program submitted {submitted}")

    for p in problems:
        print("check_record: " + p, file=sys.stderr)
    if not problems:
        agree = "match" if mode == "exact" else "are within"
        print(f"check_record: {len(valid)} valid records of {len(as_manifest)} kernels {agree} what the program submitted")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
