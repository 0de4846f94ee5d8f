"""Where the wheel put wgprof's files, and the WebGPU implementations installed beside it.

The wheel holds wgprof's own files only: bin/wgprof, lib/ (libwgprof.so, libwgprof_record.so,
the Vulkan layer and its manifests, pkgconfig/wgprof.pc), include/ (wgprof.h and the webgpu.h it
includes). No WebGPU implementation, Vulkan loader or driver comes with it: the CLI uses the
system's loader and drivers, and the implementation found here or named with --webgpu.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from typing import List

_HERE = os.path.dirname(os.path.abspath(__file__))


def binary() -> str:
    """The wgprof command-line program inside the package."""
    return os.path.join(_HERE, "bin", "wgprof")


def lib_dir() -> str:
    """The folder of libwgprof.so (link with -L and -Wl,-rpath to it, or use pkg-config)."""
    return os.path.join(_HERE, "lib")


def include_dir() -> str:
    """The folder holding wgprof/wgprof.h and webgpu/webgpu.h."""
    return os.path.join(_HERE, "include")


def pkgconfig_dir() -> str:
    """The folder of wgprof.pc: PKG_CONFIG_PATH=$(python -m wgprof --pkgconfig-dir) pkg-config
    --cflags --libs wgprof (add the -l of the WebGPU implementation you link)."""
    return os.path.join(lib_dir(), "pkgconfig")


def _package_files(distribution: str, prefix: str) -> List[str]:
    try:
        files = importlib.metadata.files(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        return []
    found = []
    for f in files:
        name = os.path.basename(str(f))
        if name.startswith(prefix) and (name.endswith(".so") or ".so." in name):
            path = os.path.abspath(str(f.locate()))
            if os.path.isfile(path):
                found.append(path)
    return sorted(found)


def webgpu_candidates() -> List[str]:
    """WebGPU libraries installed as Python packages, in the order the CLI tries them before the
    system's: the `wgpu` package's wgpu-native (pip install 'wgprof[wgpu]'), then any installed
    distribution's Dawn (libwebgpu_dawn.so)."""
    found = []
    if importlib.util.find_spec("wgpu") is not None:
        found += _package_files("wgpu", "libwgpu_native")
    for dist in importlib.metadata.distributions():
        name = dist.metadata.get("Name") or ""
        if name.lower() in ("wgpu", "wgprof"):
            continue
        for f in dist.files or []:
            base = os.path.basename(str(f))
            if base.startswith("libwebgpu_dawn") and base.endswith(".so"):
                path = os.path.abspath(str(f.locate()))
                if os.path.isfile(path) and path not in found:
                    found.append(path)
    return found
