#!/usr/bin/env python3
"""The rules of docs/architecture.md, checked on the built objects and the source tree.

Every object the build compiled is found in compile_commands.json, with its source; its folder
is the source's top-level folder (a generated source: the folder of the build tree it is
generated in). From the objects' symbols (nm), file A depends on file B when A uses a function
or variable that B defines. Then:

1. No two files call each other in a loop, across the whole tree.
2. Each folder calls only the folders below it (FLOORS); the library's files call only files
   listed before them in WGPROF_SOURCES (CMakeLists.txt).
3. No target compiles a source of another folder by path: a source belongs to the folder whose
   CMakeLists.txt builds it (the library's, to the top folder's).
4. libwgprof reaches WebGPU through its table of the implementation's functions only: no object
   of src/ refers to a wgpu* symbol (so a library standing in for the implementation, as
   record's does, can never be called back by wgprof's own code).
5. The environment is read in one file: no object of src/ but config.c refers to getenv.
6. Headers: a file outside a product's folder includes only that product's contract header
   (the tests also the headers in TESTED); the library's internal headers stay with their owners.
7. Every public function (WGPROF_API in include/wgprof/) is used by a test, an example or a product.

usage: check_layers.py SOURCE_DIR BUILD_DIR
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys

# What each folder's objects may call, besides themselves. The tests, benchmarks, fuzzers and
# examples are users of everything and are not listed: nothing may call them.
FLOORS = {
    "src": {"common"},
    "common": set(),
    "demo": {"src"},
    "spec": {"src", "common"},
    "diff": {"src", "common"},
    "record": {"src", "common"},
    "layer": {"src", "common"},
    "cli": {"src", "common", "demo", "spec", "diff"},
}
USERS = {"tests", "bench", "fuzz", "examples"}
# Each product's contract: the one header of its folder that other folders include.
CONTRACTS = {"common": "common.h", "demo": "demo.h", "spec": "spec.h", "diff": "diff.h", "record": "record.h",
             "layer": "layer.h", "cli": "cli.h"}
# Headers of a product's that its tests include besides its contract: the product's pure parts,
# tested without what the product runs in (record's chain planner, the layer's map and copy
# readings, each in a library of its own).
TESTED = {"record": {"record_chain_plan.h"}, "layer": {"layer_map.h", "layer_copy.h"}}
# Names that are not wgprof's though a file of wgprof's defines them: the WebGPU functions,
# dlopen, dlsym, the exec functions and _exit, which record's preload library stands in for. A call to
# them is a call to the implementation (or the system), whoever answers it.
NOT_OURS = re.compile(r"^(wgpu[A-Z]\w*|dlopen|dlsym|exec(ve|v|vp|vpe|l|lp|le)|fexecve|_exit|_Exit)$")

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def nm(obj, *flags):
    out = subprocess.run(["nm", *flags, obj], capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def symbols(obj):
    defined = {line.split()[-1] for line in nm(obj, "--defined-only") if re.match(r"^\S+ [TDBRVW] ", line)}
    used = {line.split()[-1] for line in nm(obj, "--undefined-only") if line.strip()}
    return defined, used


def objects(src, build):
    """(name, folder, source, object, target folder) for every object compiled, from compile_commands.json."""
    src = os.path.realpath(src)
    build = os.path.realpath(build)
    found = []
    for entry in json.load(open(os.path.join(build, "compile_commands.json"), encoding="utf-8")):
        args = shlex.split(entry["command"]) if "command" in entry else entry["arguments"]
        out = args[args.index("-o") + 1]
        obj = os.path.normpath(os.path.join(entry["directory"], out))
        source = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        target_dir = os.path.relpath(os.path.realpath(entry["directory"]), build)
        target_folder = "src" if target_dir == "." else target_dir.split(os.sep)[0]
        if source.startswith(build + os.sep):
            rel = os.path.relpath(source, build)
            folder = "src" if os.sep not in rel else rel.split(os.sep)[0]
        else:
            rel = os.path.relpath(source, src)
            folder = rel.split(os.sep)[0]
        if os.path.exists(obj):
            found.append((rel, folder, source, obj, target_folder))
    return found


def tarjan(graph):
    index, low, stack, on_stack, counter, loops = {}, {}, [], set(), [0], []

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return loops


def check_calls(src, objs, library_order):
    # One object per source file: the library's objects are compiled once (wgprof_objects); a
    # file compiled again for a fuzz or test copy is the same file.
    by_file = {}
    for rel, folder, _, obj, _ in objs:
        if folder in FLOORS and rel not in by_file:
            by_file[rel] = (folder, obj)
    if not by_file:
        fail("no object file of a product found")
        return
    defs, uses, folder_of = {}, {}, {}
    for rel, (folder, obj) in by_file.items():
        d, u = symbols(obj)
        defs[rel] = {s for s in d if not NOT_OURS.match(s)}
        uses[rel] = u
        folder_of[rel] = folder
    owner = {}
    for rel, syms in defs.items():
        for s in syms:
            if s in owner and owner[s] != rel:
                # The library's objects live in libwgprof and again, hidden, in record's
                # preload library; a name defined twice in one folder would be a real clash.
                if folder_of[owner[s]] == folder_of[rel]:
                    fail(f"{s} is defined in both {owner[s]} and {rel}")
                continue
            owner[s] = rel
    graph = {rel: sorted({owner[s] for s in uses[rel] if s in owner and owner[s] != rel}) for rel in defs}
    for loop in tarjan(graph):
        fail(f"these files call each other in a loop: {', '.join(loop)}")
    for rel, deps in sorted(graph.items()):
        for dep in deps:
            a, b = folder_of[rel], folder_of[dep]
            if a != b and b not in FLOORS[a]:
                fail(f"{rel} calls {dep}: {a}/ may call only {', '.join(sorted(FLOORS[a])) or 'nothing of wgprof'}")
            if a == b == "src":
                name, dep_name = os.path.basename(rel)[:-2], os.path.basename(dep)[:-2]
                if name in library_order and dep_name in library_order and \
                        library_order[dep_name] > library_order[name]:
                    fail(f"{rel} calls {dep}, which is not listed before it in WGPROF_SOURCES")
    counts = {}
    for rel in defs:
        counts[folder_of[rel]] = counts.get(folder_of[rel], 0) + 1
    print(f"calls: {len(graph)} files ({', '.join(f'{f} {n}' for f, n in sorted(counts.items()))}), "
          f"{sum(len(d) for d in graph.values())} dependencies")
    missing = sorted(set(FLOORS) - set(counts))
    if missing:
        fail(f"no objects of {', '.join(missing)}: the check would see nothing there")
    # Rules 4 and 5, on the library's objects.
    for rel, (folder, obj) in sorted(by_file.items()):
        if folder != "src":
            continue
        webgpu = sorted(s for s in uses[rel] if s.startswith("wgpu"))
        if webgpu:
            fail(f"{rel} refers to {', '.join(webgpu[:3])}{'...' if len(webgpu) > 3 else ''}: the library "
                 "calls WebGPU through its table only")
        if rel != "src/config.c" and uses[rel] & {"getenv", "secure_getenv", "__secure_getenv"}:
            fail(f"{rel} reads the environment: only src/config.c does")


def check_sources_in_place(objs):
    checked = 0
    for rel, folder, _, _, target_folder in objs:
        checked += 1
        if folder != target_folder:
            fail(f"{rel} is compiled by a target of {target_folder}/: a folder builds its own sources only "
                 f"(link {folder}/'s target instead)")
    print(f"sources: {checked} compiled, each in its own folder's targets")


def check_includes(src):
    rules = {"recorder_internal.h": r"^src/recorder[a-z_]*\.[ch]$", "store_internal.h": r"^src/store[a-z_]*\.[ch]$",
             "device_internal.h": r"^src/"}
    headers = {}
    for folder in CONTRACTS:
        for h in glob.glob(os.path.join(src, folder, "*.h")):
            headers[os.path.basename(h)] = folder
    files = [f for folder in list(FLOORS) + sorted(USERS) for f in glob.glob(os.path.join(src, folder, "**", "*.[ch]"),
                                                                               recursive=True)]
    for path in files:
        rel = os.path.relpath(path, src)
        folder = rel.split(os.sep)[0]
        text = open(path, encoding="utf-8").read()
        for header, allowed in rules.items():
            if re.search(r'#include\s+"' + re.escape(header) + '"', text) and not re.match(allowed, rel):
                fail(f"{rel} includes {header}, which belongs to {allowed}")
        for inc in re.findall(r'#include\s+"([^"]+)"', text):
            if "/" in inc and inc.startswith(".."):
                fail(f"{rel} includes {inc} by path: include a product's contract through its target")
            base = os.path.basename(inc)
            owner = headers.get(base)
            tested = folder in USERS and base in TESTED.get(owner, set())
            if owner and owner != folder and CONTRACTS[owner] != base and not tested:
                fail(f"{rel} includes {base}, internal to {owner}/ (its contract is {CONTRACTS[owner]})")
    for folder, contract in CONTRACTS.items():
        if not os.path.exists(os.path.join(src, folder, contract)):
            fail(f"{folder}/ has no contract header {contract}")
    print(f"includes: {len(files)} files checked")


def check_public_functions_used(src):
    names = set()
    for header in glob.glob(os.path.join(src, "include/wgprof/*.h")):
        text = open(header, encoding="utf-8").read()
        names |= set(re.findall(r"WGPROF_API\s+[^;(]*?\b(wgprof_\w+)\s*\(", text))
    users = ""
    for pattern in ("cli/*.c", "spec/*.c", "demo/*.c", "diff/*.c", "record/*.c", "layer/*.c", "tests/*.c", "tests/*/*.c", "tests/*.sh", "examples/*.c"):
        for path in glob.glob(os.path.join(src, pattern)):
            users += open(path, encoding="utf-8").read()
    unused = sorted(n for n in names if not re.search(r"\b" + n + r"\b", users))
    for name in unused:
        fail(f"public function {name} is used by no test, example or product")
    if not names:
        fail("no public function found")
    print(f"public functions: {len(names)}, unused {len(unused)}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    src, build = sys.argv[1], sys.argv[2]
    cmake = open(os.path.join(src, "CMakeLists.txt"), encoding="utf-8").read()
    listed = re.search(r"set\(WGPROF_SOURCES(.*?)\)", cmake, re.S).group(1).split()
    library_order = {os.path.basename(f)[:-2]: i for i, f in enumerate(listed)}
    objs = objects(src, build)
    checks = [
        lambda: check_calls(src, objs, library_order),
        lambda: check_sources_in_place(objs),
        lambda: check_includes(src),
        lambda: check_public_functions_used(src),
    ]
    failed = 0
    for check in checks:
        before = len(failures)
        check()
        failed += len(failures) > before
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
