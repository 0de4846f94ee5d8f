#!/usr/bin/env python3
"""The rules of docs/architecture.md, checked on the source tree and the built objects:

1. No two files call each other in a loop: from the objects' symbols (nm), file A depends on
   file B when A uses a function or variable that B defines; the library's files and the CLI's
   files must each form a graph without cycles, and each library file may call only files
   listed before it in WGPROF_SOURCES (CMakeLists.txt): the floors.
2. Internal headers stay with their owners: recorder_internal.h is included by src/recorder*.c
   only, store_internal.h by src/store*.c only, device_internal.h by nothing outside src/.
3. The environment is read in one file: getenv appears in src/config.c only.
4. Every public function (WGPROF_API in include/wgprof/) is used by a test, an example or the CLI.

usage: check_layers.py SOURCE_DIR BUILD_DIR
"""
import glob
import os
import re
import subprocess
import sys

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", obj], capture_output=True, text=True, check=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if re.match(r"^\S+ [TDBR] ", line)}
    out = subprocess.run(["nm", "--undefined-only", obj], capture_output=True, text=True, check=True).stdout
    used = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return defined, used


def check_no_cycles(label, objects, floors=None):
    if not objects:
        fail(f"{label}: no object files found")
        return
    defs, uses = {}, {}
    for obj in objects:
        name = os.path.basename(obj).split(".")[0]
        defs[name], uses[name] = symbols(obj)
    if not defs:
        fail(f"{label}: no object file of a current source")
        return
    owner = {sym: name for name, syms in defs.items() for sym in syms}
    graph = {name: sorted({owner[s] for s in uses[name] if s in owner and owner[s] != name}) for name in defs}
    # Tarjan's strongly connected components: any component of two or more files is a loop.
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
    for loop in loops:
        fail(f"{label}: these files call each other in a loop: {', '.join(loop)}")
    for name, deps in sorted(graph.items()):
        for dep in deps:
            if floors is not None and (name not in floors or dep not in floors or floors[dep] > floors[name]):
                fail(f"{label}: {name} calls {dep}, which is not listed before it in WGPROF_SOURCES")
    print(f"{label}: {len(graph)} files, {sum(len(d) for d in graph.values())} dependencies, "
          f"{len(loops)} loops")


def check_includes(src):
    rules = {"recorder_internal.h": r"^src/recorder[a-z_]*\.[ch]$", "store_internal.h": r"^src/store[a-z_]*\.[ch]$",
             "device_internal.h": r"^src/"}
    files = [f for pattern in ("src/*.[ch]", "tools/*.[ch]", "tests/*.[ch]", "bench/*.[ch]", "fuzz/*.[ch]",
                               "examples/*.[ch]") for f in glob.glob(os.path.join(src, pattern))]
    for path in files:
        rel = os.path.relpath(path, src)
        text = open(path, encoding="utf-8").read()
        for header, allowed in rules.items():
            if re.search(r'#include\s+"' + re.escape(header) + '"', text) and not re.match(allowed, rel):
                fail(f"{rel} includes {header}, which belongs to {allowed}")
        if rel.startswith("src/") and rel != "src/config.c" and re.search(r"\bgetenv\s*\(", text):
            fail(f"{rel} calls getenv: the environment is read in src/config.c only")
    print(f"includes: {len(files)} files checked")


def check_public_functions_used(src):
    names = set()
    for header in glob.glob(os.path.join(src, "include/wgprof/*.h")):
        text = open(header, encoding="utf-8").read()
        names |= set(re.findall(r"WGPROF_API\s+[^;(]*?\b(wgprof_\w+)\s*\(", text))
    users = ""
    for pattern in ("tools/*.c", "tests/*.c", "tests/*.sh", "examples/*.c"):
        for path in glob.glob(os.path.join(src, pattern)):
            users += open(path, encoding="utf-8").read()
    unused = sorted(n for n in names if not re.search(r"\b" + n + r"\b", users))
    for name in unused:
        fail(f"public function {name} is used by no test, example or the CLI")
    print(f"public functions: {len(names)}, unused {len(unused)}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    src, build = sys.argv[1], sys.argv[2]
    def current(folder, pattern):
        """Objects of sources that still exist (a build folder keeps those of deleted ones)."""
        return [o for o in glob.glob(os.path.join(build, pattern))
                if os.path.exists(os.path.join(src, folder, os.path.basename(o)[:-2]))]

    cmake = open(os.path.join(src, "CMakeLists.txt"), encoding="utf-8").read()
    listed = re.search(r"set\(WGPROF_SOURCES(.*?)\)", cmake, re.S).group(1).split()
    floors = {os.path.basename(f)[:-2]: i for i, f in enumerate(listed)}
    checks = [
        lambda: check_no_cycles("library", current("src", "CMakeFiles/wgprof_objects.dir/src/*.o"), floors),
        lambda: check_no_cycles("cli", current("tools", "tools/CMakeFiles/wgprof_*.dir/*.o")),
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
