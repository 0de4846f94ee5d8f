"""wgprof's JSON reports as typed objects.

A report is what `wgprof record --json`, `wgprof run --json` and the library's JSON writer
write (docs/reports.md). Every time is in nanoseconds and says so in its name (`_ns`); a figure a
report does not hold (an invalid dispatch's duration, a kernel without bytes) is None, never 0.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from typing import Any, List, Optional, Type, TypeVar, Union

FORMAT_VERSION = 1


class ReportError(ValueError):
    """A file that is not a wgprof report wgprof.load can read; the message names the file."""


T = TypeVar("T")


class Table(List[T]):
    """A list of rows (kernels, dispatches, scopes) that becomes a pandas DataFrame on demand."""

    def to_pandas(self):
        """The rows as a pandas DataFrame, one column a field. pandas is not a dependency of
        wgprof: this raises ImportError, saying so, where it is not installed."""
        try:
            import pandas  # noqa: PLC0415 (optional)
        except ImportError as e:
            raise ImportError("Table.to_pandas needs pandas, which wgprof does not install: pip install pandas") from e
        return pandas.DataFrame([dataclasses.asdict(row) for row in self])


def _fields(cls: Type[T], raw: Any, where: str) -> T:
    if not isinstance(raw, dict):
        raise ReportError(f"{where}: an object expected, found {type(raw).__name__}")
    return cls(**{f.name: raw.get(f.name) for f in dataclasses.fields(cls)})


def _table(cls: Type[T], raw: Any, where: str) -> Table[T]:
    if raw is None:
        return Table()
    if not isinstance(raw, list):
        raise ReportError(f"{where}: an array expected, found {type(raw).__name__}")
    return Table(_fields(cls, item, f"{where}[{i}]") for i, item in enumerate(raw))


@dataclasses.dataclass(frozen=True)
class Adapter:
    """The GPU and the WebGPU implementation (or Vulkan layer) that timed the work."""

    name: Optional[str]
    vendor: Optional[str]
    architecture: Optional[str]
    driver: Optional[str]
    implementation: Optional[str]
    backend: Optional[str]
    type: Optional[str]
    vendor_id: Optional[int]
    device_id: Optional[int]


@dataclasses.dataclass(frozen=True)
class Kernel:
    """One kernel's dispatches summarised: times in ns over its valid dispatches."""

    name: str
    id: int
    count: int
    invalid: int
    name_source: Optional[str]
    total_ns: Optional[float]
    exclusive_total_ns: Optional[float]
    mean_ns: Optional[float]
    median_ns: Optional[float]
    p95_ns: Optional[float]
    min_ns: Optional[float]
    max_ns: Optional[float]
    stddev_ns: Optional[float]
    share: Optional[float]
    bytes: Optional[float]
    flops: Optional[float]
    gbps: Optional[float]
    gflops: Optional[float]


@dataclasses.dataclass(frozen=True)
class Dispatch:
    """One timed dispatch. start_ns and end_ns count from the report's first timestamp; the
    cpu_* times are on the CPU's CLOCK_MONOTONIC where the clock fit placed them."""

    iteration: int
    index: int
    dispatch_id: int
    kernel: str
    kernel_id: int
    scope: int
    workgroups: Optional[List[int]]
    local_size: Optional[List[int]]
    global_size: Optional[List[int]]
    start_ns: Optional[float]
    end_ns: Optional[float]
    duration_ns: Optional[float]
    exclusive_ns: Optional[float]
    valid: bool
    invalid_reason: Optional[str]
    cpu_start_ns: Optional[float]
    cpu_end_ns: Optional[float]


@dataclasses.dataclass(frozen=True)
class Scope:
    """A scope (pass label, debug group) aggregated per path: count instances, times in ns."""

    name: str
    path: str
    depth: int
    parent: int
    count: int
    invalid: int
    empty: int
    total_ns: Optional[float]
    mean_ns: Optional[float]
    min_ns: Optional[float]
    max_ns: Optional[float]
    dispatch_ns: Optional[float]
    share: Optional[float]


@dataclasses.dataclass(frozen=True)
class ScopeInstance:
    """One instance of a scope, from its first dispatch's begin to its last's end."""

    name: str
    path: str
    depth: int
    iteration: int
    first_record: int
    end_record: int
    valid: bool
    start_ns: Optional[float]
    end_ns: Optional[float]
    duration_ns: Optional[float]
    dispatch_ns: Optional[float]


@dataclasses.dataclass(frozen=True)
class Report:
    """One device's report: its kernels, dispatches and scopes. `partial` is True where some
    results were never read (then `partial_reason` says why); `process` and `device` say which
    result set of a run it is (None for a report of one device alone)."""

    wgprof_version: Optional[str]
    partial: bool
    partial_reason: Optional[str]
    adapter: Optional[Adapter]
    strategy: Optional[str]
    iterations: Optional[int]
    timestamp_period_ns: Optional[float]
    timestamp_quantum_ns: Optional[float]
    records: Optional[int]
    invalid: Optional[int]
    total_ns: Optional[float]
    kernels: Table[Kernel]
    dispatches: Table[Dispatch]
    scopes: Table[Scope]
    scope_instances: Table[ScopeInstance]
    process: Optional[int] = None
    device: Optional[int] = None

    def slowest(self, n: int = 10) -> Table[Kernel]:
        """The n kernels with the most GPU time, most first (kernels with no valid dispatch last)."""
        return Table(sorted(self.kernels, key=lambda k: -(k.total_ns or 0.0))[:n])


def _report(raw: Any, where: str, process: Optional[int] = None, device: Optional[int] = None) -> Report:
    if not isinstance(raw, dict):
        raise ReportError(f"{where}: a report object expected, found {type(raw).__name__}")
    adapter = raw.get("adapter")
    return Report(
        wgprof_version=raw.get("wgprof_version"),
        partial=bool(raw.get("partial", False)),
        partial_reason=raw.get("partial_reason"),
        adapter=_fields(Adapter, adapter, f"{where}.adapter") if adapter is not None else None,
        strategy=raw.get("strategy"),
        iterations=raw.get("iterations"),
        timestamp_period_ns=raw.get("timestamp_period_ns"),
        timestamp_quantum_ns=raw.get("timestamp_quantum_ns"),
        records=raw.get("records"),
        invalid=raw.get("invalid"),
        total_ns=raw.get("total_ns"),
        kernels=_table(Kernel, raw.get("kernels"), f"{where}.kernels"),
        dispatches=_table(Dispatch, raw.get("dispatches"), f"{where}.dispatches"),
        scopes=_table(Scope, raw.get("scopes"), f"{where}.scopes"),
        scope_instances=_table(ScopeInstance, raw.get("scope_instances"), f"{where}.scope_instances"),
        process=process,
        device=device,
    )


def _read(path: Union[str, "os.PathLike[str]"]) -> Any:
    name = os.fspath(path)
    # A FIFO or a device would be read forever, or block: only a regular file is a report.
    if os.path.exists(name) and not stat.S_ISREG(os.stat(name).st_mode):
        raise ReportError(f"{name}: not a regular file")
    try:
        with open(name, encoding="utf-8") as f:
            root = json.load(f)
    except json.JSONDecodeError as e:
        raise ReportError(f"{name}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from e
    except UnicodeDecodeError as e:
        raise ReportError(f"{name}: not UTF-8 text ({e.reason} at byte {e.start})") from e
    if not isinstance(root, dict):
        raise ReportError(f"{name}: $: a wgprof report is a JSON object, found {type(root).__name__}")
    version = root.get("format_version")
    if version != FORMAT_VERSION:
        raise ReportError(
            f"{name}: $.format_version is {version!r}; this wgprof reads reports of format {FORMAT_VERSION}"
        )
    return name, root


def load_sets(path: Union[str, "os.PathLike[str]"]) -> List[Report]:
    """Every result set of the report at `path`, by process then device: one for a report of one
    device, each with its `process` and `device` for a run of several devices or processes."""
    name, root = _read(path)
    sets = root.get("result_sets")
    if sets is None:
        return [_report(root, f"{name}: $")]
    if not isinstance(sets, list):
        raise ReportError(f"{name}: $.result_sets: an array expected")
    out = []
    for i, s in enumerate(sets):
        where = f"{name}: $.result_sets[{i}]"
        if not isinstance(s, dict):
            raise ReportError(f"{where}: an object expected")
        out.append(_report(s.get("report"), f"{where}.report", s.get("process"), s.get("device")))
    return out


def load(path: Union[str, "os.PathLike[str]"], set: Optional[int] = None) -> Report:  # noqa: A002 (as diff --set)
    """The report at `path`. A run of several devices or processes wrote several result sets:
    `set` picks one, from 1, as `wgprof diff --set` does; without it such a report raises
    ReportError naming its sets (load_sets gives them all)."""
    sets = load_sets(path)
    if set is not None:
        if not isinstance(set, int) or not 1 <= set <= len(sets):
            raise ReportError(f"{os.fspath(path)}: set {set!r}: the report holds sets 1 to {len(sets)}")
        return sets[set - 1]
    if len(sets) != 1:
        names = ", ".join(f"{i + 1} (process {s.process}, device {s.device})" for i, s in enumerate(sets))
        raise ReportError(f"{os.fspath(path)}: {len(sets)} result sets ({names}): pick one with set=K, or use load_sets")
    return sets[0]

