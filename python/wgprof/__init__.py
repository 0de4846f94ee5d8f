"""wgprof: where the GPU time of WebGPU compute work goes, per dispatch and per kernel.

    import wgprof
    report = wgprof.load("out.json")          # what `wgprof record --json out.json -- ...` wrote
    for k in report.slowest(5):
        print(f"{k.name:40} {k.count:6} {k.total_ns / 1e6:9.3f} ms")
    frame = report.dispatches.to_pandas()     # where pandas is installed

The `wgprof` command (also `python -m wgprof`) records programs: `wgprof record --json out.json
-- python script.py` (its README says what it measures and how).
"""

from ._install import binary, include_dir, lib_dir, pkgconfig_dir, webgpu_candidates
from ._report import (
    Adapter,
    Dispatch,
    Kernel,
    Report,
    ReportError,
    Scope,
    ScopeInstance,
    Table,
    load,
    load_sets,
)

try:
    from importlib.metadata import version as _version

    __version__ = _version("wgprof")
except Exception:  # noqa: BLE001 (run from a checkout, not installed)
    __version__ = "unknown"

__all__ = [
    "Adapter",
    "Dispatch",
    "Kernel",
    "Report",
    "ReportError",
    "Scope",
    "ScopeInstance",
    "Table",
    "binary",
    "include_dir",
    "lib_dir",
    "load",
    "load_sets",
    "pkgconfig_dir",
    "webgpu_candidates",
]
